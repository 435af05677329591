// SPDX-License-Identifier: MIT
// Framework unsloth: Unsloth's notebooks on one device.
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 1> stages = {0};

// Unsloth: pre-quantised 4-bit base, fp32 trainable adapters, offloaded checkpoints, fused chunked CE,
// expandable segments. unsloth_version picks the release: the fused loss from 2025.8 (unsloth_fused_ce_loss,
// 2025-08-13), the Triton cross-entropy kernel over 16-bit logits before it (kernels/cross_entropy_loss.py
// @015bdef0), offloaded checkpointing ("unsloth", introduced April 2024: docs.unsloth.ai "500K Context Length
// Fine-tuning") and, before it, PyTorch's checkpointing with the checkpoints on the GPU. Plain
// use_gradient_checkpointing=True on any release is activation_offload=none over this profile.
void profile(settings& p, const setting_values& v) {
  set(p, "double_quant", "on");
  set(p, "adapter_dtype", "fp32");
  set(p, "recompute", "full");
  set(p, "activation_offload", v.unsloth_version == "2024.1" ? "none" : "full");
  set(p, "loss_impl", v.unsloth_version == "2025.8" ? "fused" : "unsloth");
  set(p, "attention", "flash");
  set(p, "optimizer", "adamw_8bit");  // optim="adamw_8bit" in the notebooks
  set(p, "allocator_reserve", "0");   // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True on import
  if (v.finetune == "full") {
    set(p, "activation_offload", "none");
    set(p, "recompute", "none");
  }
}

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def unsloth_framework{
    .kind = framework_kind::unsloth,
    .profile = profile,
    .reads = {.finetune = true},  // its recipe follows the method (full, LoRA, QLoRA)
    .printed = "reserved",        // the notebooks print max_memory_reserved()
    // Its only offload is the gradient checkpoints' (use_gradient_checkpointing="unsloth": activation_offload);
    // the notebooks' optimizer (adamw_8bit) stays on the GPU.
    .offloads = {},
    .zero_stages = stages,  // trains on one device
    .searches_tp = false,   // keeps the degree it was given
};

}  // namespace llm_memory::detail
