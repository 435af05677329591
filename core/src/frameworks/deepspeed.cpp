// SPDX-License-Identifier: MIT
// Framework deepspeed: DeepSpeed ZeRO behind the Trainer, with its own reduce bucket, ZeRO-3 gathered window and
// ZeRO-Offload of the gradient partitions. Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>

#include "estimate/stage.hpp"
#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {

constexpr std::array<std::int64_t, 4> stages = {0, 1, 2, 3};

// DeepSpeed ZeRO behind the Trainer: bf16.enabled (16-bit weights, fp32 master and Adam partitions).
void profile(settings& p, const setting_values& v) {
  hf_recipe(p, v.finetune);
  set(p, "weights_dtype", v.finetune == "qlora" ? "nf4" : "bf16");
  set(p, "autocast", "off");
  if (v.zero >= 3) set(p, "grad_lifetime", "resident");  // stage3.py: grad_partitions_flat_buffer from init
}

// DeepSpeed ZeRO-3 gathers parameters per leaf module (nn.Linear, nn.Embedding; accelerate marks an MoE block one
// leaf: set_moe_leaf_modules), so the largest gathered module is the embedding or the lm_head (V x h) or the
// largest matrix (a routed layer's experts together) [parameters on this device].
double largest_leaf_module(const context& c, const state_layout& l) {
  double largest = std::max(l.sp.embed, l.sp.head);
  if (c.last_stage && l.sp.head == 0 && c.s.tie_word_embeddings)
    largest = std::max(largest, c.m.params.embedding / c.t);
  for (const layer_group& g : c.m.params.groups) {
    const layer_params* layer = &g.params;
    double routed = 0;
    for (const auto& lin : layer->linears) {
      const double w = lin.in_features * lin.out_features / c.t;
      if (lin.routed) routed += w * lin.copies;
      largest = std::max(largest, w);
    }
    largest = std::max(largest, routed);
  }
  return largest;
}

// The gathered window of DeepSpeed ZeRO-3 (partitioned_param_coordinator.py v0.19.5 l.452-454): the module being
// computed plus prefetched parameters up to min(stage3_prefetch_bucket_size, stage3_max_live_parameters - those
// available). The HF Trainer / accelerate fill the "auto" prefetch bucket with 0.9 x h^2 (accelerate
// accelerator.py @16cb6eb8 l.2289-2319); max_live_parameters defaults to 1e9 (runtime/zero/config.py l.238).
// In backward the gathered module's whole 16-bit gradient exists until it is reduce-scattered.
void zero3_window(const context& c, const state_layout& l, builder& params, tally& t) {
  const double gather_w = c.r.quantised() ? 2 : bytes_per_value(c.r.weights);
  const double leaf = largest_leaf_module(c, l), h = c.m.hidden;
  const double prefetch = std::max(0.0, std::min(0.9 * h * h, 1e9 - leaf));
  const double window = (leaf + prefetch) * gather_w;
  t.dynamic += std::ceil(window);
  params.add(
      "ZeRO-3 gathered window (largest leaf module + prefetch bucket)", window,
      "(largest module " + n(leaf) + " + min(0.9 x h^2, 1e9 - module) " + n(prefetch) + ") x " + n(gather_w) + " B");
  if (c.phase == step_phase::forward_end || c.r.adapters()) return;
  const double grad = leaf * l.trainable_fraction * bytes_per_value(c.r.gradients);
  t.dynamic += std::ceil(grad);
  params.add("ZeRO-3 unsharded gradient of that module (before its reduce-scatter)", grad,
             n(leaf) + " x " + n(bytes_per_value(c.r.gradients)) + " B");
}

}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def deepspeed_framework{
    .kind = framework_kind::deepspeed,
    .profile = profile,
    .reads = {.zero = true,
              .finetune = true},  // the Trainer's recipe by method, resident gradient partitions at ZeRO-3
    .printed = "allocated",       // max_memory_allocated()
    .ddp_buffers = true,
    // The HF Trainer / accelerate fill the reduce bucket's "auto" value with h^2 (accelerator.py @16cb6eb8
    // l.2316). stage3.py l.701-704 allocates it at init.
    .auto_reduce_bucket = true,
    // DeepSpeed's own ZeRO-3 coordinator rather than "2 x largest layer".
    .zero3_window = zero3_window,
    // ZeRO-Offload moves the gradient partitions with the optimizer: stage 3 allocates grad_partitions_flat_buffer
    // on the CPU (stage3.py v0.19.5 l.711-715, self.device = cpu when offload_optimizer is set), stages 1/2 copy
    // each reduced gradient into the CPU fp32 buffer (stage_1_and_2.py
    // async_inplace_copy_grad_to_fp32_buffer_from_gpu); the GPU keeps the reduce bucket (communication buffers).
    .offloads_gradients = true,
    .zero_stages = stages,  // 0-3
    .searches_tp = true,    // DeepSpeed AutoTP training (tensor_parallel.autotp_size)
};

}  // namespace llm_memory::detail
