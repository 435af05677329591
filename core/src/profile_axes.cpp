// SPDX-License-Identifier: MIT
// The settings a run's profile reads, as its runtime's or framework's row declares them (runtimes/<name>.cpp
// `reads`, frameworks/<name>.cpp `.reads`): a profile that reads a setting a search moves makes that search
// re-resolve the run (vary(), resolve.cpp). What picks the profile (mode, runtime, framework, tgi_version,
// vllm_version, weights_dtype for runtime auto) is not listed: no search moves it on vary()'s fast path.
#include "profile_axes.hpp"

#include "frameworks/framework_def.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {

profile_reads profile_axes(const run_spec& spec) {
  if (spec.train()) return framework_of(spec.framework).reads;
  const auto reads = runtime_of(spec.runtime).reads;
  return reads != nullptr ? reads(spec) : profile_reads{};
}

}  // namespace llm_memory::detail
