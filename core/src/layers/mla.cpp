// SPDX-License-Identifier: MIT
// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): low-rank q and kv projections, one latent of
// kv_lora_rank + qk_rope_head_dim values cached per token and layer (modeling_deepseek_v3.py). Formulas:
// docs/models.md (parameters), docs/methodology.md (activations, KV cache).
#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

// q (direct, or q_a -> q_b), kv_a_proj_with_mqa, kv_b_proj, o; returns q_a_layernorm and kv_a_layernorm.
double add_mla_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const double h = m.hidden;
  const bool o_bias = m.choices.attention_bias == bias_kind::all;
  const auto qk_head = static_cast<double>(s.qk_nope_head_dim + s.qk_rope_head_dim);
  const auto q_rank = static_cast<double>(s.q_lora_rank);
  const auto kv_rank = static_cast<double>(s.kv_lora_rank);
  if (s.q_lora_rank > 0) {
    add_linear(layer, projection::q_a_proj, h, q_rank, 1, false);
    add_linear(layer, projection::q_b_proj, q_rank, m.heads * qk_head, 1, false);
  } else {
    add_linear(layer, projection::q_proj, h, m.heads * qk_head, 1, false);
  }
  add_linear(layer, projection::kv_a_proj_with_mqa, h, kv_rank + static_cast<double>(s.qk_rope_head_dim), 1, false);
  add_linear(layer, projection::kv_b_proj, kv_rank, m.heads * static_cast<double>(s.qk_nope_head_dim + s.v_head_dim), 1,
             false);
  add_linear(layer, projection::o_proj, m.heads * static_cast<double>(s.v_head_dim), h, 1, o_bias);
  // q_a_layernorm and kv_a_layernorm (RMSNorm weights).
  return (s.q_lora_rank > 0 ? q_rank : 0) + kv_rank;
}

// Queries and keys of qk_nope + qk_rope per head, values and the output of v_head_dim per head, and both latents.
attention_widths mla_saved_widths(const context& c) {
  const auto& s = c.s;
  const double a = c.m.heads;
  const auto qk = static_cast<double>(s.qk_nope_head_dim + s.qk_rope_head_dim);
  const double v = a * static_cast<double>(s.v_head_dim);
  return {a * qk, a * qk, v, v, static_cast<double>(s.q_lora_rank + s.kv_lora_rank)};
}

void mla_kv_cache(const context& c, double layers, builder& out) {
  const auto& s = c.s;
  const double b = static_cast<double>(s.batch), sq = static_cast<double>(s.seq), kv_bytes = bytes_per_value(c.r.kv);
  // A runtime that does not cache the latent says what it caches instead (TGI: keys and values uncompressed).
  if (const auto uncompressed = runtime_of(c.r.runtime).mla_cache) {
    uncompressed(c, layers, out);
    return;
  }
  const auto latent = static_cast<double>(s.kv_lora_rank + s.qk_rope_head_dim);
  out.add(
      "MLA latent cache", layers * b * sq * latent * kv_bytes,
      n(layers) + " layers x b x s x (kv_lora_rank + qk_rope_head_dim = " + n(latent) + ") x " + n(kv_bytes) + " B");
}

}  // namespace

const layer_kind_def mla_layer{layer_kind::mla, "mla", add_mla_params, mla_saved_widths, mla_kv_cache};

}  // namespace llm_memory::detail
