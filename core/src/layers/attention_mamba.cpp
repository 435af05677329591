// SPDX-License-Identifier: MIT
// Attention and Mamba-2 side by side (Falcon-H1): every layer runs full attention and a Mamba-2 mixer on the same
// normed input and sums their outputs (transformers models/falcon_h1/modeling_falcon_h1.py FalconH1DecoderLayer @
// 001f85b: self_attn and mamba both read input_layernorm's output). The layer keeps both caches: the keys and values
// of every token and the Mamba state per sequence (FalconHybridMambaAttentionDynamicCache allocates conv and ssm
// states for every layer; vLLM models/falcon_h1.py registers an Attention and a MambaMixer2 per decoder layer;
// llama.cpp's Falcon-H1 graph gives every layer a KV cell and a recurrent state). Formulas: docs/methodology.md.
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

// q/k/v/o as full attention has them, plus the Mamba-2 mixer's matrices and vectors.
double add_parallel_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const double attention = attention_layer.add_params(s, m, layer);
  return attention + add_mamba_params(s, m, layer);
}

void parallel_kv_cache(const context& c, double layers, builder& out) {
  attention_layer.kv_cache(c, layers, out);
  mamba_layer.kv_cache(c, layers, out);
}

// Attention's saves, then the Mamba scan's. in_proj reads the same normed input as q/k/v: its copy counts only where
// q/k/v keep none (the union of the readers less attention's own).
void parallel_saved(const context& c, const layer_params& layer, layer_activations& out) {
  attention_saved(c, attention_layer, layer, out);
  const double h = c.m.hidden;
  const double qkv = input_bytes(c, layer, {projection::q_proj, projection::k_proj, projection::v_proj}, h);
  const double all =
      input_bytes(c, layer, {projection::q_proj, projection::k_proj, projection::v_proj, projection::in_proj}, h);
  const double input = c.tokens * (all - qkv);
  out.linear_terms += input + mamba_scan_saved(c);
  out.outside_tp += input;
}

double parallel_state_bytes(const context& c) { return mamba_layer.state_bytes(c); }

}  // namespace

const layer_kind_def attention_mamba_layer{.kind = layer_kind::attention_mamba,
                                           .name = "attention_mamba",
                                           .add_params = add_parallel_params,
                                           .saved_widths = nullptr,
                                           .kv_cache = parallel_kv_cache,
                                           .saved = parallel_saved,
                                           .state_bytes = parallel_state_bytes,
                                           .attends = true};

}  // namespace llm_memory::detail
