// SPDX-License-Identifier: MIT
// Gated DeltaNet (Qwen3-Next, Qwen3.5): a linear-attention layer whose memory of the context is a fixed-size state
// per sequence — a recurrent state of value heads x key width x value width and the causal convolution's last
// kernel - 1 inputs — in place of a KV cache (transformers models/qwen3_next/modeling_qwen3_next.py
// Qwen3NextGatedDeltaNet; vLLM model_executor/layers/mamba/mamba_utils.py gated_delta_net_state_shape).
// Formulas: docs/models.md (parameters), docs/methodology.md (state, activations).
#include <algorithm>

#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

constexpr double chunk_tokens = 64;  // fla's chunk_gated_delta_rule: BT = 64, hard-coded

struct gdn_widths {
  double key = 0;    // linear_num_key_heads x linear_key_head_dim
  double value = 0;  // linear_num_value_heads x linear_value_head_dim
  double conv = 0;   // what the convolution mixes: q, k and v (2 key + value)
  double heads = 0;  // value heads
};

gdn_widths widths_of(const setting_values& s) {
  const auto key = static_cast<double>(s.linear_num_key_heads * s.linear_key_head_dim);
  const auto value = static_cast<double>(s.linear_num_value_heads * s.linear_value_head_dim);
  return {key, value, 2 * key + value, static_cast<double>(s.linear_num_value_heads)};
}

// in_proj_qkvz (q, k, v and the gate z), in_proj_ba (beta and a per value head), out_proj, no biases; returns the
// depthwise conv1d (conv_dim x kernel, no bias), dt_bias and A_log per value head and the gated norm's head_v_dim.
double add_gdn_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const gdn_widths w = widths_of(s);
  add_linear(layer, projection::in_proj_qkvz, m.hidden, 2 * w.key + 2 * w.value, 1, false);
  add_linear(layer, projection::in_proj_ba, m.hidden, 2 * w.heads, 1, false);
  add_linear(layer, projection::out_proj, w.value, m.hidden, 1, false);
  return w.conv * static_cast<double>(s.linear_conv_kernel_dim) + 2 * w.heads +
         static_cast<double>(s.linear_value_head_dim);
}

// Per sequence on this device: the conv state (conv_dim / tp x (kernel - 1)) in the activation dtype and the
// recurrent state (value heads / tp x key width x value width) in the state dtype.
struct gdn_state {
  double conv = 0;       // [bytes]
  double recurrent = 0;  // [bytes]
};

gdn_state state_of(const context& c) {
  const gdn_widths w = widths_of(c.s);
  const double heads = std::max(1.0, w.heads / c.t);
  return {
      w.conv / c.t * (static_cast<double>(c.s.linear_conv_kernel_dim - 1) + runtime_of(c.r.runtime).conv_state_extra) *
          c.act,
      heads * static_cast<double>(c.s.linear_key_head_dim * c.s.linear_value_head_dim) * bytes_per_value(c.r.state)};
}

double gdn_state_bytes(const context& c) {
  const gdn_state st = state_of(c);
  return st.conv + st.recurrent;
}

void gdn_kv_cache(const context& c, double layers, builder& out) {
  const double b = static_cast<double>(c.s.batch);
  const gdn_state st = state_of(c);
  out.add("linear-attention state (Gated DeltaNet, per sequence)", layers * b * (st.conv + st.recurrent),
          n(layers) + " layers x b " + n(b) + " x (conv " + n(st.conv) + " B + recurrent " + n(st.recurrent) +
              " B): value heads x d_k x d_v x " + n(bytes_per_value(c.r.state)) + " B, whatever the context");
}

// Saved for backward per token, as transformers' Qwen3NextGatedDeltaNet (modeling_qwen3_next.py @01cdc608) runs
// fla's kernels: causal_conv1d keeps its input, conv_dim wide (causal-conv1d causal_conv1d_interface.py @17f4f2fe
// CausalConv1dFn); chunk_gated_delta_rule keeps q, k (after the in-kernel l2norm) and their fp32 rstd, v, the gate
// cumsum g (fp32), beta and A, the WY inverse of each 64-token chunk (Hv x 64, activation dtype), and recomputes the
// per-chunk states in backward (fla ops/gated_delta_rule/chunk.py @0315a70e ChunkGatedDeltaRuleFunction). q and k
// have Hv heads: transformers repeat_interleaves them from Hk when Hv > Hk before the call. The gated norm keeps its
// input and z; out_proj its input.
void gdn_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const gdn_widths w = widths_of(c.s);
  const double T = c.tokens, h = c.m.hidden, B = c.act;
  const double qk_heads = static_cast<double>(std::max(c.s.linear_num_key_heads, c.s.linear_num_value_heads));
  const double qk = 2 * qk_heads * static_cast<double>(c.s.linear_key_head_dim);
  const double input = T * input_bytes(c, layer, {projection::in_proj_qkvz, projection::in_proj_ba}, h);
  const bool o_input = trains(c, layer, {projection::out_proj});
  const double kernel = B * (qk + w.value + w.heads * (chunk_tokens + 1)) + fp32_bytes * (2 * qk_heads + w.heads);
  out.linear_terms += input + T * (B * w.conv + kernel + B * 2 * w.value) + (o_input ? B * T * w.value : 0);
  out.outside_tp += input;
}

}  // namespace

const layer_kind_def linear_attention_layer{layer_kind::linear_attention,
                                            "linear_attention",
                                            add_gdn_params,
                                            nullptr,
                                            gdn_kv_cache,
                                            gdn_saved,
                                            gdn_state_bytes};

}  // namespace llm_memory::detail
