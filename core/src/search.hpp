// SPDX-License-Identifier: MIT
// The boundary searches over a monotone predicate (private): solve's devices, micro-batch, sequence and -ngl, and
// fits' context and -ngl. Galloping from lo brackets the boundary in O(log) probes, then bisection finds it; each
// probe is an estimate, so no point is probed twice and a caller's known-good start is never probed again.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

namespace llm_memory::detail {

using fits_at = std::function<bool(std::int64_t)>;

/// Largest x in [good, hi] with fits(x), given fits(good) and good >= 1, for fits true up to a boundary and false
/// after it. Probes good * 2, good * 4, ... (never good itself) to bracket the boundary, then bisects.
[[nodiscard]] inline std::int64_t last_fitting_from(std::int64_t good, std::int64_t hi, const fits_at& fits) {
  std::int64_t bad = hi + 1;
  while (good < hi) {
    const std::int64_t probe = std::min(hi, good * 2);
    if (!fits(probe)) {
      bad = probe;
      break;
    }
    good = probe;
  }
  while (bad - good > 1) {
    const std::int64_t mid = good + (bad - good) / 2;
    (fits(mid) ? good : bad) = mid;
  }
  return good;
}

/// Largest x in [lo, hi] with fits(x), for fits true up to a boundary and false after it; nullopt when fits(lo) is
/// false.
[[nodiscard]] inline std::optional<std::int64_t> last_fitting(std::int64_t lo, std::int64_t hi, const fits_at& fits) {
  if (!fits(lo)) return std::nullopt;
  return last_fitting_from(lo, hi, fits);
}

/// Smallest x in [lo, hi] with fits(x), for fits false up to a boundary and true after it; nullopt when fits(hi) is
/// false. Gallops lo, 2 lo, 4 lo, ... then bisects.
[[nodiscard]] inline std::optional<std::int64_t> first_fitting(std::int64_t lo, std::int64_t hi, const fits_at& fits) {
  if (lo > hi || !fits(hi)) return std::nullopt;
  if (fits(lo)) return lo;
  std::int64_t bad = lo, good = hi;
  while (bad < hi) {
    const std::int64_t probe = std::min(hi, bad * 2);
    if (fits(probe)) {
      good = probe;
      break;
    }
    bad = probe;
  }
  while (good - bad > 1) {
    const std::int64_t mid = bad + (good - bad) / 2;
    (fits(mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace llm_memory::detail
