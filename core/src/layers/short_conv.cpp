// SPDX-License-Identifier: MIT
// The gated short convolution (LFM2): in_proj (h -> 3h: B, C and x), a depthwise causal convolution of L_cache taps
// over B x x, out_proj; its memory of the context is the last L_cache - 1 inputs per sequence (transformers
// models/lfm2/modeling_lfm2.py Lfm2ShortConv; vLLM mamba_utils.py short_conv_state_shape). Formulas: docs/models.md,
// docs/methodology.md.
#include <algorithm>

#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

// in_proj and out_proj (biases with conv_bias); returns the depthwise conv (h x L_cache, + h with conv_bias).
double add_conv_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const double h = m.hidden;
  add_linear(layer, projection::in_proj, h, 3 * h, 1, s.conv_bias);
  add_linear(layer, projection::out_proj, h, h, 1, s.conv_bias);
  return h * static_cast<double>(s.conv_l_cache) + (s.conv_bias ? h : 0);
}

// Per sequence on this device: h / tp channels x (L_cache - 1) in the activation dtype.
double conv_state_bytes(const context& c) {
  return c.m.hidden / c.t * (static_cast<double>(c.s.conv_l_cache - 1) + runtime_of(c.r.runtime).conv_state_extra) *
         c.act;
}

void conv_kv_cache(const context& c, double layers, builder& out) {
  const double b = static_cast<double>(c.s.batch), per = conv_state_bytes(c);
  out.add("short-convolution state (per sequence)", layers * b * per,
          n(layers) + " layers x b " + n(b) + " x h x (L_cache - 1) x " + n(c.act) + " B = " + n(per) +
              " B per layer, whatever the context");
}

// B, C and x (in_proj's output, views of one tensor that B x x and C x conv keep alive), B x x (the convolution's
// input: causal-conv1d causal_conv1d_interface.py CausalConv1dFn saves x, weight and bias @17f4f2f; nn.Conv1d on the
// slow path keeps the same), the convolution's output (C x conv's other input), out_proj's input.
void conv_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const double T = c.tokens, h = c.m.hidden, B = c.act;
  const double input = T * input_bytes(c, layer, {projection::in_proj}, h);
  const bool o_input = trains(c, layer, {projection::out_proj});
  out.linear_terms += input + B * T * (3 * h + 2 * h + (o_input ? h : 0));
  out.outside_tp += input;
}

}  // namespace

const layer_kind_def short_conv_layer{layer_kind::short_conv, "conv",     add_conv_params, nullptr,
                                      conv_kv_cache,          conv_saved, conv_state_bytes};

}  // namespace llm_memory::detail
