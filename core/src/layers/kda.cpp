// SPDX-License-Identifier: MIT
// Kimi Delta Attention (Kimi Linear): Gated DeltaNet with a per-channel decay, q, k and v through their own short
// convolutions; its memory of the context is a recurrent state of heads x head_dim x head_dim in fp32 and the
// convolutions' last kernel - 1 inputs per sequence (moonshotai/Kimi-Linear-48B-A3B-Instruct modeling_kimi.py
// KimiDeltaAttention; vLLM model_executor/layers/mamba/mamba_utils.py @02d71083 kda_state_shape and
// kda_state_dtype: the conv state in the model's dtype, the recurrent state float32). KDA has as many key as value
// heads of one width: linear_num_value_heads x linear_value_head_dim (the key fields equal them).
// Formulas: docs/models.md (parameters), docs/methodology.md (state, activations).
#include <algorithm>

#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

constexpr double chunk_tokens = 64;  // fla chunk_kda's chunk, as chunk_gated_delta_rule's

struct kda_widths {
  double heads = 0;  // linear_num_value_heads
  double d = 0;      // linear_value_head_dim
  double proj = 0;   // heads x d: q, k, v and the gate each
};

kda_widths widths_of(const setting_values& s) {
  const auto heads = static_cast<double>(s.linear_num_value_heads), d = static_cast<double>(s.linear_value_head_dim);
  return {heads, d, heads * d};
}

// q_proj, k_proj, v_proj (h -> H d), the decay's f_a_proj (h -> d) and f_b_proj (d -> H d), b_proj (h -> H), the
// output gate's g_a_proj and g_b_proj, o_proj (H d -> h), no biases; returns the three depthwise convolutions
// (3 x H d x kernel, no bias: fla ShortConvolution), A_log (H), dt_bias (H d) and o_norm's weight (d).
double add_kda_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const kda_widths w = widths_of(s);
  const double h = m.hidden;
  for (const projection p : {projection::q_proj, projection::k_proj, projection::v_proj})
    add_linear(layer, p, h, w.proj, 1, false);
  add_linear(layer, projection::f_a_proj, h, w.d, 1, false);
  add_linear(layer, projection::f_b_proj, w.d, w.proj, 1, false);
  add_linear(layer, projection::b_proj, h, w.heads, 1, false);
  add_linear(layer, projection::g_a_proj, h, w.d, 1, false);
  add_linear(layer, projection::g_b_proj, w.d, w.proj, 1, false);
  add_linear(layer, projection::o_proj, w.proj, h, 1, false);
  return 3 * w.proj * static_cast<double>(s.linear_conv_kernel_dim) + w.heads + w.proj + w.d;
}

struct kda_state {
  double conv = 0;       // [bytes]
  double recurrent = 0;  // [bytes]
};

// Per sequence on this device: the conv state ((q, k, v: 3 H d) / tp x (kernel - 1)) in the activation dtype and the
// recurrent state (H / tp x d x d) in fp32 whatever state_dtype says (vLLM kda_state_dtype; fla's final state).
kda_state state_of(const context& c) {
  const kda_widths w = widths_of(c.s);
  const double conv = static_cast<double>(c.s.linear_conv_kernel_dim - 1) + runtime_of(c.r.runtime).conv_state_extra;
  return {3 * w.proj / c.t * conv * c.act, std::max(1.0, w.heads / c.t) * w.d * w.d * fp32_bytes};
}

double kda_state_bytes(const context& c) {
  const kda_state st = state_of(c);
  return st.conv + st.recurrent;
}

void kda_kv_cache(const context& c, double layers, builder& out) {
  const double b = static_cast<double>(c.s.batch);
  const kda_state st = state_of(c);
  out.add("linear-attention state (KDA, per sequence)", layers * b * (st.conv + st.recurrent),
          n(layers) + " layers x b " + n(b) + " x (conv " + n(st.conv) + " B + recurrent " + n(st.recurrent) +
              " B): heads x d x d x 4 B, whatever the context");
}

// Saved for backward per token, as fla's chunk_kda runs it the way chunk_gated_delta_rule does (layers/
// linear_attention.cpp): the three convolutions' inputs (3 H d), q and k after the in-kernel l2norm (2 H d) with
// their fp32 rstd (2 H), v (H d), the per-channel log decay g in fp32 (H d), beta in fp32 (H), the WY inverse of
// each 64-token chunk (H x 64); the low-rank inputs of f_b_proj and g_b_proj (2 d), o_norm's input and gate (2 H d);
// o_proj's input when it trains. The per-chunk states are recomputed in backward.
void kda_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const kda_widths w = widths_of(c.s);
  const double T = c.tokens, B = c.act;
  const double input = T * input_bytes(c, layer,
                                       {projection::q_proj, projection::k_proj, projection::v_proj,
                                        projection::f_a_proj, projection::b_proj, projection::g_a_proj},
                                       c.m.hidden);
  const bool o_input = trains(c, layer, {projection::o_proj});
  const double values = 3 * w.proj + 2 * w.proj + w.proj + w.heads * chunk_tokens + 2 * w.d + 2 * w.proj;
  const double fp32 = 2 * w.heads + w.proj + w.heads;
  out.linear_terms += input + T * (B * values + fp32_bytes * fp32) + (o_input ? B * T * w.proj : 0);
  out.outside_tp += input;
}

}  // namespace

const layer_kind_def kda_layer{.kind = layer_kind::kda,
                               .name = "kda",
                               .add_params = add_kda_params,
                               .kv_cache = kda_kv_cache,
                               .saved = kda_saved,
                               .state_bytes = kda_state_bytes};

}  // namespace llm_memory::detail
