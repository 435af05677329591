// SPDX-License-Identifier: MIT
// Framework megatron: Megatron-LM with its distributed optimizer.
#include <array>
#include <string>
#include <vector>

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

// Megatron-Core's Attention splits the heads and the query groups (num_key_value_heads) over the tp ranks with
// divide(), which asserts each divides (megatron/core/transformer/attention.py Attention.__init__,
// megatron/core/utils.py ensure_divisibility, NVIDIA/Megatron-LM @00c2c0ad): no KV head is replicated. resolve
// refuses a tp that does not divide the heads for every run (then nothing is added here).
void check(const run_spec& r, std::vector<error>& errors) {
  const setting_values& v = r.values;
  const std::int64_t groups = v.num_key_value_heads > 0 ? v.num_key_value_heads : v.num_attention_heads;
  if (v.num_attention_heads % v.tp == 0 && groups > 0 && groups % v.tp != 0)
    errors.push_back({"tp", "Megatron-LM splits the query groups (num_key_value_heads = " + std::to_string(groups) +
                                ") over the tp ranks and asserts tp divides them (Attention: divide(num_query_groups, "
                                "tp)), got " +
                                std::to_string(v.tp)});
}

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def megatron_framework{
    .kind = framework_kind::megatron,
    .profile = profile,
    .reads = {.several_devices = true},  // the distributed optimizer shards from two devices
    .check = check,                      // tp divides the query groups
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
