// SPDX-License-Identifier: MIT
// Exact parameter counting from the architecture. Formulas per family: docs/models.md.
#include "llm_memory/model.hpp"

#include <algorithm>
#include <cmath>

#include "families/families.hpp"
#include "layers/layer_kinds.hpp"
#include "text.hpp"

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

void check_quant_skip_layers(const setting_values& v, std::vector<error>& errors) {
  if (!parse_index_list(v.quant_skip_layers, v.num_hidden_layers - 1))
    errors.push_back({"quant_skip_layers", "must list layer indices from 0 to num_hidden_layers - 1 (" +
                                               std::to_string(v.num_hidden_layers - 1) + "), comma-separated, got " +
                                               quoted(v.quant_skip_layers)});
}

}  // namespace detail

namespace {

using detail::add_linear;
using detail::linear_params;
using detail::norm_params;

layer_params make_layer(const setting_values& s, const model_spec& m, layer_kind mixer, mlp_kind mlp) {
  layer_params layer;
  // The token mixer of the layer's kind (layers/): its matrices, and its other parameters (norms, sinks, A_log...).
  const double extra = detail::layer_def(mixer).add_params(s, m, layer);
  layer.attention = linear_params(layer, false) + extra;
  // The MLP of the layer's kind (layers/dense_mlp.cpp, layers/moe_mlp.cpp): its matrices, and a MoE's router.
  detail::mlp_def(mlp).add_params(s, m, layer);
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

// The decoder layer of a multi-token-prediction module: full attention (MLA, or DSA, in an MLA model), even in a
// hybrid model, with the MLP its MoE layers have (its dense layers' when it has no experts).
layer_params mtp_decoder_layer(const setting_values& s, const model_spec& m) {
  const layer_kind mixer = !m.mla ? layer_kind::attention : s.index_n_heads > 0 ? layer_kind::dsa : layer_kind::mla;
  return make_layer(s, m, mixer, s.num_experts > 0 ? mlp_kind::moe : mlp_kind::dense);
}

// One multi-token-prediction module as the checkpoint stores it. DeepSeek-V3 (model.layers.61.*; technical report
// section 2.2, modeling_deepseek.py's layer names): one more decoder layer (MoE when the model has experts, as layer
// L is past first_k_dense_replace), enorm and hnorm (RMSNorm h each), eh_proj (2h -> h, no bias), its own
// embed_tokens (V x h), shared_head.norm (h) and shared_head.head (V x h). Qwen3-Next / Qwen3.5 (mtp_own_embedding
// off; vLLM model_executor/models/qwen3_next_mtp.py @055e47c2): a full-attention layer with the model's FFN,
// pre_fc_norm_embedding, pre_fc_norm_hidden and norm (h each), fc (2h -> h), the model's embedding and head.
// Nemotron 3 (vLLM model_executor/models/nemotron_h_mtp.py @01ca2773, mtp_hybrid_override_pattern "*E"): a model
// of mixer-only and MLP-only blocks keeps that split, an attention block and a MoE block with a norm each, enorm,
// hnorm and eh_proj on the first and final_layernorm on the last, the model's embedding and head.
double mtp_layer(const setting_values& s, const model_spec& m) {
  const double h = m.hidden;
  const bool split = std::any_of(m.layer_pattern.begin(), m.layer_pattern.end(), [](const layer_run& run) {
    return run.kind == layer_kind::none || run.mlp == mlp_kind::none;
  });
  const double layer =
      mtp_decoder_layer(s, m).total() + (split ? static_cast<double>(s.norms_per_layer) : 0) * norm_params(m, h);
  return layer + 3 * norm_params(m, h) + 2 * h * h + (s.mtp_own_embedding ? 2 * m.vocab * h : 0);
}

// The repeating unit of the layers' kinds: the layer list when config.json declares one (layer_types, with full
// attention as MLA in an MLA model); else MLA throughout; sliding_window with sliding_window_pattern N: N - 1
// sliding layers then one full (Gemma 2/3, gpt-oss, Cohere 2), every layer sliding when N is 0 (Mistral).
std::vector<layer_run> layer_pattern_of(const setting_values& s, bool mla) {
  if (!s.layer_types.empty()) {
    auto runs = detail::parse_layer_types(s.layer_types);
    if (runs.ok() && !runs.value().empty()) {
      for (layer_run& run : runs.value())
        if (mla && run.kind == layer_kind::attention)
          run.kind = s.index_n_heads > 0 ? layer_kind::dsa : layer_kind::mla;
      return std::move(runs.value());
    }
  }
  const auto run = [](layer_kind kind, std::int64_t count) { return layer_run{kind, count, std::nullopt}; };
  if (mla) return {run(s.index_n_heads > 0 ? layer_kind::dsa : layer_kind::mla, 1)};  // DSA: MLA with an indexer
  if (s.sliding_window == 0 || s.sliding_window_pattern == 1) return {run(layer_kind::attention, 1)};
  if (s.sliding_window_pattern == 0) return {run(layer_kind::sliding_attention, 1)};
  return {run(layer_kind::sliding_attention, s.sliding_window_pattern - 1), run(layer_kind::attention, 1)};
}

// The mixer whose shapes a layer of kind `k` has: sliding layers are full attention's, one group with them.
layer_kind shapes_of(layer_kind k) { return k == layer_kind::sliding_attention ? layer_kind::attention : k; }

// Layer l's MLP, `run` being the layer-pattern run that holds it (model_spec::run_at).
mlp_kind mlp_in(const layer_run& run, const param_breakdown& p, std::int64_t l) {
  if (run.mlp) return *run.mlp;
  return p.experts && l >= p.first_moe && (l + 1) % p.moe_step == 0 ? mlp_kind::moe : mlp_kind::dense;
}

// The layers grouped by (mixer, MLP) in the order each first appears, the first mixer's dense group always present
// (a per-layer rule reads its shapes even in an all-MoE model); ALBERT's shared layers count their weight sets.
void group_layers(const setting_values& s, model_spec& m) {
  auto& groups = m.params.groups;
  groups.push_back({shapes_of(m.layer_pattern.front().kind), mlp_kind::dense, 0, {}});
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const layer_run& run = m.run_at(l);  // found once, not again through mlp_at
    const layer_kind mixer = shapes_of(run.kind);
    const mlp_kind mlp = mlp_in(run, m.params, l);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const layer_group& g) { return g.mixer == mixer && g.mlp == mlp; });
    if (it == groups.end()) it = groups.insert(groups.end(), {mixer, mlp, 0, {}});
    ++it->count;
  }
  if (s.num_hidden_groups > 0 && !m.params.experts) groups.front().count = std::min(s.num_hidden_groups, m.layers);
  for (layer_group& g : groups) g.params = make_layer(s, m, g.mixer, g.mlp);
}

}  // namespace

std::int64_t param_breakdown::layers_with(mlp_kind k) const {
  std::int64_t n = 0;
  for (const layer_group& g : groups)
    if (g.mlp == k) n += g.count;
  return n;
}

std::int64_t param_breakdown::layer_sets() const {
  std::int64_t n = 0;
  for (const layer_group& g : groups) n += g.count;
  return n;
}

const layer_params& param_breakdown::layer_with(mlp_kind k) const {
  for (const layer_group& g : groups)
    if (g.mlp == k) return g.params;
  return groups.front().params;
}

const layer_run& model_spec::run_at(std::int64_t l) const {
  std::int64_t unit = 0;
  for (const layer_run& run : layer_pattern) unit += run.count;
  std::int64_t at = l % unit;
  for (const layer_run& run : layer_pattern) {
    if (at < run.count) return run;
    at -= run.count;
  }
  return layer_pattern.back();
}

mlp_kind model_spec::mlp_at(std::int64_t l) const { return mlp_in(run_at(l), params, l); }

// Read per layer by the GGUF walks (every estimate on llama.cpp): the layer's run found once.
std::size_t model_spec::group_of(std::int64_t l) const {
  const layer_run& run = run_at(l);
  const layer_kind mixer = shapes_of(run.kind);
  const mlp_kind mlp = mlp_in(run, params, l);
  for (std::size_t i = 0; i < params.groups.size(); ++i)
    if (params.groups[i].mixer == mixer && params.groups[i].mlp == mlp) return i;
  return 0;
}

bool model_spec::hybrid() const {
  for (const layer_group& g : params.groups)
    if (g.count > 0 &&
        (g.mixer != params.groups.front().mixer || g.mixer == layer_kind::none || g.mlp == mlp_kind::none))
      return true;
  return false;
}

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

// The shared layers are the model's last (modeling_gemma3n.py: layer_idx >= num_hidden_layers -
// num_kv_shared_layers), so the first layers hold them only past that point.
double model_spec::shared_layers_in(double first_layers) const {
  return std::max(0.0, first_layers - (static_cast<double>(layers) - kv_shared_layers));
}

double model_spec::cached_layers_of(layer_kind k, double first_layers) const {
  return layers_of(k, first_layers - shared_layers_in(first_layers));
}

model_spec make_model(const setting_values& s, const model_choices& choices) {
  model_spec m;
  m.choices = choices;
  m.hidden = static_cast<double>(s.hidden_size);
  m.layers = s.num_hidden_layers;
  m.heads = static_cast<double>(s.num_attention_heads);
  m.kv_heads = static_cast<double>(s.num_key_value_heads > 0 ? s.num_key_value_heads : s.num_attention_heads);
  m.head_dim = s.head_dim > 0 ? static_cast<double>(s.head_dim) : m.hidden / m.heads;
  m.full_kv_heads = s.num_global_key_value_heads > 0 ? static_cast<double>(s.num_global_key_value_heads) : m.kv_heads;
  m.full_head_dim = s.global_head_dim > 0 ? static_cast<double>(s.global_head_dim) : m.head_dim;
  m.intermediate = s.intermediate_size > 0 ? static_cast<double>(s.intermediate_size) : 4 * m.hidden;
  m.vocab = static_cast<double>(s.vocab_size);
  m.mla = s.kv_lora_rank > 0;
  const detail::family* fam = detail::find_family(s.model_type);
  m.router_parameter = fam != nullptr && fam->router_parameter;
  m.layer_pattern = layer_pattern_of(s, m.mla);
  m.kv_shared_layers = static_cast<double>(std::min(s.num_kv_shared_layers, s.num_hidden_layers));

  param_breakdown& p = m.params;
  // A factorised embedding (ALBERT, ELECTRA-small): tables of width E, then a biased Linear E -> h.
  const double e = s.embedding_size > 0 ? static_cast<double>(s.embedding_size) : m.hidden;
  p.embedding =
      m.vocab * e + (s.embedding_norm ? norm_params(m, e) : 0) + (e != m.hidden ? e * m.hidden + m.hidden : 0);
  if (choices.position == position_kind::learned) p.embedding += static_cast<double>(s.max_position_embeddings) * e;
  p.lm_head = (s.tie_word_embeddings ? 0 : m.vocab * e) + (s.lm_head_bias ? m.vocab : 0);
  // Encoders keep their final norms (when the family has them) in extra_params: BERT has none, T5 one per stack.
  p.final_norm = choices.stack == stack_kind::decoder ? norm_params(m, m.hidden) : 0;
  p.experts = s.num_experts > 0;
  p.first_moe = s.first_k_dense_replace;
  p.moe_step = s.moe_layer_step;
  group_layers(s, m);
  // The layers a quantised checkpoint keeps 16-bit, counted per group (checked: detail::check_quant_skip_layers).
  m.quant_skipped.assign(p.groups.size(), 0);
  const auto skipped = detail::parse_index_list(s.quant_skip_layers, m.layers - 1);
  for (const std::int64_t l : skipped.value_or(std::vector<std::int64_t>{})) ++m.quant_skipped[m.group_of(l)];
  if (m.cross_attention()) {
    layer_params& decoder = p.groups.front().params;
    p.encoder_layer = decoder;
    p.encoder_layers = s.encoder_layers > 0 ? s.encoder_layers : s.num_hidden_layers;
    p.encoder = static_cast<double>(p.encoder_layers) * p.encoder_layer.total();
    add_cross_attention(m, decoder);
  }
  const double layers = p.over_layers([](const layer_params& l) { return l.total(); });
  p.total = p.embedding + p.lm_head + p.final_norm + layers;
  p.active = p.total - p.over_layers([](const layer_params& l) { return l.routed_inactive; });
  p.vision = s.vision_params;
  p.mtp = static_cast<double>(s.num_nextn_predict_layers) * mtp_layer(s, m);
  p.extra = s.extra_params;
  p.total += p.vision + p.mtp + p.encoder + p.extra;
  p.active += p.encoder + p.extra;
  return m;
}

}  // namespace llm_memory
