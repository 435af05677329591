// SPDX-License-Identifier: MIT
// The overhead bucket: communication buffers, the allocator's reserve and the CUDA context, and the peak
// (allocated, reserved, device) it fills.
// Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "estimate/stage.hpp"
#include "frameworks/framework_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {

namespace {

// Gradient communication needs buffers beyond the gradients themselves. PyTorch DDP (zero 0) copies every gradient
// into its flat buckets unless gradient_as_bucket_view=True; DeepSpeed ZeRO reduces through reduce_bucket_size =
// 5e8 elements (and ZeRO-1/2 all-gather updated weights through allgather_bucket_size = 5e8), capped here at the
// size of what they carry.
void add_communication_buffers(const context& c, const state_layout& l, builder& over) {
  const double g = bytes_per_value(c.r.gradients);
  // DeepSpeed's reduce_bucket_size is 5e8 (runtime/zero/config.py l.113); a framework may fill its "auto" value
  // as the HF Trainer does (framework_def::auto_reduce_bucket, frameworks/deepspeed.cpp).
  const bool auto_bucket = c.phased() && framework_of(c.r.framework).auto_reduce_bucket;
  const double bucket_elements = auto_bucket ? c.m.hidden * c.m.hidden : 5e8;
  const std::string bucket_text = auto_bucket ? "h^2" : "5e8";
  const int zero = static_cast<int>(c.r.values.zero);
  if (zero == 0) {
    over.add(
        "DDP gradient buckets", l.trainable_dev * g,
        "a flat copy of the " + n(l.trainable_dev) + " gradients x " + n(g) + " B (gradient_as_bucket_view=False)");
    return;
  }
  over.add("ZeRO reduce bucket", std::min(bucket_elements, l.trainable_dev) * g,
           "min(" + bucket_text + ", trainable) x " + n(g) + " B (DeepSpeed reduce_bucket_size)");
  if (zero <= 2)
    over.add("ZeRO all-gather bucket", std::min(5e8, l.trainable_dev) * l.train_w,
             "min(5e8, trainable) x " + n(l.train_w) + " B (DeepSpeed allgather_bucket_size)");
}

// Whether the framework allocates DDP's and DeepSpeed's communication buffers (framework_def::ddp_buffers: its
// file says why or why not).
// Evaluation runs the unwrapped model (transformers v4.54.0 Trainer.evaluation_loop: _wrap_model(training=False)).
bool communication_buffers(const context& c) {
  return c.train && !c.eval && c.dp > 1 && framework_of(c.r.framework).ddp_buffers;
}

}  // namespace

// Overhead; fills `peak` (allocated, reserved, device) from the tensors' bytes.
bucket overhead_bucket(const context& c, const state_layout& l, const tally& t, double tensors, double weights,
                       peak_memory& peak) {
  const setting_values& s = c.s;
  builder over{{"overhead",
                "Overhead",
                0,
                "Memory the runtime takes beyond the tensors above",
                "Estimates of runtime behaviour, not arithmetic: change the defaults to match your stack",
                {}}};
  peak.allocated = tensors;
  if (c.r.overhead == overhead_mode::factor) {
    over.add("overhead factor on the weights", (s.overhead_factor - 1) * weights,
             "(" + n(s.overhead_factor) + " - 1) x weights (seed 2's inference rule)");
  } else if (c.r.overhead == overhead_mode::detailed && !c.train) {
    runtime_overhead(c, tensors, weights, over);
  } else if (c.r.overhead == overhead_mode::detailed && !c.phased()) {
    over.add("CUDA context and framework", s.cuda_context, "cuda_context setting");
    if (communication_buffers(c)) add_communication_buffers(c, l, over);
    peak.allocated += over.b.bytes - std::ceil(s.cuda_context);
    over.add("allocator fragmentation reserve", tensors * s.fragmentation / 100,
             n(s.fragmentation) + " % of " + n(tensors) + " B");
  } else if (c.r.overhead == overhead_mode::detailed) {
    if (communication_buffers(c)) add_communication_buffers(c, l, over);
    peak.allocated += over.b.bytes;
    over.add("caching allocator reserve", s.allocator_reserve * t.dynamic,
             n(s.allocator_reserve) + " x " + n(t.dynamic) + " B allocated and freed within the step");
    if (c.r.optimizer_impl == optimizer_step_impl::paged)
      over.add("paged optimizer states (managed memory, outside PyTorch)", t.paged, "the optimizer states above");
    over.add("CUDA context and framework", s.cuda_context, "cuda_context setting");
  }
  const double reserve =
      c.phased() ? std::ceil(s.allocator_reserve * t.dynamic)
                 : (c.r.overhead == overhead_mode::detailed ? std::ceil(tensors * s.fragmentation / 100) : 0);
  peak.reserved = peak.allocated + reserve;
  peak.device = tensors + over.b.bytes;
  return std::move(over.b);
}

}  // namespace llm_memory::detail
