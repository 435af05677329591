// SPDX-License-Identifier: MIT
// The boundary searches over a monotone predicate (private): solve's devices, micro-batch, sequence and -ngl, and
// fits' context, -ngl and --n-cpu-moe. Galloping from lo brackets the boundary in O(log) probes, then bisection finds
// it; each probe is an estimate, so no point is probed twice and a caller's known-good start is never probed again.
// Where the device total is near a straight line in the searched value (fits' -ngl and --n-cpu-moe: each layer or
// each layer's experts the same bytes), boundary_along_line aims at the boundary through the bracket's totals.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
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

/// One end of a boundary search's bracket: a position and the device total there.
struct line_end {
  std::int64_t x = 0;           ///< the searched value (layers on the GPU, layers' experts on the host) [layers]
  std::optional<double> total;  ///< the device total there; nullopt: not known [bytes]
};

/// A probe of boundary_along_line: whether the run holds at a position, and its device total [bytes].
struct line_probe {
  bool holds = false;           ///< the run fits there
  std::optional<double> total;  ///< its device total; nullopt: it did not resolve [bytes]
};
using line_probe_at = std::function<line_probe(std::int64_t)>;

/// The next position to probe strictly between `good` and `bad` (either order): where the straight line through
/// their totals reaches `memory`, on good's side of it (the last position at or below the memory), kept inside the
/// bracket; the middle when a total is missing, the line does not rise towards bad or `along_line` is false.
[[nodiscard]] inline std::int64_t line_probe_between(const line_end& good, const line_end& bad, double memory,
                                                     bool along_line) {
  const std::int64_t distance = std::llabs(bad.x - good.x), toward = bad.x > good.x ? 1 : -1;
  const std::int64_t middle = good.x + toward * (distance / 2);
  if (!along_line || !good.total || !bad.total || !(*bad.total > *good.total)) return middle;
  const double offset = std::floor((memory - *good.total) / (*bad.total - *good.total) * static_cast<double>(distance));
  if (!std::isfinite(offset)) return middle;
  // Outside the bracket: the line puts the boundary next to that end, so the position beside it is probed.
  const auto steps = static_cast<std::int64_t>(std::clamp(offset, 1.0, static_cast<double>(distance - 1)));
  return good.x + toward * steps;
}

/// The last position from `good` towards `bad` that holds, for a predicate that holds at good, fails at bad (either
/// may be a position never probed, outside the searched range) and changes once between them, the device total
/// rising towards bad. Up to `line_probes` probes where the straight line through the bracket's totals reaches
/// `memory` (llama.cpp's layers are alike: the first lands on the boundary or beside it, the second checks it),
/// then bisection: the same boundary as galloping and bisecting, in fewer probes.
[[nodiscard]] inline std::int64_t boundary_along_line(line_end good, line_end bad, double memory,
                                                      const line_probe_at& at, int line_probes = 3) {
  for (int probes = 0; std::llabs(bad.x - good.x) > 1; ++probes) {
    const std::int64_t x = line_probe_between(good, bad, memory, probes < line_probes);
    const line_probe p = at(x);
    (p.holds ? good : bad) = line_end{x, p.total};
  }
  return good.x;
}

}  // namespace llm_memory::detail
