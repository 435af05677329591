// SPDX-License-Identifier: MIT
// The architecture as shapes, and its exact parameter count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm_memory/settings.hpp"

namespace llm_memory {

/// One weight matrix of a layer, as PEFT names it (q_proj, ..., down_proj), repeated `copies` times.
struct linear_shape {
  std::string name;         ///< PEFT module name
  double in_features = 0;   ///< input width
  double out_features = 0;  ///< output width
  double copies = 1;        ///< e.g. routed experts
  double bias = 0;          ///< bias parameters per copy (0 or out_features)
  bool routed = false;      ///< belongs to a routed expert (only top-k are active per token)
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

/// Exact parameter count of the architecture, by component.
struct param_breakdown {
  double embedding = 0;        ///< token (+ learned position) embeddings
  double lm_head = 0;          ///< output projection; 0 when tied to the embedding
  double final_norm = 0;       ///< norm after the last layer
  layer_params dense_layer;    ///< one dense layer
  layer_params moe_layer;      ///< one MoE layer (empty for dense models)
  std::int64_t dense_layers = 0;  ///< number of dense layers
  std::int64_t moe_layers = 0;    ///< number of MoE layers
  double total = 0;            ///< all parameters
  double active = 0;           ///< parameters used per token (MoE: shared + top-k experts)
};

/// Derived architecture: every default resolved (head_dim, n_kv, intermediate size...).
struct model_spec {
  double hidden = 0;          ///< h
  std::int64_t layers = 0;    ///< L
  double heads = 0;           ///< a (query heads)
  double kv_heads = 0;        ///< key/value heads
  double head_dim = 0;        ///< width of one head
  double intermediate = 0;    ///< dense MLP inner width
  double vocab = 0;           ///< V, 0 when unknown
  bool gated_mlp = false;     ///< SwiGLU-style 3-matrix MLP
  bool mla = false;           ///< multi-head latent attention (DeepSeek)
  param_breakdown params;     ///< exact parameter count
};

/// Builds the model from resolved settings. Pure arithmetic: cannot fail once settings are valid.
[[nodiscard]] model_spec make_model(const setting_values& s);

}  // namespace llm_memory
