// SPDX-License-Identifier: MIT
// Framework torchtune: its single-device and distributed recipes, with each model's config defaults (v0.6.1
// recipes/configs/<family>/<size>_{full,lora,qlora}[_single_device|_low_memory].yaml).
#include <array>
#include <string_view>

#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 2> stages = {0, 3};

// The optimizer component of a model's full_finetune_single_device config.
enum class single_device_optimizer {
  paged_8bit,   // bitsandbytes.optim.PagedAdamW8bit, optimizer_in_bwd: True (Llama 3.x)
  paged_32bit,  // bitsandbytes.optim.PagedAdamW, optimizer_in_bwd: True (the *_low_memory and Qwen configs)
  adamw,        // torch.optim.AdamW fused, optimizer_in_bwd: False (Qwen 0.5B)
};

// One model's config defaults: enable_activation_checkpointing per recipe and the single-device optimizer.
struct recipe_defaults {
  std::string_view model;        ///< the preset id
  bool full_single = true;       ///< full_finetune_single_device checkpoints
  bool full_distributed = true;  ///< full_finetune_distributed checkpoints
  bool lora_single = true;       ///< lora / qlora _finetune_single_device checkpoint
  bool lora_distributed = true;  ///< lora_finetune_distributed checkpoints
  single_device_optimizer optimizer = single_device_optimizer::paged_8bit;
};

using opt = single_device_optimizer;

// The v0.6.1 configs of the presets (every other model: checkpointing on, 8-bit paged AdamW in backward, as the
// Llama 3 single-device configs).
constexpr std::array<recipe_defaults, 17> configs = {{
    {"llama-3.2-1b", false, false, false, false, opt::paged_8bit},
    {"llama-3.2-3b", true, true, true, false, opt::paged_8bit},
    {"llama-3.1-8b", true, true, true, false, opt::paged_8bit},
    {"meta-llama-3-8b", true, true, true, false, opt::paged_8bit},
    {"llama-2-7b", true, true, true, false, opt::paged_32bit},
    {"llama-2-13b", true, true, true, false, opt::paged_8bit},
    {"qwen2.5-0.5b", false, false, false, false, opt::adamw},
    {"qwen2.5-1.5b", true, true, false, false, opt::paged_32bit},
    {"qwen2.5-3b", true, true, true, false, opt::paged_32bit},
    {"qwen2.5-7b", true, true, true, false, opt::paged_32bit},
    {"qwen2.5-32b", true, true, true, false, opt::paged_8bit},
    {"qwen2-0.5b-instruct", true, false, true, true, opt::adamw},
    {"qwen2-1.5b-instruct", true, false, true, true, opt::paged_32bit},
    {"qwen2-7b-instruct", true, true, true, false, opt::paged_32bit},
    {"phi-3-mini-4k-instruct", true, true, true, false, opt::paged_32bit},
    {"phi-4", true, true, true, false, opt::paged_32bit},
    {"mistral-7b-v0.1", true, true, true, true, opt::paged_32bit},
}};

recipe_defaults defaults_of(std::string_view model) {
  for (const recipe_defaults& d : configs)
    if (d.model == model) return d;
  return {.model = model};
}

// enable_activation_checkpointing of the recipe the run selects.
bool checkpoints(const recipe_defaults& d, const setting_values& v) {
  const bool single = v.devices == 1;
  if (v.finetune == "full") return single ? d.full_single : d.full_distributed;
  return single ? d.lora_single : d.lora_distributed;
}

// The recipes: pure bf16, chunked cross-entropy (compiled with compile: True, training/_compile.py compile_loss).
void profile(settings& p, const setting_values& v) {
  const recipe_defaults d = defaults_of(v.model);
  set(p, "weights_dtype", v.finetune == "qlora" ? "nf4" : "bf16");
  set(p, "master_weights", "off");
  set(p, "optimizer_dtype", "bf16");
  set(p, "loss_impl", v.compile == "on" ? "torchtune_compiled" : "torchtune_chunked");
  set(p, "attention", "sdpa");  // modules/attention.py expands K/V to full width
  set(p, "norm_upcast", "on");  // modules/rms_norm.py: F.rms_norm(x.float()) (fused when compiled)
  set(p, "recompute", checkpoints(d, v) ? "full" : "none");
  if (v.finetune == "qlora") set(p, "double_quant", "on");
  if (v.finetune != "full" || v.devices != 1 || d.optimizer == opt::adamw) return;
  set(p, "optimizer", d.optimizer == opt::paged_8bit ? "adamw_8bit" : "adamw");
  set(p, "optimizer_impl", "paged");
  if (d.optimizer == opt::paged_32bit) set(p, "optimizer_dtype", "fp32");  // bnb's 32-bit states are fp32
  if (v.grad_accum == 1) set(p, "optimizer_in_backward", "on");            // the recipe refuses accumulation with it
}

// A stated optimizer other than the config's PagedAdamW8bit is another component (torch.optim.AdamW, fused: True
// as the other configs set it): states allocated in the parameters' dtype (bf16), not paged. optimizer_in_bwd stays
// the config's.
void stated(settings& p, const setting_values& v, const settings& explicit_values) {
  if (!explicit_values.contains("optimizer") || !p.contains("optimizer_impl") || v.optimizer == "adamw_8bit") return;
  set(p, "optimizer_impl", "fused");
  set(p, "optimizer_dtype", "bf16");
}

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def torchtune_framework{
    .kind = framework_kind::torchtune,
    .profile = profile,
    .reads = {.several_devices = true,
              .grad_accum = true,
              .finetune = true},  // single-device or distributed recipe, optimizer_in_bwd only without accumulation
    .printed = "allocated",       // torchtune's peak_memory_active
    // fsdp_cpu_offload (recipes/full_finetune_distributed.py, lora_finetune_distributed.py v0.6.1): FSDP2's
    // CPUOffloadPolicy, the parameters, gradients and optimizer states together; the single-device recipes have none.
    .offloads_gradients = true,
    .offloads = {.optimizer_from_zero = -1, .params = true},
    .zero_stages = stages,  // FSDP shards fully (ZeRO-3) or replicates (DDP)
    .searches_tp = true,    // tensor_parallel_dim (FSDP2 + DTensor)
    .stated = stated,
};

}  // namespace llm_memory::detail
