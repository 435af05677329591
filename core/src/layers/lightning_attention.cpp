// SPDX-License-Identifier: MIT
// Lightning attention (MiniMax-Text-01, MiniMax-M1): linear attention with a fixed per-head decay, whose memory of
// the context is one key x value state per head and sequence (heads x head_dim x head_dim), no convolution
// (transformers models/minimax/modular_minimax.py @008e5743 MiniMaxLightningAttention; vLLM
// model_executor/layers/mamba/mamba_utils.py @02d71083 linear_attention_state_shape (heads // tp, d, d) in
// linear_attention_state_dtype: the mamba cache dtype, the model's by default). Formulas: docs/models.md
// (parameters), docs/methodology.md (state, activations).
#include <algorithm>

#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

constexpr double block_tokens = 256;  // MiniMaxConfig.block_size: the eager loop's block

// qkv_proj (h -> 3 H d), output_gate (h -> H d), out_proj (H d -> h), no biases; returns the RMSNorm over H d. The
// slope rates and decays are buffers, not parameters.
double add_lightning_params(const setting_values& /*s*/, const model_spec& m, layer_params& layer) {
  const double width = m.heads * m.head_dim;
  add_linear(layer, projection::qkv_proj, m.hidden, 3 * width, 1, false);
  add_linear(layer, projection::output_gate, m.hidden, width, 1, false);
  add_linear(layer, projection::out_proj, width, m.hidden, 1, false);
  return norm_params(m, width);
}

// Bytes of one state value: the runtime's own (SGLang's MinimaxCacheManager: float32), else the activation dtype
// (vLLM's mamba cache dtype "auto" is the model's; transformers' MiniMaxCache keeps attn_weights_inter in the
// values' dtype; llama.cpp runs no MiniMax-01).
double lightning_value_bytes(const context& c) {
  const auto& own = runtime_of(c.r.runtime).lightning_state_dtype;
  return own ? bytes_per_value(*own) : c.act;
}

// Per sequence on this device: heads / tp x d x d values.
double lightning_state_bytes(const context& c) {
  const double heads = std::max(1.0, c.m.heads / c.t);
  return heads * c.m.head_dim * c.m.head_dim * lightning_value_bytes(c);
}

void lightning_kv_cache(const context& c, double layers, builder& out) {
  const double b = static_cast<double>(c.s.batch), per = lightning_state_bytes(c);
  out.add("lightning-attention state (per sequence)", layers * b * per,
          n(layers) + " layers x b " + n(b) + " x heads x head_dim x head_dim x " + n(lightning_value_bytes(c)) +
              " B = " + n(per) + " B per layer, whatever the context");
}

// Saved for backward per token, as transformers' eager block loop runs under autograd: qkv_proj's and output_gate's
// shared input; silu's input and output (3 H d each: q, k and v); per 256-token block the intra-block scores and
// their decayed copy (H x 256 per token each) and the carried state (H x d x d per started block); the attention
// output before and after the norm, the gate's logits, and out_proj's input (H d each).
void lightning_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const double T = c.tokens, B = c.act, width = c.m.heads * c.m.head_dim;
  const double input = T * input_bytes(c, layer, {projection::qkv_proj, projection::output_gate}, c.m.hidden);
  const bool o_input = trains(c, layer, {projection::out_proj});
  // Started blocks per sequence, bounded above by s / 256 + 1 so the sweep stays a polynomial in seq.
  const double blocks = static_cast<double>(c.s.batch) * (static_cast<double>(c.s.seq) / block_tokens + 1);
  const double per_token = 6 * width + 2 * c.m.heads * block_tokens + 3 * width + (o_input ? width : 0);
  out.linear_terms += input + B * T * per_token + B * blocks * width * c.m.head_dim;
  out.outside_tp += input;
}

}  // namespace

const layer_kind_def lightning_attention_layer{
    .kind = layer_kind::lightning,
    .name = "lightning_attention",
    .add_params = add_lightning_params,
    .kv_cache = lightning_kv_cache,
    .saved = lightning_saved,
    .state_bytes = lightning_state_bytes,
    .llamacpp_refusal =
        "llama.cpp (which Ollama runs) has no MiniMax-Text-01 / MiniMax-M1 architecture: no "
        "lightning attention in its src/llama-arch.cpp, no GGUF conversion"};

}  // namespace llm_memory::detail
