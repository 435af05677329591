// SPDX-License-Identifier: MIT
// Issue 32: Gemma 4 (wider full-attention heads, keys as values, KV-shared layers without k/v, the double-wide MLP,
// per-layer inputs, the MoE block beside the dense MLP). Every number is summed by hand from transformers'
// models/gemma4/modeling_gemma4.py (@c308a309; docs/models.md).
#include <gtest/gtest.h>

#include "config_support.hpp"
#include "run_support.hpp"

#include <cmath>
#include <string>
#include <string_view>

#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::resolved;

template <class T>
bool has_error(const result<T>& r, std::string_view setting, std::string_view text) {
  if (r.ok()) return false;
  for (const auto& e : r.errors())
    if (e.setting == setting && e.message.find(text) != std::string::npos) return true;
  return false;
}

// layer_types of `layers` layers, every `period`-th full attention.
std::string types(int layers, int period) {
  std::string list;
  for (int l = 0; l < layers; ++l)
    list += std::string(l == 0 ? "" : ", ") + ((l + 1) % period == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
  return "[" + list + "]";
}

// A small gemma4 wrapper: h 64, 4 heads, 2 KV heads of 16, global heads of 32, MLP 128, vocab 1,000, tied.
std::string small(int layers, const std::string& more) {
  return R"({"model_type": "gemma4", "text_config": {"model_type": "gemma4_text", "hidden_size": 64,
      "num_hidden_layers": )" +
         std::to_string(layers) + R"(, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
      "global_head_dim": 32, "intermediate_size": 128, "vocab_size": 1000, "sliding_window": 512,
      "layer_types": )" +
         types(layers, 2) + ", " + more + "}}";
}

// Keys as values (attention_k_eq_v, one global KV head). Sliding layer: q and o 2 x 64 x 64 = 8,192, k and v
// 2 x 64 x 32 = 4,096, q/k norms 2 x 16, MLP 3 x 64 x 128 = 24,576, four norms 256, layer_scalar 1: 37,153. Full
// layer: q and o 2 x 64 x 4 x 32 = 16,384, k 64 x 1 x 32 = 2,048, no v_proj, q/k norms 2 x 32, MLP 24,576, norms
// 256, layer_scalar 1: 43,329. Two of each 160,964; tied embedding 64,000, final norm 64: 225,028.
TEST(families_gemma4, keys_as_values_by_hand) {
  const settings s = test::parsed_config(
      small(4, R"("attention_k_eq_v": true, "num_global_key_value_heads": 1, "hidden_size_per_layer_input": 0)"));
  EXPECT_EQ(s.at("tie_word_embeddings"), "on");
  EXPECT_EQ(s.at("sliding_window_pattern"), "2");
  EXPECT_NE(s.at("model_notes").find("vision and audio towers"), std::string::npos);
  EXPECT_EQ(resolved({}, s).model.params.total, 225028.0);
}

// KV sharing (the last 2 of 4 layers), the double-wide MLP and per-layer inputs (p 8, per-layer vocab 500).
// Layer 0 (sliding, own K/V): 37,153. Layer 1 (full, own K/V, no k_eq_v: 2 KV heads of 32): q and o 16,384, k and v
// 2 x 64 x 2 x 32 = 8,192, norms 64, MLP 24,576, 256, 1: 49,473. Layer 2 (sliding, shared: no k/v/k_norm): q and o
// 8,192, q_norm 16, MLP 2 x 24,576 = 49,152, 256, 1: 57,617. Layer 3 (full, shared): 16,384 + 32 + 49,152 + 256 +
// 1 = 65,825. Per-layer inputs 4 x (2 x 64 x 8 + 64) = 4,352; once 500 x 4 x 8 = 16,000, 64 x 32 = 2,048, norm 8.
// Sum 210,068 + 4,352 + 18,056 + 64,000 + 64 = 296,540.
TEST(families_gemma4, shared_layers_double_wide_mlp_and_per_layer_inputs_by_hand) {
  const settings s = test::parsed_config(small(4, R"("num_kv_shared_layers": 2, "use_double_wide_mlp": true,
      "hidden_size_per_layer_input": 8, "vocab_size_per_layer_input": 500)"));
  EXPECT_EQ(s.at("num_kv_shared_layers"), "2");
  const run_spec r = resolved({}, s);
  EXPECT_EQ(r.model.params.total, 296540.0);
  // Only layers 0 and 1 keep a cache: one sliding, one full.
  EXPECT_EQ(r.model.cached_layers_of(layer_kind::attention, 4), 1);
  EXPECT_EQ(r.model.cached_layers_of(layer_kind::sliding_attention, 4), 1);
}

// The MoE block beside the dense MLP (MLP 32, 4 experts of 16, top 2), two layers. Sliding: attention 12,288 + 32,
// dense MLP 3 x 64 x 32 = 6,144, experts 4 x 3 x 64 x 16 = 12,288, router proj 4 x 64 = 256, scale 64,
// per_expert_scale 4, seven norms 448, layer_scalar 1: 31,525. Full (k_eq_v, 1 KV head): attention 18,432 + 64,
// the rest the same 19,205: 37,701. Embedding 64,000, norm 64: 133,290. Active: 2 layers x (4 - 2) x 3,072 idle:
// 121,002.
TEST(families_gemma4, moe_block_by_hand) {
  std::string config = small(2, R"("attention_k_eq_v": true, "num_global_key_value_heads": 1,
      "enable_moe_block": true, "num_experts": 4, "top_k_experts": 2, "moe_intermediate_size": 16,
      "hidden_size_per_layer_input": 0)");
  config.replace(config.find("\"intermediate_size\": 128"), 24, "\"intermediate_size\": 32");
  const settings s = test::parsed_config(config);
  EXPECT_EQ(s.at("num_experts_per_tok"), "2");
  EXPECT_EQ(s.at("shared_expert_intermediate_size"), "32");
  const run_spec r = resolved({}, s);
  EXPECT_EQ(r.model.params.total, 133290.0);
  EXPECT_EQ(r.model.params.active, 121002.0);
  // Without enable_moe_block the expert fields describe nothing.
  std::string dense = config;
  dense.replace(dense.find("\"enable_moe_block\": true"), 24, "\"enable_moe_block\": false");
  EXPECT_EQ(test::parsed_config(dense).count("num_experts"), 0u);
}

// The released sizes' text configs (transformers convert_gemma4_weights.py _VARIANTS) against Google's published
// counts, rounded as published: 31B 30.7B; 26B A4B 25.2B total, 3.8B active; E2B 2.3B "effective" (without the
// per-layer embedding table, 262,144 x 35 x 256). 31B by hand: sliding layer q, o 2 x 5,376 x 8,192 = 88,080,384,
// k, v 2 x 5,376 x 4,096 = 44,040,192, MLP 3 x 5,376 x 21,504 = 346,816,512, norms 4 x 5,376 + 512 + 1:
// 478,959,105; full layer q, o 2 x 5,376 x 16,384 = 176,160,768, k 5,376 x 2,048 = 11,010,048, MLP, norms 4 x 5,376
// + 1,024 + 1: 534,009,857; 50 x 478,959,105 + 10 x 534,009,857 + 262,144 x 5,376 + 5,376 = 30,697,345,340.
std::string released(int h, int layers, int period, const std::string& more) {
  return R"({"model_type": "gemma4", "text_config": {"model_type": "gemma4_text", "hidden_size": )" +
         std::to_string(h) + R"(, "num_hidden_layers": )" + std::to_string(layers) +
         R"(, "head_dim": 256, "global_head_dim": 512, "vocab_size": 262144, "sliding_window": 1024,
      "layer_types": )" +
         types(layers, period) + ", " + more + "}}";
}

TEST(families_gemma4, released_sizes_against_published_counts) {
  const run_spec b31 = resolved({}, test::parsed_config(released(5376, 60, 6, R"("num_attention_heads": 32,
      "num_key_value_heads": 16, "num_global_key_value_heads": 4, "attention_k_eq_v": true,
      "intermediate_size": 21504, "hidden_size_per_layer_input": 0)")));
  EXPECT_EQ(b31.model.params.total, 30697345340.0);
  const run_spec a4b = resolved({}, test::parsed_config(released(2816, 30, 6, R"("num_attention_heads": 16,
      "num_key_value_heads": 8, "num_global_key_value_heads": 2, "attention_k_eq_v": true, "intermediate_size": 2112,
      "hidden_size_per_layer_input": 0, "enable_moe_block": true, "num_experts": 128, "top_k_experts": 8,
      "moe_intermediate_size": 704)")));
  EXPECT_EQ(std::round(a4b.model.params.total / 1e8), 252);
  EXPECT_EQ(std::round(a4b.model.params.active / 1e8), 38);
  const run_spec e2b = resolved({}, test::parsed_config(released(1536, 35, 5, R"("num_attention_heads": 8,
      "num_key_value_heads": 1, "intermediate_size": 6144, "num_kv_shared_layers": 20, "use_double_wide_mlp": true,
      "hidden_size_per_layer_input": 256, "vocab_size_per_layer_input": 262144)")));
  EXPECT_EQ(std::round((e2b.model.params.total - 262144.0 * 35 * 256) / 1e8), 23);
}

// The wrapper's towers (modeling_gemma4.py Gemma4VisionModel, Gemma4MultimodalEmbedder). The 31B's vision_config
// (h 1,152, MLP 4,304, 27 layers, 16 heads and KV heads of 72, standardize): per layer q, o, k, v 4 x 1,152 x 1,152 =
// 5,308,416, q/k norms 144, four norms 4,608, MLP 3 x 1,152 x 4,304 = 14,874,624: 20,187,792, x 27 = 545,070,384;
// input_proj 768 x 1,152 = 884,736, position table 2 x 10,240 x 1,152 = 23,592,960, std_bias and std_scale 2,304,
// embed_vision 1,152 x 5,376 = 6,193,152: 575,743,536. E2B's on-device tower (h 768, MLP 3,072, 16 layers of 12
// heads of 64, clipped linears): per layer 4 x 768^2 = 2,359,296 + 128 + 3,072 + 3 x 768 x 3,072 = 7,077,888 + 7 x
// 4 clip scalars = 9,440,412, x 16 = 151,046,592; input_proj 589,824, table 15,728,640, embed_vision 768 x 1,536 =
// 1,179,648. The audio encoder (Gemma4AudioConfig's defaults: h 1,024, 12 layers, 8 heads, kernel 5, channels 128 and
// 32, out 1,536, clipped): per layer feed-forwards 2 x (8 h^2 + 2 h), attention 5 h^2 + 128, light conv 3 h^2 + 5 h +
// 2 h, norms 3 h, 10 x 4 clip scalars: 24 h^2 + 14 h + 168 = 25,180,328, x 12 = 302,163,936; subsampling 1,152 + 128
// + 36,864 + 32 + 32 x 32 x 1,024 = 1,086,752; output_proj 1,024 x 1,536 + 1,536 = 1,574,400; embed_audio 1,536 x
// 1,536 = 2,359,296. Sum 170,904,000 + 304,825,088 = 475,729,088.
TEST(families_gemma4, vision_tower_and_embedders_by_hand) {
  std::string b31 = released(5376, 60, 6, R"("num_attention_heads": 32, "num_key_value_heads": 16,
      "intermediate_size": 21504)");
  b31.insert(b31.size() - 1, R"(, "vision_config": {"hidden_size": 1152, "intermediate_size": 4304,
      "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 72,
      "standardize": true})");
  EXPECT_EQ(test::parsed_config(b31).at("vision_params"), "575743536");
  std::string e2b = released(1536, 35, 5, R"("num_attention_heads": 8, "num_key_value_heads": 1,
      "intermediate_size": 6144)");
  e2b.insert(e2b.size() - 1, R"(, "vision_config": {"use_clipped_linears": true}, "audio_config": {})");
  EXPECT_EQ(test::parsed_config(e2b).at("vision_params"), "475729088");
  // An audio_config without a vision_config counts the audio encoder and embed_audio alone: 302,163,936 +
  // 1,086,752 + 1,574,400 + 2,359,296 = 307,184,384.
  std::string audio_only = released(1536, 35, 5, R"("num_attention_heads": 8, "num_key_value_heads": 1,
      "intermediate_size": 6144)");
  audio_only.insert(audio_only.size() - 1, R"(, "audio_config": {})");
  EXPECT_EQ(test::parsed_config(audio_only).at("vision_params"), "307184384");
}

// What is not modelled is refused by name; an unknown model_type with Gemma 4's fields stays refused.
TEST(families_gemma4, refusals) {
  // Gemma4TextConfig's default hidden_size_per_layer_input is 256: omitted, the per-layer inputs are counted.
  const settings omitted = test::parsed_config(small(2, R"("final_logit_softcapping": 30.0)"));
  const settings none = test::parsed_config(small(2, R"("hidden_size_per_layer_input": 0)"));
  // 2 x (2 x 64 x 256 + 64) + 262,144 x 2 x 256 + 64 x 512 + 256 = 65,664 + 134,217,728 + 32,768 + 256.
  EXPECT_EQ(std::stod(omitted.at("extra_params")) - std::stod(none.at("extra_params")), 134316416.0);
  EXPECT_TRUE(has_error(parse_config(small(2, R"("attention_bias": true)")), "attention_bias", "gemma4"));
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "my_gemma", "global_head_dim": 512, "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})"),
                        "model_type", "\"global_head_dim\""));
}

// Training: a sliding layer saves what a full one does. transformers' Gemma 4 (modeling_gemma4.py @0246b4f3
// eager_attention_forward) multiplies q by every key, s x s, adds the sliding mask and softmaxes in fp32, so eager
// keeps (4 + 2) B x heads x s^2 per sequence in a sliding layer as in a full one; flash and sdpa keep a log-sum-exp per
// head and token either way. The window moves no training byte: 512 and 128 give the same activations. At s 2,048
// the 4 layers' eager scores are 4 x 6 x 4 x 2,048^2 = 402,653,184 B, flash's 4 x 4 x 4 x 2,048 = 131,072 B.
TEST(families_gemma4, sliding_layers_train_like_full_ones) {
  auto config = parse_config(small(4, R"("hidden_size_per_layer_input": 0)"));
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  const auto activations = [&](const std::string& attention, const std::string& window) {
    const estimate_result e = estimate(resolved(
        {{"seq", "2048"}, {"batch", "1"}, {"attention", attention}, {"sliding_window", window}}, config.value()));
    for (const auto& b : e.buckets)
      if (b.key == "activations") return b.bytes;
    ADD_FAILURE() << "no activations bucket";
    return -1.0;
  };
  for (const char* attention : {"eager", "flash", "sdpa"})
    EXPECT_EQ(activations(attention, "512"), activations(attention, "128")) << attention;
  EXPECT_GE(activations("eager", "512") - activations("flash", "512"), 402653184.0 - 131072.0);
}

}  // namespace
