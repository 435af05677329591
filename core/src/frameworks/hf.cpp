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

// What the Transformers release changes: the attention from_pretrained picks (modeling_utils.py
// _check_and_enable_sdpa from v4.36.0: SDPA when torch has it; integrations/sdpa_attention.py use_gqa_in_sdpa,
// PR #39412 in v4.54.0: enable_gqa without a padding mask) and the loss (loss/loss_utils.py from v4.46.0).
void release(settings& p, const std::string& version) {
  if (version == "4.54") return;  // hf_recipe's
  set(p, "attention", version == "4.35" ? "eager" : "sdpa");
  if (version != "4.46") set(p, "loss_impl", "hf_legacy");
}

void profile(settings& p, const setting_values& v) {
  hf_recipe(p, v.finetune);
  release(p, v.transformers_version);
}

// A stated load dtype of a full fine-tune (from_pretrained(torch_dtype=...)) is the Trainer's precision too: fp32
// without bf16=True trains in fp32 (no autocast); a 16-bit load with bf16=True is pure 16-bit: Trainer keeps no
// master copy (trainer.py creates none) and torch.optim.AdamW allocates its states like the parameter
// (torch/optim/adamw.py _init_group: torch.zeros_like(p, memory_format=torch.preserve_format), torch 2.x).
void stated(settings& p, const setting_values& v, const settings& explicit_values) {
  if (v.finetune != "full" || !explicit_values.contains("weights_dtype")) return;
  if (v.weights_dtype == "fp32") {
    set(p, "autocast", "off");
    return;
  }
  if (v.weights_dtype != "bf16" && v.weights_dtype != "fp16") return;
  set(p, "autocast", v.weights_dtype.c_str());
  set(p, "master_weights", "off");
  set(p, "optimizer_dtype", v.weights_dtype.c_str());
}

}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def hf_framework{
    .kind = framework_kind::hf,
    .profile = profile,
    .reads = {.finetune = true},  // the Trainer's recipe follows the method (full, LoRA, QLoRA)
    .printed = "device",          // HF's guides print nvidia-smi (nvmlDeviceGetMemoryInfo)
    .ddp_buffers = true,
    // Through the Trainer's DeepSpeed config (offload_optimizer from stage 1, offload_param at 3: deepspeed
    // runtime/zero/config.py v0.19.5) or its FSDP ("full_shard offload": parameters, gradients and optimizer).
    .offloads = {.optimizer_from_zero = 1, .params = true},
    .zero_stages = stages,  // DeepSpeed's 0-3, run through the Trainer
    .searches_tp = false,   // the Trainer keeps the degree it was given
    .stated = stated,
};

}  // namespace llm_memory::detail
