// SPDX-License-Identifier: MIT
// Framework axolotl: axolotl-ai-cloud/axolotl (v0.18.0) over the Transformers Trainer, as its shipped Llama 3
// examples configure it (examples/llama-3/qlora.yml, lora-8b.yml, fft-8b.yaml).
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 4> stages = {0, 1, 2, 3};

// axolotl v0.18.0's examples: gradient_checkpointing true (the schema's default is false), flash_attention_2,
// sample_packing true, lora_r 32, lora_dropout 0.05, lora_target_linear true.
void profile(settings& p, const setting_values& v) {
  hf_recipe(p, v.finetune);
  set(p, "recompute", "full");
  set(p, "attention", "flash");
  set(p, "lora_rank", "32");
  set(p, "lora_dropout", "0.05");
  set(p, "lora_targets", "all-linear");
  if (v.finetune == "full") {  // fft-8b.yaml: loaded in bf16 (bf16: auto) and kept there, paged 8-bit AdamW
    set(p, "weights_dtype", "bf16");
    set(p, "master_weights", "off");
    set(p, "autocast", "off");
    set(p, "optimizer", "adamw_8bit");
    set(p, "optimizer_impl", "paged");
  }
  if (v.finetune == "lora") set(p, "optimizer", "adamw_8bit");  // lora-8b.yml: adamw_bnb_8bit
  if (v.finetune == "qlora") {
    // loaders/model.py l.422-477: after prepare_model_for_kbit_training the embedding and lm_head go back to
    // bf16 for flash attention, so the residual stream stays bf16; qlora.yml: paged_adamw_32bit.
    set(p, "qlora_upcast", "off");
    set(p, "optimizer", "adamw");
    set(p, "optimizer_impl", "paged");
  }
  // deepspeed_configs/zero{1,2,3}_bf16.json: bf16 "auto", buckets "auto", run by DeepSpeed's engine, which keeps
  // an fp32 master partition.
  if (v.zero >= 1) {
    deepspeed_engine(p, v);
    set(p, "master_weights", "on");
    if (v.zero >= 3) set(p, "stage3_max_live_parameters", "0");  // zero3_bf16.json l.9: no prefetch
  }
}

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def axolotl_framework{
    .kind = framework_kind::axolotl,
    .profile = profile,
    .reads = {.zero = true, .finetune = true},  // the method's recipe, DeepSpeed's engine from ZeRO 1
    .printed = "allocated",  // log_gpu_memory_usage: max_memory_allocated() first (utils/bench.py l.59-62)
    .ddp_buffers = true,
    .auto_reduce_bucket = true,              // zero3_bf16.json: reduce_bucket_size "auto" (h^2)
    .zero3_window = deepspeed_zero3_window,  // and stage3_prefetch_bucket_size / persistence "auto"
    // deepspeed_configs/zero3_bf16_cpuoffload_all.json (offload_optimizer and offload_param): DeepSpeed's own rule,
    // the optimizer from stage 1, the parameters at 3.
    .offloads = {.optimizer_from_zero = 1, .params = true},
    .zero_stages = stages,  // DeepSpeed 0-3 through the Trainer (deepspeed_configs/zero*.json)
    .searches_tp = false,   // the Trainer keeps the degree it was given
};

}  // namespace llm_memory::detail
