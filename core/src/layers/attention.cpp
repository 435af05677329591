// SPDX-License-Identifier: MIT
// Full causal attention (MHA, GQA, MQA): q/k/v/o projections, keys and values of every token cached.
// Formulas: docs/models.md (parameters), docs/methodology.md (activations, KV cache).
#include <algorithm>

#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

// q/k/v/o of one layer; returns the other attention parameters (q/k norms, sinks).
double add_attention_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const double h = m.hidden;
  const bool qkv_bias = m.choices.attention_bias != bias_kind::none;
  const bool o_bias = m.choices.attention_bias == bias_kind::all;
  // Gated attention (Qwen3-Next, Qwen3.5): q_proj also outputs the sigmoid gate, one value per query value
  // (modeling_qwen3_next.py Qwen3NextAttention: q_proj's output is chunked into query and gate).
  const double q_out = m.heads * m.head_dim * (s.attention_output_gate ? 2 : 1);
  add_linear(layer, projection::q_proj, h, q_out, 1, qkv_bias);
  add_linear(layer, projection::k_proj, h, m.kv_heads * m.head_dim, 1, qkv_bias);
  add_linear(layer, projection::v_proj, h, m.kv_heads * m.head_dim, 1, qkv_bias);
  add_linear(layer, projection::o_proj, m.heads * m.head_dim, h, 1, o_bias);
  // gpt-oss: one learned sink logit per head (modeling_gpt_oss.py self_attn.sinks).
  const double sinks = s.attention_sinks ? m.heads : 0;
  if (m.choices.qk_norm == qk_norm_kind::head) return sinks + norm_params(m, m.head_dim) * 2;
  if (m.choices.qk_norm == qk_norm_kind::full)
    return sinks + norm_params(m, m.heads * m.head_dim) + norm_params(m, m.kv_heads * m.head_dim);
  return sinks;
}

attention_widths attention_saved_widths(const context& c) {
  const double a = c.m.heads, d = c.m.head_dim;
  // The gate's logits are kept for the gate's backward (sigmoid(gate) x output).
  attention_widths w{a * d, c.m.kv_heads * d, c.m.kv_heads * d, a * d, c.s.attention_output_gate ? a * d : 0};
  // repeat_kv materialises grouped K/V at full width.
  if (c.r.attention == attention_kernel::eager || c.r.attention == attention_kernel::sdpa) w.k = w.v = a * d;
  return w;
}

// Every full-attention layer caches keys and values of its own heads. Gemma 4's are wider than its sliding layers'
// (global_head_dim; with attention_k_eq_v, num_global_key_value_heads), and its keys-as-values layers still cache
// both tensors: the values are the raw k_proj output, the keys that output normed and rotated (transformers
// modeling_gemma4.py @c308a309 Gemma4TextAttention.forward; vLLM gemma4.py @eee7972f loads k_proj into both slots
// of qkv_proj and caches both; llama.cpp src/models/gemma4.cpp @9af0434d sizes each layer n_embd_k_gqa(il) +
// n_embd_v_gqa(il)).
void attention_kv_cache(const context& c, double layers, builder& out) {
  const double b = static_cast<double>(c.s.batch), sq = static_cast<double>(c.s.seq);
  const double heads = std::max(1.0, c.m.full_kv_heads / c.t);
  out.add("full-attention layers", layers * b * sq * full_attention_kv_bytes_per_token(c),
          "2 x " + n(layers) + " layers x b " + n(b) + " x s " + n(sq) + " x n_kv " + n(heads) + " x head_dim " +
              n(c.m.full_head_dim) + " x " + n(bytes_per_value(c.r.kv)) + " B");
}

}  // namespace

double attention_kv_bytes_per_token(const context& c) {
  return 2 * std::max(1.0, c.m.kv_heads / c.t) * c.m.head_dim * bytes_per_value(c.r.kv);
}

double full_attention_kv_bytes_per_token(const context& c) {
  return 2 * std::max(1.0, c.m.full_kv_heads / c.t) * c.m.full_head_dim * bytes_per_value(c.r.kv);
}

const layer_kind_def attention_layer{layer_kind::attention, "full_attention", add_attention_params,
                                     attention_saved_widths, attention_kv_cache};

}  // namespace llm_memory::detail
