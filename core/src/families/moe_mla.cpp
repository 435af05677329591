// SPDX-License-Identifier: MIT
// The decoders' mixture-of-experts fields and DeepSeek's multi-head latent attention (MLA) and multi-token prediction
// fields, under every family's names for them (docs/models.md).
#include <string>

#include "families/families.hpp"

namespace llm_memory::detail {

void read_moe(reader& r) {
  r.integer({"num_local_experts", "num_experts", "n_routed_experts"}, "num_experts");
  r.integer({"num_experts_per_tok", "experts_per_token"}, "num_experts_per_tok");
  r.integer({"moe_intermediate_size"}, "moe_intermediate_size");
  r.integer({"n_shared_experts"}, "n_shared_experts");
  r.integer({"shared_expert_intermediate_size", "shared_intermediate_size"}, "shared_expert_intermediate_size");
  r.integer({"first_k_dense_replace"}, "first_k_dense_replace");
  r.integer({"interleave_moe_layer_step", "decoder_sparse_step"}, "moe_layer_step");
}

void read_mla(reader& r) {
  r.integer({"q_lora_rank"}, "q_lora_rank");
  r.integer({"kv_lora_rank"}, "kv_lora_rank");
  r.integer({"qk_nope_head_dim"}, "qk_nope_head_dim");
  r.integer({"qk_rope_head_dim"}, "qk_rope_head_dim");
  r.integer({"v_head_dim"}, "v_head_dim");
  r.integer({"num_nextn_predict_layers"}, "num_nextn_predict_layers");
  // DeepSeek-V3.2's lightning indexer (configuration of deepseek_v32; index_topk changes no size).
  r.integer({"index_n_heads"}, "index_n_heads");
  r.integer({"index_head_dim"}, "index_head_dim");
}

// DeepSeek places MoE layers by l % moe_layer_freq == 0, which agrees with moe_layer_step only at 1.
void check_moe_placement(reader& r) {
  if (const json* freq = r.find({"moe_layer_freq"}); freq != nullptr && *freq != 1)
    r.fail("moe_layer_step", "config.json moe_layer_freq other than 1 is not modelled, got " + freq->dump());
}

// A list field that must be empty (or absent) for the count to hold.
void require_empty(reader& r, const char* name, std::string_view setting) {
  const json* v = r.find({name});
  if (v != nullptr && !(v->is_array() && v->empty()))
    r.fail(setting, std::string("config.json field \"") + name + "\" is not modelled; only an empty list is");
}

}  // namespace llm_memory::detail
