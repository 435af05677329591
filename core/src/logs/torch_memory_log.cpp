// SPDX-License-Identifier: MIT
// torch.cuda.memory_summary(): the caching allocator's table (torch/cuda/memory.py memory_summary, the same since
// PyTorch 1.4; read at pytorch/pytorch 00b65a04, 2026). Its rows are "| <metric> | Cur Usage | Peak Usage | Tot
// Alloc | Tot Freed |"; the figures are the Peak Usage of "Allocated memory" (max_memory_allocated) and of "GPU
// reserved memory" (max_memory_reserved). Each size is printed as a whole number of B, KiB, MiB, GiB... after
// floor division (`sz //= 1024` while the row's value passes 768 of the unit), so a figure is up to one unit
// below the true one. It states no setting: the estimate is the one for the user's settings.
#include <array>
#include <string>

#include "logs/logs.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// "  15325 MiB " -> 15325 [MiB]; memory_summary's prefixes from B to PiB.
std::optional<double> summary_size_mib(std::string_view cell) {
  cell = trim(cell);
  const auto value = leading_number(cell);
  const auto space = cell.find(' ');
  if (!value || space == std::string_view::npos) return std::nullopt;
  const std::string_view unit = trim(cell.substr(space));
  static constexpr std::array<std::string_view, 6> units{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double scale = 1.0 / (1024.0 * 1024.0);  // B in MiB
  for (const auto u : units) {
    if (unit == u) return *value * scale;
    scale *= 1024;
  }
  return std::nullopt;
}

// The summary's metrics set beside the estimate: metric name -> item.
struct summary_metric {
  std::string_view name;  ///< as the table's first column prints it
  std::string_view item;  ///< log_figure::item
};
constexpr std::array<summary_metric, 2> metrics{
    {{"Allocated memory", "peak_allocated"}, {"GPU reserved memory", "peak_reserved"}}};

}  // namespace

void read_torch_memory_log(std::span<const log_line> lines, log_read& out) {
  for (const auto& l : lines) {
    const auto cells = split(l.text, '|');
    if (cells.size() < 4) continue;
    for (const auto& m : metrics)
      if (trim(cells[1]) == m.name)
        if (const auto peak = summary_size_mib(cells[3]))
          set_figure(out, {std::string(m.item), std::string(m.name) + ", peak usage", *peak, "MiB", l.number});
  }
  out.settings.notes.push_back(
      "torch.cuda.memory_summary() states no setting: the estimate is the one for your settings");
  out.settings.notes.push_back("memory_summary rounds each size down to a whole unit (MiB for most GPUs' figures)");
}

}  // namespace llm_memory::detail
