// SPDX-License-Identifier: MIT
// Framework profiles: what each training stack does by default, as raw settings (every one overridable). The
// behaviours and their sources (file + version of each framework) are in docs/methodology.md, "Frameworks".
#include <string>

#include "profiles.hpp"

namespace llm_memory::detail {
namespace {

// One profile value (insert_or_assign: GCC 12's -Wrestrict misfires on operator[] with a literal).
void set(settings& p, const char* key, const char* value) { p.insert_or_assign(key, value); }

// Settings every phased framework shares: a lazily loaded CUDA context (CUDA >= 11.7: PyTorch PR #86509 and
// unsloth-zoo PR #1053 measure 0.27-0.42 GiB at start; kernels load as training runs).
void common(settings& p) { set(p, "cuda_context", "0.5GiB"); }

// Transformers Trainer / TRL SFTTrainer with peft and bitsandbytes: the method's recipe.
void hf(settings& p, const std::string& method) {
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

// torchtune's single-device and distributed recipes (v0.6.1 configs): pure bf16, chunked cross-entropy.
void torchtune(settings& p, const setting_values& v) {
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

// litgpt's config_hub (bf16-true): pure bf16, CE on bf16 logits in 128-token chunks, dropout once per input.
void litgpt(settings& p, const setting_values& v) {
  set(p, "master_weights", "off");
  set(p, "optimizer_dtype", "bf16");
  set(p, "optimizer_impl", "foreach");  // torch.optim.AdamW's default on CUDA
  set(p, "loss_impl", "litgpt");
  set(p, "attention", "sdpa");  // model.py expands K/V before scaled_dot_product_attention
  set(p, "norm_upcast", "on");
  set(p, "lora_dropout", "0.05");
  if (v.devices > 1) set(p, "recompute", "full");  // FSDP strategy: activation_checkpointing_policy={Block}
}

// Megatron-LM: bf16 params, fp32 main gradients in a contiguous buffer, distributed optimizer.
void megatron(settings& p, const setting_values& v) {
  set(p, "grads_dtype", "fp32");  // --accumulate-allreduce-grads-in-fp32
  set(p, "grad_lifetime", "resident");
  set(p, "loss_impl", "megatron");
  set(p, "attention", "flash");
  set(p, "sequence_parallel", "off");      // --sequence-parallel is off unless given
  if (v.devices > 1) set(p, "zero", "1");  // --use-distributed-optimizer: main params and Adam sharded
}

// DeepSpeed ZeRO behind the Trainer: bf16.enabled (16-bit weights, fp32 master and Adam partitions).
void deepspeed(settings& p, const setting_values& v) {
  hf(p, v.finetune);
  set(p, "weights_dtype", v.finetune == "qlora" ? "nf4" : "bf16");
  set(p, "autocast", "off");
  if (v.zero >= 3) set(p, "grad_lifetime", "resident");  // stage3.py: grad_partitions_flat_buffer from init
}

// FSDP2 (fully_shard) with bf16 parameters, as torchtune's distributed recipes shard them.
void fsdp(settings& p, const setting_values& v) {
  hf(p, v.finetune);
  set(p, "weights_dtype", v.finetune == "qlora" ? "nf4" : "bf16");
  set(p, "autocast", "off");
  set(p, "master_weights", "off");
  set(p, "optimizer_dtype", "bf16");
  if (v.devices > 1) set(p, "zero", "3");
}

// Unsloth: pre-quantised 4-bit base, fp32 trainable adapters, offloaded checkpoints, fused chunked CE,
// expandable segments.
void unsloth(settings& p, const setting_values& v) {
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

settings framework_profile(const setting_values& v) {
  settings p;
  if (v.framework == "generic") return p;
  common(p);
  if (v.framework == "hf")
    hf(p, v.finetune);
  else if (v.framework == "torchtune")
    torchtune(p, v);
  else if (v.framework == "litgpt")
    litgpt(p, v);
  else if (v.framework == "megatron")
    megatron(p, v);
  else if (v.framework == "deepspeed")
    deepspeed(p, v);
  else if (v.framework == "fsdp")
    fsdp(p, v);
  else if (v.framework == "unsloth")
    unsloth(p, v);
  return p;
}

settings framework_model_overrides(const setting_values& v) {
  settings p;
  // litgpt/model.py @00af8b0d l.25, 28: separate lm_head and wte; scripts/convert_hf_checkpoint.py l.206-207 copies
  // the embedding into lm_head.weight when a checkpoint ties them (Llama 3.2 1B/3B, Gemma). Never tied since.
  if (v.framework == "litgpt") set(p, "tie_word_embeddings", "off");
  return p;
}

}  // namespace llm_memory::detail
