// SPDX-License-Identifier: MIT
// `vllm serve MODEL ...` and `python -m vllm.entrypoints.openai.api_server --model MODEL ...`. The names and
// aliases are vLLM's own parser's (vllm/engine/arg_utils.py, EngineArgs.add_cli_args, 2025 releases:
// --tensor-parallel-size -tp, --pipeline-parallel-size -pp, --data-parallel-size -dp, --quantization -q;
// FlexibleArgumentParser reads
// `_` in a long option as `-`); --max-model-len takes vLLM's human-readable integers (1k = 1000, 1K = 1024).
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>

#include "decimal.hpp"
#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

void positional(std::string_view word, launch_read& out) {
  if (out.values.contains("model") ||
      std::any_of(out.ignored.begin(), out.ignored.end(), [](const auto& i) { return i.option == "model"; }))
    return ignore(out, word, "a second positional argument: vllm serve takes one model");
  read_served_model({"model", word}, out);
}

// vLLM's human_readable_int: a decimal suffix k/m/g (x1000) or a binary K/M/G (x1024); other text is passed on
// for seq's parser to refuse.
std::string human_int(std::string_view text) {
  const auto unit = text.empty() ? std::string_view::npos : std::string_view("kmgKMG").find(text.back());
  if (unit == std::string_view::npos) return std::string(text);
  double number = 0;
  const auto digits = text.substr(0, text.size() - 1);
  if (read_double(digits, number) != digits.size() || !std::isfinite(number) || !(number >= 0))
    return std::string(text);
  const double base = unit < 3 ? 1000 : 1024;
  return format_number(std::round(number * std::pow(base, static_cast<double>(unit % 3 + 1))));
}

void max_model_len(const option_hit& h, launch_read& out) { set_setting(out, h.option, "seq", human_int(h.value)); }

constexpr char tp_key[] = "tp";
constexpr char pp_key[] = "pp";
constexpr char util_key[] = "gpu_memory_utilization";
constexpr char seqs_key[] = "max_num_seqs";
constexpr char tokens_key[] = "max_num_batched_tokens";
constexpr char block_key[] = "block_size";

// CacheDType (vllm/config/cache.py): auto and the fp8 variants map; the others have no kv_dtype.
void kv_cache_dtype(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  if (v == "auto") return set_setting(out, h.option, "kv_dtype", "auto");
  if (v == "fp8" || v == "fp8_e4m3" || v == "fp8_e5m2") return set_setting(out, h.option, "kv_dtype", "fp8");
  if (v == "bfloat16") return set_setting(out, h.option, "kv_dtype", "bf16");
  ignore(out, h.option, "kv-cache dtype " + quoted(h.value) + " has no kv_dtype choice");
}

constexpr std::string_view compute_dtype = "the activations' dtype: --quantization names the weights";

// Whether one of `options` set a setting.
bool read_from(const launch_read& out, std::initializer_list<std::string_view> options) {
  return std::any_of(out.read.begin(), out.read.end(), [&](const launch_option& r) {
    return std::find(options.begin(), options.end(), r.option) != options.end();
  });
}

// QUANTIZATION_METHODS (vllm/model_executor/layers/quantization/__init__.py) with a weights format of ours.
void quantization(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  std::string weights;
  if (v == "awq" || v == "awq_marlin")
    weights = "awq";
  else if (v == "gptq" || v == "gptq_marlin")
    weights = "gptq";
  else if (v == "fp8")
    weights = "fp8";
  else if (v == "mxfp4")
    weights = "mxfp4";
  else if (v == "bitsandbytes")
    weights = "nf4";  // vLLM's in-flight bitsandbytes is 4-bit NF4
  if (weights.empty()) return ignore(out, h.option, "quantization " + quoted(h.value) + " has no weights_dtype choice");
  if (read_from(out, {"--dtype"})) ignore(out, "--dtype", compute_dtype);
  set_setting(out, h.option, "weights_dtype", weights);
}

// ModelDType: the weights' storage when no --quantization names them.
void dtype(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  std::string weights;
  if (v == "bfloat16")
    weights = "bf16";
  else if (v == "float16" || v == "half")
    weights = "fp16";
  else if (v == "float32" || v == "float")
    weights = "fp32";
  if (weights.empty()) return ignore(out, h.option, "auto: the checkpoint's own dtype (config.json torch_dtype)");
  if (read_from(out, {"--quantization", "-q"})) return ignore(out, h.option, compute_dtype);
  set_setting(out, h.option, "weights_dtype", weights);
}

// --enforce-eager: no CUDA graphs captured, so none inside the budget (BooleanOptionalAction since v0.10).
void enforce_eager(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  if (h.option == "--no-enforce-eager" || v == "false" || v == "0")
    return ignore(out, h.option, "CUDA graphs stay on (vLLM's default)");
  set_setting(out, h.option, "cuda_graph_memory", "0");
}

// The options' actions (option_row::action), each run by act().
enum action : int {
  a_none,
  a_model,
  a_direct_tp_key,
  a_direct_pp_key,
  a_max_model_len,
  a_direct_util_key,
  a_direct_seqs_key,
  a_direct_tokens_key,
  a_kv_cache_dtype,
  a_quantization,
  a_dtype,
  a_direct_block_key,
  a_enforce_eager
};

constexpr option_row options[] = {
    {"--model", takes::value, a_model, ""},
    {"--tensor-parallel-size|-tp", takes::value, a_direct_tp_key, ""},
    {"--pipeline-parallel-size|-pp", takes::value, a_direct_pp_key, ""},
    {"--max-model-len", takes::value, a_max_model_len, ""},
    {"--gpu-memory-utilization", takes::value, a_direct_util_key, ""},
    {"--max-num-seqs", takes::value, a_direct_seqs_key, ""},
    {"--max-num-batched-tokens", takes::value, a_direct_tokens_key, ""},
    {"--kv-cache-dtype", takes::value, a_kv_cache_dtype, ""},
    {"--quantization|-q", takes::value, a_quantization, ""},
    {"--dtype", takes::value, a_dtype, ""},
    {"--block-size", takes::value, a_direct_block_key, ""},
    {"--enforce-eager|--no-enforce-eager", takes::flag, a_enforce_eager, ""},
    {"--enable-prefix-caching|--no-enable-prefix-caching", takes::flag, 0,
     "prefix caching shares KV blocks between requests; the pool's size is the same"},
    {"--data-parallel-size|-dp", takes::value, 0, "each data-parallel rank is a whole engine: the estimate is one's"},
    {"--trust-remote-code", takes::flag, 0, serving_only},
    {"--disable-log-requests|--disable-log-stats|--enable-auto-tool-choice", takes::flag, 0, serving_only},
    {"--host|--port|--served-model-name|--api-key|--tokenizer|--chat-template|--tool-call-parser|--seed", takes::value,
     0, serving_only},
    {"--swap-space|--cpu-offload-gb", takes::value, 0, "host memory: not on the GPU the estimate sizes"},
};

// Runs one option's action, in command order.
void act(const walk_hit& w, launch_read& out) {
  const option_hit h = w.hit();
  switch (w.action) {
    case a_model: return read_served_model(h, out);
    case a_direct_tp_key: return set_direct<tp_key>(h, out);
    case a_direct_pp_key: return set_direct<pp_key>(h, out);
    case a_max_model_len: return max_model_len(h, out);
    case a_direct_util_key: return set_direct<util_key>(h, out);
    case a_direct_seqs_key: return set_direct<seqs_key>(h, out);
    case a_direct_tokens_key: return set_direct<tokens_key>(h, out);
    case a_kv_cache_dtype: return kv_cache_dtype(h, out);
    case a_quantization: return quantization(h, out);
    case a_dtype: return dtype(h, out);
    case a_direct_block_key: return set_direct<block_key>(h, out);
    case a_enforce_eager: return enforce_eager(h, out);
    default: return;
  }
}

}  // namespace

void read_vllm_serve(const command_line& cmd, launch_read& out) {
  set_setting(out, out.command, "mode", "inference");
  set_setting(out, out.command, "runtime", "vllm");
  for (const auto& [name, value] : cmd.env)
    if (name == "CUDA_VISIBLE_DEVICES") out.notes.push_back("CUDA_VISIBLE_DEVICES is not read: devices = tp x pp");
  for (const auto& w : walk(cmd.args, {options, true, true}, out))
    w.action == positional_action ? positional(w.option, out) : act(w, out);
  devices_from_parallel(out);
}

}  // namespace llm_memory::detail
