// SPDX-License-Identifier: MIT
// No token mixer: an MLP-only block (Nemotron-H's "-" and "E" layers), which adds nothing but its MLP and norm.
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

double add_nothing(const setting_values&, const model_spec&, layer_params&) { return 0; }
void cache_nothing(const context&, double, builder&) {}
void save_nothing(const context&, const layer_params&, layer_activations&) {}

}  // namespace

const layer_kind_def no_mixer{layer_kind::none, "none", add_nothing, nullptr, cache_nothing, save_nothing, nullptr};

}  // namespace llm_memory::detail
