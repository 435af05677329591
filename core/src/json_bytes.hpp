// SPDX-License-Identifier: MIT
// Byte counts in JSON output (private to the core's sources that build JSON).
#pragma once

#include "json_value.hpp"

#include <cmath>
#include <cstdint>

namespace llm_memory::detail {

/// Whole bytes as a JSON integer; beyond 2^63 (absurd inputs) they stay finite doubles.
[[nodiscard]] inline json json_bytes(double v) {
  if (std::isfinite(v) && std::fabs(v) < 9.2e18) return static_cast<std::int64_t>(std::llround(v));
  return v;
}

}  // namespace llm_memory::detail
