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
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 4> stages = {0, 1, 2, 3};

// DeepSpeed ZeRO behind the Trainer.
void profile(settings& p, const setting_values& v) {
  hf_recipe(p, v.finetune);
  deepspeed_engine(p, v);
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

// Parameters under stage3_param_persistence_threshold stay gathered on every device (stage3.py v0.19.5
// persistent_parameters, partition_parameters.py ds_persist): every norm weight (h or fewer elements) once the
// threshold exceeds h, as the auto value 10 x h and the default 1e5 do for h < 1e5. Biases are not counted.
void persistent_parameters(const context& c, const state_layout& l, double gather_w, builder& params) {
  const double h = c.m.hidden;
  const double threshold = c.s.stage3_param_persistence_threshold > 0 ? c.s.stage3_param_persistence_threshold : 10 * h;
  if (threshold <= h || l.sp.norms == 0) return;
  const double dp = static_cast<double>(l.zero_params);
  params.add("ZeRO-3 persistent parameters (norms below the persistence threshold, unsharded)",
             l.sp.norms * gather_w * (1 - 1 / dp),
             n(l.sp.norms) + " norm weights x " + n(gather_w) + " B x (1 - 1/" + n(dp) + ") (threshold " +
                 n(threshold) + " > h)");
}

}  // namespace rest_rows
}  // namespace

// The gathered window of DeepSpeed ZeRO-3 (partitioned_param_coordinator.py v0.19.5 l.452-454): the module being
// computed plus prefetched parameters up to min(stage3_prefetch_bucket_size, stage3_max_live_parameters - those
// available). The settings' 0 is "auto" as the HF Trainer / accelerate fill it: 0.9 x h^2 for the prefetch bucket
// and 10 x h for the persistence threshold (accelerate accelerator.py @16cb6eb8 l.2289-2319); DeepSpeed's own
// defaults (runtime/zero/config.py) are 5e7, 1e9 and 1e5. In backward the gathered module's whole 16-bit gradient
// exists until it is reduce-scattered.
void deepspeed_zero3_window(const context& c, const state_layout& l, builder& params, tally& t) {
  const double gather_w = c.r.quantised() ? 2 : bytes_per_value(c.r.weights);
  const double leaf = largest_leaf_module(c, l), h = c.m.hidden;
  const double bucket = c.s.stage3_prefetch_bucket_size > 0 ? c.s.stage3_prefetch_bucket_size : 0.9 * h * h;
  const double live = c.s.stage3_max_live_parameters;
  const double prefetch = std::max(0.0, std::min(bucket, live - leaf));
  const double window = (leaf + prefetch) * gather_w;
  t.dynamic += std::ceil(window);
  params.add("ZeRO-3 gathered window (largest leaf module + prefetch bucket)", window,
             "(largest module " + n(leaf) + " + min(prefetch bucket " + n(bucket) + ", max live " + n(live) +
                 " - module) " + n(prefetch) + ") x " + n(gather_w) + " B");
  persistent_parameters(c, l, gather_w, params);
  if (c.phase == step_phase::forward_end || c.r.adapters()) return;
  const double grad = leaf * l.trainable_fraction * bytes_per_value(c.r.gradients);
  t.dynamic += std::ceil(grad);
  params.add("ZeRO-3 unsharded gradient of that module (before its reduce-scatter)", grad,
             n(leaf) + " x " + n(bytes_per_value(c.r.gradients)) + " B");
}

// bf16.enabled (16-bit weights, fp32 master and Adam partitions).
void deepspeed_engine(settings& p, const setting_values& v) {
  set(p, "weights_dtype", v.finetune == "qlora" ? "nf4" : "bf16");
  set(p, "autocast", "off");
  if (v.zero >= 3) set(p, "grad_lifetime", "resident");  // stage3.py: grad_partitions_flat_buffer from init
}

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
    .zero3_window = deepspeed_zero3_window,
    // ZeRO-Offload moves the gradient partitions with the optimizer: stage 3 allocates grad_partitions_flat_buffer
    // on the CPU (stage3.py v0.19.5 l.711-715, self.device = cpu when offload_optimizer is set), stages 1/2 copy
    // each reduced gradient into the CPU fp32 buffer (stage_1_and_2.py
    // async_inplace_copy_grad_to_fp32_buffer_from_gpu); the GPU keeps the reduce bucket (communication buffers).
    .offloads_gradients = true,
    // runtime/zero/config.py v0.19.5: offload_optimizer "Valid for ZeRO stage 1, 2, 3" (ZeRO-Offload), offload_param
    // "Valid only with stage 3" (ZeRO-Infinity).
    .offloads = {.optimizer_from_zero = 1, .params = true},
    .zero_stages = stages,  // 0-3
    .searches_tp = true,    // DeepSpeed AutoTP training (tensor_parallel.autotp_size)
};

}  // namespace llm_memory::detail
