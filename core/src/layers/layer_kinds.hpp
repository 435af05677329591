// SPDX-License-Identifier: MIT
// Layer kinds: what each kind of token mixer (layer_kind, model.hpp) contributes to the parameter count, the saved
// activations and the KV cache. One file per kind under layers/, every kind in one table (table.cpp), in the order
// of the enum. Private to the core.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "estimate/stage.hpp"
#include "llm_memory/model.hpp"
#include "llm_memory/result.hpp"

namespace llm_memory::detail {

/// The widths one layer's attention keeps for backward (estimate/activations.cpp, attention_saved).
struct attention_widths {
  double q = 0;       ///< queries [values per token]
  double k = 0;       ///< keys as the kernel reads them [values per token]
  double v = 0;       ///< values as the kernel reads them [values per token]
  double o = 0;       ///< the output projection's input [values per token]
  double latent = 0;  ///< low-rank inputs kept besides (MLA's q and kv latents) [values per token]
};

/// One kind of token mixer: everything the core computes differently for it.
struct layer_kind_def {
  layer_kind kind = layer_kind::attention;  ///< which kind (the table's index)
  std::string_view name;                    ///< as config.json's layer_types spells it
  /// Adds the mixer's weight matrices to `layer`; returns its other parameters (q/k norms, sinks) [parameters].
  double (*add_params)(const setting_values& s, const model_spec& m, layer_params& layer) = nullptr;
  /// The widths one layer of this kind keeps for backward under the run's attention kernel.
  attention_widths (*saved_widths)(const context& c) = nullptr;
  /// Adds the KV cache item of `layers` layers of this kind on this device (inference); a recurrent kind adds its
  /// state per sequence instead.
  void (*kv_cache)(const context& c, double layers, builder& out) = nullptr;
  /// What one layer keeps for backward when the kind is not attention (nullptr: attention's rule over
  /// saved_widths, estimate/activations.cpp).
  void (*saved)(const context& c, const layer_params& layer, layer_activations& out) = nullptr;
  /// The state one layer keeps per sequence whatever the context, on this device (0 for caching kinds) [bytes].
  double (*state_bytes)(const context& c) = nullptr;
  /// A recurrent kind that also caches every token's keys and values (Falcon-H1's parallel attention and Mamba):
  /// the runtimes count it among the attention layers too.
  bool attends = false;
  /// Why llama.cpp (and Ollama) cannot load a model with this kind: no architecture of theirs has it ("" when one
  /// does; runtimes/llamacpp.cpp refuses the run with this text).
  std::string_view llamacpp_refusal = {};
};

/// Each kind, defined in its own file.
extern const layer_kind_def attention_layer;
extern const layer_kind_def sliding_attention_layer;
extern const layer_kind_def mla_layer;
extern const layer_kind_def dsa_layer;
extern const layer_kind_def linear_attention_layer;
extern const layer_kind_def mamba_layer;
extern const layer_kind_def short_conv_layer;
extern const layer_kind_def attention_mamba_layer;
extern const layer_kind_def mamba1_layer;
extern const layer_kind_def lightning_attention_layer;
extern const layer_kind_def kda_layer;
extern const layer_kind_def shared_attention_mamba_layer;
extern const layer_kind_def no_mixer;

/// The table of kinds, in the order of layer_kind (table.cpp).
[[nodiscard]] const std::array<const layer_kind_def*, 13>& layer_kinds();

/// config.json's layer list as runs of kinds (the layer_types setting: "full_attention,3*linear_attention",
/// "mamba+none,mlp"); the error names the entry. Empty text gives no runs (table.cpp).
[[nodiscard]] result<std::vector<layer_run>> parse_layer_types(std::string_view text);

/// quant_skip_layers: whole numbers from 0 to num_hidden_layers - 1, comma-separated (model.cpp).
void check_quant_skip_layers(const setting_values& v, std::vector<error>& errors);

/// The recurrent state of every layer of the model per sequence on this device, summed over the kinds [bytes].
[[nodiscard]] double state_bytes_per_sequence(const context& c, double layers);

/// The definition of kind `k`.
[[nodiscard]] inline const layer_kind_def& layer_def(layer_kind k) {
  return *layer_kinds()[static_cast<std::size_t>(k)];
}

/// One kind of MLP: its matrices and what it saves for backward.
struct mlp_kind_def {
  mlp_kind kind = mlp_kind::dense;  ///< which kind (the table's index)
  std::string_view name;            ///< its name in the docs ("dense", "moe")
  /// Adds the MLP's matrices (and a MoE's router and inactive experts' count) to `layer`.
  void (*add_params)(const setting_values& s, const model_spec& m, layer_params& layer) = nullptr;
  /// Adds what one layer's MLP keeps for backward to `out`.
  void (*saved)(const context& c, const layer_params& layer, layer_activations& out) = nullptr;
};

/// Each MLP kind, defined in its own file.
extern const mlp_kind_def dense_mlp;
extern const mlp_kind_def moe_mlp;
extern const mlp_kind_def no_mlp;

/// The table of MLP kinds, in the order of mlp_kind (table.cpp).
[[nodiscard]] const std::array<const mlp_kind_def*, 3>& mlp_kinds();

/// The definition of MLP kind `k`.
[[nodiscard]] inline const mlp_kind_def& mlp_def(mlp_kind k) { return *mlp_kinds()[static_cast<std::size_t>(k)]; }

/// What one MLP of inner width `inner` keeps for `tokens` tokens: its input where gate/up keep it, and per inner
/// value what the activation (gated: gate, act(gate), up; plain: its input) and down_proj keep (dense_mlp.cpp).
struct mlp_saving {
  double input = 0;      ///< the MLP input's saved copies [bytes per token]
  double per_inner = 0;  ///< kept per unit of inner width [bytes per token and inner value]
  /// The bytes for `tokens` tokens through an MLP `inner` wide [bytes].
  [[nodiscard]] double bytes(double tokens, double inner) const { return tokens * (input + per_inner * inner); }
};

/// The saving rule of `layer`'s MLPs under this run's training (dense_mlp.cpp).
[[nodiscard]] mlp_saving mlp_saving_of(const context& c, const layer_params& layer);

/// Parameters of one norm of `width` (LayerNorm: weight and bias; RMSNorm: weight) [parameters] (model.cpp).
[[nodiscard]] double norm_params(const model_spec& m, double width);

/// Appends one weight matrix (and its bias) to `layer` (model.cpp).
void add_linear(layer_params& layer, projection name, double in, double out, double copies, bool bias,
                bool routed = false);

/// Parameters of the linears of `layer` (weights and biases, times their copies), the routed ones only if asked
/// [parameters] (model.cpp).
[[nodiscard]] double linear_params(const layer_params& layer, bool routed_only);

/// Appends one MLP (gate/up/down, or up/down) of `copies` copies, h -> inner -> h, to `layer` (model.cpp).
void add_mlp(const setting_values& s, const model_spec& m, layer_params& layer, double h, double inner, double copies,
             bool routed);

/// What one attention layer of `kind` keeps for backward: the q/k/v input, q, k, v, the projection input, the
/// scores (estimate/activations.cpp).
void attention_saved(const context& c, const layer_kind_def& kind, const layer_params& layer, layer_activations& out);

/// Mamba-2's mixer parameters (layers/mamba.cpp): in_proj and out_proj into `layer`; returns the conv1d, dt_bias,
/// A_log, D and, when mamba_norm, the gated norm [parameters].
double add_mamba_params(const setting_values& s, const model_spec& m, layer_params& layer);

/// What Mamba-2's fused training kernel keeps for backward besides in_proj's input (layers/mamba.cpp) [bytes].
[[nodiscard]] double mamba_scan_saved(const context& c);

/// The key/value cache of the model's standard heads (sliding_attention, Falcon-H1's attention): bytes per token and
/// layer on this device (2 x n_kv / tp x head_dim x the KV dtype) (layers/attention.cpp).
[[nodiscard]] double attention_kv_bytes_per_token(const context& c);

/// The same for the full-attention layers' heads (n_kv and head_dim of the full layers: Gemma 4's
/// num_global_key_value_heads and global_head_dim where given) (layers/attention.cpp) [bytes].
[[nodiscard]] double full_attention_kv_bytes_per_token(const context& c);

}  // namespace llm_memory::detail
