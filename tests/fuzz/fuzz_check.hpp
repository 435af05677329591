// SPDX-License-Identifier: MIT
// The invariant every fuzz target checks: a result is finite and non-negative everywhere, and the JSON
// rendering succeeds; an error always names a setting.
#pragma once

#include <cmath>
#include <cstdlib>

#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"

namespace llm_memory::fuzz {

inline void require(bool ok) {
  if (!ok) __builtin_trap();
}

inline void check(const result<estimate_result>& r) {
  if (!r.ok()) {
    require(!r.errors().empty());
    for (const auto& e : r.errors()) require(!e.setting.empty() && !e.message.empty());
    require(!errors_to_json(r.errors()).empty());
    return;
  }
  const auto& e = r.value();
  require(std::isfinite(e.total_bytes) && e.total_bytes >= 0);
  require(std::isfinite(e.cpu_bytes) && e.cpu_bytes >= 0);
  for (const auto& b : e.buckets) {
    require(std::isfinite(b.bytes) && b.bytes >= 0);
    for (const auto& i : b.items) require(std::isfinite(i.bytes) && i.bytes >= 0);
  }
  require(!to_json(e).empty());
}

}  // namespace llm_memory::fuzz
