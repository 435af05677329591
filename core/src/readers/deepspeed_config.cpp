// SPDX-License-Identifier: MIT
// A DeepSpeed config (JSON, or the same keys in YAML): the keys of deepspeedai/DeepSpeed
// deepspeed/runtime/config.py and zero/config.py (DeepSpeedZeroConfig, offload_config.py). Values "auto" are
// the Trainer's to fill (transformers integrations/deepspeed.py): listed as ignored. docs/readers.md.
#include <array>

#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int { none, stage, offload_optimizer, offload_param, bf16, fp16, micro_batch, grad_accum };

constexpr std::array<key_row, 12> keys{{
    {"zero_optimization.stage", stage},
    {"zero_optimization.offload_optimizer.device", offload_optimizer},
    {"zero_optimization.offload_param.device", offload_param},
    {"bf16.enabled", bf16},
    {"fp16.enabled", fp16},
    {"train_micro_batch_size_per_gpu", micro_batch},
    {"gradient_accumulation_steps", grad_accum},
    {"train_batch_size", none, "micro-batch x accumulation x data-parallel devices: read from its parts"},
    {"gradient_clipping", none, "clips in place: no memory"},
    {"zero_optimization.reduce_bucket_size", none, "the framework's bucket (auto: h^2) is what the profile models"},
    {"zero_optimization.stage3_prefetch_bucket_size", none, "the ZeRO-3 window is the profile's (2 x largest layer)"},
    {"zero_optimization.stage3_max_live_parameters", none, "the ZeRO-3 window is the profile's (2 x largest layer)"},
}};

void read_offload(launch_read& out, const key_hit& hit, bool params) {
  const auto device = lower(scalar_text(*hit.value));
  if (device == "none" || hit.value->is_null()) return ignore(out, hit.path, "none: nothing offloaded");
  if (device != "cpu" && device != "nvme") return ignore(out, hit.path, "a device DeepSpeed does not offload to");
  // Parameters offload only with the optimizer state in llm-memory's choices (ZeRO-Infinity offloads both).
  const auto now = out.values.find("offload");
  if (params || now == out.values.end() || now->second != "optimizer+params")
    set_setting(out, hit.path, "offload", params ? "optimizer+params" : "optimizer");
  if (device == "nvme") out.notes.push_back(hit.path + " nvme: counted as offloaded off the GPU, like cpu");
}

void act(launch_read& out, const key_hit& hit) {
  if (hit.action != none && is_auto(out, hit)) return;
  switch (hit.action) {
    case stage: return set_from(out, hit, "zero");
    case offload_optimizer: return read_offload(out, hit, false);
    case offload_param: return read_offload(out, hit, true);
    case bf16:
    case fp16:
      // DeepSpeed's bf16/fp16 engine: 16-bit weights with an fp32 master copy (the deepspeed profile's).
      if (read_truth(out, hit) == true)
        set_setting(out, hit.path, "weights_dtype", hit.action == bf16 ? "bf16" : "fp16");
      return;
    case micro_batch: return set_from(out, hit, "batch");
    case grad_accum: return set_from(out, hit, "grad_accum");
    default: return;
  }
}

}  // namespace

void read_deepspeed_config(const json& doc, launch_read& out) {
  training_run(out, "deepspeed");
  for (const auto& hit : walk_keys(doc, keys, out)) act(out, hit);
}

}  // namespace llm_memory::detail
