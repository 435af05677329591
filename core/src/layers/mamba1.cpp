// SPDX-License-Identifier: MIT
// Mamba-1 as Jamba runs it (transformers models/jamba/modeling_jamba.py JambaMambaMixer @008f5c8): a selective scan
// over the inner width whose memory of the context is an SSM state of inner x d_state and the causal convolution's
// last d_conv - 1 inputs per sequence (vLLM model_executor/layers/mamba/mamba_utils.py mamba1_state_shape; llama.cpp
// llama-hparams.cpp n_embd_r (d_conv - 1) x d_inner, n_embd_s d_state x d_inner). Formulas: docs/methodology.md.
#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

// in_proj h -> 2 inner (x and the gate z), x_proj inner -> dt rank + 2 d_state (no bias), dt_proj rank -> inner
// (with bias), out_proj inner -> h; returns the depthwise conv1d (inner x d_conv, + inner with the conv bias), A_log
// (inner x d_state), D (inner) and Jamba's RMSNorms on dt, B and C (rank + 2 d_state).
double add_mamba1_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const auto inner = static_cast<double>(s.mamba_d_inner), rank = static_cast<double>(s.mamba_dt_rank);
  const auto n = static_cast<double>(s.mamba_d_state);
  add_linear(layer, projection::in_proj, m.hidden, 2 * inner, 1, s.mamba_proj_bias);
  add_linear(layer, projection::x_proj, inner, rank + 2 * n, 1, false);
  add_linear(layer, projection::dt_proj, rank, inner, 1, true);
  add_linear(layer, projection::out_proj, inner, m.hidden, 1, s.mamba_proj_bias);
  return inner * static_cast<double>(s.mamba_d_conv) + (s.mamba_conv_bias ? inner : 0) + inner * n + inner + rank +
         2 * n;
}

struct mamba1_state {
  double conv = 0;  // [bytes]
  double ssm = 0;   // [bytes]
};

// Per sequence on this device: the conv state (inner / tp x (d_conv - 1)) in the activation dtype and the SSM state
// (inner / tp x d_state) in the state dtype.
mamba1_state state_of(const context& c) {
  const double inner = static_cast<double>(c.s.mamba_d_inner) / c.t;
  const double conv = static_cast<double>(c.s.mamba_d_conv - 1) + runtime_of(c.r.runtime).conv_state_extra;
  return {inner * conv * c.act, inner * static_cast<double>(c.s.mamba_d_state) * bytes_per_value(c.r.state)};
}

double mamba1_state_bytes(const context& c) {
  const mamba1_state st = state_of(c);
  return st.conv + st.ssm;
}

void mamba1_kv_cache(const context& c, double layers, builder& out) {
  const double b = static_cast<double>(c.s.batch);
  const mamba1_state st = state_of(c);
  out.add("Mamba-1 state (SSM + conv, per sequence)", layers * b * (st.conv + st.ssm),
          n(layers) + " layers x b " + n(b) + " x (conv " + n(st.conv) + " B + SSM " + n(st.ssm) +
              " B): d_inner x d_state x " + n(bytes_per_value(c.r.state)) + " B, whatever the context");
}

// Jamba trains without the fused mamba_inner_fn ("we can't use mamba_inner_fn ... because we have the inner
// layernorms"): causal_conv1d_fn keeps its input (the x half of in_proj's output, whose z half the scan keeps: the
// whole 2 inner), x_proj and the scan keep the conv output (inner), the norms keep x_proj's output and their outputs
// (2 x (rank + 2 d_state)), selective_scan_fn (mamba_ssm ops/selective_scan_interface.py SelectiveScanFn @e9594ce:
// save_for_backward(u, delta, A, B, C, D, z, delta_bias, x, out)) keeps delta (inner), its output (inner) and its
// fp32 chunk states x (inner x 2 d_state per started 2,048 tokens: selective_scan.cpp n_chunks); out_proj keeps its
// gated input (inner); in_proj keeps its input.
void mamba1_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const auto inner = static_cast<double>(c.s.mamba_d_inner), rank = static_cast<double>(c.s.mamba_dt_rank);
  const auto n = static_cast<double>(c.s.mamba_d_state);
  const double T = c.tokens, B = c.act;
  const double input = T * input_bytes(c, layer, {projection::in_proj}, c.m.hidden);
  // ceil(s / 2,048) chunks per sequence, bounded above by s / 2,048 + 1: the sweep lowers memory as batch x (a
  // piecewise quadratic in seq), which a step per 2,048 tokens is not.
  const double chunks = static_cast<double>(c.s.batch) * (static_cast<double>(c.s.seq) / 2048 + 1);
  out.linear_terms += input + B * T * (6 * inner + 2 * (rank + 2 * n)) + fp32_bytes * chunks * inner * 2 * n;
  out.outside_tp += input;
}

}  // namespace

const layer_kind_def mamba1_layer{layer_kind::mamba1, "mamba1",     add_mamba1_params, nullptr,
                                  mamba1_kv_cache,    mamba1_saved, mamba1_state_bytes};

}  // namespace llm_memory::detail
