// SPDX-License-Identifier: MIT
// The nearest ways out of a "does not fit": one change each that a front end applies with one click, in three
// groups: what the user's own devices and stack can do (another split of the same devices, the knobs their
// framework or runtime reads, the cheapest combination of them, llama.cpp's -ngl, a weights format the runtime
// runs, a shorter context or batch), then more of the same device, then another device the stack runs on. Found
// from the solver's and the knob search's answers plus searches of their own (a split of the same devices, more
// devices with ZeRO-3 where the framework offers it, the smallest GPU preset that fits). The page's verdict box,
// the CLI's --ways-out and --advise and the JS API's waysOut() all show this list. See docs/solve-and-advise.md,
// "Ways out".
#pragma once

#include <string>
#include <vector>

#include "llm_memory/advise.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"
#include "llm_memory/solve.hpp"

namespace llm_memory {

/// How many GPU presets, the smallest larger than what the run needs first, the GPU way out estimates at most.
inline constexpr std::size_t ways_out_gpu_candidates = 4;

/// How many knobs that keep the hardware the own group lists at most (those that fit, cheapest in throughput first).
inline constexpr std::size_t ways_out_own_knobs = 3;

/// One change that makes the run fit (or, for a weights format or a knob, comes nearest).
struct way_out {
  /// "split", "devices", "combination", "knob", "weights", "context", "batch" or "gpu"
  std::string way;
  /// "own" (the user's devices and stack), "more" (more of the same device) or "other" (another device)
  std::string group;
  std::string text;                  ///< for people, e.g. "4 × NVIDIA H100 80GB SXM with ZeRO-3"
  double total_bytes = 0;            ///< per-device total with the change applied (bytes)
  bool fits = false;                 ///< the run fits one device with the change applied
  settings delta;                    ///< raw settings to merge over the user's to apply the change
  std::vector<std::string> cleared;  ///< settings the change drops from the user's (null in JSON's delta)
  std::string note;                  ///< what else the change assumes (a knob's note; "" when nothing)
};

/// The ways out of one run, in the order the page lists them: the own group (split, fewest devices up to the
/// user's count, combination, knobs, weights format, context or sequences, micro-batch), then more (the fewest
/// devices above the user's count), then other (a GPU preset); each group in that order.
struct ways_out_result {
  bool fits = false;          ///< the run fits already: no ways out are searched
  std::vector<way_out> ways;  ///< empty when the run fits or no change was found
};

/// The ways out of `spec`, given its solver answers and its knob diagnosis (solve.hpp, advise.hpp): a way that
/// changes no setting is left out. Estimates at most one more solve (ZeRO-3), one run per split of the user's
/// devices and ways_out_gpu_candidates runs.
[[nodiscard]] ways_out_result ways_out(const run_spec& spec, const solve_result& solved, const advice_result& advice);

/// The answers a front end shows together: the solver's, the knob search's and the ways out found from them.
struct run_answers {
  solve_result solve;        ///< solve(spec)
  advice_result advice;      ///< advise(spec, explicit values, config)
  ways_out_result ways_out;  ///< ways_out(spec, solve, advice)
};

/// Resolves (resolve.hpp), then solves, advises and finds the ways out; errors name the setting.
[[nodiscard]] result<run_answers> answer(const settings& explicit_values, const settings& config = {});

}  // namespace llm_memory
