// SPDX-License-Identifier: MIT
// A vLLM (V1 engine) startup log. Settings: the "non-default args: {...}" dict (vllm/entrypoints/utils.py
// log_non_default_args), the engine's "Initializing a V1 LLM engine (vX.Y.Z) with config: ..." line
// (v1/engine/core.py), "Using max model len N" and "Chunked prefill is enabled with max_num_batched_tokens=N",
// read as the `vllm serve` options they stand for. Figures, as vLLM 0.11-0.15 print them:
// "Model loading took %.4f GiB" (v1/worker/gpu_model_runner.py load_model), "Available KV cache memory: %.2f
// GiB" (v1/worker/gpu_worker.py determine_available_memory), "GPU KV cache size: %s tokens" and "Maximum
// concurrency for %s tokens per request: %.2fx" (v1/core/kv_cache_utils.py), "Graph capturing finished in %.0f
// secs, took %.2f GiB" (gpu_model_runner.py capture_model).
#include <string>

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

// "(v0.15.1)" -> vllm_version: the release whose profiling defaults apply (the setting's choices).
void version(std::string_view text, std::size_t line, log_read& out) {
  const std::string option = "line " + std::to_string(line) + " engine version";
  if (!text.starts_with("0.")) return set_setting(out.settings, option, "vllm_version", "0.21");  // 1.x: the newest
  const auto number = leading_number(text.substr(2, text.find('.', 2) - 2));
  if (!number) return ignore(out.settings, option, "no minor version");
  const double minor = *number;
  if (minor < 11)
    out.settings.notes.push_back("line " + std::to_string(line) + ": vLLM 0." + format_number(minor) +
                                 " is older than the profiles (0.11 and later): read as 0.11");
  set_setting(out.settings, option, "vllm_version", minor >= 21 ? "0.21" : minor >= 17 ? "0.17" : "0.11");
}

void settings_line(const log_line& l, log_command& cmd, log_read& out) {
  if (const auto dict = after(l.text, "non-default args: ")) return non_default_args(*dict, l.number, cmd);
  if (const auto config = after(l.text, " with config: ")) {
    if (const auto v = after(l.text, "LLM engine (v")) version(v->substr(0, v->find(')')), l.number, out);
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
    figure(out, "cuda_graphs", "Graph capturing took", leading_size(*after(*t, ", took "), "GiB"), "GiB", n);
}

}  // namespace

void read_vllm_log(std::span<const log_line> lines, log_read& out) {
  log_command cmd{"vllm", {"serve"}, {}};
  for (const auto& l : lines) {
    settings_line(l, cmd, out);
    figure_line(l, out);
  }
  read_log_command(cmd, out);
}

}  // namespace llm_memory::detail
