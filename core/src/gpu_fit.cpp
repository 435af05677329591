// SPDX-License-Identifier: MIT
#include "llm_memory/gpu_fit.hpp"

#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

gpu_fit_row fit_row(const gpu_preset& gpu, const run_spec& spec) {
  gpu_fit_row row;
  row.id = gpu.id;
  row.name = gpu.name;
  row.memory_bytes = gpu.memory_bytes;
  row.needed.key = "min_devices";
  // As if the user had picked `gpu`: its preset's memory replaces an explicit gpu_memory.
  const auto on_gpu = vary(spec, {{"gpu", gpu.id}, {"gpu_memory", detail::format_number(gpu.memory_bytes)}});
  if (!on_gpu.ok()) {
    // A rule that reads the device's memory (none today) could refuse one GPU: say so in its row.
    for (const auto& e : on_gpu.errors()) row.needed.message += (row.needed.message.empty() ? "" : "; ") + to_string(e);
    return row;
  }
  const estimate_result now = estimate(on_gpu.value());
  row.devices = on_gpu.value().values.devices;
  row.fits = now.fits;
  row.total_bytes = now.total_bytes;
  row.needed = solve_min_devices(on_gpu.value());
  if (row.needed.found) row.headroom_bytes = gpu.memory_bytes - row.needed.total_bytes;
  return row;
}

}  // namespace

gpu_fit_result gpu_fit(const run_spec& spec) {
  gpu_fit_result out;
  for (const gpu_preset& gpu : gpu_presets()) out.rows.push_back(fit_row(gpu, spec));
  return out;
}

result<gpu_fit_result> gpu_fit(const settings& explicit_values, const settings& config) {
  // The settings on their own GPU first: their errors are the user's to fix, whatever the GPU.
  const auto own = resolve(explicit_values, config);
  if (!own.ok()) return own.errors();
  return gpu_fit(own.value());
}

}  // namespace llm_memory
