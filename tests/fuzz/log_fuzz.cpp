// SPDX-License-Identifier: MIT
// Arbitrary bytes as a pasted startup log (log.hpp): the log readers never crash, every error names its line on one
// line, every figure is finite and not negative, and the settings they read either estimate (finite, whole bytes)
// or fail with errors that name a setting; the comparison with that estimate is finite too.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "llm_memory/log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llm_memory;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const log_read log = read_log(text);
  for (const auto& e : log.settings.errors) fuzz::check(e);
  for (const auto& [key, value] : log.settings.values) fuzz::require(find_setting(key) != nullptr);
  for (const auto& f : log.figures) fuzz::require(std::isfinite(f.value) && f.value >= 0 && f.line > 0);
  if (!log.settings.errors.empty()) return 0;
  const auto r = estimate(log.settings.values);
  fuzz::check(r);
  if (!r.ok()) return 0;
  const reconciliation rec = reconcile(log, r.value());
  for (const auto& row : rec.rows) fuzz::require(!row.ours || std::isfinite(*row.ours));
  fuzz::require(!reconciliation_to_json(log, rec).empty());
  return 0;
}
