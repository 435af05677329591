// SPDX-License-Identifier: MIT
// The --log comparison as text.
#include "print_log.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace llm_memory::cli {

namespace {

// Tokens whole, sizes and concurrency with two decimals, as the logs print them.
std::string value_text(double v, const std::string& unit) {
  const bool whole = unit == "tokens";
  return whole ? fmt::format("{:.0f} {}", v, unit) : fmt::format("{:.2f} {}", v, unit);
}

std::string difference_text(const reconcile_row& row) {
  if (!row.ours) return "not modelled";
  const double d = row.difference();
  const std::string relative =
      row.logged.value != 0 ? fmt::format(" ({:+.1f} %)", 100 * d / row.logged.value) : std::string();
  return (d >= 0 ? "+" : "") + value_text(d, row.logged.unit) + relative;
}

}  // namespace

void print_reconciliation(const log_read& log, const reconciliation& rec) {
  fmt::print("\n{} beside the estimate (difference = ours - log):\n", log.settings.command);
  fmt::print("  {:<20} {:>6}  {:>16}  {:>16}  {}\n", "item", "line", "log", "ours", "difference");
  for (const auto& row : rec.rows)
    fmt::print("  {:<20} {:>6}  {:>16}  {:>16}  {}\n", row.logged.item, row.logged.line,
               value_text(row.logged.value, row.logged.unit),
               row.ours ? value_text(*row.ours, row.logged.unit) : std::string("-"), difference_text(row));
  if (!rec.largest.empty()) fmt::print("  diverges most: {}\n", rec.largest);
}

}  // namespace llm_memory::cli
