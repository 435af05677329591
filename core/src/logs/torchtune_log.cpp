// SPDX-License-Identifier: MIT
// A torchtune recipe's log. Settings: the "Running <Recipe> with resolved config:" block (the recipe's
// `log_config`, torchtune/config/_utils.py: the config as YAML, one key a line, after the logger's prefix line),
// read by the torchtune recipe reader (readers/torchtune.cpp). Figures: log_memory_stats'
// "<device> peak memory allocation: %.2f GiB" and "... reserved: %.2f GiB" (`/ 1024**3`, torchtune/training/memory.py
// read at pytorch/torchtune 03317787; "GB" of `/ 1e9` before v0.2) and the metric logger's "peak_memory_alloc:X" /
// "peak_memory_reserved:X" of each logged step (DiskLogger / StdoutLogger `key:value`). Each is the peak since the last
// reset_peak_memory_stats(): the largest printed is the run's peak.
#include <string>

#include "logs/logs.hpp"
#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "readers/yaml.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

struct peak_mark {
  std::string_view mark;     ///< what precedes the figure
  std::string_view item;     ///< log_figure::item
  std::string_view label;    ///< as the log names it
  bool device_line = false;  ///< log_memory_stats' "<device> peak memory ..." line (the init block's)
};
constexpr peak_mark marks[] = {
    {" peak memory allocation: ", "peak_allocated", "peak memory allocation", true},
    {" peak memory reserved: ", "peak_reserved", "peak memory reserved", true},
    {"peak_memory_alloc:", "peak_allocated", "peak_memory_alloc", false},
    {"peak_memory_reserved:", "peak_reserved", "peak_memory_reserved", false},
};

// torchtune before v0.2 divided by 1e9 and printed "GB"; since, by 1024**3 and "GiB" (the metrics print none).
std::string unit_after(std::string_view t) {
  const auto space = t.find(' ');
  return space != std::string_view::npos && t.substr(space + 1).starts_with("GB") ? "GB" : "GiB";
}

// The block after "Memory stats after model init:" holds the weights as loaded (the recipe resets the peaks
// after it), not the training step's peak: its allocation is the weights item, its reserved figure is left out.
void peaks(const log_line& l, bool init, log_read& out) {
  for (const auto& m : marks) {
    const auto t = after(l.text, m.mark);
    const auto v = t ? leading_number(*t) : std::nullopt;
    if (!v) continue;
    if (!init || !m.device_line)
      set_peak_figure(out, {std::string(m.item), std::string(m.label), *v, unit_after(*t), l.number});
    else if (m.item == "peak_allocated")
      set_figure(out, {"weights", "peak memory allocation after model init", *v, unit_after(*t), l.number});
  }
}

// The resolved config's lines: from the line after the marker up to the next logger line (an upper-case
// level prefix such as "INFO:torchtune..." or "DEBUG:..."; the config's keys are lower case).
std::string config_block(std::span<const log_line> lines, std::size_t& first) {
  std::string yaml;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!after(lines[i].text, "with resolved config:")) continue;
    first = lines[i].number;
    for (std::size_t j = i + 1; j < lines.size(); ++j) {
      const auto t = lines[j].text;
      if (!t.empty() && t.front() >= 'A' && t.front() <= 'Z') break;
      yaml += std::string(t) + "\n";
    }
    break;
  }
  return yaml;
}

void read_config(std::span<const log_line> lines, log_read& out) {
  std::size_t line = 0;
  const std::string yaml = config_block(lines, line);
  if (trim(yaml).empty())
    return out.settings.notes.push_back("no resolved config in the log: give the recipe with --from for its settings");
  auto doc = parse_yaml(yaml, out.settings.notes);
  if (!doc.ok() || !doc.value().is_object()) {
    out.settings.notes.push_back("the resolved config after line " + std::to_string(line) +
                                 " is not YAML llm-memory reads: give the recipe with --from");
    return;
  }
  out.settings.notes.push_back("settings from the resolved config after line " + std::to_string(line));
  read_torchtune(doc.value(), out.settings);
}

// "FSDP is enabled. Instantiating model ..." (recipes/*_distributed.py): the model is sharded, FSDP's full shard.
void sharding(std::span<const log_line> lines, log_read& out) {
  for (const auto& l : lines)
    if (after(l.text, "FSDP is enabled"))
      return set_setting(out.settings, "line " + std::to_string(l.number) + " FSDP is enabled", "zero", "3");
}

}  // namespace

void read_torchtune_log(std::span<const log_line> lines, log_read& out) {
  read_config(lines, out);
  sharding(lines, out);
  std::size_t init_until = 0;  // the last line of an "after model init" block (its three device lines)
  for (const auto& l : lines) {
    if (after(l.text, "Memory stats after model init") || after(l.text, "Memory Stats after model init"))
      init_until = l.number + 3;
    peaks(l, l.number <= init_until, out);
  }
}

}  // namespace llm_memory::detail
