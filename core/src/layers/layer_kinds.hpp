// SPDX-License-Identifier: MIT
// Layer kinds: what each kind of token mixer (layer_kind, model.hpp) contributes to the parameter count, the saved
// activations and the KV cache. One file per kind under layers/, every kind in one table (table.cpp), in the order
// of the enum. Private to the core.
#pragma once

#include <array>
#include <string_view>

#include "estimate/stage.hpp"
#include "llm_memory/model.hpp"

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
  /// Adds the KV cache item of `layers` layers of this kind on this device (inference).
  void (*kv_cache)(const context& c, double layers, builder& out) = nullptr;
};

/// Each kind, defined in its own file.
extern const layer_kind_def attention_layer;
extern const layer_kind_def sliding_attention_layer;
extern const layer_kind_def mla_layer;

/// The table of kinds, in the order of layer_kind (table.cpp).
[[nodiscard]] const std::array<const layer_kind_def*, 3>& layer_kinds();

/// The definition of kind `k`.
[[nodiscard]] inline const layer_kind_def& layer_def(layer_kind k) {
  return *layer_kinds()[static_cast<std::size_t>(k)];
}

/// Parameters of one norm of `width` (LayerNorm: weight and bias; RMSNorm: weight) [parameters] (model.cpp).
[[nodiscard]] double norm_params(const model_spec& m, double width);

/// Appends one weight matrix (and its bias) to `layer` (model.cpp).
void add_linear(layer_params& layer, projection name, double in, double out, double copies, bool bias,
                bool routed = false);

/// The key/value cache of standard attention, shared by attention and sliding_attention: bytes per token and
/// layer on this device (2 x n_kv / tp x head_dim x the KV dtype) (layers/attention.cpp).
[[nodiscard]] double attention_kv_bytes_per_token(const context& c);

}  // namespace llm_memory::detail
