// SPDX-License-Identifier: MIT
// An SGLang startup log. Settings: the "server_args=ServerArgs(...)" line (srt/server_args.py, every argument
// as resolved) and "context_len=N" of the "max_total_num_tokens=" line (srt/managers/scheduler.py), read as the
// `python -m sglang.launch_server` options they stand for. Figures (SGLang's GB is 1 << 30 B): "Load weight end.
// ... mem usage=%.2f GB" (srt/model_executor/model_runner.py load_model), "KV Cache is allocated. #tokens: %d,
// K size: %.2f GB, V size: %.2f GB" (MLA: "KV size: %.2f GB"; srt/mem_cache/memory_pool.py), the scheduler's
// "max_total_num_tokens=%d", "Capture cuda graph end. ... mem usage=%.2f GB" (model_runner.py init_cuda_graphs).
#include <string>

#include "logs/logs.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// The ServerArgs fields that are launch_server options (server_args.py's field name = the option's).
void server_args(std::string_view text, std::size_t line, log_command& cmd) {
  static constexpr std::string_view fields[] = {
      "model_path",           "tp_size",   "pp_size",        "context_length", "mem_fraction_static",
      "chunked_prefill_size", "page_size", "kv_cache_dtype", "quantization",   "dtype"};
  for (auto& [key, value] : python_pairs(text, '=')) {
    if (value == "None" || value.empty()) continue;
    for (const auto field : fields)
      if (key == field) {
        std::string option = "--" + key;
        for (char& c : option)
          if (c == '_') c = '-';
        cmd.add(option, value, line);
      }
  }
}

void figure(log_read& out, const char* item, const char* label, std::optional<double> v, const char* unit,
            std::size_t line) {
  if (v) set_figure(out, {item, label, *v, unit, line});
}

// "KV Cache is allocated. #tokens: N, K size: a GB, V size: b GB" (or "KV size: c GB").
void kv_allocated(std::string_view text, std::size_t line, log_read& out) {
  if (const auto tokens = after(text, "#tokens: "))
    figure(out, "kv_tokens", "KV Cache is allocated. #tokens", leading_number(*tokens), "tokens", line);
  const auto k = after(text, "K size: "), v = after(text, "V size: "), kv = after(text, " KV size: ");
  if (k && v && leading_size(*k, "GiB") && leading_size(*v, "GiB"))
    return figure(out, "kv_memory", "KV Cache K size + V size", *leading_size(*k, "GiB") + *leading_size(*v, "GiB"),
                  "GiB", line);
  if (kv) figure(out, "kv_memory", "KV Cache KV size", leading_size(*kv, "GiB"), "GiB", line);
}

bool has_figure(const log_read& out, std::string_view item) {
  for (const auto& f : out.figures)
    if (f.item == item) return true;
  return false;
}

void read_line(const log_line& l, log_command& cmd, log_read& out) {
  const auto n = l.number;
  if (const auto args = after(l.text, "ServerArgs(")) return server_args(*args, n, cmd);
  if (after(l.text, "Load weight end.")) {
    if (const auto t = after(l.text, "mem usage="))
      figure(out, "weights", "Load weight end. mem usage", leading_size(*t, "GiB"), "GiB", n);
    return;
  }
  if (const auto t = after(l.text, "KV Cache is allocated.")) return kv_allocated(*t, n, out);
  if (const auto t = after(l.text, "max_total_num_tokens=")) {
    if (!has_figure(out, "kv_tokens"))
      figure(out, "kv_tokens", "max_total_num_tokens", leading_number(*t), "tokens", n);
    if (const auto len = after(l.text, "context_len="); len && leading_number(*len))
      cmd.add("--context-length", format_number(*leading_number(*len)), n);
    return;
  }
  if (after(l.text, "Capture cuda graph end."))
    if (const auto t = after(l.text, "mem usage="))
      figure(out, "cuda_graphs", "Capture cuda graph end. mem usage", leading_size(*t, "GiB"), "GiB", n);
}

}  // namespace

void read_sglang_log(std::span<const log_line> lines, log_read& out) {
  log_command cmd{"python", {"-m", "sglang.launch_server"}, {}};
  for (const auto& l : lines) read_line(l, cmd, out);
  read_log_command(cmd, out);
}

}  // namespace llm_memory::detail
