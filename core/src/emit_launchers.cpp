// SPDX-License-Identifier: MIT
// Launchers out: a Megatron-LM pretraining command (readers/megatron.cpp reads it back), an Unsloth script
// (readers/unsloth.cpp) and the llm-memory command line itself (readers/llm_memory_cli.cpp), with the settings no
// option carries listed by name. docs/readers.md,
// "Emit".
#include <cstdint>
#include <map>
#include <string>

#include "emit_training.hpp"
#include "llm_memory/resolve.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

std::string whole(std::int64_t v) { return format_number(static_cast<double>(v)); }

struct flags {
  emitted e;
  void add(std::string_view option, const std::string& value = "") {
    e.text += " \\\n  " + std::string(option) + (value.empty() ? "" : " " + value);
  }
};

// The model's shape as Megatron's flags (megatron/training/arguments.py _add_network_size_args): the preset itself
// has no flag, its shape is what Megatron builds.
void megatron_shape(const setting_values& v, flags& f) {
  f.add("--num-layers", whole(v.num_hidden_layers));
  f.add("--hidden-size", whole(v.hidden_size));
  f.add("--num-attention-heads", whole(v.num_attention_heads));
  if (v.intermediate_size > 0) f.add("--ffn-hidden-size", whole(v.intermediate_size));
  if (v.num_key_value_heads > 0 && v.num_key_value_heads != v.num_attention_heads) {
    f.add("--group-query-attention");
    f.add("--num-query-groups", whole(v.num_key_value_heads));
  }
  // --kv-channels (a head width other than hidden / heads) is not read back.
  if (v.head_dim > 0 && v.head_dim * v.num_attention_heads != v.hidden_size) f.e.not_carried.emplace_back("head_dim");
  if (v.mlp == "gated") f.add("--swiglu");
  if (v.position_embedding == "rope") f.add("--position-embedding-type", "rope");
  if (v.position_embedding == "none") f.e.not_carried.emplace_back("position_embedding");
  if (v.max_position_embeddings > 0) f.add("--max-position-embeddings", whole(v.max_position_embeddings));
  if (v.norm == "rmsnorm") f.add("--normalization", "RMSNorm");
  if (v.attention_bias != "all" || !v.mlp_bias) f.add("--disable-bias-linear");
  if (v.attention_bias == "qkv") f.add("--add-qkv-bias");
  if (v.attention_bias == "all" && !v.mlp_bias) f.e.not_carried.emplace_back("attention_bias");
  if (!v.tie_word_embeddings) f.add("--untie-embeddings-and-output-weights");
  if (v.vocab_size > 0) f.add("--vocab-size", whole(v.vocab_size));
  if (v.num_experts > 0) {
    f.add("--num-experts", whole(v.num_experts));
    f.add("--moe-router-topk", whole(v.num_experts_per_tok));
  }
}

// `torchrun --nproc_per_node N pretrain_gpt.py ...` (NVIDIA/Megatron-LM core_r0.13 megatron/training/arguments.py;
// examples/llama/train_llama3_8b_h100_fp8.sh): parallel degrees, micro- and global batch (micro x data-parallel x
// accumulation, num_microbatches_calculator.py), sequence, recomputation, the distributed optimizer (ZeRO-1 in
// our words), precision, and the model's shape. The model's name is no flag: it is listed as not carried.
emitted megatron(const setting_values& v) {
  flags f{{"torchrun --nproc_per_node " + whole(v.devices) + " pretrain_gpt.py", {"model"}}};
  f.add("--tensor-model-parallel-size", whole(v.tp));
  f.add("--pipeline-model-parallel-size", whole(v.pp));
  f.add("--context-parallel-size", whole(v.cp));
  if (v.ep > 1) f.add("--expert-model-parallel-size", whole(v.ep));
  if (v.sequence_parallel) f.add("--sequence-parallel");
  f.add("--micro-batch-size", whole(v.batch));
  const std::int64_t model_parallel = v.tp * v.pp * v.cp;
  if (v.devices % model_parallel == 0)
    f.add("--global-batch-size", whole(v.batch * (v.devices / model_parallel) * v.grad_accum));
  else
    f.e.not_carried.emplace_back("grad_accum");
  f.add("--seq-length", whole(v.seq));
  if (v.recompute == "full") {
    f.add("--recompute-granularity", "full");
    f.add("--recompute-method", "uniform");
    f.add("--recompute-num-layers", "1");
  } else if (v.recompute == "selective")
    f.add("--recompute-granularity", "selective");
  else if (v.recompute != "none")
    f.e.not_carried.emplace_back("recompute");
  if (v.zero == 1)
    f.add("--use-distributed-optimizer");
  else if (v.zero != 0)
    f.e.not_carried.emplace_back("zero");  // Megatron shards the optimizer state only
  if (v.weights_dtype == "bf16" || v.weights_dtype == "fp16")
    f.add("--" + v.weights_dtype);
  else if (v.weights_dtype != "fp32" || v.master_weights)
    f.e.not_carried.emplace_back("weights_dtype");  // no flag: fp32 without a master copy
  megatron_shape(v, f);
  return f.e;
}

// A word as the shell reads it back: quoted when it holds anything but plain characters.
std::string shell_word(const std::string& word) {
  bool plain = !word.empty();
  for (const char c : word)
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string_view("._,:/+-=@%").find(c) != std::string_view::npos);
  if (plain) return word;
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Whether `line` resolves to every value of `want`.
bool gives_back(const settings& line, const settings& want) {
  const auto spec = resolve(line);
  if (!spec.ok()) return false;
  for (const auto& [key, value] : to_settings(spec.value().values))
    if (value != want.at(key)) return false;
  return true;
}

// The llm-memory command line: the run's mode, stack and model, then every setting whose value differs from what
// those alone resolve to, added until resolving the line gives every value back (a profile's default can depend
// on another setting the line names), then without each added setting the rest give back (one stated while the
// line still chose another runtime: the runtime's own model note, which stated would be added to twice). Reads
// back with readers/llm_memory_cli.cpp, or runs as it is.
emitted generic(const setting_values& v) {
  const settings want = to_settings(v);
  settings line{{"mode", v.mode}};
  if (!v.model.empty()) line["model"] = v.model;
  if (v.mode == "inference")
    line["runtime"] = v.runtime;
  else
    line["framework"] = v.framework;
  const settings stack = line;
  for (int round = 0; round < 8; ++round) {
    const auto spec = resolve(line);
    if (!spec.ok()) {  // a partial line a rule refuses: every value, which resolved once
      line = want;
      break;
    }
    bool same = true;
    for (const auto& [key, value] : to_settings(spec.value().values))
      if (value != want.at(key) && !line.contains(key)) {
        line[key] = want.at(key);
        same = false;
      }
    if (same) break;
  }
  const std::map<std::string, std::string> added(line.begin(), line.end());  // by name: the same line every time
  for (const auto& [key, value] : added) {
    if (stack.contains(key)) continue;
    settings without = line;
    without.erase(key);
    if (gives_back(without, want)) line = std::move(without);
  }
  emitted e{"llm-memory", {}};
  // mode and the stack first, then the rest by name (std::map's order).
  for (const std::string key : {"mode", "runtime", "framework", "model"})
    if (const auto it = line.find(key); it != line.end()) e.text += " \\\n  --" + key + " " + shell_word(it->second);
  const std::map<std::string, std::string> rest(line.begin(), line.end());
  for (const auto& [key, value] : rest)
    if (key != "mode" && key != "runtime" && key != "framework" && key != "model")
      e.text += " \\\n  --" + key + " " + shell_word(value);
  return e;
}

// PEFT's module names as a Python list ("q_proj,v_proj" -> ["q_proj", "v_proj"]; all-linear: the seven projections
// Unsloth's notebooks list).
std::string python_list(const std::string& names) {
  const std::string& all = names == "all-linear" ? "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj" : names;
  std::string out;
  for (const auto name : split(all, ',')) out += (out.empty() ? "\"" : ", \"") + std::string(trim(name)) + "\"";
  return "[" + out + "]";
}

// use_gradient_checkpointing: "unsloth" offloads the checkpoints, True keeps them on the GPU, False has none.
std::string unsloth_checkpointing(const setting_values& v, emitted& e) {
  if (v.recompute == "full" && v.activation_offload == "full") return "\"unsloth\"";
  if (v.recompute == "full" && v.activation_offload == "none") return "True";
  if (v.recompute == "none" && v.activation_offload == "none") return "False";
  e.not_carried.emplace_back("recompute");
  e.not_carried.emplace_back("activation_offload");
  return "\"unsloth\"";
}

// An Unsloth script as its notebooks write one (unslothai/unsloth @0050c73e unsloth/models/loader.py
// FastLanguageModel.from_pretrained, models/llama.py get_peft_model; TRL's SFTConfig): the model loaded in 4 bits
// (QLoRA), 8 bits or 16, the adapters, the trainer's batch, accumulation, optimizer and precision.
// readers/unsloth.cpp reads it back.
emitted unsloth(const setting_values& v) {
  emitted e{"from unsloth import FastLanguageModel\nfrom trl import SFTConfig, SFTTrainer\n\n", {}};
  const auto arg = [&e](std::string_view name, const std::string& value) {
    e.text += "    " + std::string(name) + " = " + value + ",\n";
  };
  const bool full = v.finetune == "full";
  e.text += "model, tokenizer = FastLanguageModel.from_pretrained(\n";
  arg("model_name", "\"" + (v.model.empty() ? std::string("MODEL") : v.model) + "\"");
  if (v.model.empty()) e.not_carried.emplace_back("model");
  arg("max_seq_length", whole(v.seq));
  if (full) {
    arg("full_finetuning", "True");
    arg("use_gradient_checkpointing", unsloth_checkpointing(v, e));
  } else {
    arg("load_in_4bit", v.weights_dtype == "nf4" ? "True" : "False");
    if (v.weights_dtype == "int8") arg("load_in_8bit", "True");
  }
  // 16-bit weights are dtype = None's choice, bf16 (a GPU with it): another 16-bit type is no literal read back.
  if (v.weights_dtype != "nf4" && v.weights_dtype != "int8" && v.weights_dtype != "bf16")
    e.not_carried.emplace_back("weights_dtype");
  e.text += ")\n";
  if (!full) {
    e.text += "model = FastLanguageModel.get_peft_model(\n    model,\n";
    arg("r", whole(v.lora_rank));
    arg("target_modules", python_list(v.lora_targets));
    arg("lora_alpha", whole(v.lora_rank));
    arg("lora_dropout", format_number(v.lora_dropout));
    arg("use_gradient_checkpointing", unsloth_checkpointing(v, e));
    e.text += ")\n";
  }
  e.text +=
      "trainer = SFTTrainer(\n    model = model,\n    tokenizer = tokenizer,\n    train_dataset = dataset,\n"
      "    args = SFTConfig(\n";
  const auto config = [&e](std::string_view name, const std::string& value) {
    e.text += "        " + std::string(name) + " = " + value + ",\n";
  };
  config("per_device_train_batch_size", whole(v.batch));
  config("gradient_accumulation_steps", whole(v.grad_accum));
  if (const std::string opt = hf_optim(v, e); !opt.empty())
    config("optim", "\"" + opt + "\"");
  else
    e.not_carried.emplace_back("optimizer");
  if (v.autocast == "bf16" || v.autocast == "fp16") config(v.autocast, "True");
  config("output_dir", "\"outputs\"");
  e.text += "    ),\n)";
  if (v.framework != "unsloth") e.not_carried.emplace_back("framework");
  return e;
}

}  // namespace

std::optional<emitted> emit_launcher(const setting_values& values, std::string_view format) {
  if (format == "megatron") return megatron(values);
  if (format == "generic") return generic(values);
  if (format == "unsloth") return unsloth(values);
  return std::nullopt;
}

}  // namespace llm_memory::detail
