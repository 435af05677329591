// SPDX-License-Identifier: MIT
// The architecture as shapes, and its exact parameter count.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "llm_memory/settings.hpp"

namespace llm_memory {

/// A weight matrix of a layer, as PEFT names it.
enum class projection : std::uint8_t {
  q_proj,
  k_proj,
  v_proj,
  o_proj,
  gate_proj,
  up_proj,
  down_proj,  // the lora_targets a user can name
  q_a_proj,
  q_b_proj,
  kv_a_proj_with_mqa,
  kv_b_proj,     // MLA (adapted by all-linear only)
  in_proj_qkvz,  // Gated DeltaNet: q, k, v and the output gate z
  in_proj_ba,    // Gated DeltaNet: beta and the decay's input a
  in_proj,       // Mamba-2 and LFM2's short convolution: the mixer's input projection
  out_proj,      // Gated DeltaNet, Mamba-2 and short convolution: the mixer's output projection
  x_proj,        // Mamba-1 (Jamba): dt, B and C from the convolution's output
  dt_proj,       // Mamba-1 (Jamba): dt's low-rank expansion to the inner width
  qkv_proj,      // lightning attention (MiniMax-01): q, k and v in one matrix
  output_gate,   // lightning attention (MiniMax-01): the sigmoid gate on the normed output
  f_a_proj,      // KDA (Kimi Linear): the per-channel decay's low-rank input
  f_b_proj,      // KDA: the decay's expansion to every channel
  b_proj,        // KDA: beta per head
  g_a_proj,      // KDA: the output gate's low-rank input
  g_b_proj,      // KDA: the output gate's expansion
  // LatentMoE (Nemotron 3 Super): hidden -> latent before the routed experts, latent -> hidden after them
  fc1_latent_proj,
  fc2_latent_proj,
};

/// PEFT's names, in the order of `projection`.
inline constexpr std::array<std::string_view, 26> projection_names = {
    "q_proj",         "k_proj",       "v_proj",     "o_proj",      "gate_proj",
    "up_proj",        "down_proj",    "q_a_proj",   "q_b_proj",    "kv_a_proj_with_mqa",
    "kv_b_proj",      "in_proj_qkvz", "in_proj_ba", "in_proj",     "out_proj",
    "x_proj",         "dt_proj",      "qkv_proj",   "output_gate", "f_a_proj",
    "f_b_proj",       "b_proj",       "g_a_proj",   "g_b_proj",    "fc1_latent_proj",
    "fc2_latent_proj"};

/// Whether a user can name `p` in lora_targets (MLA's projections are adapted by all-linear only).
[[nodiscard]] constexpr bool nameable(projection p) { return p < projection::q_a_proj || p > projection::kv_b_proj; }

[[nodiscard]] constexpr std::string_view name_of(projection p) { return projection_names[static_cast<std::size_t>(p)]; }

/// A set of projections (the LoRA targets), one bit each.
class lora_target_set {
 public:
  constexpr lora_target_set() = default;
  /// Every linear layer (peft's all-linear).
  [[nodiscard]] static constexpr lora_target_set all_linear() {
    lora_target_set s;
    s.bits_ = (1u << projection_names.size()) - 1;
    s.all_linear_ = true;
    return s;
  }
  constexpr void add(projection p) { bits_ |= 1u << static_cast<unsigned>(p); }
  [[nodiscard]] constexpr bool contains(projection p) const { return (bits_ >> static_cast<unsigned>(p)) & 1u; }
  /// Whether the set is peft's all-linear (which also adapts the MoE router).
  [[nodiscard]] constexpr bool is_all_linear() const { return all_linear_; }

 private:
  unsigned bits_ = 0;
  bool all_linear_ = false;
};

/// One weight matrix of a layer, repeated `copies` times.
struct linear_shape {
  projection name = projection::q_proj;  ///< PEFT module name
  double in_features = 0;                ///< input width
  double out_features = 0;               ///< output width
  double copies = 1;                     ///< e.g. routed experts
  double bias = 0;                       ///< bias parameters per copy (0 or out_features)
  bool routed = false;                   ///< belongs to a routed expert (only top-k are active per token)
};

/// The parameters of one kind of layer (dense or MoE).
struct layer_params {
  std::vector<linear_shape> linears;  ///< every weight matrix
  double attention = 0;               ///< q/k/v/o (or MLA) weights and biases, and q/k norms
  double mlp = 0;                     ///< dense MLP, or routed + shared experts
  double router = 0;                  ///< MoE gate
  double norms = 0;                   ///< per-layer norms
  double routed_inactive = 0;         ///< routed-expert parameters a token does not use
  [[nodiscard]] double total() const { return attention + mlp + router + norms; }
};

/// A layer's token mixer: what it caches and how its attention is shaped. Each kind is one file under
/// core/src/layers/ and one row of its table (docs/architecture.md, "Layer kinds").
enum class layer_kind : std::uint8_t {
  attention,               ///< full causal attention (MHA, GQA, MQA): keys and values of every token
  sliding_attention,       ///< attention over the last sliding_window tokens
  mla,                     ///< multi-head latent attention (DeepSeek): one compressed latent per token
  dsa,                     ///< MLA plus DeepSeek-V3.2's lightning indexer, which caches one key per token of its own
  linear_attention,        ///< Gated DeltaNet (Qwen3-Next, Qwen3.5): a fixed-size recurrent state per sequence
  mamba,                   ///< Mamba-2 SSM (Nemotron-H, Granite 4.0-H): an SSM state and a conv state per sequence
  short_conv,              ///< gated short convolution (LFM2): the last L_cache - 1 inputs per sequence
  attention_mamba,         ///< attention and Mamba-2 side by side on one input (Falcon-H1): both caches
  mamba1,                  ///< Mamba-1 selective scan (Jamba): an SSM state of inner x d_state and a conv state
  lightning,               ///< lightning attention (MiniMax-01): a heads x head_dim x head_dim state per sequence
  kda,                     ///< Kimi Delta Attention (Kimi Linear): a fp32 recurrent state and q/k/v conv states
  shared_attention_mamba,  ///< Zamba2's hybrid layer: a shared attention block's application, then Mamba-2: both caches
  none,                    ///< no token mixer: an MLP-only block (Nemotron-H's "-" and "E")
};

/// A layer's MLP: one dense MLP, or routed experts (with shared experts and a router), or none. Each kind is one
/// file under core/src/layers/ and one row of its table.
enum class mlp_kind : std::uint8_t {
  dense,  ///< one MLP every token passes through (gated: gate/up/down; plain: up/down)
  moe,    ///< num_experts routed MLPs, num_experts_per_tok per token, plus shared experts and the router
  none,   ///< no MLP: a mixer-only block (Nemotron-H's "M" and "*")
};

/// A mixer's name as the layer_types setting spells it ("full_attention", "linear_attention", "mamba"...).
[[nodiscard]] std::string_view name_of(layer_kind k);
/// An MLP kind's name ("dense", "moe", "none").
[[nodiscard]] std::string_view name_of(mlp_kind k);

/// Layers that share one token mixer and one MLP kind, and so one parameter shape.
struct layer_group {
  layer_kind mixer = layer_kind::attention;  ///< their token mixer
  mlp_kind mlp = mlp_kind::dense;            ///< their MLP
  std::int64_t count = 0;                    ///< how many sets of these weights the model holds [layers]
  layer_params params;                       ///< one layer's parameters
};

/// Exact parameter count of the architecture, by component.
struct param_breakdown {
  double embedding = 0;   ///< token (+ learned position) embeddings
  double lm_head = 0;     ///< output projection; 0 when tied to the embedding
  double final_norm = 0;  ///< norm after the last layer
  /// The layers by (mixer, MLP) kind, in the order the first layer of each appears; a model with one mixer has a
  /// dense group (possibly of 0 layers, for the shapes) and, with experts, a MoE group.
  std::vector<layer_group> groups;
  bool experts = false;             ///< the model has routed experts somewhere
  std::int64_t first_moe = 0;       ///< index of the first layer that may be MoE (first_k_dense_replace) [layer]
  std::int64_t moe_step = 1;        ///< from first_moe on, layer l is MoE when (l + 1) % moe_step == 0 [layers]
  double vision = 0;                ///< vision tower + projector of a multimodal model (loaded with the text model)
  layer_params encoder_layer;       ///< one encoder layer of an encoder-decoder (no cross-attention)
  std::int64_t encoder_layers = 0;  ///< layers of an encoder-decoder's encoder stack [layers]
  double encoder = 0;               ///< encoder stack of an encoder-decoder: encoder_layers x encoder_layer
  double extra = 0;                 ///< extra_params: token-type / relative embeddings, pooler, task head, ...
  double mtp = 0;                   ///< multi-token-prediction module the checkpoint stores (not loaded for decoding)
  double total = 0;                 ///< all parameters the checkpoint stores (vision and MTP included)
  double active = 0;                ///< parameters used per token (MoE: shared + top-k experts; no vision, no MTP)
  /// The parameters a runtime or trainer loads: everything but the MTP module [parameters].
  [[nodiscard]] double loaded() const { return total - mtp; }
  /// Layers holding experts [layers].
  [[nodiscard]] std::int64_t moe_layers() const { return layers_with(mlp_kind::moe); }
  /// Layers whose MLP is `k` [layers].
  [[nodiscard]] std::int64_t layers_with(mlp_kind k) const;
  /// Sets of layer weights in all (ALBERT's shared groups count once) [layers].
  [[nodiscard]] std::int64_t layer_sets() const;
  /// Sum over the groups of count x f(one layer's parameters) [parameters, or what f returns per layer].
  template <class F>
  [[nodiscard]] double over_layers(F f) const {
    double sum = 0;
    for (const layer_group& g : groups) sum += static_cast<double>(g.count) * f(g.params);
    return sum;
  }
  /// The group of the first layer whose MLP is `k`, else the first group: the shapes a per-layer rule reads.
  [[nodiscard]] const layer_params& layer_with(mlp_kind k) const;
};

enum class norm_kind : std::uint8_t { layernorm, rmsnorm };
enum class position_kind : std::uint8_t { rope, learned, none };
enum class bias_kind : std::uint8_t { none, qkv, all };
enum class qk_norm_kind : std::uint8_t { none, head, full };
/// The layer stack (the architecture row): what attends to what, and whether a KV cache exists.
enum class stack_kind : std::uint8_t { decoder, encoder, encoder_decoder };

/// The architecture's choice settings, parsed (resolve.hpp).
struct model_choices {
  norm_kind norm = norm_kind::layernorm;         ///< norm
  position_kind position = position_kind::rope;  ///< position_embedding
  bias_kind attention_bias = bias_kind::none;    ///< attention_bias
  qk_norm_kind qk_norm = qk_norm_kind::none;     ///< qk_norm
  bool gated_mlp = false;                        ///< mlp = gated
  stack_kind stack = stack_kind::decoder;        ///< architecture
};

/// Consecutive layers of one kind in the model's repeating unit of layers.
struct layer_run {
  layer_kind kind = layer_kind::attention;  ///< their token mixer
  std::int64_t count = 1;                   ///< how many in a row [layers]
  /// Their MLP when the layer list names it (Nemotron-H); empty: experts where the MoE placement puts them.
  std::optional<mlp_kind> mlp;
};

/// Derived architecture: every default resolved (head_dim, n_kv, intermediate size...).
struct model_spec {
  double hidden = 0;        ///< h
  std::int64_t layers = 0;  ///< L
  double heads = 0;         ///< a (query heads)
  double kv_heads = 0;      ///< key/value heads
  double head_dim = 0;      ///< width of one head
  /// The full-attention layers' key/value heads where they differ from the others' (Gemma 4) [heads].
  double full_kv_heads = 0;
  /// The full-attention layers' head width where it differs from the others' (Gemma 4 global_head_dim) [width].
  double full_head_dim = 0;
  double intermediate = 0;  ///< dense MLP inner width
  double vocab = 0;         ///< V, 0 when unknown
  bool mla = false;         ///< multi-head latent attention (DeepSeek)
  /// The MoE router is an nn.Parameter of its own, not an nn.Linear (DeepSeek, GLM-4.5, gpt-oss: the family's
  /// modeling code): bitsandbytes does not quantise it and peft's all-linear gives it no adapter.
  bool router_parameter = false;
  /// The layers' kinds as a repeating unit: layer l has the kind at position l mod the unit's length (Gemma 3:
  /// five sliding_attention then one attention).
  std::vector<layer_run> layer_pattern = {layer_run{}};
  /// Layers of kind `k` among the first `first_layers` layers [layers].
  [[nodiscard]] double layers_of(layer_kind k, double first_layers) const;
  /// The last layers that reuse an earlier layer's keys and values (Gemma 3n num_kv_shared_layers) [layers].
  double kv_shared_layers = 0;
  /// Layers of kind `k` among the first `first_layers` that keep their own cache (the KV-shared ones do not)
  /// [layers].
  [[nodiscard]] double cached_layers_of(layer_kind k, double first_layers) const;
  /// KV-shared layers among the first `first_layers` [layers].
  [[nodiscard]] double shared_layers_in(double first_layers) const;
  /// The pattern's entry for layer `l` (0-based).
  [[nodiscard]] const layer_run& run_at(std::int64_t l) const;
  /// The MLP of layer `l` (0-based): the layer list's, else experts where the MoE placement puts them.
  [[nodiscard]] mlp_kind mlp_at(std::int64_t l) const;
  /// The index in params.groups of layer `l` (0-based).
  [[nodiscard]] std::size_t group_of(std::int64_t l) const;
  /// Whether the layers mix tokens in more than one way, or some layer lacks a mixer or an MLP.
  [[nodiscard]] bool hybrid() const;
  /// Encoder-decoder: every decoder layer also holds a cross-attention block (q/k/v/o and one more norm).
  [[nodiscard]] bool cross_attention() const { return choices.stack == stack_kind::encoder_decoder; }
  model_choices choices;   ///< norm, position embedding, biases, q/k norm, MLP shape
  param_breakdown params;  ///< exact parameter count
  /// Per entry of params.groups, its layers a quantised checkpoint keeps 16-bit whole (quant_skip_layers) [layers].
  std::vector<std::int64_t> quant_skipped;
};

/// Builds the model from resolved settings. Pure arithmetic: cannot fail once settings are valid.
[[nodiscard]] model_spec make_model(const setting_values& s, const model_choices& choices);

}  // namespace llm_memory
