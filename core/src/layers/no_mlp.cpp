// SPDX-License-Identifier: MIT
// No MLP: a mixer-only block (Nemotron-H's "M" and "*" layers).
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

void add_nothing(const setting_values&, const model_spec&, layer_params&) {}
void save_nothing(const context&, const layer_params&, layer_activations&) {}

}  // namespace

const mlp_kind_def no_mlp{mlp_kind::none, "none", add_nothing, save_nothing};

}  // namespace llm_memory::detail
