// SPDX-License-Identifier: MIT
// A vLLM (V1 engine) startup log. Settings: the "non-default args: {...}" dict (vllm/entrypoints/utils.py
// log_non_default_args), the engine's "Initializing a V1 LLM engine (vX.Y.Z) with config: ..." line
// (v1/engine/core.py), "Using max model len N" and "Chunked prefill is enabled with max_num_batched_tokens=N",
// read as the `vllm serve` options they stand for. Figures, as vLLM 0.11-0.15 print them:
// "Model loading took %.4f GiB" (v1/worker/gpu_model_runner.py load_model), "Available KV cache memory: %.2f
// GiB" (v1/worker/gpu_worker.py determine_available_memory), "GPU KV cache size: %s tokens" and "Maximum
// concurrency for %s tokens per request: %.2fx" (v1/core/kv_cache_utils.py), "Graph capturing finished in %.0f
// secs, took %.2f GiB" (gpu_model_runner.py capture_model). A V0 engine's log (0.6 - 0.10 with VLLM_USE_V1=0, read as
// vllm_version 0.6): "Initializing an LLM engine (v0.6.3) with config: ..." (0.7.3 on: "a V0 LLM engine"; V1 says
// "a V1 LLM engine"), "Loading model weights took %.4f GB" (worker/model_runner.py load_model, GiB values),
// "Memory profiling results: ... kv_cache_size=%.2fGiB ..." (worker/worker.py determine_num_available_blocks,
// 0.6.4 - 0.6.6) or "... the rest of the memory reserved for KV Cache is %.2fGiB." (0.7 on), "model weights take
// %.2fGiB", and "# GPU blocks: %d, # CPU blocks: %d" (executor/gpu_executor.py; "# cuda blocks" from 0.7, the
// platform's device name): blocks x block_size (the --block-size the log states, else 16) tokens.
#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "logs/logs.hpp"
#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// A repr value as an option's value: True is a bare flag, False and None no option at all.
void add_value(log_command& cmd, const std::string& option, std::string value, std::size_t line) {
  if (value == "False" || value == "None" || value.empty()) return;
  if (value.starts_with("torch.")) value = value.substr(6);  // dtype=torch.bfloat16
  cmd.add(option, value == "True" ? "" : value, line);
}

// The user's own arguments: each key is the `vllm serve` option of the same name.
void non_default_args(std::string_view dict, std::size_t line, log_command& cmd) {
  if (dict.starts_with('{')) dict.remove_prefix(1);
  for (auto& [key, value] : python_pairs(dict, ':')) {
    std::string option = "--" + key;
    for (char& c : option)
      if (c == '_') c = '-';
    add_value(cmd, option, value, line);
  }
}

// The engine's resolved config: the fields that are `vllm serve` options, by their option names.
void engine_config(std::string_view text, std::size_t line, log_command& cmd) {
  static constexpr std::pair<std::string_view, std::string_view> fields[] = {
      {"model", "--model"},
      {"max_seq_len", "--max-model-len"},
      {"tensor_parallel_size", "--tensor-parallel-size"},
      {"pipeline_parallel_size", "--pipeline-parallel-size"},
      {"quantization", "--quantization"},
      {"enforce_eager", "--enforce-eager"},
      {"kv_cache_dtype", "--kv-cache-dtype"},
      {"dtype", "--dtype"},
  };
  for (auto& [key, value] : python_pairs(text, '='))
    for (const auto& [field, option] : fields)
      if (key == field) add_value(cmd, std::string(option), value, line);
}

// "(v0.15.1)" -> vllm_version: the release whose profiling defaults apply (the setting's choices). Before 0.11 the
// engine line says which engine ran: "a V1 LLM engine" (0.8 - 0.10's default) is read as 0.11, any other (V0's
// "an LLM engine" / "a V0 LLM engine") as the V0 profile, 0.6.
void version(std::string_view text, bool v1, std::size_t line, log_read& out) {
  const std::string option = "line " + std::to_string(line) + " engine version";
  if (!text.starts_with("0.")) return set_setting(out.settings, option, "vllm_version", "0.21");  // 1.x: the newest
  const auto number = leading_number(text.substr(2, text.find('.', 2) - 2));
  if (!number) return ignore(out.settings, option, "no minor version");
  const double minor = *number;
  if (minor < 11 && !v1) return set_setting(out.settings, option, "vllm_version", "0.6");  // the V0 engine
  if (minor < 11)
    out.settings.notes.push_back("line " + std::to_string(line) + ": vLLM 0." + format_number(minor) +
                                 "'s V1 engine is older than the V1 profiles (0.11 and later): read as 0.11");
  set_setting(out.settings, option, "vllm_version", minor >= 21 ? "0.21" : minor >= 17 ? "0.17" : "0.11");
}

// V0's profiling line states the device's memory as torch sees it and the utilisation: "total_gpu_memory (79.19GiB)
// x gpu_memory_utilization (0.90)" (0.7 on) or "total_gpu_memory=79.14GiB ... gpu_memory_utilization=0.90" (0.6.4).
void v0_memory(std::string_view text, std::size_t line, log_command& cmd, log_read& out) {
  const auto total =
      after(text, "total_gpu_memory (") ? after(text, "total_gpu_memory (") : after(text, "total_gpu_memory=");
  if (!total) return;
  if (const auto gib = leading_size(*total, "GiB"))
    set_setting(out.settings, "line " + std::to_string(line) + " total_gpu_memory", "gpu_memory",
                format_number(*gib) + "GiB");
  const auto util = after(text, "gpu_memory_utilization (") ? after(text, "gpu_memory_utilization (")
                                                            : after(text, "gpu_memory_utilization=");
  if (util && leading_number(*util)) cmd.add("--gpu-memory-utilization", format_number(*leading_number(*util)), line);
}

// Before "non-default args" (0.9), `vllm serve` printed every argument: "args: Namespace(model='...', block_size=16,
// ...)" (entrypoints/openai/api_server.py). Only the arguments the profile reads are taken: the others are defaults.
void namespace_args(std::string_view text, std::size_t line, log_command& cmd) {
  static constexpr std::string_view read[] = {"model",
                                              "max_model_len",
                                              "block_size",
                                              "gpu_memory_utilization",
                                              "tensor_parallel_size",
                                              "pipeline_parallel_size",
                                              "max_num_seqs",
                                              "max_num_batched_tokens",
                                              "enable_chunked_prefill",
                                              "kv_cache_dtype",
                                              "dtype",
                                              "quantization",
                                              "enforce_eager"};
  if (text.ends_with(')')) text.remove_suffix(1);
  for (auto& [key, value] : python_pairs(text, '='))
    if (std::find(std::begin(read), std::end(read), key) != std::end(read)) {
      std::string option = "--" + key;
      std::replace(option.begin(), option.end(), '_', '-');
      add_value(cmd, option, value, line);
    }
}

void settings_line(const log_line& l, log_command& cmd, log_read& out) {
  v0_memory(l.text, l.number, cmd, out);
  if (const auto args = after(l.text, "args: Namespace(")) return namespace_args(*args, l.number, cmd);
  if (const auto dict = after(l.text, "non-default args: ")) return non_default_args(*dict, l.number, cmd);
  if (const auto config = after(l.text, " with config: ")) {
    if (const auto v = after(l.text, "LLM engine (v"))
      version(v->substr(0, v->find(')')), l.text.find("V1 LLM engine") != std::string_view::npos, l.number, out);
    return engine_config(*config, l.number, cmd);
  }
  if (const auto len = after(l.text, "Using max model len "); len && leading_number(*len))
    return cmd.add("--max-model-len", format_number(*leading_number(*len)), l.number);
  if (const auto tokens = after(l.text, "enabled with max_num_batched_tokens="); tokens && leading_number(*tokens))
    cmd.add("--max-num-batched-tokens", format_number(*leading_number(*tokens)), l.number);
}

void figure(log_read& out, const char* item, const char* label, std::optional<double> v, const char* unit,
            std::size_t line) {
  if (v) set_figure(out, {item, label, *v, unit, line});
}

void figure_line(const log_line& l, log_read& out) {
  const auto n = l.number;
  if (const auto t = after(l.text, "Model loading took "))
    return figure(out, "weights", "Model loading took", leading_size(*t, "GiB"), "GiB", n);
  if (const auto t = after(l.text, "Loading model weights took "))  // before V1
    return figure(out, "weights", "Loading model weights took", leading_size(*t, "GiB"), "GiB", n);
  if (const auto t = after(l.text, "Available KV cache memory: "))
    return figure(out, "kv_memory", "Available KV cache memory", leading_size(*t, "GiB"), "GiB", n);
  if (const auto t = after(l.text, "GPU KV cache size: "))
    return figure(out, "kv_tokens", "GPU KV cache size", leading_number(*t), "tokens", n);
  if (const auto t = after(l.text, "tokens per request: "))
    return figure(out, "max_concurrency", "Maximum concurrency", leading_number(*t), "x", n);
  if (const auto t = after(l.text, "Graph capturing finished in "); t && after(*t, ", took "))
    return figure(out, "cuda_graphs", "Graph capturing took", leading_size(*after(*t, ", took "), "GiB"), "GiB", n);
  // V0 (worker/worker.py determine_num_available_blocks): the KV cache memory and the weights as profiled.
  if (const auto t = after(l.text, "reserved for KV Cache is "))
    figure(out, "kv_memory", "the rest of the memory reserved for KV Cache", leading_size(*t, "GiB"), "GiB", n);
  else if (const auto k = after(l.text, " kv_cache_size="))
    figure(out, "kv_memory", "Memory profiling results: kv_cache_size", leading_size(*k, "GiB"), "GiB", n);
  if (const auto t = after(l.text, "model weights take "))
    figure(out, "weights", "model weights take", leading_size(*t, "GiB"), "GiB", n);
}

// V0's "# GPU blocks: N, # CPU blocks: M" ("# cuda blocks: N" from 0.7): N blocks [blocks]; nothing on another line.
std::optional<double> v0_blocks(std::string_view text) {
  for (const std::string_view mark : {"# GPU blocks: ", "# cuda blocks: "})
    if (const auto t = after(text, mark)) return leading_number(*t);
  return std::nullopt;
}

// The V0 cache's tokens: blocks x the block size the log's command states (--block-size), else V0's 16.
void v0_capacity(const log_command& cmd, double blocks, std::size_t line, log_read& out) {
  double block = 16;
  constexpr std::string_view option = "--block-size=";  // log_command::add writes "--option=value"
  for (const std::string& arg : cmd.args)
    if (arg.starts_with(option))
      if (const auto b = leading_number(std::string_view(arg).substr(option.size()))) block = *b;
  set_figure(out, {"kv_tokens", "# GPU blocks x block_size", blocks * block, "tokens", line});
}

}  // namespace

void read_vllm_log(std::span<const log_line> lines, log_read& out) {
  log_command cmd{"vllm", {"serve"}, {}};
  std::optional<std::pair<double, std::size_t>> blocks;  // V0's "# GPU blocks", its line
  for (const auto& l : lines) {
    settings_line(l, cmd, out);
    figure_line(l, out);
    if (const auto b = v0_blocks(l.text)) blocks = std::pair{*b, l.number};
  }
  if (blocks) v0_capacity(cmd, blocks->first, blocks->second, out);
  read_log_command(cmd, out);
}

}  // namespace llm_memory::detail
