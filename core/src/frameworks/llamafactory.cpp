// SPDX-License-Identifier: MIT
// Framework llamafactory: hiyouga/LLaMA-Factory (v0.9.5) over the Transformers Trainer: its own argument defaults
// for LoRA, QLoRA and full fine-tuning.
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 4> stages = {0, 1, 2, 3};

// LLaMA-Factory v0.9.5: the Trainer's recipe with LLaMA-Factory's own defaults over it.
void profile(settings& p, const setting_values& v) {
  hf_recipe(p, v.finetune);
  // model_args.py l.145-147: disable_gradient_checkpointing = False, so every method checkpoints each layer.
  set(p, "recompute", "full");
  // finetuning_args.py l.69-85: lora_rank 8, lora_dropout 0.0, lora_target "all" (every linear but lm_head).
  set(p, "lora_rank", "8");
  set(p, "lora_dropout", "0");
  set(p, "lora_targets", "all-linear");
  // adapter.py l.313-325: trainable parameters are cast to fp32 (adapters; the whole model when full) over the
  // compute_dtype load, which the Trainer's recipe already counts (fp32 full weights, fp32 adapters).
  if (v.finetune == "qlora") {
    // model_args.py l.287-293: nf4 with double quantisation; no prepare_model_for_kbit_training (its own
    // prepare_model_for_training keeps the embedding and lm_head in bf16: upcast_layernorm and
    // upcast_lmhead_output default off), and the Trainer's default optimizer (adamw_torch), not a paged 8-bit one.
    set(p, "qlora_upcast", "off");
    set(p, "optimizer", "adamw");
    set(p, "optimizer_impl", "fused");
  }
  // examples/deepspeed/ds_z{0,2,3}_config.json: bf16/fp16 "auto" and buckets "auto", run by DeepSpeed's engine.
  if (v.zero >= 1) deepspeed_engine(p, v);
}

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def llamafactory_framework{
    .kind = framework_kind::llamafactory,
    .profile = profile,
    .reads = {.zero = true, .finetune = true},  // the method's recipe, DeepSpeed's engine from ZeRO 1
    .printed = "device",                        // it logs no peak of its own: its users quote nvidia-smi
    .ddp_buffers = true,
    .auto_reduce_bucket = true,              // ds_z3_config.json: reduce_bucket_size "auto" (h^2)
    .zero3_window = deepspeed_zero3_window,  // and stage3_prefetch_bucket_size / persistence "auto"
    // examples/deepspeed/ds_z2_offload_config.json (offload_optimizer) and ds_z3_offload_config.json (and
    // offload_param): DeepSpeed's own rule, the optimizer from stage 1, the parameters at 3.
    .offloads = {.optimizer_from_zero = 1, .params = true},
    .zero_stages = stages,  // DeepSpeed 0-3 through the Trainer (examples/deepspeed/)
    .searches_tp = false,   // the Trainer keeps the degree it was given
};

}  // namespace llm_memory::detail
