// SPDX-License-Identifier: MIT
#include "llm_memory/gpu_fit.hpp"

#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/resolve.hpp"

namespace llm_memory {
namespace {

// The settings as if the user had picked `gpu`: its preset's memory replaces an explicit gpu_memory.
settings on_gpu(const settings& explicit_values, const std::string& gpu) {
  settings s = explicit_values;
  s["gpu"] = gpu;
  s.erase("gpu_memory");
  return s;
}

gpu_fit_row fit_row(const gpu_preset& gpu, const settings& explicit_values, const settings& config) {
  gpu_fit_row row;
  row.id = gpu.id;
  row.name = gpu.name;
  row.memory_bytes = gpu.memory_bytes;
  row.needed.key = "min_devices";
  const auto spec = resolve(on_gpu(explicit_values, gpu.id), config);
  if (!spec.ok()) {
    // A rule that reads the device's memory (none today) could refuse one GPU: say so in its row.
    for (const auto& e : spec.errors()) row.needed.message += (row.needed.message.empty() ? "" : "; ") + to_string(e);
    return row;
  }
  const estimate_result now = estimate(spec.value());
  row.devices = spec.value().values.devices;
  row.fits = now.fits;
  row.total_bytes = now.total_bytes;
  row.needed = solve_min_devices(spec.value());
  if (row.needed.found) row.headroom_bytes = gpu.memory_bytes - row.needed.total_bytes;
  return row;
}

}  // namespace

result<gpu_fit_result> gpu_fit(const settings& explicit_values, const settings& config) {
  // The settings on their own GPU first: their errors are the user's to fix, whatever the GPU.
  if (auto own = resolve(explicit_values, config); !own.ok()) return own.errors();
  gpu_fit_result out;
  for (const gpu_preset& gpu : gpu_presets()) out.rows.push_back(fit_row(gpu, explicit_values, config));
  return out;
}

}  // namespace llm_memory
