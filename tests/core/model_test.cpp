// SPDX-License-Identifier: MIT
#include "llm_memory/model.hpp"

#include <gtest/gtest.h>

#include "llm_memory/resolve.hpp"
#include "llm_memory/settings.hpp"

namespace {

using namespace llm_memory;

model_spec model_of(const settings& s) {
  auto r = resolve(s);
  EXPECT_TRUE(r.ok());
  return r.ok() ? r.value().model : model_spec{};
}

// GPT-2 small by hand: wte 50257*768 = 38,597,376; wpe 1024*768 = 786,432; per layer 2 LayerNorms 2*1536,
// c_attn 768*2304 + 2304, c_proj 768*768 + 768, c_fc 768*3072 + 3072, mlp c_proj 3072*768 + 768 = 7,087,872;
// x 12 = 85,054,464; ln_f 1,536. Total 124,439,808 (the published "124M").
TEST(model, gpt2_small_exact_count) {
  const auto m = model_of(settings({{"hidden_size", "768"},
                                    {"num_hidden_layers", "12"},
                                    {"num_attention_heads", "12"},
                                    {"vocab_size", "50257"},
                                    {"max_position_embeddings", "1024"},
                                    {"position_embedding", "learned"},
                                    {"tie_word_embeddings", "on"},
                                    {"attention_bias", "all"},
                                    {"mlp_bias", "on"}}));
  EXPECT_EQ(m.params.embedding, 38597376 + 786432);
  EXPECT_EQ(m.params.lm_head, 0);
  EXPECT_EQ(m.params.layer_with(mlp_kind::dense).total(), 7087872);
  EXPECT_EQ(m.params.total, 124439808);
}

// Llama 2 7B by hand: embeddings 32000*4096 twice (untied) = 262,144,000; per layer 4*4096^2 + 3*4096*11008
// + 2*4096 = 202,383,360; x 32 = 6,476,267,520; final norm 4096. Total 6,738,415,616.
TEST(model, llama2_7b_exact_count) {
  const auto m = model_of(settings({{"hidden_size", "4096"},
                                    {"num_hidden_layers", "32"},
                                    {"num_attention_heads", "32"},
                                    {"intermediate_size", "11008"},
                                    {"vocab_size", "32000"},
                                    {"norm", "rmsnorm"},
                                    {"mlp", "gated"},
                                    {"dropout", "off"}}));
  EXPECT_EQ(m.params.layer_with(mlp_kind::dense).attention, 4.0 * 4096 * 4096);
  EXPECT_EQ(m.params.layer_with(mlp_kind::dense).mlp, 3.0 * 4096 * 11008);
  EXPECT_EQ(m.params.total, 6738415616);
}

// Grouped-query attention: k and v project to n_kv * head_dim = 8 * 128 = 1024, so attention is
// 2*4096*4096 + 2*4096*1024 = 41,943,040 per layer (Llama 3 8B).
TEST(model, gqa_narrows_k_and_v) {
  const auto m = model_of(settings({{"hidden_size", "4096"},
                                    {"num_attention_heads", "32"},
                                    {"num_key_value_heads", "8"},
                                    {"norm", "rmsnorm"},
                                    {"mlp", "gated"}}));
  EXPECT_EQ(m.params.layer_with(mlp_kind::dense).attention, 41943040);
}

// Mixture of experts: active = total - (E - k) experts per MoE layer.
TEST(model, moe_active_parameters) {
  const auto m = model_of(settings({{"hidden_size", "64"},
                                    {"num_hidden_layers", "2"},
                                    {"num_attention_heads", "4"},
                                    {"intermediate_size", "128"},
                                    {"mlp", "gated"},
                                    {"norm", "rmsnorm"},
                                    {"num_experts", "8"},
                                    {"num_experts_per_tok", "2"}}));
  const double expert = 3.0 * 64 * 128;
  EXPECT_EQ(m.params.layer_with(mlp_kind::moe).mlp, 8 * expert);
  EXPECT_EQ(m.params.layer_with(mlp_kind::moe).router, 64 * 8);
  EXPECT_EQ(m.params.total - m.params.active, 2 * 6 * expert);
}

// q/k norms: per head (Qwen3, Gemma 3) is two head_dim-wide RMSNorm weights; full width (OLMo 2) norms all
// query heads (a x head_dim) and all key heads (n_kv x head_dim). With h 64, a 4, n_kv 2, head_dim 32:
// attention 64 x 128 + 2 x 64 x 64 + 128 x 64 = 24,576; head norms + 64; full norms + 128 + 64.
TEST(model, qk_norm_variants) {
  const settings base{{"hidden_size", "64"}, {"num_attention_heads", "4"}, {"num_key_value_heads", "2"},
                      {"head_dim", "32"},    {"norm", "rmsnorm"},          {"mlp", "gated"}};
  auto with = [&](const char* qk) {
    settings s = base;
    s["qk_norm"] = qk;
    return model_of(settings(s)).params.layer_with(mlp_kind::dense).attention;
  };
  EXPECT_EQ(with("none"), 24576);
  EXPECT_EQ(with("head"), 24576 + 64);
  EXPECT_EQ(with("full"), 24576 + 128 + 64);
}

// Router extras: DeepSeek-V3's score-correction bias adds one value per expert; Qwen2-MoE's shared_expert_gate
// adds one h-wide row. h 64, 8 experts: 512, + 8, + 64.
TEST(model, router_bias_and_shared_expert_gate) {
  settings s{
      {"hidden_size", "64"},    {"num_hidden_layers", "2"}, {"num_attention_heads", "4"}, {"intermediate_size", "128"},
      {"mlp", "gated"},         {"norm", "rmsnorm"},        {"num_experts", "8"},         {"num_experts_per_tok", "2"},
      {"n_shared_experts", "1"}};
  EXPECT_EQ(model_of(settings(s)).params.layer_with(mlp_kind::moe).router, 512);
  s["router_bias"] = "on";
  EXPECT_EQ(model_of(settings(s)).params.layer_with(mlp_kind::moe).router, 512 + 8);
  s["shared_expert_gate"] = "on";
  const auto p = model_of(settings(s)).params;
  EXPECT_EQ(p.layer_with(mlp_kind::moe).router, 512 + 8 + 64);
  // The router and the shared expert are active for every token: only 6 routed experts per layer idle.
  EXPECT_EQ(p.total - p.active, 2 * 6 * 3.0 * 64 * 128);
}

// Falcon-style block: one LayerNorm (weight + bias) per layer, plain 4h MLP, no biases, one k/v head.
// h 64, a 4: q 64 x 64, k and v 64 x 16 each, o 64 x 64 = 10,240; MLP 2 x 64 x 256 = 32,768; norm 128.
TEST(model, falcon_style_layer) {
  const auto m = model_of(settings(
      {{"hidden_size", "64"}, {"num_attention_heads", "4"}, {"num_key_value_heads", "1"}, {"norms_per_layer", "1"}}));
  EXPECT_EQ(m.params.layer_with(mlp_kind::dense).attention, 10240);
  EXPECT_EQ(m.params.layer_with(mlp_kind::dense).mlp, 32768);
  EXPECT_EQ(m.params.layer_with(mlp_kind::dense).norms, 128);
}

// Interleaved experts (Llama 4 Maverick: interleave_moe_layer_step 2): layer l is MoE when (l + 1) % 2 == 0, from
// first_k_dense_replace on. 7 layers, first 2 dense, step 2: MoE layers 3 and 5 (l = 1 is before the prefix ends),
// floor(7 / 2) - floor(2 / 2) = 2; the other 5 are dense. With h 64, 4 heads: attention 4 x 64^2 = 16,384; dense
// MLP 3 x 64 x 256 = 49,152; MoE MLP 4 experts x 3 x 64 x 32 = 24,576 + router 256; norms 128.
TEST(model, interleaved_moe_layers) {
  const auto m = model_of(settings({{"hidden_size", "64"},
                                    {"num_hidden_layers", "7"},
                                    {"num_attention_heads", "4"},
                                    {"intermediate_size", "256"},
                                    {"moe_intermediate_size", "32"},
                                    {"mlp", "gated"},
                                    {"norm", "rmsnorm"},
                                    {"num_experts", "4"},
                                    {"num_experts_per_tok", "1"},
                                    {"first_k_dense_replace", "2"},
                                    {"moe_layer_step", "2"}}));
  EXPECT_EQ(m.params.moe_layers(), 2);
  EXPECT_EQ(m.params.layers_with(mlp_kind::dense), 5);
  for (std::int64_t l = 0; l < 7; ++l) EXPECT_EQ(m.mlp_at(l) == mlp_kind::moe, l == 3 || l == 5) << l;
  EXPECT_EQ(m.params.layer_with(mlp_kind::dense).total(), 16384 + 49152 + 128);
  EXPECT_EQ(m.params.layer_with(mlp_kind::moe).total(), 16384 + 24576 + 256 + 128);
  EXPECT_EQ(m.params.total, 5 * 65664 + 2 * 41344 + 64);
}

// The small features of issue 18's families, each against its formula: lm_head_bias + V (Phi-2, GPT-J),
// embedding_norm + one norm of h (BLOOM: LayerNorm 2h), attention_sinks + a per layer (gpt-oss).
TEST(model, head_bias_embedding_norm_and_sinks) {
  const settings base = {{"hidden_size", "64"},
                         {"num_hidden_layers", "3"},
                         {"num_attention_heads", "4"},
                         {"vocab_size", "100"},
                         {"norm", "layernorm"}};
  const double total = model_of(base).params.total;
  auto with = [&](const char* key) {
    settings s = base;
    s[key] = "on";
    return model_of(s).params.total - total;
  };
  EXPECT_EQ(with("lm_head_bias"), 100);
  EXPECT_EQ(with("embedding_norm"), 128);
  EXPECT_EQ(with("attention_sinks"), 3 * 4);
}

}  // namespace
