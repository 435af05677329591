// SPDX-License-Identifier: MIT
#include "llm_memory/solve.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <utility>

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
      std::min(solve_device_limit / model_parallel,
               per_step_limit(static_cast<double>(s.batch) * static_cast<double>(s.grad_accum)));
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
    if (dp_limit >= 1)
      a.message +=
          ": " + in_units(total(dp_limit), spec.units) + " per device even at " + std::to_string(a.limit) + " devices";
  }
  return a;
}

// Inference engines split a model over tensor-parallel ranks (degrees dividing the query heads, with the KV heads
// a multiple of tp or tp a multiple of them: vLLM's and SGLang's QKV split) within a node of 8, then over
// pipeline stages; data-parallel replicas never lower per-device memory.
bool valid_tp(const run_spec& spec, std::int64_t tp) {
  const std::int64_t heads = spec.values.num_attention_heads;
  const auto kv = static_cast<std::int64_t>(spec.model.kv_heads);
  return heads % tp == 0 && kv > 0 && (kv % tp == 0 || tp % kv == 0);
}

constexpr std::int64_t node_size = 8;  // tensor parallelism stays within one node (NVLink)

// The split tried for `n` devices: tensor parallel n within a node, else the largest valid tp <= 8 dividing n
// with pipeline stages for the rest; {0, 0} when none is valid.
std::pair<std::int64_t, std::int64_t> split_for(const run_spec& spec, std::int64_t n) {
  if (n <= node_size && valid_tp(spec, n)) return {n, 1};
  for (std::int64_t tp = node_size; tp >= 1; tp /= 2)
    if (n % tp == 0 && valid_tp(spec, tp) && n / tp <= spec.values.num_hidden_layers) return {tp, n / tp};
  return {0, 0};
}

solve_answer solve_devices_inference(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  solve_answer a{"min_devices", {"devices", "tp", "pp"}, false, 0, 0, false, 0, {}, {}};
  a.limit = node_size * s.num_hidden_layers;
  auto total = [&](std::int64_t tp, std::int64_t pp) {
    run_spec split = spec;
    split.values.tp = tp;
    split.values.pp = pp;
    return estimate(with_workload(split, s.batch, s.seq, tp * pp)).total_bytes;
  };
  for (std::int64_t n = 1; n <= a.limit; ++n) {
    const auto [tp, pp] = split_for(spec, n);
    if (tp == 0) continue;
    const double bytes = total(tp, pp);
    if (bytes > capacity) continue;
    a.found = true;
    a.value = n;
    a.total_bytes = bytes;
    a.delta = {{"devices", std::to_string(n)}, {"tp", std::to_string(tp)}, {"pp", std::to_string(pp)}};
    a.message = "fits on " + std::to_string(n) + " device" + (n == 1 ? "" : "s") + " (tensor parallel " +
                std::to_string(tp) + " x pipeline " + std::to_string(pp) + ")";
    return a;
  }
  a.message = "no tensor x pipeline split of up to " + std::to_string(a.limit) +
              " devices fits (tp within a node of 8, dividing the heads; pp up to the layers)";
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
  r.min_devices =
      spec.train() ? solve_devices(spec, now.gpu_memory_bytes) : solve_devices_inference(spec, now.gpu_memory_bytes);
  r.max_batch = solve_batch(spec, now.gpu_memory_bytes);
  r.max_seq = solve_seq(spec, now.gpu_memory_bytes);
  return r;
}

solve_answer solve_min_devices(const run_spec& spec) {
  const double capacity = spec.values.gpu_memory;  // estimate()'s gpu_memory_bytes
  return spec.train() ? solve_devices(spec, capacity) : solve_devices_inference(spec, capacity);
}

result<solve_result> solve(const settings& explicit_values, const settings& config) {
  auto spec = resolve(explicit_values, config);
  if (!spec.ok()) return spec.errors();
  return solve(spec.value());
}

}  // namespace llm_memory
