// SPDX-License-Identifier: MIT
// Framework torchtune: its single-device and distributed recipes (v0.6.1 configs).
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {

constexpr std::array<std::int64_t, 2> stages = {0, 3};

// torchtune's single-device and distributed recipes (v0.6.1 configs): pure bf16, chunked cross-entropy.
void profile(settings& p, const setting_values& v) {
  set(p, "weights_dtype", v.finetune == "qlora" ? "nf4" : "bf16");
  set(p, "master_weights", "off");
  set(p, "optimizer_dtype", "bf16");
  set(p, "loss_impl", "torchtune_chunked");
  set(p, "attention", "sdpa");  // modules/attention.py expands K/V to full width
  set(p, "norm_upcast", "on");
  set(p, "recompute", "full");  // enable_activation_checkpointing: True
  if (v.finetune == "qlora") set(p, "double_quant", "on");
  if (v.finetune == "full" && v.devices == 1) {  // full_finetune_single_device: PagedAdamW8bit in backward
    set(p, "optimizer", "adamw_8bit");
    set(p, "optimizer_impl", "paged");
    if (v.grad_accum == 1) set(p, "optimizer_in_backward", "on");  // the recipe refuses accumulation with it
  }
}

}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def torchtune_framework{
    .kind = framework_kind::torchtune,
    .profile = profile,
    .reads =
        {.several_devices = true,
         .grad_accum = true,
         .finetune =
             true},  // full_finetune_single_device on one device (8-bit paged AdamW, in backward when grad_accum is 1)
    .printed = "allocated",  // torchtune's peak_memory_active
    .zero_stages = stages,   // FSDP shards fully (ZeRO-3) or replicates (DDP)
    .searches_tp = true,     // tensor_parallel_dim (FSDP2 + DTensor)
};

}  // namespace llm_memory::detail
