// SPDX-License-Identifier: MIT
// A llama.cpp (llama-server, llama-cli, llama-cpp-python) or Ollama runner log. Settings, read as the
// llama-server options they stand for: the GGUF path of "llama_model_loader: loaded meta data ... from PATH"
// (-m), the context's "n_ctx", "n_seq_max", "n_batch", "n_ubatch", "flash_attn" lines (src/llama-context.cpp;
// llama_new_context_with_model / llama_init_from_model before 2025), the KV cache's type_k / type_v
// (src/llama-kv-cache.cpp; "K (f16)" of its size line), "offloaded N/M layers to GPU" (src/llama-model.cpp,
// -ngl N). Figures: every "<device> [model|KV|compute] buffer size = X MiB" line (llama-model.cpp load_tensors,
// llama-kv-cache.cpp, llama-context.cpp): weights, KV and compute on the first GPU device, weights and compute
// summed over the host buffers (CPU, CPU_Mapped, CUDA_Host, ...).
#include <map>
#include <string>

#include "logs/logs.hpp"
#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// The context's `key = value` lines, by the prefixes llama.cpp has printed them with.
std::optional<std::pair<std::string, std::string>> context_pair(std::string_view text) {
  for (const std::string_view prefix : {"llama_new_context_with_model:", "llama_init_from_model:", "llama_context:"})
    if (const auto rest = after(text, prefix)) {
      const auto eq = rest->find('=');
      if (eq == std::string_view::npos) return std::nullopt;
      return std::pair{std::string(trim(rest->substr(0, eq))), std::string(trim(rest->substr(eq + 1)))};
    }
  return std::nullopt;
}

std::string fa_value(std::string_view v) {
  if (v == "1" || v == "enabled" || v == "true") return "on";
  if (v == "0" || v == "disabled" || v == "false") return "off";
  return std::string(v);  // auto, or a value -fa refuses (an error naming the line)
}

void context_line(std::string_view text, std::size_t line, log_command& cmd) {
  const auto kv = context_pair(text);
  if (!kv) return;
  static constexpr std::pair<std::string_view, std::string_view> keys[] = {{"n_ctx", "--ctx-size"},
                                                                           {"n_seq_max", "--parallel"},
                                                                           {"n_batch", "--batch-size"},
                                                                           {"n_ubatch", "--ubatch-size"},
                                                                           {"flash_attn", "--flash-attn"}};
  for (const auto& [key, option] : keys)
    if (kv->first == key) cmd.add(std::string(option), key == "flash_attn" ? fa_value(kv->second) : kv->second, line);
}

// type_k = 'q4_0' (kv cache init) or "K (f16): ..." (its size line).
void cache_types(std::string_view text, std::size_t line, log_command& cmd) {
  const auto quoted_type = [&](std::string_view marker, const char* option) {
    if (const auto t = after(text, marker)) cmd.add(option, std::string(t->substr(0, t->find('\''))), line);
  };
  quoted_type("type_k = '", "--cache-type-k");
  quoted_type("type_v = '", "--cache-type-v");
  if (!after(text, "size") || !after(text, ", K (") || !after(text, ", V (")) return;
  const auto k = *after(text, ", K ("), v = *after(text, ", V (");
  cmd.add("--cache-type-k", std::string(k.substr(0, k.find(')'))), line);
  cmd.add("--cache-type-v", std::string(v.substr(0, v.find(')'))), line);
}

void settings_line(const log_line& l, log_command& cmd) {
  const auto n = l.number;
  if (after(l.text, "llama_model_loader: loaded meta data"))
    if (const auto path = after(l.text, " from "))
      return cmd.add("--model", std::string(path->substr(0, path->find(" (version"))), n);
  if (const auto t = after(l.text, "offloaded "); t && after(*t, " layers to GPU") && leading_number(*t))
    return cmd.add("--gpu-layers", format_number(*leading_number(*t)), n);
  if (after(l.text, "Flash Attention was auto, set to enabled")) return cmd.add("--flash-attn", "on", n);
  if (after(l.text, "Flash Attention was auto, set to disabled")) return cmd.add("--flash-attn", "off", n);
  context_line(l.text, n, cmd);
  cache_types(l.text, n, cmd);
}

// One "<device> <kind> buffer size = X MiB" line.
struct buffer {
  std::string device{};  ///< CUDA0, CPU_Mapped, Metal, ...
  std::string kind{};    ///< weights, kv, compute ("" for output and RS buffers)
  std::string label{};   ///< as printed ("CUDA0 KV buffer size")
};

std::optional<buffer> buffer_of(std::string_view text) {
  const auto end = text.find(" buffer size =");
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view head = text.substr(0, end);
  head = trim(head.substr(head.rfind(':') == std::string_view::npos ? 0 : head.rfind(':') + 1));
  const auto space = head.find(' ');
  const std::string_view device = head.substr(0, space);
  const std::string_view kind = space == std::string_view::npos ? "" : trim(head.substr(space));
  if (device.empty()) return std::nullopt;
  const std::string k = kind.empty() || kind == "model" ? "weights"
                        : kind == "KV"                  ? "kv"
                        : kind == "compute"             ? "compute"
                                                        : "";
  return buffer{std::string(device), k, std::string(head) + " buffer size"};
}

bool on_host(std::string_view device) {
  return device.find("CPU") != std::string_view::npos || device.ends_with("_Host");
}

// The buffers by (kind, device), the last printed of each, and the first GPU device seen.
struct buffers {
  std::map<std::pair<std::string, std::string>, log_figure> sizes{};
  std::string first_gpu{};
};

void buffer_line(const log_line& l, buffers& b) {
  const auto buf = buffer_of(l.text);
  if (!buf || buf->kind.empty()) return;
  const auto size = leading_size(*after(l.text, " buffer size ="), "MiB");
  if (!size) return;
  if (!on_host(buf->device) && b.first_gpu.empty()) b.first_gpu = buf->device;
  b.sizes[{buf->kind, buf->device}] = {buf->kind, buf->label, *size, "MiB", l.number};
}

// The items: the first GPU's weights, KV and compute buffers; the host's weights and compute summed.
void buffer_figures(const buffers& b, log_read& out) {
  static constexpr std::pair<std::string_view, std::string_view> device_items[] = {
      {"weights", "weights"}, {"kv", "kv_memory"}, {"compute", "compute_buffer"}};
  for (const auto& [kind, item] : device_items)
    if (const auto it = b.sizes.find({std::string(kind), b.first_gpu}); it != b.sizes.end() && !b.first_gpu.empty()) {
      log_figure f = it->second;
      f.item = item;
      set_figure(out, f);
    }
  for (const auto& [kind, item] : {std::pair{"weights", "host_weights"}, std::pair{"compute", "host_compute_buffer"}}) {
    log_figure sum{item, "", 0, "MiB", 0};
    for (const auto& [key, f] : b.sizes)
      if (key.first == kind && on_host(key.second)) {
        sum.label += (sum.label.empty() ? "" : " + ") + f.label;
        sum.value += f.value;
        sum.line = f.line;
      }
    if (sum.line != 0) set_figure(out, sum);
  }
  std::string others;
  for (const auto& [key, f] : b.sizes)
    if (!on_host(key.second) && key.second != b.first_gpu && others.find(key.second) == std::string::npos)
      others += (others.empty() ? "" : ", ") + key.second;
  if (!others.empty())
    out.settings.notes.push_back("the buffers of " + others +
                                 " are not compared: the estimate reports the first device (" + b.first_gpu + ")");
}

}  // namespace

void read_llamacpp_log(std::span<const log_line> lines, log_read& out) {
  log_command cmd{"llama-server", {}, {}};
  buffers b;
  std::size_t ollama_line = 0;
  for (const auto& l : lines) {
    settings_line(l, cmd);
    buffer_line(l, b);
    if (ollama_line == 0 && (after(l.text, "ollama[") || after(l.text, "source=server.go"))) ollama_line = l.number;
  }
  read_log_command(cmd, out);
  buffer_figures(b, out);
  // Ollama's server runs llama.cpp's runner: the same lines, under Ollama's own profile (its minimum, its context).
  if (ollama_line != 0)
    set_setting(out.settings, "line " + std::to_string(ollama_line) + " ollama", "runtime", "ollama");
}

}  // namespace llm_memory::detail
