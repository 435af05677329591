// SPDX-License-Identifier: MIT
#include "llm_memory/solve.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>

#include "llm_memory/estimate.hpp"

namespace llm_memory {
namespace {

using fits_at = std::function<bool(std::int64_t)>;

// Largest x in [lo, hi] with fits(x), for fits true up to a boundary and false after it; nullopt when
// fits(lo) is false. Gallops lo, 2 lo, 4 lo, ... to bracket the boundary, then bisects.
std::optional<std::int64_t> last_fitting(std::int64_t lo, std::int64_t hi, const fits_at& fits) {
  if (!fits(lo)) return std::nullopt;
  std::int64_t good = lo, bad = hi + 1;
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

// Smallest x in [lo, hi] with fits(x), for fits false up to a boundary and true after it; nullopt when
// fits(hi) is false. Gallops lo, 2 lo, 4 lo, ... then bisects.
std::optional<std::int64_t> first_fitting(std::int64_t lo, std::int64_t hi, const fits_at& fits) {
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

std::string in_units(double bytes, display_units units) {
  const bool gib = units == display_units::gib;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f %s", bytes / (gib ? 1073741824.0 : 1e9), gib ? "GiB" : "GB");
  return buf;
}

std::int64_t setting_max(std::string_view key) {
  const setting_def* def = find_setting(key);
  return def != nullptr ? static_cast<std::int64_t>(def->max_value) : 1;
}

// Total bytes per device at another micro-batch, sequence length or device count.
double total_at(const run_spec& base, std::int64_t batch, std::int64_t seq, std::int64_t devices) {
  return estimate(with_workload(base, batch, seq, devices)).total_bytes;
}

// The most of one factor of batch x grad_accum x data-parallel devices that keeps the product within what
// resolve() accepts, the other two fixed: the searches probe only settings a user could apply.
std::int64_t per_step_limit(double other_factors) {
  return static_cast<std::int64_t>(std::floor(max_sequences_per_step / other_factors));
}

solve_answer solve_devices(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  solve_answer a{"min_devices", {"devices"}, false, 0, 0, false, 0, {}, {}};
  const std::int64_t model_parallel = spec.model_parallel;
  const std::int64_t dp_limit =
      std::min(solve_device_limit / model_parallel, per_step_limit(static_cast<double>(s.batch) * static_cast<double>(s.grad_accum)));
  a.limit = dp_limit * model_parallel;
  auto total = [&](std::int64_t dp) { return total_at(spec, s.batch, s.seq, dp * model_parallel); };
  auto fits = [&](std::int64_t dp) { return total(dp) <= capacity; };
  // dp = 1 stands apart: ZeRO-3 adds its gather buffers only once there is something to gather.
  std::optional<std::int64_t> dp;
  if (dp_limit >= 1 && fits(1))
    dp = 1;
  else if (dp_limit >= 2)
    dp = first_fitting(2, dp_limit, fits);
  const std::string parallel = "tp " + std::to_string(s.tp) + " x pp " + std::to_string(s.pp);
  if (dp) {
    a.found = true;
    a.value = *dp * model_parallel;
    a.total_bytes = total(*dp);
    a.delta = {{"devices", std::to_string(a.value)}};
    a.message = "fits on " + std::to_string(a.value) + " device" + (a.value == 1 ? "" : "s") + " (data-parallel " +
                std::to_string(*dp) + " x " + parallel + ", ZeRO " + std::to_string(s.zero) + ")";
  } else if (s.zero == 0) {
    const std::string replica = spec.train() ? "parameters, gradients and optimizer state" : "the weights";
    a.message = "no device count fits with ZeRO 0: every data-parallel device holds a full replica of " + replica +
                ", so adding devices never lowers per-device memory; raise zero, tp or pp";
  } else {
    a.message = "none within " + std::to_string(solve_device_limit) + " devices (" + parallel + ", ZeRO " +
                std::to_string(s.zero) + ")";
    if (dp_limit >= 1) a.message += ": " + in_units(total(dp_limit), spec.units) + " per device even at " +
                                    std::to_string(a.limit) + " devices";
  }
  return a;
}

solve_answer solve_batch(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  const std::int64_t step_limit =
      per_step_limit(static_cast<double>(s.grad_accum) * static_cast<double>(spec.data_parallel));
  solve_answer a{"max_batch", {"batch"}, false, 0, std::min(setting_max("batch"), step_limit), false, 0, {}, {}};
  auto total = [&](std::int64_t b) { return total_at(spec, b, s.seq, s.devices); };
  const auto b = last_fitting(1, a.limit, [&](std::int64_t x) { return total(x) <= capacity; });
  const std::string at = " at seq " + std::to_string(s.seq);
  if (!b) {
    a.message = "even micro-batch 1 does not fit" + at + " (" + in_units(total(1) - capacity, spec.units) + " over)";
    return a;
  }
  a.found = true;
  a.value = *b;
  a.at_limit = *b == a.limit;
  a.total_bytes = total(*b);
  a.delta = {{"batch", std::to_string(*b)}};
  const char* limit_reason = step_limit < setting_max("batch")
                                 ? " (the limit: batch x grad_accum x data-parallel devices stays below 2^53)"
                                 : " (the setting's maximum)";
  a.message = "largest micro-batch that fits: " + std::to_string(*b) + " sequence" + (*b == 1 ? "" : "s") + at +
              (a.at_limit ? limit_reason : "");
  return a;
}

solve_answer solve_seq(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  solve_answer a{"max_seq", {"seq"}, false, 0, setting_max("seq"), false, 0, {}, {}};
  auto total = [&](std::int64_t q) { return total_at(spec, s.batch, q, s.devices); };
  const auto q = last_fitting(1, a.limit, [&](std::int64_t x) { return total(x) <= capacity; });
  const std::string what = spec.train() ? "sequence" : "context";
  const std::string at = " at micro-batch " + std::to_string(s.batch);
  if (!q) {
    a.message = "even a " + what + " of 1 token does not fit" + at + " (" + in_units(total(1) - capacity, spec.units) +
                " over)";
    return a;
  }
  a.found = true;
  a.value = *q;
  a.at_limit = *q == a.limit;
  a.total_bytes = total(*q);
  a.delta = {{"seq", std::to_string(*q)}};
  a.message = "longest " + what + " that fits: " + std::to_string(*q) + " tokens" + at +
              (a.at_limit ? " (the setting's maximum)" : "");
  return a;
}

}  // namespace

solve_result solve(const run_spec& spec) {
  const estimate_result now = estimate(spec);
  solve_result r;
  r.fits = now.fits;
  r.total_bytes = now.total_bytes;
  r.gpu_memory_bytes = now.gpu_memory_bytes;
  r.headroom_bytes = now.gpu_memory_bytes - now.total_bytes;
  r.min_devices = solve_devices(spec, now.gpu_memory_bytes);
  r.max_batch = solve_batch(spec, now.gpu_memory_bytes);
  r.max_seq = solve_seq(spec, now.gpu_memory_bytes);
  return r;
}

result<solve_result> solve(const settings& explicit_values, const settings& config) {
  auto spec = resolve(explicit_values, config);
  if (!spec.ok()) return spec.errors();
  return solve(spec.value());
}

}  // namespace llm_memory
