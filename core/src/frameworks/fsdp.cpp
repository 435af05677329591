// SPDX-License-Identifier: MIT
// Framework fsdp: FSDP2 (fully_shard) with bf16 parameters, as torchtune's distributed recipes shard them.
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 2> stages = {0, 3};

// FSDP2 (fully_shard) with bf16 parameters, as torchtune's distributed recipes shard them.
void profile(settings& p, const setting_values& v) {
  hf_recipe(p, v.finetune);
  set(p, "weights_dtype", v.finetune == "qlora" ? "nf4" : "bf16");
  set(p, "autocast", "off");
  set(p, "master_weights", "off");
  set(p, "optimizer_dtype", "bf16");
  if (v.devices > 1) set(p, "zero", "3");
}

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def fsdp_framework{
    .kind = framework_kind::fsdp,
    .profile = profile,
    .reads = {.several_devices = true,
              .finetune = true},  // the Trainer's recipe by method, ZeRO-3 (fully_shard) from two devices
    .printed = "allocated",       // max_memory_allocated()
    .ddp_buffers = false,         // FSDP's reduce-scatter inputs are transient
    // fully_shard(offload_policy=CPUOffloadPolicy()) (torch/distributed/fsdp/_fully_shard/_fsdp_api.py): "offloads
    // parameters, gradients, and optimizer states to CPU"; the sharded gradients are copied device-to-host in
    // backward. Never the optimizer alone.
    .offloads_gradients = true,
    .offloads = {.optimizer_from_zero = -1, .params = true},
    .zero_stages = stages,  // shards fully (FSDP = ZeRO-3) or replicates (DDP)
    .searches_tp = true,
};

}  // namespace llm_memory::detail
