// SPDX-License-Identifier: MIT
// Launch commands out: `vllm serve`, SGLang, `llama-server`, an Ollama Modelfile and a DeepSpeed config for
// resolved settings, with the options their readers (readers/) map back to the same settings, and the settings
// no option carries listed by name.
#include "llm_memory/emit.hpp"

#include <string>

#include "emit_training.hpp"
#include "text.hpp"

namespace llm_memory {

namespace {

// emit_formats spells the table's formats in its order (the CLI's help and errors read the one, the page the other).
constexpr bool table_spells_formats() {
  std::string_view rest = emit_formats;
  for (const auto& row : emit_table) {
    if (!rest.starts_with(row.format)) return false;
    rest.remove_prefix(row.format.size());
    if (!rest.empty() && rest.front() != '|') return false;
    if (!rest.empty()) rest.remove_prefix(1);
  }
  return rest.empty();
}
static_assert(table_spells_formats(), "emit_formats and emit_table name the same formats in the same order");

// The command's words, one option per line.
struct command {
  std::string text;
  std::vector<std::string> not_carried;

  void add(std::string_view option, const std::string& value = "") {
    text += " \\\n  " + std::string(option) + (value.empty() ? "" : " " + value);
  }
};

std::string whole(double v) { return detail::format_number(v); }

// vLLM names the weights by --dtype (16- and 32-bit) or --quantization (vllm_serve.cpp reads both back).
void vllm_weights(const setting_values& v, command& c) {
  const std::string& w = v.weights_dtype;
  if (w == "bf16" || w == "fp16" || w == "fp32")
    return c.add("--dtype", w == "bf16" ? "bfloat16" : w == "fp16" ? "float16" : "float32");
  if (w == "awq" || w == "gptq" || w == "fp8" || w == "mxfp4") return c.add("--quantization", w);
  if (w == "nf4") return c.add("--quantization", "bitsandbytes");
  c.not_carried.push_back("weights_dtype");
}

command vllm(const setting_values& v) {
  command c{"vllm serve " + (v.model.empty() ? std::string("MODEL") : v.model), {}};
  if (v.model.empty()) c.not_carried.push_back("model");
  c.add("--max-model-len", whole(static_cast<double>(v.seq)));
  c.add("--tensor-parallel-size", whole(static_cast<double>(v.tp)));
  c.add("--pipeline-parallel-size", whole(static_cast<double>(v.pp)));
  c.add("--gpu-memory-utilization", whole(v.gpu_memory_utilization));
  if (v.max_num_seqs > 0) c.add("--max-num-seqs", whole(static_cast<double>(v.max_num_seqs)));
  if (v.max_num_batched_tokens > 0)
    c.add("--max-num-batched-tokens", whole(static_cast<double>(v.max_num_batched_tokens)));
  c.add("--block-size", whole(static_cast<double>(v.block_size)));
  if (v.kv_dtype == "auto" || v.kv_dtype == "fp8" || v.kv_dtype == "bf16")
    c.add("--kv-cache-dtype", v.kv_dtype == "bf16" ? "bfloat16" : v.kv_dtype);
  else
    c.not_carried.push_back("kv_dtype");
  vllm_weights(v, c);
  // No CUDA graphs is --enforce-eager; a graph size is vLLM's own measurement, not an option.
  if (v.cuda_graph_memory == 0)
    c.add("--enforce-eager");
  else
    c.not_carried.push_back("cuda_graph_memory");
  return c;
}

// SGLang's launch_server (readers/sglang.cpp reads each option back; server_args.py names them).
command sglang(const setting_values& v) {
  command c{"python -m sglang.launch_server", {}};
  c.add("--model-path", v.model.empty() ? std::string("MODEL") : v.model);
  if (v.model.empty()) c.not_carried.push_back("model");
  c.add("--tp-size", whole(static_cast<double>(v.tp)));
  c.add("--pp-size", whole(static_cast<double>(v.pp)));
  c.add("--context-length", whole(static_cast<double>(v.seq)));
  if (v.mem_fraction_static > 0) c.add("--mem-fraction-static", whole(v.mem_fraction_static));
  // 0 (the whole prompt in one pass) is SGLang's -1.
  c.add("--chunked-prefill-size",
        v.max_num_batched_tokens > 0 ? whole(static_cast<double>(v.max_num_batched_tokens)) : "-1");
  c.add("--page-size", whole(static_cast<double>(v.block_size)));
  if (v.kv_dtype == "auto" || v.kv_dtype == "fp8" || v.kv_dtype == "bf16")
    c.add("--kv-cache-dtype", v.kv_dtype == "fp8" ? "fp8_e4m3" : v.kv_dtype == "bf16" ? "bfloat16" : "auto");
  else
    c.not_carried.push_back("kv_dtype");
  vllm_weights(v, c);  // the same --dtype and --quantization names
  if (v.weights_dtype == "int8") {
    c.not_carried.pop_back();
    c.add("--quantization", "w8a8_int8");
  }
  return c;
}

// The GGUF file llama-server loads: the preset and the weights' type, as read_gguf_name() reads them back.
std::string gguf_file(const setting_values& v, command& c) {
  const std::string& w = v.weights_dtype;
  const bool gguf_type = w.starts_with("q") || w.starts_with("iq") || w == "fp16" || w == "bf16" || w == "fp32";
  if (!gguf_type) c.not_carried.push_back("weights_dtype");
  if (v.model.empty()) c.not_carried.push_back("model");
  std::string type = w == "fp16" ? "F16" : w == "fp32" ? "F32" : w;
  for (char& ch : type)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  return (v.model.empty() ? std::string("MODEL") : v.model) + (gguf_type ? "-" + type : "") + ".gguf";
}

command llamacpp(const setting_values& v) {
  command c{"llama-server", {}};
  c.add("-m", gguf_file(v, c));
  // -c is the context of all slots: each of the -np slots holds -c / -np (llama-context.cpp n_ctx_seq).
  c.add("-c", whole(static_cast<double>(v.seq) * static_cast<double>(v.batch)));
  c.add("-np", whole(static_cast<double>(v.batch)));
  c.add("-ngl", whole(static_cast<double>(v.n_gpu_layers)));
  if (v.n_cpu_moe > 0) c.add("--n-cpu-moe", whole(static_cast<double>(v.n_cpu_moe)));
  c.add("-b", whole(static_cast<double>(v.n_batch)));
  c.add("-ub", whole(static_cast<double>(v.n_ubatch)));
  if (v.attention == "flash" || v.attention == "eager")
    c.add("-fa", v.attention == "flash" ? "on" : "off");
  else
    c.not_carried.push_back("attention");
  c.add("-ctk", v.cache_type_k);
  c.add("-ctv", v.cache_type_v);
  return c;
}

// An Ollama Modelfile (readers/ollama.cpp read_modelfile reads FROM and PARAMETER back) and, as a comment, the
// `ollama serve` environment that carries the slots, flash attention and the KV type (envconfig/config.go).
command ollama(const setting_values& v) {
  command c;
  c.text = "FROM ./" + gguf_file(v, c) + "\nPARAMETER num_ctx " + whole(static_cast<double>(v.seq)) +
           "\nPARAMETER num_gpu " + whole(static_cast<double>(v.n_gpu_layers)) +
           "\n# OLLAMA_NUM_PARALLEL=" + whole(static_cast<double>(v.batch));
  if (v.attention == "flash" || v.attention == "eager")
    c.text += std::string(" OLLAMA_FLASH_ATTENTION=") + (v.attention == "flash" ? "1" : "0");
  else
    c.not_carried.push_back("attention");
  const std::string kv = v.kv_dtype == "fp16" ? "f16" : v.kv_dtype;
  if (kv == "f16" || kv == "q8_0" || kv == "q4_0")
    c.text += " OLLAMA_KV_CACHE_TYPE=" + kv;
  else if (kv != "auto")
    c.not_carried.push_back("kv_dtype");
  c.text += " ollama serve";
  if (v.n_cpu_moe > 0) c.not_carried.push_back("n_cpu_moe");  // Ollama has no --n-cpu-moe
  return c;
}

// A DeepSpeed config (readers/deepspeed_config.cpp reads it back; the keys of deepspeedai/DeepSpeed
// deepspeed/runtime/config.py, zero/config.py, zero/offload_config.py): the micro-batch, the accumulation, the
// 16-bit engine and ZeRO with its offload. It names no model, sequence or device count: they go beside it (the
// training script's own arguments, or the launcher's).
command deepspeed(const setting_values& v) {
  command c{"{\n  \"train_micro_batch_size_per_gpu\": " + whole(static_cast<double>(v.batch)) +
                ",\n  \"gradient_accumulation_steps\": " + whole(static_cast<double>(v.grad_accum)) + ",\n",
            {"model", "seq", "devices"}};
  if (v.weights_dtype == "bf16" || v.weights_dtype == "fp16")
    c.text += "  \"" + v.weights_dtype + "\": {\"enabled\": true},\n";
  else
    c.not_carried.push_back("weights_dtype");  // fp32 is no engine option; 4- and 8-bit weights are not DeepSpeed's
  c.text += "  \"zero_optimization\": {\n    \"stage\": " + whole(static_cast<double>(v.zero));
  if (v.offload != "none") c.text += ",\n    \"offload_optimizer\": {\"device\": \"cpu\"}";
  if (v.offload == "optimizer+params") c.text += ",\n    \"offload_param\": {\"device\": \"cpu\"}";
  c.text += "\n  }\n}";
  return c;
}

}  // namespace

std::vector<emit_format_row> emit_formats_for(const run_spec& spec) {
  std::vector<emit_format_row> out;
  if (spec.eval()) return out;  // evaluation runs the framework's forward pass: no recipe is written for it
  for (const auto& row : emit_table)
    if (row.training ? spec.train() && row.framework == spec.framework : !spec.train() && row.runtime == spec.runtime)
      out.push_back(row);
  return out;
}

result<emitted> emit(const setting_values& values, std::string_view format) {
  command c;
  if (format == "vllm")
    c = vllm(values);
  else if (format == "sglang")
    c = sglang(values);
  else if (format == "llamacpp")
    c = llamacpp(values);
  else if (format == "ollama")
    c = ollama(values);
  else if (format == "deepspeed")
    c = deepspeed(values);
  else if (auto training = detail::emit_training(values, format))
    return emitted{training->text + "\n", training->not_carried};
  else
    return error{"emit", "must be one of " + std::string(emit_formats) + ", got " + detail::quoted(format)};
  return emitted{c.text + "\n", c.not_carried};
}

}  // namespace llm_memory
