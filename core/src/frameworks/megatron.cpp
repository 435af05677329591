// SPDX-License-Identifier: MIT
// Framework megatron: Megatron-LM with its distributed optimizer.
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 2> stages = {0, 1};

// Megatron-LM: bf16 params, fp32 main gradients in a contiguous buffer, distributed optimizer.
void profile(settings& p, const setting_values& v) {
  set(p, "grads_dtype", "fp32");  // --accumulate-allreduce-grads-in-fp32
  set(p, "grad_lifetime", "resident");
  set(p, "loss_impl", "megatron");
  set(p, "attention", "flash");
  set(p, "sequence_parallel", "off");      // --sequence-parallel is off unless given
  if (v.devices > 1) set(p, "zero", "1");  // --use-distributed-optimizer: main params and Adam sharded
}

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def megatron_framework{
    .kind = framework_kind::megatron,
    .profile = profile,
    .reads = {.several_devices = true},  // the distributed optimizer shards from two devices
    .printed = "allocated",              // max_memory_allocated()
    .ddp_buffers = false,                // its buckets are views of its gradient buffer
    // Megatron-Core's --optimizer-cpu-offload (optimizer/optimizer_config.py optimizer_cpu_offload, the
    // HybridDeviceOptimizer of optimizer/cpu_offloading/, NVIDIA/Megatron-LM @0075637c; with
    // --use-precision-aware-optimizer, training/arguments.py): the optimizer state only, with or without the
    // distributed optimizer. No parameter offload.
    .offloads = {.optimizer_from_zero = 0, .params = false},
    .zero_stages = stages,  // the distributed optimizer is ZeRO-1
    .searches_tp = true,    // --tensor-model-parallel-size
};

}  // namespace llm_memory::detail
