// SPDX-License-Identifier: MIT
// Exact parameter counting from the architecture. Formulas per family: docs/models.md.
#include "llm_memory/model.hpp"

#include <algorithm>
#include <cmath>

#include "layers/layer_kinds.hpp"

namespace llm_memory {
namespace detail {

double norm_params(const model_spec& m, double width) {
  return m.choices.norm == norm_kind::layernorm ? 2 * width : width;
}

void add_linear(layer_params& layer, projection name, double in, double out, double copies, bool bias, bool routed) {
  layer.linears.push_back({name, in, out, copies, bias ? out : 0, routed});
}

double linear_params(const layer_params& layer, bool routed_only) {
  double n = 0;
  for (const auto& l : layer.linears)
    if (!routed_only || l.routed) n += (l.in_features * l.out_features + l.bias) * l.copies;
  return n;
}

void add_mlp(const setting_values& s, const model_spec& m, layer_params& layer, double h, double inner, double copies,
             bool routed) {
  const bool bias = s.mlp_bias;
  if (m.choices.gated_mlp) {
    add_linear(layer, projection::gate_proj, h, inner, copies, bias, routed);
    add_linear(layer, projection::up_proj, h, inner, copies, bias, routed);
  } else {
    add_linear(layer, projection::up_proj, h, inner, copies, bias, routed);
  }
  add_linear(layer, projection::down_proj, inner, h, copies, bias, routed);
}

}  // namespace detail

namespace {

using detail::add_linear;
using detail::linear_params;
using detail::norm_params;

layer_params make_layer(const setting_values& s, const model_spec& m, bool moe) {
  layer_params layer;
  // Every layer has the shapes of the pattern's first kind (attention and sliding_attention share them).
  const double extra = detail::layer_def(m.layer_pattern.front().kind).add_params(s, m, layer);
  layer.attention = linear_params(layer, false) + extra;
  // The MLP of the layer's kind (layers/dense_mlp.cpp, layers/moe_mlp.cpp): its matrices, and a MoE's router.
  detail::mlp_def(moe ? mlp_kind::moe : mlp_kind::dense).add_params(s, m, layer);
  layer.mlp = linear_params(layer, false) - layer.attention + extra;
  layer.norms = static_cast<double>(s.norms_per_layer) * norm_params(m, m.hidden);
  return layer;
}

// Encoder-decoder (modeling_t5.py T5LayerCrossAttention, modeling_bart.py encoder_attn): a decoder layer adds
// q/k/v/o of the same shapes as its self-attention (k and v read the encoder's h-wide output) and one more norm
// (T5's layer[1].layer_norm, BART's encoder_attn_layer_norm).
void add_cross_attention(const model_spec& m, layer_params& layer) {
  const double before = linear_params(layer, false);
  const std::size_t self = layer.linears.size();
  for (std::size_t i = 0; i < self; ++i) {
    const linear_shape l = layer.linears[i];
    if (l.name == projection::q_proj || l.name == projection::k_proj || l.name == projection::v_proj ||
        l.name == projection::o_proj)
      layer.linears.push_back(l);
  }
  layer.attention += linear_params(layer, false) - before;
  layer.norms += norm_params(m, m.hidden);
}

// One multi-token-prediction module as DeepSeek-V3's checkpoint stores it (model.layers.61.*; DeepSeek-V3 technical
// report section 2.2, modeling_deepseek.py's layer names): one more decoder layer (MoE when the model has experts,
// as layer L is past first_k_dense_replace), enorm and hnorm (RMSNorm h each), eh_proj (2h -> h, no bias), its own
// embed_tokens (V x h), shared_head.norm (h) and shared_head.head (V x h).
double mtp_layer(const setting_values& s, const model_spec& m) {
  const double h = m.hidden;
  const double layer = s.num_experts > 0 ? m.params.moe_layer.total() : m.params.dense_layer.total();
  return layer + 3 * norm_params(m, h) + 2 * h * h + 2 * m.vocab * h;
}

// The repeating unit of the layers' kinds: MLA throughout; sliding_window with sliding_window_pattern N: N - 1
// sliding layers then one full (Gemma 2/3, gpt-oss, Cohere 2), every layer sliding when N is 0 (Mistral).
std::vector<layer_run> layer_pattern_of(const setting_values& s, bool mla) {
  if (mla) return {{s.index_n_heads > 0 ? layer_kind::dsa : layer_kind::mla, 1}};  // DSA: MLA with an indexer
  if (s.sliding_window == 0 || s.sliding_window_pattern == 1) return {{layer_kind::attention, 1}};
  if (s.sliding_window_pattern == 0) return {{layer_kind::sliding_attention, 1}};
  return {{layer_kind::sliding_attention, s.sliding_window_pattern - 1}, {layer_kind::attention, 1}};
}

}  // namespace

double model_spec::layers_of(layer_kind k, double first_layers) const {
  double unit = 0, in_unit = 0;
  for (const layer_run& run : layer_pattern) {
    unit += static_cast<double>(run.count);
    if (run.kind == k) in_unit += static_cast<double>(run.count);
  }
  const double whole = std::floor(first_layers / unit);
  double rest = first_layers - whole * unit, out = whole * in_unit;
  for (const layer_run& run : layer_pattern) {
    const double here = std::min(rest, static_cast<double>(run.count));
    if (run.kind == k) out += here;
    rest -= here;
  }
  return out;
}

model_spec make_model(const setting_values& s, const model_choices& choices) {
  model_spec m;
  m.choices = choices;
  m.hidden = static_cast<double>(s.hidden_size);
  m.layers = s.num_hidden_layers;
  m.heads = static_cast<double>(s.num_attention_heads);
  m.kv_heads = static_cast<double>(s.num_key_value_heads > 0 ? s.num_key_value_heads : s.num_attention_heads);
  m.head_dim = s.head_dim > 0 ? static_cast<double>(s.head_dim) : m.hidden / m.heads;
  m.intermediate = s.intermediate_size > 0 ? static_cast<double>(s.intermediate_size) : 4 * m.hidden;
  m.vocab = static_cast<double>(s.vocab_size);
  m.mla = s.kv_lora_rank > 0;
  m.layer_pattern = layer_pattern_of(s, m.mla);

  param_breakdown& p = m.params;
  // A factorised embedding (ALBERT, ELECTRA-small): tables of width E, then a biased Linear E -> h.
  const double e = s.embedding_size > 0 ? static_cast<double>(s.embedding_size) : m.hidden;
  p.embedding =
      m.vocab * e + (s.embedding_norm ? norm_params(m, e) : 0) + (e != m.hidden ? e * m.hidden + m.hidden : 0);
  if (choices.position == position_kind::learned) p.embedding += static_cast<double>(s.max_position_embeddings) * e;
  p.lm_head = (s.tie_word_embeddings ? 0 : m.vocab * e) + (s.lm_head_bias ? m.vocab : 0);
  // Encoders keep their final norms (when the family has them) in extra_params: BERT has none, T5 one per stack.
  p.final_norm = choices.stack == stack_kind::decoder ? norm_params(m, m.hidden) : 0;
  const bool moe = s.num_experts > 0;
  p.first_moe = s.first_k_dense_replace;
  p.moe_step = s.moe_layer_step;
  // Layers l in [first_moe, L) with (l + 1) % step == 0: floor(L / step) - floor(first_moe / step).
  p.moe_layers = moe ? s.num_hidden_layers / s.moe_layer_step - s.first_k_dense_replace / s.moe_layer_step : 0;
  p.dense_layers = s.num_hidden_layers - p.moe_layers;
  // ALBERT: the layers run num_hidden_groups sets of weights; the parameters (and gradients, optimizer states) are
  // those sets, the activations stay per layer (m.layers).
  if (s.num_hidden_groups > 0 && !moe) p.dense_layers = std::min(s.num_hidden_groups, s.num_hidden_layers);
  p.dense_layer = make_layer(s, m, false);
  if (m.cross_attention()) {
    p.encoder_layer = p.dense_layer;
    p.encoder_layers = s.encoder_layers > 0 ? s.encoder_layers : s.num_hidden_layers;
    p.encoder = static_cast<double>(p.encoder_layers) * p.encoder_layer.total();
    add_cross_attention(m, p.dense_layer);
  }
  if (moe) p.moe_layer = make_layer(s, m, true);
  const auto dense = static_cast<double>(p.dense_layers);
  const auto sparse = static_cast<double>(p.moe_layers);
  p.total = p.embedding + p.lm_head + p.final_norm + dense * p.dense_layer.total() + sparse * p.moe_layer.total();
  p.active = p.total - sparse * p.moe_layer.routed_inactive;
  p.vision = s.vision_params;
  p.mtp = static_cast<double>(s.num_nextn_predict_layers) * mtp_layer(s, m);
  p.extra = s.extra_params;
  p.total += p.vision + p.mtp + p.encoder + p.extra;
  p.active += p.encoder + p.extra;
  return m;
}

}  // namespace llm_memory
