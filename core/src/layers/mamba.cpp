// SPDX-License-Identifier: MIT
// Mamba-2 (Nemotron-H, Granite 4.0-H, Falcon-H1, Mamba-2): a selective state-space layer whose memory of the
// context is an SSM state of heads x head width x state size and the causal convolution's last d_conv - 1 inputs
// per sequence (transformers models/nemotron_h/modeling_nemotron_h.py NemotronHMamba2Mixer; vLLM
// model_executor/layers/mamba/mamba_utils.py mamba2_state_shape). Formulas: docs/models.md, docs/methodology.md.
#include <algorithm>

#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

struct mamba_widths {
  double inner = 0;  // heads x head width (the SSM's channels)
  double bc = 0;     // B and C: 2 x groups x state size
  double conv = 0;   // what the convolution mixes: x, B and C
  double heads = 0;  // SSM heads
};

mamba_widths widths_of(const setting_values& s) {
  const auto inner = static_cast<double>(s.mamba_num_heads * s.mamba_head_dim);
  const auto bc = 2 * static_cast<double>(s.mamba_n_groups * s.mamba_d_state);
  return {inner, bc, inner + bc, static_cast<double>(s.mamba_num_heads)};
}

struct mamba_state {
  double conv = 0;  // [bytes]
  double ssm = 0;   // [bytes]
};

// Per sequence on this device: the conv state (conv_dim / tp x (d_conv - 1)) in the activation dtype and the SSM
// state (heads / tp x head width x state size) in the state dtype.
mamba_state state_of(const context& c) {
  const mamba_widths w = widths_of(c.s);
  const double heads = std::max(1.0, w.heads / c.t);
  return {w.conv / c.t * (static_cast<double>(c.s.mamba_d_conv - 1) + runtime_of(c.r.runtime).conv_state_extra) * c.act,
          heads * static_cast<double>(c.s.mamba_head_dim * c.s.mamba_d_state) * bytes_per_value(c.r.state)};
}

double mamba_state_bytes(const context& c) {
  const mamba_state st = state_of(c);
  return st.conv + st.ssm;
}

void mamba_kv_cache(const context& c, double layers, builder& out) {
  const double b = static_cast<double>(c.s.batch);
  const mamba_state st = state_of(c);
  out.add("Mamba state (SSM + conv, per sequence)", layers * b * (st.conv + st.ssm),
          n(layers) + " layers x b " + n(b) + " x (conv " + n(st.conv) + " B + SSM " + n(st.ssm) +
              " B): heads x head_dim x d_state x " + n(bytes_per_value(c.r.state)) + " B, whatever the context");
}

// Training runs the fused mamba_split_conv1d_scan_combined (transformers' NemotronHMamba2Mixer and
// GraniteMoeHybridMambaLayer take it in training without a cache; mamba_ssm ops/triton/ssd_combined.py
// MambaSplitConv1dScanCombinedFn @e9594ce), which saves in_proj's output zxbcdt (2 inner + 2 groups x state +
// heads), its output before the gated norm out_x (inner) and the norm's fp32 rstd (one per group and token), and
// recomputes the conv output, the normed output and out_proj's input in backward; in_proj keeps its input.
void mamba_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const double input = c.tokens * input_bytes(c, layer, {projection::in_proj}, c.m.hidden);
  out.linear_terms += input + mamba_scan_saved(c);
  out.outside_tp += input;
}

}  // namespace

// in_proj (z, x, B, C and dt: 2 inner + 2 groups x state + heads), out_proj (inner -> h), biases when use_bias;
// returns the depthwise conv1d (conv_dim x d_conv, + conv_dim with use_conv_bias), dt_bias, A_log and D per head and
// the gated RMSNorm's inner weights (absent when mamba_norm is off: Falcon-H1's mamba_rms_norm false gates with
// silu(z) alone, modeling_falcon_h1.py FalconH1Mixer).
double add_mamba_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const mamba_widths w = widths_of(s);
  add_linear(layer, projection::in_proj, m.hidden, 2 * w.inner + w.bc + w.heads, 1, s.mamba_proj_bias);
  add_linear(layer, projection::out_proj, w.inner, m.hidden, 1, s.mamba_proj_bias);
  return w.conv * static_cast<double>(s.mamba_d_conv) + (s.mamba_conv_bias ? w.conv : 0) + 3 * w.heads +
         (s.mamba_norm ? w.inner : 0);
}

// zxbcdt, out_x and, with the gated norm, its fp32 rstd per group and token (see mamba_saved).
double mamba_scan_saved(const context& c) {
  const mamba_widths w = widths_of(c.s);
  const double T = c.tokens, B = c.act;
  const double rstd = c.s.mamba_norm ? fp32_bytes * T * static_cast<double>(c.s.mamba_n_groups) : 0;
  return B * T * (w.inner + w.conv + w.heads) + B * T * w.inner + rstd;
}

const layer_kind_def mamba_layer{layer_kind::mamba, "mamba",     add_mamba_params, nullptr,
                                 mamba_kv_cache,    mamba_saved, mamba_state_bytes};

}  // namespace llm_memory::detail
