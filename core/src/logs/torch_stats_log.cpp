// SPDX-License-Identifier: MIT
// A printed torch.cuda.memory_stats() dict (torch/cuda/memory.py memory_stats: an OrderedDict of flat
// "<stat>.<pool>.<metric>" keys in bytes; printed as `OrderedDict([('key', v), ...])`, `OrderedDict({'key': v})`
// from Python 3.12, or a pprint'd `{'key': v, ...}` over several lines). The figures are "allocated_bytes.all.peak"
// (max_memory_allocated) and "reserved_bytes.all.peak" (max_memory_reserved); the largest printed wins (a log of
// several dicts: the run's peak). It states no setting: the estimate is the one for the user's settings.
#include <array>
#include <string>

#include "logs/logs.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

struct stat_key {
  std::string_view key;   ///< as memory_stats() names it, quoted in the repr
  std::string_view item;  ///< log_figure::item
};
constexpr std::array<stat_key, 2> stats{
    {{"'allocated_bytes.all.peak'", "peak_allocated"}, {"'reserved_bytes.all.peak'", "peak_reserved"}}};

// The number after a quoted key: `': 123` (dict) or `', 123)` (OrderedDict's pairs).
std::optional<double> value_after(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == ':' || text[i] == ',' || text[i] == ' ')) ++i;
  return leading_number(text.substr(i));
}

}  // namespace

void read_torch_stats_log(std::span<const log_line> lines, log_read& out) {
  for (const auto& l : lines)
    for (const auto& s : stats)
      if (const auto t = after(l.text, s.key))
        if (const auto bytes = value_after(*t))
          set_peak_figure(out, {std::string(s.item), std::string(s.key.substr(1, s.key.size() - 2)),
                                *bytes / 1073741824.0, "GiB", l.number});
  out.settings.notes.push_back(
      "torch.cuda.memory_stats() states no setting: the estimate is the one for your settings");
}

}  // namespace llm_memory::detail
