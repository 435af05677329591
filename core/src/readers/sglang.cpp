// SPDX-License-Identifier: MIT
// `python -m sglang.launch_server --model-path MODEL ...`. Names and aliases are SGLang's own parser's
// (python/sglang/srt/server_args.py, ServerArgs.add_cli_args, 2025 releases): --model-path/--model,
// --tensor-parallel-size/--tp-size, --pipeline-parallel-size/--pp-size, --data-parallel-size/--dp-size; argparse
// takes an unambiguous prefix, so the published `--tp 2` and `--dp 2` read as --tp-size and --dp-size.
#include <string>

#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

constexpr char tp_key[] = "tp";
constexpr char pp_key[] = "pp";
constexpr char seq_key[] = "seq";
constexpr char fraction_key[] = "mem_fraction_static";
constexpr char page_key[] = "block_size";

// --chunked-prefill-size -1 turns chunking off: the whole prompt in one pass (max_num_batched_tokens 0).
void chunked_prefill(const option_hit& h, launch_read& out) {
  set_setting(out, h.option, "max_num_batched_tokens", trim(h.value) == "-1" ? "0" : std::string(h.value));
}

// --kv-cache-dtype: auto, fp8_e5m2, fp8_e4m3, bf16 / bfloat16, fp4_e2m1 (server_args.py choices).
void kv_cache_dtype(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  if (v == "fp4_e2m1") return ignore(out, h.option, "fp4_e2m1 has no kv_dtype choice");
  set_setting(out, h.option, "kv_dtype", v == "bfloat16" ? "bf16" : v.starts_with("fp8") ? "fp8" : v);
}

// QUANTIZATION_METHODS with a weights format of ours; the rest are listed as not mapped.
void quantization(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  std::string weights;
  if (v == "awq" || v == "awq_marlin")
    weights = "awq";
  else if (v == "gptq" || v == "gptq_marlin")
    weights = "gptq";
  else if (v == "fp8" || v == "w8a8_fp8")
    weights = "fp8";
  else if (v == "mxfp4")
    weights = "mxfp4";
  else if (v == "bitsandbytes")
    weights = "nf4";
  else if (v == "w8a8_int8")
    weights = "int8";
  if (weights.empty()) return ignore(out, h.option, "quantization " + quoted(h.value) + " has no weights_dtype choice");
  set_setting(out, h.option, "weights_dtype", weights);
}

// --dtype: the weights' storage when no --quantization names them.
void dtype(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  const std::string weights = v == "bfloat16"                    ? "bf16"
                              : (v == "float16" || v == "half")  ? "fp16"
                              : (v == "float32" || v == "float") ? "fp32"
                                                                 : "";
  if (weights.empty()) return ignore(out, h.option, "auto: the checkpoint's own dtype (config.json torch_dtype)");
  if (out.values.contains("weights_dtype") && out.values["weights_dtype"] != weights)
    return ignore(out, h.option, "the activations' dtype: --quantization names the weights");
  set_setting(out, h.option, "weights_dtype", weights);
}

// The options' actions (option_row::action), each run by act().
enum action : int {
  a_none,
  a_model,
  a_direct_tp_key,
  a_direct_pp_key,
  a_direct_seq_key,
  a_direct_fraction_key,
  a_chunked_prefill,
  a_direct_page_key,
  a_kv_cache_dtype,
  a_quantization,
  a_dtype
};

constexpr option_row options[] = {
    {"--model-path|--model", takes::value, a_model, ""},
    {"--tensor-parallel-size|--tp-size|--tp", takes::value, a_direct_tp_key, ""},
    {"--pipeline-parallel-size|--pp-size|--pp", takes::value, a_direct_pp_key, ""},
    {"--context-length", takes::value, a_direct_seq_key, ""},
    {"--mem-fraction-static", takes::value, a_direct_fraction_key, ""},
    {"--chunked-prefill-size", takes::value, a_chunked_prefill, ""},
    {"--page-size", takes::value, a_direct_page_key, ""},
    {"--kv-cache-dtype", takes::value, a_kv_cache_dtype, ""},
    {"--quantization", takes::value, a_quantization, ""},
    {"--dtype", takes::value, a_dtype, ""},
    {"--max-running-requests", takes::value, 0,
     "caps the requests running at once; SGLang sizes its KV pool from mem_fraction_static, not from it"},
    {"--max-total-tokens", takes::value, 0,
     "caps the KV pool below what mem_fraction_static gives: llm-memory sizes the pool from the fraction"},
    {"--max-prefill-tokens|--cuda-graph-max-bs|--cuda-graph-bs", takes::value, 0,
     "no memory setting models it (the prefill chunk is --chunked-prefill-size)"},
    {"--data-parallel-size|--dp-size|--dp", takes::value, 0,
     "each data-parallel rank is a whole engine: the estimate is one's"},
    {"--disable-cuda-graph|--disable-radix-cache|--enable-dp-attention|--enable-torch-compile|--enable-mixed-chunk|"
     "--disable-overlap-schedule",
     takes::flag, 0, "no memory setting models it"},
    {"--trust-remote-code|--enable-metrics|--log-requests|--skip-server-warmup", takes::flag, 0, serving_only},
    {"--host|--port|--served-model-name|--api-key|--tokenizer-path|--chat-template|--tool-call-parser|"
     "--reasoning-parser|--log-level|--random-seed|--attention-backend|--grammar-backend|--load-format",
     takes::value, 0, serving_only},
};

// Runs one option's action, in command order.
void act(const walk_hit& w, launch_read& out) {
  const option_hit h = w.hit();
  switch (w.action) {
    case a_model: return read_served_model(h, out);
    case a_direct_tp_key: return set_direct<tp_key>(h, out);
    case a_direct_pp_key: return set_direct<pp_key>(h, out);
    case a_direct_seq_key: return set_direct<seq_key>(h, out);
    case a_direct_fraction_key: return set_direct<fraction_key>(h, out);
    case a_chunked_prefill: return chunked_prefill(h, out);
    case a_direct_page_key: return set_direct<page_key>(h, out);
    case a_kv_cache_dtype: return kv_cache_dtype(h, out);
    case a_quantization: return quantization(h, out);
    case a_dtype: return dtype(h, out);
    default: return;
  }
}

}  // namespace

void read_sglang(const command_line& cmd, launch_read& out) {
  set_setting(out, out.command, "mode", "inference");
  set_setting(out, out.command, "runtime", "sglang");
  const walk_rules rules{options, false, false};
  for (const auto& w : walk(env_as_options(cmd, {}, out), rules, out)) act(w, out);  // each variable listed by name
  for (const auto& w : walk(cmd.args, rules, out)) act(w, out);
  devices_from_parallel(out);
}

}  // namespace llm_memory::detail
