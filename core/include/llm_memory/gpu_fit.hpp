// SPDX-License-Identifier: MIT
// "Which GPUs fit": the current settings answered on every GPU preset at once. Each preset is resolved as if the
// user had picked it (its memory, and the runtime profiles that read the device's memory), estimated at the
// current device count, and given the solver's devices-needed answer (solve.hpp) with its parallel split.
// See docs/solve-and-advise.md, "Which GPUs fit".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm_memory/resolve.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"
#include "llm_memory/solve.hpp"

namespace llm_memory {

/// One GPU preset's answer for the current settings.
struct gpu_fit_row {
  std::string id;             ///< GPU preset id, e.g. "h100-80gb"
  std::string name;           ///< display name, e.g. "NVIDIA H100 80GB SXM"
  double memory_bytes = 0;    ///< usable memory of one device (bytes)
  std::int64_t devices = 0;   ///< the current device count (the devices setting)
  bool fits = false;          ///< the current settings fit on `devices` of this GPU
  double total_bytes = 0;     ///< per-device total at the current device count (bytes); 0 when it did not resolve
  solve_answer needed;        ///< devices needed on this GPU (the solver's min_devices, split in delta)
  double headroom_bytes = 0;  ///< memory - per-device total at needed.value devices (bytes); 0 when !needed.found
};

/// Every GPU preset, in the catalogue's order.
struct gpu_fit_result {
  std::vector<gpu_fit_row> rows;  ///< one per GPU preset
};

/// Varies the run onto each GPU preset (vary(), resolve.hpp: gpu = its id, gpu_memory = its memory; the GGUF file
/// kept), estimates it and asks the solver for the devices needed.
[[nodiscard]] gpu_fit_result gpu_fit(const run_spec& spec);

/// Resolves the settings, then answers them on each GPU preset. Errors of the settings themselves (on their own
/// GPU) name the setting.
[[nodiscard]] result<gpu_fit_result> gpu_fit(const settings& explicit_values, const settings& config = {});

}  // namespace llm_memory
