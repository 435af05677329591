// SPDX-License-Identifier: MIT
// A litgpt finetune or pretrain log. Settings: the hyperparameters its `setup` prints with pprint(locals())
// (litgpt/finetune/lora.py, full.py: a dict `{'checkpoint_dir': PosixPath('...'), 'devices': 1, ..., 'train':
// TrainArgs(global_batch_size=16, micro_batch_size=1, ...)}` over one or more lines), read by the litgpt recipe
// reader (readers/litgpt.cpp) as the YAML of the same keys. Figure: "Memory used: %.02f GB" of
// `torch.cuda.max_memory_allocated() / 1e9` (finetune/lora.py, full.py, adapter.py at Lightning-AI/litgpt
// v0.5): decimal GB, the peak allocated.
#include <string>

#include "logs/logs.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// A repr value as text: quotes off, `PosixPath('x')` -> x; a call such as `TrainArgs(a=1, ...)` -> its fields.
json repr_value(std::string_view value, int depth) {
  value = trim(value);
  const auto open = value.find('(');
  if (open != std::string_view::npos && value.ends_with(')') && open > 0 && depth < 4) {
    const auto inner = value.substr(open + 1, value.size() - open - 2);
    if (value.starts_with("PosixPath(") || value.starts_with("WindowsPath(")) return repr_value(inner, depth + 1);
    json fields = json::object();
    for (auto& [key, v] : python_pairs(inner, '=')) fields[key] = repr_value(v, depth + 1);
    return fields;
  }
  if (value == "None") return json(nullptr);
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  return json(std::string(value));
}

// The pprint'd dict: from the line that opens it with 'checkpoint_dir' to the line where its braces close.
std::string hyperparameters(std::span<const log_line> lines, std::size_t& first) {
  std::string text;
  int depth = 0;
  for (const auto& l : lines) {
    if (text.empty()) {
      const auto at = l.text.find("{'");
      if (at == std::string_view::npos || l.text.find("'checkpoint_dir'") == std::string_view::npos) continue;
      first = l.number;
      text = std::string(l.text.substr(at));
    } else {
      text += " " + std::string(trim(l.text));
    }
    for (const char c : l.text) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    if (depth <= 0 || text.size() > max_log_line_bytes) break;
  }
  return text;
}

void read_hyperparameters(std::span<const log_line> lines, log_read& out) {
  std::size_t line = 0;
  const std::string text = hyperparameters(lines, line);
  if (text.empty())
    return out.settings.notes.push_back("no hyperparameters in the log: give the litgpt config with --from");
  json doc = json::object();
  for (auto& [key, value] : python_pairs(std::string_view(text).substr(1), ':')) doc[key] = repr_value(value, 0);
  out.settings.notes.push_back("settings from the hyperparameters at line " + std::to_string(line));
  read_litgpt(doc, out.settings);
}

}  // namespace

void read_litgpt_log(std::span<const log_line> lines, log_read& out) {
  read_hyperparameters(lines, out);
  for (const auto& l : lines)
    if (const auto t = after(l.text, "Memory used: "))
      if (const auto v = leading_number(*t))
        set_peak_figure(out, {"peak_allocated", "Memory used", *v, "GB", l.number});
}

}  // namespace llm_memory::detail
