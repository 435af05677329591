// SPDX-License-Identifier: MIT
// Arbitrary bytes pasted or dropped into the page's one box (paste.hpp read_pasted, the read_paste binding): the
// box never crashes and answers exactly one way. A log (its format named) carries no launch read; otherwise the
// launch read's errors name an option or a line that is in the text, on one line. Every setting read is one of
// the table's, every figure finite and not negative, and the settings read either estimate (finite, whole bytes)
// or fail with errors that name a setting; a log's comparison with that estimate is finite and renders.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "llm_memory/paste.hpp"
#include "llm_memory/report.hpp"

namespace {

using namespace llm_memory;

// An error naming "line N" names a line the text has (1 ≤ N ≤ its line count).
void check_line(const error& e, std::string_view text) {
  constexpr std::string_view prefix = "line ";
  if (!e.setting.starts_with(prefix)) return;
  std::size_t line = 0;
  const char* first = e.setting.data() + prefix.size();
  const auto [end, ec] = std::from_chars(first, e.setting.data() + e.setting.size(), line);
  if (ec != std::errc{} || end != e.setting.data() + e.setting.size()) return;  // "line 3: ..." forms elsewhere
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  fuzz::require(line >= 1 && line <= lines);
}

void check_log(const log_read& log) {
  fuzz::require(!log.format.empty());
  for (const auto& e : log.settings.errors) fuzz::check(e);
  for (const auto& [key, value] : log.settings.values) fuzz::require(find_setting(key) != nullptr);
  for (const auto& f : log.figures) fuzz::require(std::isfinite(f.value) && f.value >= 0 && f.line > 0);
  if (!log.settings.errors.empty()) return;
  const auto r = estimate(log.settings.values);
  fuzz::check(r);
  if (!r.ok()) return;
  const reconciliation rec = reconcile(log, r.value());
  for (const auto& row : rec.rows) fuzz::require(!row.ours || std::isfinite(*row.ours));
  fuzz::require(!reconciliation_to_json(log, rec).empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const pasted read = read_pasted(text);
  const bool binary = text.find('\0') != std::string_view::npos;
  fuzz::require(!(binary && read.log));  // a NUL byte is refused before any reader sees the text
  if (read.log) {
    // A log is one answer: nothing was read as a command beside it.
    fuzz::require(read.launch.values.empty() && read.launch.errors.empty() && read.launch.read.empty());
    check_log(*read.log);
    return 0;
  }
  const launch_read& r = read.launch;
  for (const auto& e : r.errors) {
    fuzz::check(e);
    check_line(e, text);
  }
  for (const auto& [key, value] : r.values) fuzz::require(find_setting(key) != nullptr);
  fuzz::require(!launch_to_json(r).empty());
  if (binary) fuzz::require(r.values.empty() && r.errors.size() == 1);
  if (r.errors.empty()) fuzz::check(estimate(r.values));
  return 0;
}
