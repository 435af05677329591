// SPDX-License-Identifier: MIT
// A LLaMA-Factory training config (YAML): the keys of hiyouga/LLaMA-Factory @e8e6af26
// (src/llamafactory/hparams/model_args.py, finetuning_args.py, data_args.py; TrainingArguments for the rest;
// examples/train_lora/). Framework llamafactory (frameworks/llamafactory.cpp: its own defaults over the Trainer's,
// DeepSpeed's engine from the ZeRO stage a DeepSpeed config gives). docs/readers.md.
#include <array>

#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int {
  none,
  model = peft_actions_end,
  stage,
  finetuning_type,
  lora_target,
  quantization_bit,
  batch,
  grad_accum,
  cutoff_len,
  bf16,
  fp16,
  deepspeed,
  flash_attn,
  no_checkpointing,
  optim,
};

constexpr std::array<key_row, 18> keys{{
    {"model_name_or_path", model},
    {"stage", stage},
    {"finetuning_type", finetuning_type},
    {"lora_rank", peft_lora_rank},
    lora_alpha_row,
    {"lora_dropout", peft_lora_dropout},
    {"lora_target", lora_target},
    {"quantization_bit", quantization_bit},
    {"per_device_train_batch_size", batch},
    {"gradient_accumulation_steps", grad_accum},
    {"cutoff_len", cutoff_len},
    {"bf16", bf16},
    {"fp16", fp16},
    {"deepspeed", deepspeed},
    {"flash_attn", flash_attn},
    {"disable_gradient_checkpointing", no_checkpointing},
    {"optim", optim},
    {"per_device_eval_batch_size", none, "evaluation runs outside the training step's peak"},
}};

void read_stage(launch_read& out, const key_hit& hit) {
  const auto s = lower(scalar_text(*hit.value));
  if (s == "sft" || s == "pt") return ignore(out, hit.path, "one model trained: the estimate's training step");
  out.notes.push_back("stage " + s + ": the reference, reward or value models beside the trained one are not modelled");
  ignore(out, hit.path, "the extra models of the stage are not modelled");
}

void read_type(launch_read& out, const key_hit& hit) {
  const auto t = lower(scalar_text(*hit.value));
  if (t == "lora" || t == "full") return set_setting(out, hit.path, "finetune", t);
  if (t == "freeze") {
    out.notes.push_back("finetuning_type freeze trains some layers only: give --trainable_params");
    return set_setting(out, hit.path, "finetune", "full");
  }
  out.errors.push_back({hit.path, "finetune: LLaMA-Factory's choices are lora, full, freeze, oft; got " + quoted(t)});
}

// lora_target: "all" is every linear layer (model_utils/misc.py find_all_linear_modules); else PEFT's names.
void read_target(launch_read& out, const key_hit& hit) {
  const auto t = scalar_text(*hit.value);
  set_setting(out, hit.path, "lora_targets", t == "all" ? "all-linear" : t);
}

void read_quantization(launch_read& out, const key_hit& hit) {
  const auto bits = scalar_text(*hit.value);
  if (bits == "4") return set_setting(out, hit.path, "weights_dtype", "nf4");
  if (bits == "8") return set_setting(out, hit.path, "weights_dtype", "int8");
  if (hit.value->is_null()) return ignore(out, hit.path, "null: not quantized");
  ignore(out, hit.path, "a bit width with no weights_dtype of its kind");
}

void read_flash(launch_read& out, const key_hit& hit) {
  const auto f = lower(scalar_text(*hit.value));
  if (f == "fa2" || f == "fa3") return set_setting(out, hit.path, "attention", "flash");
  if (f == "sdpa") return set_setting(out, hit.path, "attention", "sdpa");
  if (f == "disabled") return set_setting(out, hit.path, "attention", "eager");
  ignore(out, hit.path, "auto: the model's own choice");
}

void act(launch_read& out, const key_hit& hit) {
  switch (hit.action) {
    case model: return read_model_name(out, hit.path, scalar_text(*hit.value));
    case stage: return read_stage(out, hit);
    case finetuning_type: return read_type(out, hit);
    case lora_target: return read_target(out, hit);
    case quantization_bit: return read_quantization(out, hit);
    case batch: return set_from(out, hit, "batch");
    case grad_accum: return set_from(out, hit, "grad_accum");
    case cutoff_len: return set_from(out, hit, "seq");
    case bf16:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "autocast", "bf16");
      return;
    case fp16:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "autocast", "fp16");
      return;
    case deepspeed:  // the framework stays: its profile runs DeepSpeed's engine from the config's ZeRO stage
      return note_file(out, hit, "a DeepSpeed config");
    case flash_attn: return read_flash(out, hit);
    case no_checkpointing:
      if (const auto t = read_truth(out, hit)) set_setting(out, hit.path, "recompute", *t ? "none" : "full");
      return;
    case optim: return read_hf_optim(out, hit);
    default: return read_peft_key(out, hit);  // the rows with a peft_action
  }
}

}  // namespace

void read_llama_factory(const json& doc, launch_read& out) {
  training_run(out, "llamafactory");
  // LLaMA-Factory checkpoints by default (model_args.py disable_gradient_checkpointing = False).
  set_setting(out, "(LLaMA-Factory default)", "recompute", "full");
  for (const auto& hit : walk_keys(doc, keys, out)) act(out, hit);
  // quantization_bit 4 with LoRA is QLoRA (model/model_utils/quantization.py: bitsandbytes nf4).
  lora_on_nf4_is_qlora(out, "quantization_bit");
  const auto weights = out.values.find("weights_dtype");
  const auto method = out.values.find("finetune");
  // LoRA keeps the base in the compute dtype (model/patcher.py: torch_dtype = compute_dtype); full training
  // upcasts the trained weights to fp32 (model/adapter.py), the profile's fp32.
  const auto compute = out.values.find("autocast");
  if (compute != out.values.end() && weights == out.values.end() && method != out.values.end() &&
      method->second == "lora")
    set_setting(out, "bf16 / fp16", "weights_dtype", compute->second);
}

}  // namespace llm_memory::detail
