// SPDX-License-Identifier: MIT
// DeepSeek Sparse Attention (DeepSeek-V3.2): multi-head latent attention (layers/mla.cpp) whose queries attend to
// the top-k keys a lightning indexer picks. The indexer (DeepSeek-V3.2-Exp inference/model.py, class Indexer) has
// wq_b (q_lora_rank -> index_n_heads x index_head_dim), wk (hidden -> index_head_dim), k_norm (a LayerNorm of
// index_head_dim: weight and bias) and weights_proj (hidden -> index_n_heads, kept in bf16 by the checkpoint), and
// caches one key of index_head_dim per token and layer in FP8 with one fp32 scale per 128 values (its k_cache and
// k_scale_cache; vLLM's DeepseekV32IndexerCache: head_dim + head_dim / 128 x 4 bytes, uint8). Formulas:
// docs/models.md (parameters), docs/methodology.md (KV cache).
#include <cmath>

#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

constexpr double indexer_scale_block = 128;  // values per fp32 scale of the indexer's FP8 keys (quant_block_size)

// MLA's matrices and norms, then the indexer's. wq_b and wk are filed under MLA's q_b_proj and kv_a_proj_with_mqa
// ids: the same shapes of role, block-scaled FP8 in the checkpoint, adapted by all-linear only (as PEFT does).
double add_dsa_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  const double other = mla_layer.add_params(s, m, layer);
  const auto heads = static_cast<double>(s.index_n_heads), dim = static_cast<double>(s.index_head_dim);
  add_linear(layer, projection::q_b_proj, static_cast<double>(s.q_lora_rank), heads * dim, 1, false);
  add_linear(layer, projection::kv_a_proj_with_mqa, m.hidden, dim, 1, false);
  // k_norm (LayerNorm weight and bias) and weights_proj (no bias).
  return other + 2 * dim + m.hidden * heads;
}

// MLA's widths, and the indexer's queries, key and head weights kept besides.
attention_widths dsa_saved_widths(const context& c) {
  attention_widths w = mla_layer.saved_widths(c);
  const auto heads = static_cast<double>(c.s.index_n_heads), dim = static_cast<double>(c.s.index_head_dim);
  w.latent += heads * dim + dim + heads;
  return w;
}

// The indexer key of one token in one layer: FP8 values and their fp32 scales [bytes].
double indexer_key_bytes(const setting_values& s) {
  const auto dim = static_cast<double>(s.index_head_dim);
  return dim + std::ceil(dim / indexer_scale_block) * 4;
}

void dsa_kv_cache(const context& c, double layers, builder& out) {
  mla_layer.kv_cache(c, layers, out);
  const double b = static_cast<double>(c.s.batch), sq = static_cast<double>(c.s.seq), key = indexer_key_bytes(c.s);
  out.add("DSA indexer key cache", layers * b * sq * key,
          n(layers) + " layers x b x s x (index_head_dim " + n(static_cast<double>(c.s.index_head_dim)) +
              " x 1 B fp8 + its fp32 scales = " + n(key) + " B)");
}

}  // namespace

const layer_kind_def dsa_layer{layer_kind::dsa, "dsa", add_dsa_params, dsa_saved_widths, dsa_kv_cache};

}  // namespace llm_memory::detail
