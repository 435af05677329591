// SPDX-License-Identifier: MIT
// `text-generation-launcher --model-id MODEL ...` (Text Generation Inference). Names and environment variables are
// the launcher's clap arguments (launcher/src/main.rs, `#[clap(long, env)]`, 2.x - 3.3 releases): --model-id
// (MODEL_ID), --num-shard, --quantize, --dtype, --kv-cache-dtype, --max-input-tokens (--max-input-length before
// 2.1), --max-total-tokens, --max-batch-prefill-tokens, --max-batch-total-tokens, --cuda-memory-fraction.
#include <string>

#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

void model(const option_hit& h, launch_read& out) { read_model_name(out, h.option, h.value); }

// --num-shard N: N tensor-parallel shards, one engine over N devices.
void num_shard(const option_hit& h, launch_read& out) {
  set_setting(out, h.option, "tp", std::string(h.value));
  if (out.values.contains("tp")) set_setting(out, h.option, "devices", out.values["tp"]);
}

// --max-total-tokens: a request's prompt + generated tokens, the context each sequence holds.
void max_total_tokens(const option_hit& h, launch_read& out) {
  set_setting(out, h.option, "seq", std::string(h.value));
}

void max_batch_prefill(const option_hit& h, launch_read& out) {
  set_setting(out, h.option, "max_num_batched_tokens", std::string(h.value));
}

void memory_fraction(const option_hit& h, launch_read& out) {
  set_setting(out, h.option, "gpu_memory_utilization", std::string(h.value));
}

// Quantization (launcher/src/main.rs) with a weights format of ours; bitsandbytes is LLM.int8().
void quantize(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  std::string weights;
  if (v == "awq")
    weights = "awq";
  else if (v == "gptq" || v == "marlin")
    weights = "gptq";  // marlin: GPTQ-format checkpoints run with the Marlin kernel
  else if (v == "fp8")
    weights = "fp8";
  else if (v == "bitsandbytes" || v == "eetq")
    weights = "int8";
  else if (v == "bitsandbytes-nf4")
    weights = "nf4";
  if (weights.empty()) return ignore(out, h.option, "quantize " + quoted(h.value) + " has no weights_dtype choice");
  set_setting(out, h.option, "weights_dtype", weights);
}

// --dtype float16|bfloat16: the weights' storage unless --quantize names them.
void dtype(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  const std::string weights = v == "bfloat16" ? "bf16" : v == "float16" ? "fp16" : "";
  if (weights.empty()) return ignore(out, h.option, "dtype " + quoted(h.value) + " is not float16 or bfloat16");
  if (out.values.contains("weights_dtype") && out.values["weights_dtype"] != weights)
    return ignore(out, h.option, "the activations' dtype: --quantize names the weights");
  set_setting(out, h.option, "weights_dtype", weights);
}

// --kv-cache-dtype fp8_e4m3fn | fp8_e5m2: one byte per value.
void kv_cache_dtype(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  if (v == "fp8_e4m3fn" || v == "fp8_e5m2") return set_setting(out, h.option, "kv_dtype", "fp8");
  ignore(out, h.option, "kv-cache dtype " + quoted(h.value) + " has no kv_dtype choice");
}

// The options' actions (option_row::action), each run by act().
enum action : int {
  a_none,
  a_model,
  a_num_shard,
  a_max_total_tokens,
  a_max_batch_prefill,
  a_memory_fraction,
  a_quantize,
  a_dtype,
  a_kv_cache_dtype
};

constexpr option_row options[] = {
    {"--model-id", takes::value, a_model, ""},
    {"--num-shard", takes::value, a_num_shard, ""},
    {"--max-total-tokens", takes::value, a_max_total_tokens, ""},
    {"--max-batch-prefill-tokens", takes::value, a_max_batch_prefill, ""},
    {"--cuda-memory-fraction", takes::value, a_memory_fraction, ""},
    {"--quantize", takes::value, a_quantize, ""},
    {"--dtype", takes::value, a_dtype, ""},
    {"--kv-cache-dtype", takes::value, a_kv_cache_dtype, ""},
    {"--max-input-tokens|--max-input-length", takes::value, 0,
     "the prompt's cap: each sequence holds --max-total-tokens"},
    {"--max-batch-total-tokens", takes::value, 0,
     "TGI infers it from the memory its warmup leaves; llm-memory models that warmup"},
    {"--max-concurrent-requests|--max-batch-size|--max-waiting-tokens|--waiting-served-ratio|--cuda-graphs",
     takes::value, 0, "no memory setting models it"},
    {"--sharded", takes::value, 0, "--num-shard gives the shards"},
    {"--trust-remote-code|--disable-custom-kernels|--json-output|--disable-grammar-support", takes::flag, 0,
     serving_only},
    {"--hostname|--port|--revision|--max-best-of|--max-stop-sequences|--max-top-n-tokens|--huggingface-hub-cache|"
     "--otlp-endpoint|--cors-allow-origin|--payload-limit|--lora-adapters",
     takes::value, 0, serving_only},
};

// Runs one option's action, in command order.
void act(const walk_hit& w, launch_read& out) {
  const option_hit h = w.hit();
  switch (w.action) {
    case a_model: return model(h, out);
    case a_num_shard: return num_shard(h, out);
    case a_max_total_tokens: return max_total_tokens(h, out);
    case a_max_batch_prefill: return max_batch_prefill(h, out);
    case a_memory_fraction: return memory_fraction(h, out);
    case a_quantize: return quantize(h, out);
    case a_dtype: return dtype(h, out);
    case a_kv_cache_dtype: return kv_cache_dtype(h, out);
    default: return;
  }
}

constexpr env_option env_options[] = {
    {"MODEL_ID", "--model-id"},
    {"NUM_SHARD", "--num-shard"},
    {"QUANTIZE", "--quantize"},
    {"DTYPE", "--dtype"},
    {"KV_CACHE_DTYPE", "--kv-cache-dtype"},
    {"MAX_INPUT_TOKENS", "--max-input-tokens"},
    {"MAX_TOTAL_TOKENS", "--max-total-tokens"},
    {"MAX_BATCH_PREFILL_TOKENS", "--max-batch-prefill-tokens"},
    {"MAX_BATCH_TOTAL_TOKENS", "--max-batch-total-tokens"},
    {"CUDA_MEMORY_FRACTION", "--cuda-memory-fraction"},
};

}  // namespace

void read_tgi(const command_line& cmd, launch_read& out) {
  set_setting(out, out.command, "mode", "inference");
  set_setting(out, out.command, "runtime", "tgi");
  const walk_rules rules{options, false, false};
  for (const auto& w : walk(env_as_options(cmd, env_options, out), rules, out)) act(w, out);
  for (const auto& w : walk(cmd.args, rules, out)) act(w, out);
}

}  // namespace llm_memory::detail
