// SPDX-License-Identifier: MIT
// Hugging Face transformers' generate(): eager PyTorch, the whole prompt in one pass (activations_prefill), the
// cache for the full context and PyTorch's allocator (the struct's defaults). Sources: docs/methodology.md
// ("Runtimes").
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

settings profile(const setting_values& /*v*/) { return {{"attention", "sdpa"}}; }

// The bitsandbytes formats load with load_in_4bit / load_in_8bit.
bool picked_for(dtype weights) { return weights == dtype::nf4 || weights == dtype::int8; }

}  // namespace

runtime_def transformers_runtime() {
  runtime_def d;
  d.kind = runtime_kind::transformers;
  d.profile = profile;
  d.picked_for = picked_for;
  d.picked_because = " (bitsandbytes weights)";
  // device_map="auto": layers split over devices.
  d.splits = device_split::layers;
  d.split_limits = "layers split over devices, up to one per layer";
  return d;
}

}  // namespace llm_memory::detail
