// SPDX-License-Identifier: MIT
// Framework generic: the seeds' textbook arithmetic. No profile and no phase model (every bucket summed); DDP's and
// DeepSpeed's communication buffers; the device search tries DeepSpeed's ZeRO stages and tp.
#include <array>

#include "frameworks/framework_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {
namespace {

constexpr std::array<std::int64_t, 4> stages = {0, 1, 2, 3};

// The phase model's settings a generic run sets and the sum ignores.
void notes(const run_spec& r, std::vector<std::string>& out) {
  const setting_values& s = r.values;
  const setting_values& d = default_values();
  if (s.grad_lifetime != d.grad_lifetime || s.optimizer_in_backward != d.optimizer_in_backward ||
      s.optimizer_impl != d.optimizer_impl || s.loss_impl != d.loss_impl ||
      s.activation_offload != d.activation_offload || s.allocator_reserve != d.allocator_reserve)
    out.emplace_back(
        "framework generic sums every bucket: grad_lifetime, optimizer_in_backward, optimizer_impl, "
        "loss_impl, activation_offload and allocator_reserve are ignored");
}

}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def generic_framework{
    .kind = framework_kind::generic,
    .printed = "device",  // as hf's
    .phased = false,
    .ddp_buffers = true,
    .zero_stages = stages,  // DeepSpeed's 0-3
    .searches_tp = true,    // the generic model
    .notes = notes,
};

}  // namespace llm_memory::detail
