// SPDX-License-Identifier: MIT
// nvidia-smi output: the default table (NVIDIA-SMI 4xx-5xx, "|  38135MiB /  40960MiB |" in the Memory-Usage column,
// the GPU's index and name on the line above) or `nvidia-smi --query-gpu=index,memory.used,... --format=csv`
// (a header naming "memory.used [MiB]", then one line per GPU). It states no setting: the estimate is the one
// for the user's settings. The figure is the memory used on the most loaded GPU, which is the device the estimate
// reports; nvidia-smi counts everything on the device (the CUDA context and memory outside PyTorch included).
#include <string>

#include "logs/logs.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// One GPU's memory as printed.
struct gpu_memory {
  std::string name{};    ///< "GPU 0" (the index as printed)
  double used = 0;       ///< [MiB]
  double total = 0;      ///< [MiB]; 0 when not printed
  std::size_t line = 0;  ///< the line it was read from, from 1
};

// "38135MiB / 40960MiB" in a cell of the table.
std::optional<std::pair<double, double>> usage_cell(std::string_view cell) {
  cell = trim(cell);
  const auto slash = cell.find('/');
  if (slash == std::string_view::npos || !cell.ends_with("MiB")) return std::nullopt;
  const auto used = leading_size(cell.substr(0, slash), "MiB"), total = leading_size(cell.substr(slash + 1), "MiB");
  if (!used || !total) return std::nullopt;
  return std::pair{*used, *total};
}

// "|   0  NVIDIA A100-SXM4-40GB   On  | ..." -> "GPU 0".
std::string table_gpu(std::string_view line) {
  const auto cells = split(line, '|');
  if (cells.size() < 2) return "GPU";
  const auto words = trim(cells[1]);
  const auto index = leading_number(words);
  return index ? "GPU " + format_number(*index) : "GPU";
}

// The table's Memory-Usage cells.
std::vector<gpu_memory> table_rows(std::span<const log_line> lines) {
  std::vector<gpu_memory> gpus;
  for (std::size_t i = 0; i < lines.size(); ++i)
    for (const auto cell : split(lines[i].text, '|'))
      if (const auto usage = usage_cell(cell))
        gpus.push_back({i > 0 ? table_gpu(lines[i - 1].text) : "GPU", usage->first, usage->second, lines[i].number});
  return gpus;
}

// The CSV of --query-gpu: the columns its header names, then one GPU a line.
std::vector<gpu_memory> csv_rows(std::span<const log_line> lines) {
  std::vector<gpu_memory> gpus;
  std::optional<std::size_t> used_at, total_at, index_at;
  for (const auto& l : lines) {
    const auto cells = split(l.text, ',');
    if (after(l.text, "memory.used")) {
      used_at = total_at = index_at = std::nullopt;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const auto name = trim(cells[c]);
        if (name.starts_with("memory.used")) used_at = c;
        if (name.starts_with("memory.total")) total_at = c;
        if (name == "index") index_at = c;
      }
      continue;
    }
    if (!used_at || *used_at >= cells.size()) continue;
    const auto used = leading_size(trim(cells[*used_at]), "MiB");
    if (!used) continue;
    const auto total =
        total_at && *total_at < cells.size() ? leading_size(trim(cells[*total_at]), "MiB") : std::nullopt;
    const auto index = index_at && *index_at < cells.size() ? leading_number(cells[*index_at]) : std::nullopt;
    gpus.push_back({index ? "GPU " + format_number(*index) : "GPU", *used, total.value_or(0), l.number});
  }
  return gpus;
}

}  // namespace

void read_nvidia_smi_log(std::span<const log_line> lines, log_read& out) {
  auto gpus = table_rows(lines);
  if (gpus.empty()) gpus = csv_rows(lines);
  const gpu_memory* most = nullptr;
  for (const auto& g : gpus)
    if (most == nullptr || g.used > most->used) most = &g;
  auto& notes = out.settings.notes;
  notes.push_back("nvidia-smi states no setting: the estimate is the one for your settings");
  if (most == nullptr) return;
  set_figure(out, {"device_used", most->name + " memory used (nvidia-smi)", most->used, "MiB", most->line});
  if (gpus.size() > 1)
    notes.push_back(std::to_string(gpus.size()) + " GPUs listed: " + most->name +
                    ", the most loaded, is set beside the estimate's most loaded device");
  if (most->total > 0)
    notes.push_back(most->name + " holds " + format_number(most->total) +
                    " MiB in all (the driver's total; gpu_memory " + format_number(most->total) + "MiB to use it)");
}

}  // namespace llm_memory::detail
