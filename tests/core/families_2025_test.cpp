// SPDX-License-Identifier: MIT
// Issue 32, item 2 for the families without a recurrent layer: OLMo 3, MiniMax-M2, DeepSeek-V3.2 (DSA: MLA plus the
// lightning indexer and its key cache) and Kimi K2 (DeepSeek-V3's code). Every number is summed by hand from the
// modeling code (docs/models.md).
#include <gtest/gtest.h>

#include "run_support.hpp"

#include <string>

#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::estimated;
using test::item;
using test::resolved;

// OLMo 3 7B (modular_olmo3.py: OLMo 2's layers): q/k/v/o 4 x 4,096^2 = 67,108,864; q_norm and k_norm over all
// heads 2 x 4,096; SwiGLU 3 x 4,096 x 11,008 = 135,266,304; post-attention and post-MLP norms 2 x 4,096: 202,391,552
// per layer, x 32 = 6,476,529,664; embedding and lm_head 2 x 100,278 x 4,096 = 821,477,376; final norm 4,096:
// 7,298,011,136, the Hub's total. Three sliding layers to one full: 8 of the 32 keep every token.
TEST(families_2025, olmo3_by_hand) {
  const run_spec r = resolved({{"model", "olmo-3-1025-7b"}});
  EXPECT_EQ(r.model.params.total, 7298011136.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 32), 8);
  EXPECT_EQ(r.model.layers_of(layer_kind::sliding_attention, 32), 24);
  // A config without layer_types gets Olmo3Config's default: every fourth layer full.
  auto config = parse_config(R"({"model_type": "olmo3", "hidden_size": 64, "num_hidden_layers": 8,
      "num_attention_heads": 4, "vocab_size": 100, "sliding_window": 16})");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config.value().at("sliding_window_pattern"), "4");
  EXPECT_EQ(config.value().at("qk_norm"), "full");
}

// MiniMax-M2 (modular_minimax_m2.py): q 3,072 x 6,144 and o 6,144 x 3,072 = 37,748,736; k, v 2 x 3,072 x 1,024 =
// 6,291,456; q_norm 6,144 + k_norm 1,024; 256 experts x 3 x 3,072 x 1,536 = 3,623,878,656; router 256 x 3,072 +
// e_score_correction_bias 256 = 786,688; two norms 6,144: 3,668,718,848 per layer, x 62 = 227,460,568,576;
// embedding and lm_head 2 x 200,064 x 3,072 = 1,229,193,216; final norm 3,072: 228,689,764,864.
TEST(families_2025, minimax_m2_by_hand) {
  const run_spec r = resolved({{"model", "minimax-m2"}});
  EXPECT_EQ(r.model.params.total, 228689764864.0);
  EXPECT_EQ(r.model.params.moe_layers(), 62);
}

// DeepSeek-V3.2's indexer per layer (inference/model.py Indexer): wq_b 1,536 x (64 x 128) = 12,582,912, wk 7,168 x
// 128 = 917,504, k_norm (LayerNorm weight and bias) 256, weights_proj 7,168 x 64 = 458,752: 13,959,424. DeepSeek-V3's
// 671,026,419,200 + 61 x 13,959,424 = 671,877,944,064 loaded; the MTP layer (a MoE layer with its indexer, enorm,
// hnorm, eh_proj, a norm and its own embedding and head) adds 13,463,426,304 + 13,959,424 = 13,477,385,728.
TEST(families_2025, deepseek_v32_indexer_by_hand) {
  const run_spec r = resolved({{"model", "deepseek-v3.2-exp"}});
  EXPECT_EQ(r.model.params.loaded(), 671877944064.0);
  EXPECT_EQ(r.model.params.total, 671877944064.0 + 13477385728.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::dsa, 61), 61);
}

// The indexer caches one FP8 key of index_head_dim 128 and one fp32 scale per 128 values: 132 B per token and layer
// beside the MLA latent (512 + 64) x 2 B. 61 layers x 4 sequences x 1,000 tokens: 32,208,000 and 281,088,000 B.
TEST(families_2025, dsa_indexer_key_cache_by_hand) {
  const estimate_result e = estimated({{"model", "deepseek-v3.2-exp"},
                                       {"mode", "inference"},
                                       {"runtime", "transformers"},
                                       {"batch", "4"},
                                       {"seq", "1000"}});
  EXPECT_EQ(item(e, "DSA indexer key cache"), 61.0 * 4 * 1000 * 132);
  EXPECT_EQ(item(e, "MLA latent cache"), 61.0 * 4 * 1000 * 576 * 2);
}

// Kimi K2's config names model_type kimi_k2 and runs DeepSeek-V3's code: the same fields count the same.
TEST(families_2025, kimi_k2_is_counted_as_deepseek_v3) {
  const std::string fields = R"("hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
      "num_hidden_layers": 61, "num_attention_heads": 64, "num_key_value_heads": 64, "n_shared_experts": 1,
      "n_routed_experts": 384, "num_experts_per_tok": 8, "kv_lora_rank": 512, "q_lora_rank": 1536,
      "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128, "first_k_dense_replace": 1,
      "topk_method": "noaux_tc", "vocab_size": 163840, "tie_word_embeddings": false})";
  auto kimi = parse_config(R"({"model_type": "kimi_k2", )" + fields);
  auto deepseek = parse_config(R"({"model_type": "deepseek_v3", )" + fields);
  ASSERT_TRUE(kimi.ok()) << to_string(kimi.errors().front());
  ASSERT_TRUE(deepseek.ok());
  // Every setting alike but the model_type each states (kept for the runtimes' per-architecture rules).
  EXPECT_EQ(kimi.value().at("model_type"), "kimi_k2");
  EXPECT_EQ(deepseek.value().at("model_type"), "deepseek_v3");
  kimi.value().erase("model_type");
  deepseek.value().erase("model_type");
  EXPECT_EQ(kimi.value(), deepseek.value());
  // 61 MLA layers of 64 heads, one dense layer and 60 of 384 experts: 1,026,408,232,448 (docs/models.md).
  EXPECT_EQ(resolved({}, kimi.value()).model.params.total, 1026408232448.0);
}

}  // namespace
