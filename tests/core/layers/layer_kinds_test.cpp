// SPDX-License-Identifier: MIT
// Layer kinds (core/src/layers/): the model's repeating unit of kinds, the layers of each kind a stage holds, and
// each kind's KV cache item, derived by hand.
#include "layers/layer_kinds.hpp"

#include <gtest/gtest.h>

#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

run_spec spec_of(const settings& s) {
  auto r = resolve(s);
  EXPECT_TRUE(r.ok());
  return r.ok() ? r.value() : run_spec{};
}

// The table lists every kind once, in the enum's order, so layer_def(k) is k's own definition.
TEST(layer_kinds, table_is_in_enum_order) {
  const auto& table = detail::layer_kinds();
  for (std::size_t i = 0; i < table.size(); ++i) EXPECT_EQ(static_cast<std::size_t>(table[i]->kind), i);
  EXPECT_EQ(detail::layer_def(layer_kind::mla).name, "mla");
}

// The MLP kinds' table likewise: mlp_def(k) is k's own definition.
TEST(layer_kinds, mlp_table_is_in_enum_order) {
  const auto& table = detail::mlp_kinds();
  for (std::size_t i = 0; i < table.size(); ++i) EXPECT_EQ(static_cast<std::size_t>(table[i]->kind), i);
  EXPECT_EQ(detail::mlp_def(mlp_kind::moe).name, "moe");
}

// A MoE layer by hand (moe_mlp.cpp): 8 gated experts of inner 512 over h 256 = 8 x 3 x 256 x 512 = 3,145,728
// routed experts (the layer's `mlp`), a router of 8 x 256 = 2,048 (counted apart); 2 of 8 experts per token leave
// 6 x 393,216 = 2,359,296 inactive.
TEST(layer_kinds, moe_mlp_params) {
  const model_spec m = spec_of(settings({{"hidden_size", "256"},
                                         {"num_attention_heads", "4"},
                                         {"num_hidden_layers", "2"},
                                         {"mlp", "gated"},
                                         {"num_experts", "8"},
                                         {"num_experts_per_tok", "2"},
                                         {"moe_intermediate_size", "512"}}))
                           .model;
  EXPECT_EQ(m.params.layer_with(mlp_kind::moe).router, 2048);
  EXPECT_EQ(m.params.layer_with(mlp_kind::moe).routed_inactive, 2359296);
  EXPECT_EQ(m.params.layer_with(mlp_kind::moe).mlp, 3145728);
}

// Gemma 3's rule (every 6th layer global, the rest sliding): of 62 layers, floor(62 / 6) = 10 full and 52 sliding;
// a stage of the first 31 layers holds floor(31 / 6) = 5 full and 26 sliding.
TEST(layer_kinds, sliding_pattern_counts) {
  const model_spec m =
      spec_of(settings({{"num_hidden_layers", "62"}, {"sliding_window", "1024"}, {"sliding_window_pattern", "6"}}))
          .model;
  ASSERT_EQ(m.layer_pattern.size(), 2u);
  EXPECT_EQ(m.layers_of(layer_kind::attention, 62), 10);
  EXPECT_EQ(m.layers_of(layer_kind::sliding_attention, 62), 52);
  EXPECT_EQ(m.layers_of(layer_kind::attention, 31), 5);
  EXPECT_EQ(m.layers_of(layer_kind::sliding_attention, 31), 26);
  EXPECT_EQ(m.layers_of(layer_kind::mla, 62), 0);
  // Fewer layers than the unit: 5 layers are all sliding, the unit's full layer comes sixth.
  EXPECT_EQ(m.layers_of(layer_kind::attention, 5), 0);
  EXPECT_EQ(m.layers_of(layer_kind::sliding_attention, 5), 5);
}

// Mistral 7B v0.1: every layer slides (pattern 0); no window: every layer full; kv_lora_rank: every layer MLA.
TEST(layer_kinds, uniform_patterns) {
  const model_spec mistral = spec_of(settings({{"sliding_window", "4096"}})).model;
  EXPECT_EQ(mistral.layers_of(layer_kind::sliding_attention, 32), 32);
  EXPECT_EQ(mistral.layers_of(layer_kind::attention, 32), 0);
  const model_spec llama = spec_of(settings({})).model;
  EXPECT_EQ(llama.layers_of(layer_kind::attention, 32), 32);
  const model_spec deepseek = spec_of(settings({{"model", "deepseek-v3"}})).model;
  EXPECT_EQ(deepseek.layers_of(layer_kind::mla, 61), 61);
  EXPECT_EQ(deepseek.layers_of(layer_kind::attention, 61), 0);
}

// The KV cache of a sliding pattern, bf16, batch 1, seq 8192, window 1024, 8 KV heads of 128, 12 layers with every
// 4th full: 3 full layers x 2 x 8 x 128 x 2 B x 8192 tokens = 100,663,296 B; 9 sliding layers x 4,096 B x 1024
// tokens = 37,748,736 B.
TEST(layer_kinds, kv_cache_items_by_kind) {
  const auto r = estimate(settings({{"mode", "inference"},
                                    {"runtime", "transformers"},
                                    {"num_hidden_layers", "12"},
                                    {"hidden_size", "4096"},
                                    {"num_attention_heads", "32"},
                                    {"num_key_value_heads", "8"},
                                    {"vocab_size", "32000"},
                                    {"seq", "8192"},
                                    {"sliding_window", "1024"},
                                    {"sliding_window_pattern", "4"}}));
  ASSERT_TRUE(r.ok());
  const bucket& kv = r.value().buckets[4];
  ASSERT_EQ(kv.items.size(), 2u);
  EXPECT_EQ(kv.items[0].name, "full-attention layers");
  EXPECT_EQ(kv.items[0].bytes, 100663296);
  EXPECT_EQ(kv.items[1].name, "sliding-window layers");
  EXPECT_EQ(kv.items[1].bytes, 37748736);
}

}  // namespace
