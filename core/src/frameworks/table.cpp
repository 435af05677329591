// SPDX-License-Identifier: MIT
// The frameworks' table: one row per training framework (its file: frameworks/<name>.cpp), in framework_kind's
// order, and the profile layers resolve.cpp reads from it (profiles.hpp).
#include <array>
#include <cstddef>
#include <vector>

#include "frameworks/framework_def.hpp"
#include "profiles.hpp"

namespace llm_memory {
namespace detail {

// The rows, one per file (frameworks/<name>.cpp).
extern const framework_def generic_framework;
extern const framework_def hf_framework;
extern const framework_def deepspeed_framework;
extern const framework_def fsdp_framework;
extern const framework_def torchtune_framework;
extern const framework_def litgpt_framework;
extern const framework_def megatron_framework;
extern const framework_def unsloth_framework;
extern const framework_def torchtitan_framework;
extern const framework_def llamafactory_framework;
extern const framework_def axolotl_framework;

namespace {

// One row per framework_kind, in the enum's order (framework_table_test.cpp checks each row's `kind`).
constexpr std::array<const framework_def*, 11> table = {
    &generic_framework,    &hf_framework,           &deepspeed_framework, &fsdp_framework,
    &torchtune_framework,  &litgpt_framework,       &megatron_framework,  &unsloth_framework,
    &torchtitan_framework, &llamafactory_framework, &axolotl_framework,
};

// Settings every framework with a profile (every phased one) shares: a lazily loaded CUDA context (CUDA >= 11.7:
// PyTorch PR #86509 and unsloth-zoo PR #1053 measure 0.27-0.42 GiB at start; kernels load as training runs).
void common(settings& p) { set(p, "cuda_context", "0.5GiB"); }

}  // namespace

const framework_def& framework_of(framework_kind kind) { return *table[static_cast<std::size_t>(kind)]; }

bool runs_offload(framework_kind kind, offload_target offload, std::int64_t zero) {
  const offload_support& o = framework_of(kind).offloads;
  switch (offload) {
    case offload_target::none: return true;
    case offload_target::optimizer: return o.optimizer_from_zero >= 0 && zero >= o.optimizer_from_zero;
    case offload_target::optimizer_and_params: return o.params && zero == 3;
  }
  return false;
}

std::vector<std::int64_t> searched_zero_stages(const run_spec& spec) {
  if (spec.eval()) return {spec.values.zero};
  std::vector<std::int64_t> out;
  for (const std::int64_t stage : framework_of(spec.framework).zero_stages)
    if (runs_offload(spec.framework, spec.offload, stage)) out.push_back(stage);
  return out;
}

settings framework_profile(framework_kind framework, const setting_values& values, const settings& stated) {
  settings p;
  const framework_def& f = framework_of(framework);
  if (f.profile == nullptr) return p;
  common(p);
  f.profile(p, values);
  if (f.stated != nullptr) f.stated(p, values, stated);
  return p;
}

settings framework_model_overrides(framework_kind framework) {
  settings p;
  if (const auto overrides = framework_of(framework).model_overrides) overrides(p);
  return p;
}

}  // namespace detail

bool run_spec::phased() const { return detail::framework_of(framework).phased; }

}  // namespace llm_memory
