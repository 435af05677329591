// SPDX-License-Identifier: MIT
// Framework litgpt: its config_hub recipes (bf16-true) and its own lm_head.
#include <array>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 2> stages = {0, 3};

// litgpt's config_hub (bf16-true): pure bf16, CE on bf16 logits in 128-token chunks, dropout once per input.
void profile(settings& p, const setting_values& v) {
  set(p, "master_weights", "off");
  set(p, "optimizer_dtype", "bf16");
  set(p, "optimizer_impl", "foreach");  // torch.optim.AdamW's default on CUDA
  set(p, "loss_impl", "litgpt");
  set(p, "attention", "sdpa");  // model.py expands K/V before scaled_dot_product_attention
  set(p, "norm_upcast", "on");
  set(p, "lora_dropout", "0.05");
  if (v.devices > 1) set(p, "recompute", "full");  // FSDP strategy: activation_checkpointing_policy={Block}
}

// litgpt/model.py @00af8b0d l.25, 28: separate lm_head and wte; scripts/convert_hf_checkpoint.py l.206-207 copies
// the embedding into lm_head.weight when a checkpoint ties them (Llama 3.2 1B/3B, Gemma). Never tied since.
void model_overrides(settings& p) { set(p, "tie_word_embeddings", "off"); }

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def litgpt_framework{
    .kind = framework_kind::litgpt,
    .profile = profile,
    .reads = {.several_devices = true},  // the FSDP strategy (several devices) checkpoints every block
    .model_overrides = model_overrides,
    .printed = "allocated",  // max_memory_allocated()
    // finetune/full.py @0077627d: FSDPStrategy(..., cpu_offload=False), fixed in the script: no CPU offload.
    .offloads = {},
    .zero_stages = stages,  // FSDP shards fully (ZeRO-3) or replicates (DDP)
    .searches_tp = false,   // keeps the degree it was given
};

}  // namespace llm_memory::detail
