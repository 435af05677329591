// SPDX-License-Identifier: MIT
// Framework unsloth: Unsloth's notebooks on one device.
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {

constexpr std::array<std::int64_t, 1> stages = {0};

// Unsloth: pre-quantised 4-bit base, fp32 trainable adapters, offloaded checkpoints, fused chunked CE,
// expandable segments.
void profile(settings& p, const setting_values& v) {
  set(p, "double_quant", "on");
  set(p, "adapter_dtype", "fp32");
  set(p, "recompute", "full");
  set(p, "activation_offload", "full");  // use_gradient_checkpointing="unsloth"
  set(p, "loss_impl", "fused");          // unsloth_fused_ce_loss (2025-08-13 on)
  set(p, "attention", "flash");
  set(p, "optimizer", "adamw_8bit");  // optim="adamw_8bit" in the notebooks
  set(p, "allocator_reserve", "0");   // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True on import
  if (v.finetune == "full") {
    set(p, "activation_offload", "none");
    set(p, "recompute", "none");
  }
}

}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def unsloth_framework{
    .kind = framework_kind::unsloth,
    .profile = profile,
    .reads = {.finetune = true},  // its recipe follows the method (full, LoRA, QLoRA)
    .printed = "reserved",        // the notebooks print max_memory_reserved()
    .zero_stages = stages,        // trains on one device
    .searches_tp = false,         // keeps the degree it was given
};

}  // namespace llm_memory::detail
