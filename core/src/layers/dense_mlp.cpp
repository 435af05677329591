// SPDX-License-Identifier: MIT
// The dense MLP: gate/up/down (gated: SwiGLU, GeGLU) or up/down, every token through it. Formulas: docs/models.md
// (parameters), docs/methodology.md (activations).
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

void add_dense_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  add_mlp(s, m, layer, m.hidden, m.intermediate, 1, false);
}

void dense_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const mlp_saving mlp = mlp_saving_of(c, layer);
  out.linear_terms += mlp.bytes(c.tokens, c.m.intermediate);
  out.outside_tp += c.tokens * mlp.input;
}

}  // namespace

mlp_saving mlp_saving_of(const context& c, const layer_params& layer) {
  const double h = c.m.hidden;
  // Its input (kept for up/gate), what the activation and the gate multiply keep (gated: gate, act(gate), up; plain:
  // the activation's input), the down_proj input (kept for down). Under LoRA, targets name the routed and shared
  // experts' projections alike. Compiled, AOTAutograd's min-cut partitioner (torch/_functorch/partitioners.py,
  // min_cut_rematerialization_partition, inductor's default for training) saves only the pointwise chain's inputs
  // (gate and up, or the activation's input) and recomputes act(gate), the product and down_proj's input.
  const double gated = c.m.choices.gated_mlp ? 1 : 0;
  const double kept_inner =
      c.r.compiled ? 1 + gated : 1 + 2 * gated + (trains(c, layer, {projection::down_proj}) ? 1 : 0);
  return {input_bytes(c, layer, {projection::gate_proj, projection::up_proj}, h), c.act * kept_inner};
}

const mlp_kind_def dense_mlp{mlp_kind::dense, "dense", add_dense_params, dense_saved};

}  // namespace llm_memory::detail
