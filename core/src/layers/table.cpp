// SPDX-License-Identifier: MIT
// The tables of layer kinds, in the order of layer_kind and mlp_kind (model.hpp). Adding a kind: its enum value, its
// file, its row here (docs/architecture.md, "Add a layer kind").
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {

const std::array<const layer_kind_def*, 4>& layer_kinds() {
  static const std::array<const layer_kind_def*, 4> table = {&attention_layer, &sliding_attention_layer, &mla_layer,
                                                             &dsa_layer};
  return table;
}

const std::array<const mlp_kind_def*, 2>& mlp_kinds() {
  static const std::array<const mlp_kind_def*, 2> table = {&dense_mlp, &moe_mlp};
  return table;
}

}  // namespace llm_memory::detail
