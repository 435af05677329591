// SPDX-License-Identifier: MIT
// Framework hf: the Transformers Trainer / TRL SFTTrainer with peft and bitsandbytes.
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {

// Transformers Trainer / TRL SFTTrainer with peft and bitsandbytes: the method's recipe.
void hf_recipe(settings& p, const std::string& method) {
  set(p, "loss_impl", "hf");             // transformers loss/loss_utils.py: logits.float() then cross_entropy
  set(p, "attention", "sdpa_gqa");       // integrations/sdpa_attention.py: enable_gqa without a padding mask
  set(p, "norm_upcast", "on");           // LlamaRMSNorm computes in fp32
  set(p, "input_copies", "per_linear");  // autocast (full) and peft's _cast_input_dtype (LoRA) cast per linear
  set(p, "autocast", "bf16");            // TrainingArguments(bf16=True)
  set(p, "optimizer_impl", "fused");     // adamw_torch_fused, the TrainingArguments default from torch 2.8
  if (method == "full") {
    set(p, "weights_dtype", "fp32");  // from_pretrained's default dtype (transformers <= 4.57)
  } else {
    set(p, "adapter_dtype", "fp32");  // peft >= 0.12 keeps the adapters in fp32
    set(p, "lora_dropout", "0.05");   // the recipe of the peft and TRL examples (peft's own default is 0)
  }
  if (method == "qlora") {         // the QLoRA recipe: nf4 + double quantisation,
    set(p, "double_quant", "on");  // prepare_model_for_kbit_training (fp32 embedding, lm_head and norms,
    set(p, "qlora_upcast", "on");  // gradient checkpointing on) and a paged 8-bit AdamW
    set(p, "recompute", "full");
    set(p, "optimizer", "adamw_8bit");
    set(p, "optimizer_impl", "paged");
  }
}

namespace {

constexpr std::array<std::int64_t, 4> stages = {0, 1, 2, 3};

void profile(settings& p, const setting_values& v) { hf_recipe(p, v.finetune); }

}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def hf_framework{
    .kind = framework_kind::hf,
    .profile = profile,
    .reads = {.finetune = true},  // the Trainer's recipe follows the method (full, LoRA, QLoRA)
    .printed = "device",          // HF's guides print nvidia-smi (nvmlDeviceGetMemoryInfo)
    .ddp_buffers = true,
    .zero_stages = stages,  // DeepSpeed's 0-3, run through the Trainer
    .searches_tp = false,   // the Trainer keeps the degree it was given
};

}  // namespace llm_memory::detail
