// SPDX-License-Identifier: MIT
// The one table of layer kinds, in the order of layer_kind (model.hpp). Adding a kind: its enum value, its file,
// its row here (docs/architecture.md, "Add a layer kind").
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {

const std::array<const layer_kind_def*, 3>& layer_kinds() {
  static const std::array<const layer_kind_def*, 3> table = {&attention_layer, &sliding_attention_layer, &mla_layer};
  return table;
}

}  // namespace llm_memory::detail
