// SPDX-License-Identifier: MIT
// Which devices each inference runtime runs on: a run on a GPU preset whose stack the runtime has no backend for is
// refused with the runtime's own words (runtimes/devices.cpp). Private to the core.
#pragma once

#include <vector>

#include "llm_memory/resolve.hpp"
#include "llm_memory/result.hpp"

namespace llm_memory::detail {

/// An error naming `runtime` (or `gpu` when runtime auto chose it) when the run's GPU preset is a device the
/// runtime does not run on; nothing for a run without a preset (gpu_memory alone) or for training.
void check_device(const run_spec& r, std::vector<error>& errors);

}  // namespace llm_memory::detail
