// SPDX-License-Identifier: MIT
// The invariant every fuzz target checks: a result is finite, non-negative and a whole number of bytes at most
// 2^53 everywhere (exact as a double), and the JSON rendering succeeds; an error always names a setting, and its
// one-line form holds no control character (issue 20).
#pragma once

#include <cmath>
#include <cstdlib>

#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"

namespace llm_memory::fuzz {

inline void require(bool ok) {
  if (!ok) __builtin_trap();
}

inline void check(const error& e) {
  require(!e.setting.empty() && !e.message.empty());
  for (const char c : to_string(e)) require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
}

// Whole bytes within 2^53, where every integer is an exact double.
inline void check_bytes(double bytes) {
  require(std::isfinite(bytes) && bytes >= 0 && bytes <= 9007199254740992.0 && bytes == std::floor(bytes));
}

inline void check(const result<estimate_result>& r) {
  if (!r.ok()) {
    require(!r.errors().empty());
    for (const auto& e : r.errors()) check(e);
    require(!errors_to_json(r.errors()).empty());
    return;
  }
  const auto& e = r.value();
  check_bytes(e.total_bytes);
  check_bytes(e.cpu_bytes);
  for (const auto& b : e.buckets) {
    check_bytes(b.bytes);
    for (const auto& i : b.items) check_bytes(i.bytes);
  }
  require(!to_json(e).empty());
}

}  // namespace llm_memory::fuzz
