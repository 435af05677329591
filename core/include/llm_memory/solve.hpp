// SPDX-License-Identifier: MIT
// The solver: the questions users ask after "does it fit?" — how many devices, the largest micro-batch and
// the longest sequence — answered exactly by searching estimate() itself (no formula is duplicated).
//
// The device search tries several splits (ZeRO stage and tp for training, tp x pp for inference), each searched
// the same way. The per-device total is non-decreasing in batch and in seq, and non-increasing in the
// data-parallel degree from 2 devices on (ZeRO shards divide by it; ZeRO-3 adds its gather buffers only once dp > 1).
// On such a function, galloping (1, 2, 4, ...) brackets the boundary and bisection finds it, in O(log answer)
// estimates. See docs/solve-and-advise.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm_memory/resolve.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// Largest total device count (dp x tp x pp) the device search considers.
inline constexpr std::int64_t solve_device_limit = 100000;

/// One solver answer: the value of the varied setting(s) at the fit boundary, everything else held.
struct solve_answer {
  std::string key;                  ///< "min_devices", "max_batch" or "max_seq"
  std::vector<std::string> varied;  ///< settings keys the search changed (all others keep their current value)
  bool found = false;               ///< some value within the searched range fits
  std::int64_t value = 0;           ///< devices / sequences / tokens at the boundary; 0 when !found
  std::int64_t limit = 0;           ///< largest value searched (same unit as value)
  bool at_limit = false;            ///< value == limit and it fits: the true maximum may be larger
  double total_bytes = 0;           ///< per-device total at `value` (bytes); 0 when !found
  settings delta;                   ///< raw settings that apply the answer (empty when !found)
  std::string message;              ///< one line for people, e.g. "largest micro-batch that fits: 3"
};

/// Every solver answer for one setting.
struct solve_result {
  bool fits = false;            ///< the current setting fits one device
  double total_bytes = 0;       ///< per-device total of the current setting (bytes)
  double gpu_memory_bytes = 0;  ///< capacity of one device (bytes)
  double headroom_bytes = 0;    ///< gpu_memory - total (bytes); negative when it does not fit
  solve_answer min_devices;     ///< fewest devices that fit: training over the framework's ZeRO stages and tp
                                ///< degrees (devices = dp x tp x pp), inference over the runtime's tp x pp splits
  solve_answer max_batch;       ///< largest micro-batch that fits (0 when batch 1 does not)
  solve_answer max_seq;         ///< largest sequence (inference: context) length that fits (0 when 1 does not)
};

/// Solves for a resolved run. Never fails.
[[nodiscard]] solve_result solve(const run_spec& spec);

/// The devices needed alone (solve_result::min_devices) on the spec's own device memory: the smallest data-parallel
/// degree for training (tp, pp and ZeRO held), the smallest tensor x pipeline split for inference.
[[nodiscard]] solve_answer solve_min_devices(const run_spec& spec);

/// Resolves (resolve.hpp), then solves; errors name the setting.
[[nodiscard]] result<solve_result> solve(const settings& explicit_values, const settings& config = {});

}  // namespace llm_memory
