// SPDX-License-Identifier: MIT
// The knob diagnosis (seed 1: "find the bucket over budget, then pick a knob that drains that bucket"):
// every applicable knob of the design's table moved one step, each re-estimated for the user's own setting.
// Each knob is a named change to the raw settings, so a front end applies it by merging `delta`.
// See docs/solve-and-advise.md for the knob table and the step each takes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llm_memory/resolve.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// How one bucket changed under a knob.
struct bucket_change {
  std::string bucket;                                            ///< one of bucket_keys
  double before = 0;                                             ///< bytes per device now
  double after = 0;                                              ///< bytes per device with the knob applied
  [[nodiscard]] double saved() const { return before - after; }  ///< bytes; negative = the knob adds memory
};

/// One knob moved one step, re-estimated.
struct knob_advice {
  std::string id;                      ///< stable identifier, e.g. "zero", "offload_optimizer", "recompute"
  std::string name;                    ///< for people, e.g. "ZeRO stage 1 -> 2"
  settings delta;                      ///< raw settings to merge over the user's to apply the knob
  std::string drains;                  ///< bucket with the largest decrease ("" when none decreased)
  std::vector<bucket_change> changes;  ///< buckets whose bytes changed, in bucket_keys order
  double total_bytes = 0;              ///< per-device total with the knob applied (bytes)
  double saved_bytes = 0;              ///< total now - total with the knob (bytes; negative = costs memory)
  double cpu_bytes = 0;                ///< host RAM for offloaded state with the knob applied (bytes)
  bool fits = false;                   ///< the total with the knob applied fits one device
  std::string note;                    ///< what else the step changes or assumes ("" when nothing)
  int tier = 0;                        ///< throughput cost tier, 0 (none) to 3 (large): docs/solve-and-advise.md
  [[nodiscard]] double added_bytes() const { return -saved_bytes; }  ///< bytes; positive = the knob costs memory
  [[nodiscard]] bool adds_devices() const { return delta.contains("devices"); }  ///< changes the hardware
};

/// The cheapest combination of knobs that makes the setting fit: the fewest knobs, then the lowest sum of
/// throughput tiers, then the smallest total; knobs that keep the hardware are searched before any that adds
/// devices (docs/solve-and-advise.md, "Cheapest combination").
struct knob_combination {
  bool searched = false;           ///< false when the setting fits already (nothing searched)
  bool found = false;              ///< a combination within max_knobs fits
  bool same_hardware = true;       ///< the combination found adds no device
  std::vector<std::string> ids;    ///< its knobs' ids, in knob-table order
  std::vector<std::string> names;  ///< its knobs' names
  settings delta;                  ///< the knobs' deltas merged: raw settings to apply the combination
  double total_bytes = 0;          ///< per-device total with the combination applied (bytes)
  double cpu_bytes = 0;            ///< host RAM with the combination applied (bytes)
  int cost = 0;                    ///< sum of the knobs' throughput tiers
  std::size_t max_knobs = 0;       ///< the largest combination searched [knobs]
  std::size_t evaluated = 0;       ///< combinations estimated [estimates]
};

/// One knob as the combination search sees it.
struct combination_knob {
  std::string id;    ///< knob_advice::id
  std::string name;  ///< knob_advice::name
  settings delta;    ///< knob_advice::delta
  int tier = 0;      ///< knob_advice::tier
};

/// What applying a merged delta gives: the per-device total, host RAM and whether it fits; nullopt = invalid.
struct combination_outcome {
  double total_bytes = 0;  ///< bytes per device
  double cpu_bytes = 0;    ///< bytes of host RAM
  bool fits = false;       ///< fits one device
};
using combination_evaluator = std::function<std::optional<combination_outcome>(const settings& delta)>;

/// The search itself, over `knobs` (in table order), with `evaluate` re-estimating a merged delta: sizes 1 to
/// `max_knobs`, first among knobs that add no device, then with at least one that does. Knobs whose deltas
/// share a key are never combined. At most `max_evaluations` estimates. Pure: tests pass their own evaluator.
[[nodiscard]] knob_combination cheapest_combination(const std::vector<combination_knob>& knobs,
                                                    const combination_evaluator& evaluate, std::size_t max_knobs = 3,
                                                    std::size_t max_evaluations = 2000);

/// A knob that applied to the setting but was left out of the list, and why.
struct skipped_knob {
  std::string name;    ///< as knob_advice::name
  std::string reason;  ///< "changes no bucket", or the error the changed settings give
};

/// The diagnosis of one setting.
struct advice_result {
  double total_bytes = 0;             ///< per-device total now (bytes)
  double gpu_memory_bytes = 0;        ///< capacity of one device (bytes)
  bool fits = false;                  ///< the setting fits now
  std::string largest_bucket;         ///< the bucket holding the most bytes now
  std::vector<knob_advice> knobs;     ///< same hardware first, each group by saved_bytes, largest first
  std::vector<skipped_knob> skipped;  ///< knobs that changed nothing or gave invalid settings
  knob_combination cheapest;          ///< the cheapest combination of the knobs that save memory that fits
};

/// Re-estimates `spec` with each applicable knob moved one step: each knob's delta varies the run (vary(),
/// resolve.hpp: over its recorded inputs, the GGUF file kept), so a knob the settings refuse is skipped with the
/// error it gives.
[[nodiscard]] advice_result advise(const run_spec& spec);

/// Resolves (resolve.hpp), then advises; errors name the setting.
[[nodiscard]] result<advice_result> advise(const settings& explicit_values, const settings& config = {});

}  // namespace llm_memory
