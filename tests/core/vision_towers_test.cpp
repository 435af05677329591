// SPDX-License-Identifier: MIT
// Vision towers of Qwen3-VL (qwen3_vl, qwen3_vl_moe) and Llama 3.2 Vision (mllama), and a nested config's top-level
// tie_word_embeddings (issue 18). Every count is summed by hand from the transformers modeling files named below
// (docs/models.md, "config.json") and compared with the Hub's safetensors total recorded in
// AlexsJones/llmfit@a3e0eb27c57fe05298292f4c61699b9aed2824ea:llmfit-core/data/hf_models.json (parameters_raw).
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/config_json.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

double total_of(const settings& s) {
  auto r = resolve({{"mode", "inference"}}, s);
  EXPECT_TRUE(r.ok());
  return r.ok() ? r.value().model.params.total : 0;
}

// ---- Qwen3-VL ---------------------------------------------------------------------------------------------------
// Qwen3VLVisionModel (models/qwen3_vl/modeling_qwen3_vl.py @00709b86), e = hidden_size, i = intermediate_size, s = 2,
// w = e s^2 = 4e, out = out_hidden_size:
//   patch_embed Conv3d with bias e x 3 x 2 x 16 x 16 + e;  pos_embed 2,304 x e;
//   block: norm1, norm2 (LayerNorms, 4e) + qkv (e -> 3e, biased) + proj (e -> e, biased) + linear_fc1 (e -> i) and
//          linear_fc2 (i -> e), biased;
//   merger: LayerNorm of e (2e) + linear_fc1 (w -> w) + linear_fc2 (w -> out), biased;
//   deepstack_merger_list: one merger per deepstack_visual_indexes entry, its LayerNorm of w (2w).
// The 2B / 4B tower (e 1,024, i 4,096, depth 24, deepstack [5, 11, 17]): patch 1,573,888 + positions 2,359,296 +
// 24 x 12,596,224 = 302,309,376; fc1 + fc2 = 4,096^2 + 4,096 + 4,096 x out + out (out 2,048: 25,171,968; out 2,560:
// 27,269,632), merger + 2,048, each deepstack merger + 8,192:
//   2B: 306,242,560 + 25,174,016 + 3 x 25,180,160 = 406,957,056;  4B: 306,242,560 + 27,271,680 + 3 x 27,277,824 =
//   415,347,712.
// The 8B / 30B-A3B / 235B-A22B tower (e 1,152, i 4,304, depth 27, deepstack [8, 16, 24]): patch 1,770,624 +
// positions 2,654,208 + 27 x 15,239,504 = 411,466,608; fc1 + fc2 (w 4,608) = 40,116,736 at out 4,096 and 30,677,504
// at out 2,048: 8B and 235B 415,891,440 + 40,119,040 + 3 x 40,125,952 = 576,388,336; 30B 415,891,440 + 30,679,808 +
// 3 x 30,686,720 = 538,631,408.
// Text models (Qwen3 / Qwen3-MoE, q_norm and k_norm of head_dim 128, vocab 151,936):
//   2B (h 2,048, 28 layers, 16 heads, 8 k/v, MLP 6,144, tied): 311,164,928 + 28 x (12,583,168 + 37,748,736 +
//     4,096) = 1,409,408,000 + 2,048 = 1,720,574,976; total 2,127,532,032 = Qwen/Qwen3-VL-2B-Instruct.
//   4B (h 2,560, 36 layers, 32 heads, 8 k/v, MLP 9,728, tied): 388,956,160 + 36 x 100,930,816 + 2,560 =
//     4,022,468,096; total 4,437,815,808 = Qwen/Qwen3-VL-4B-Instruct.
//   8B (h 4,096, 36 layers, 32 heads, 8 k/v, MLP 12,288, untied): 8,190,735,360 (Qwen3-8B's count); total
//     8,767,123,696 = Qwen/Qwen3-VL-8B-Instruct.
//   30B-A3B (h 2,048, 48 layers, 32 heads, 4 k/v, 128 experts of 768, untied): 30,532,122,624 (Qwen3-30B-A3B's);
//     total 31,070,754,032 = Qwen/Qwen3-VL-30B-A3B-Thinking.
//   235B-A22B (h 4,096, 94 layers, 64 heads, 4 k/v, 128 experts of 1,536): 235,093,634,560 (Qwen3-235B-A22B's);
//     total 235,670,022,896 = Qwen/Qwen3-VL-235B-A22B-Instruct.
// The 4B config as public code quotes Qwen/Qwen3-VL-4B-Instruct's config.json (a Qwen3VLConfig built from it; no copy
// in a repository the search tools name was found): tie_word_embeddings at both levels.
std::string qwen3_vl_4b() {
  return R"({"architectures": ["Qwen3VLForConditionalGeneration"], "image_token_id": 151655, "model_type": "qwen3_vl",
    "text_config": {"attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 151643, "dtype": "bfloat16",
      "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 2560, "initializer_range": 0.02,
      "intermediate_size": 9728, "max_position_embeddings": 262144, "model_type": "qwen3_vl_text",
      "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
      "rope_scaling": {"mrope_interleaved": true, "mrope_section": [24, 20, 20], "rope_type": "default"},
      "rope_theta": 5000000, "tie_word_embeddings": true, "use_cache": true, "vocab_size": 151936},
    "tie_word_embeddings": true, "transformers_version": "4.57.0.dev0", "video_token_id": 151656,
    "vision_config": {"deepstack_visual_indexes": [5, 11, 17], "depth": 24, "hidden_act": "gelu_pytorch_tanh",
      "hidden_size": 1024, "in_channels": 3, "initializer_range": 0.02, "intermediate_size": 4096,
      "model_type": "qwen3_vl", "num_heads": 16, "num_position_embeddings": 2304, "out_hidden_size": 2560,
      "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2},
    "vision_end_token_id": 151653, "vision_start_token_id": 151652})";
}

TEST(vision, qwen3_vl_4b_and_2b_by_hand) {
  auto s = parse_config(qwen3_vl_4b());
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "415347712");
  EXPECT_EQ(s.value().at("qk_norm"), "head");
  EXPECT_EQ(s.value().at("tie_word_embeddings"), "on");
  EXPECT_EQ(total_of(s.value()), 4437815808.0);
  // 2B: the same tower ending at 2,048, a 28-layer text model.
  std::string two = replaced(qwen3_vl_4b(), R"("out_hidden_size": 2560)", R"("out_hidden_size": 2048)");
  two = replaced(two, R"("hidden_size": 2560)", R"("hidden_size": 2048)");
  two = replaced(two, R"("intermediate_size": 9728)", R"("intermediate_size": 6144)");
  two = replaced(two, R"("num_attention_heads": 32)", R"("num_attention_heads": 16)");
  two = replaced(two, R"("num_hidden_layers": 36)", R"("num_hidden_layers": 28)");
  s = parse_config(two);
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "406957056");
  EXPECT_EQ(total_of(s.value()), 2127532032.0);
  // Without DeepStack: 3 x 27,277,824 fewer.
  s = parse_config(
      replaced(qwen3_vl_4b(), R"("deepstack_visual_indexes": [5, 11, 17])", R"("deepstack_visual_indexes": [])"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("vision_params"), "333514240");
}

// The 8B's vision_config is Qwen3VLVisionConfig's defaults but out_hidden_size: an empty vision_config with that
// one field gives the same tower.
std::string qwen3_vl_8b(const std::string& vision) {
  return R"({"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
    "text_config": {"attention_bias": false, "head_dim": 128, "hidden_size": 4096, "intermediate_size": 12288,
      "model_type": "qwen3_vl_text", "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8,
      "rope_theta": 5000000, "tie_word_embeddings": false, "vocab_size": 151936},
    "tie_word_embeddings": false, "vision_config": )" +
         vision + "}";
}

TEST(vision, qwen3_vl_8b_by_hand) {
  auto s = parse_config(qwen3_vl_8b(R"({"deepstack_visual_indexes": [8, 16, 24], "depth": 27, "hidden_size": 1152,
    "in_channels": 3, "intermediate_size": 4304, "model_type": "qwen3_vl", "num_heads": 16,
    "num_position_embeddings": 2304, "out_hidden_size": 4096, "patch_size": 16, "spatial_merge_size": 2,
    "temporal_patch_size": 2})"));
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "576388336");
  EXPECT_EQ(total_of(s.value()), 8767123696.0);
  s = parse_config(qwen3_vl_8b(R"({"out_hidden_size": 4096})"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("vision_params"), "576388336");
  // A deepstack list that is not a list names vision_params.
  s = parse_config(qwen3_vl_8b(R"({"deepstack_visual_indexes": 3})"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.errors().front().setting, "vision_params");
}

std::string qwen3_vl_moe(const std::string& text, const std::string& out) {
  return R"({"architectures": ["Qwen3VLMoeForConditionalGeneration"], "model_type": "qwen3_vl_moe",
    "text_config": {"attention_bias": false, "decoder_sparse_step": 1, "head_dim": 128, "mlp_only_layers": [],
      "model_type": "qwen3_vl_moe_text", "num_experts": 128, "num_experts_per_tok": 8, "num_key_value_heads": 4,
      "rope_theta": 5000000, "tie_word_embeddings": false, "vocab_size": 151936, )" +
         text + R"(},
    "tie_word_embeddings": false,
    "vision_config": {"deepstack_visual_indexes": [8, 16, 24], "depth": 27, "hidden_size": 1152,
      "intermediate_size": 4304, "model_type": "qwen3_vl_moe", "num_heads": 16, "num_position_embeddings": 2304,
      "out_hidden_size": )" +
         out + R"(, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2}})";
}

TEST(vision, qwen3_vl_moe_by_hand) {
  auto s = parse_config(qwen3_vl_moe(R"("hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
    "num_attention_heads": 32, "num_hidden_layers": 48)",
                                     "2048"));
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "538631408");
  EXPECT_EQ(s.value().at("num_experts"), "128");
  EXPECT_EQ(total_of(s.value()), 31070754032.0);
  s = parse_config(qwen3_vl_moe(R"("hidden_size": 4096, "intermediate_size": 12288, "moe_intermediate_size": 1536,
    "num_attention_heads": 64, "num_hidden_layers": 94)",
                                "4096"));
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "576388336");
  EXPECT_EQ(total_of(s.value()), 235670022896.0);
}

// ---- Llama 3.2 Vision -------------------------------------------------------------------------------------------
// MllamaVisionModel (models/mllama/modeling_mllama.py @00368133), h 1,280, i 5,120, image 560, patch 14: n = 40^2 + 1 =
// 1,601 patches per tile, 4 tiles, 8 supported aspect ratios (ids 0..8):
//   patch_embedding 3 x 14^2 x 1,280 = 752,640; class_embedding 1,280;
//   gated_positional_embedding: gate 1 + embedding 1,601 x 1,280 = 2,049,280 + tile_embedding 9 x 4 x 1,601 x 1,280 =
//     73,774,080 -> 75,823,361;
//   pre_tile_pos_embed and post_tile_pos_embed: 2 x (9 x 4 x 1,280 + gate 1) = 92,162; layernorm_pre / _post 5,120;
//   -> 76,674,563;
//   layer: q/k/v/o 4 x 1,280^2 = 6,553,600 + fc1 1,280 x 5,120 + 5,120 + fc2 5,120 x 1,280 + 1,280 = 13,113,600 +
//     two LayerNorms 5,120 = 19,672,320; 32 local layers 629,514,240; 8 global layers with gate_attn and gate_ffn
//     8 x 19,672,322 = 157,378,576;
//   multi_modal_projector 7,680 x 4,096 + 4,096 = 31,461,376.
// Vision 895,028,755. Text (MllamaTextModel): 40 layers, 8 of them cross-attention layers, each a Llama 3.1 8B layer
// (attention 41,943,040 + MLP 176,160,768 + norms 8,192 = 218,112,000): 40 x 218,112,000 = 8,724,480,000; the cross
// layers' q_norm and k_norm (2 x 128) and two gates: 8 x 258 = 2,064; embed_tokens (128,256 + 8) x 4,096 =
// 525,369,344, lm_head 128,256 x 4,096 = 525,336,576, final norm 4,096: 9,775,192,080. Total 10,670,220,835 =
// meta-llama/Llama-3.2-11B-Vision-Instruct parameters_raw (llmfit, above).
std::string llama_3_2_11b_vision() {
  return R"({"architectures": ["MllamaForConditionalGeneration"], "image_token_index": 128256, "model_type": "mllama",
    "text_config": {"cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38], "hidden_act": "silu",
      "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 131072, "model_type": "mllama_text_model",
      "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
      "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"},
      "rope_theta": 500000.0, "tie_word_embeddings": false, "vocab_size": 128256},
    "torch_dtype": "bfloat16",
    "vision_config": {"attention_heads": 16, "hidden_act": "gelu", "hidden_size": 1280, "image_size": 560,
      "intermediate_layers_indices": [3, 7, 15, 23, 30], "intermediate_size": 5120, "max_num_tiles": 4,
      "model_type": "mllama_vision_model", "norm_eps": 1e-05, "num_channels": 3, "num_global_layers": 8,
      "num_hidden_layers": 32, "patch_size": 14,
      "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]],
      "vision_output_dim": 7680}})";
}

TEST(vision, mllama_11b_by_hand) {
  auto s = parse_config(llama_3_2_11b_vision());
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "895028755");
  // The cross-attention layers' norms and gates (2,064) and the 8 extra embedding rows (32,768).
  EXPECT_EQ(s.value().at("extra_params"), "34832");
  EXPECT_EQ(s.value().at("num_hidden_layers"), "40");
  EXPECT_EQ(s.value().at("tie_word_embeddings"), "off");
  EXPECT_EQ(total_of(s.value()), 10670220835.0);
  // An empty text_config and vision_config take MllamaTextConfig's and MllamaVisionConfig's defaults: the same text
  // model; image 448 gives n = 32^2 + 1 = 1,025 patches, 576 x 1,280 x (1 + 36) = 27,279,360 fewer.
  s = parse_config(R"({"model_type": "mllama", "text_config": {}, "vision_config": {}})");
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "867749395");
  EXPECT_EQ(s.value().at("extra_params"), "34832");
  // 10,642,941,475 = meta-llama/Llama-3.2-11B-Vision (the base checkpoint) parameters_raw in the llmfit registry.
  EXPECT_EQ(total_of(s.value()), 10642941475.0);
  // Llama 3.2 90B Vision's shapes (text h 8,192, 100 layers of which 20 cross-attention, 64 heads, MLP 28,672;
  // projector 7,680 x 8,192 + 8,192): vision 926,490,131, text 87,666,865,192 (no published total was found).
  s = parse_config(R"({"model_type": "mllama", "vision_config": {"image_size": 560},
    "text_config": {"cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38, 43, 48, 53, 58, 63, 68, 73, 78, 83, 88,
      93, 98], "hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64, "num_hidden_layers": 100}})");
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "926490131");
  EXPECT_EQ(total_of(s.value()), 88593355323.0);
  // A cross_attention_layers that is not a list names the setting it feeds.
  s = parse_config(replaced(llama_3_2_11b_vision(), R"("cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38])",
                            R"("cross_attention_layers": 8)"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.errors().front().setting, "extra_params");
  EXPECT_NE(s.errors().front().message.find("text_config field \"cross_attention_layers\""), std::string::npos);
}

// ---- tie_word_embeddings at the top level -----------------------------------------------------------------------
// Nested configs may write tie_word_embeddings once, at the top level: it applies when text_config has none, and
// text_config's own field wins. Qwen3-VL 4B without text_config's field but tied at the top level keeps its count;
// untied at the top level it gains lm_head, 151,936 x 2,560 = 388,956,160.
TEST(vision, top_level_tie_word_embeddings) {
  const std::string untied_text =
      replaced(qwen3_vl_4b(), R"("tie_word_embeddings": true, "use_cache")", R"("use_cache")");
  auto s = parse_config(untied_text);
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("tie_word_embeddings"), "on");  // Qwen3's family default is untied: the top level decided
  EXPECT_EQ(total_of(s.value()), 4437815808.0);
  s = parse_config(replaced(untied_text, R"("tie_word_embeddings": true)", R"("tie_word_embeddings": false)"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("tie_word_embeddings"), "off");
  EXPECT_EQ(total_of(s.value()), 4437815808.0 + 388956160.0);
  // text_config's field wins over the top level's.
  s = parse_config(replaced(qwen3_vl_4b(), R"("tie_word_embeddings": true, "transformers_version")",
                            R"("tie_word_embeddings": false, "transformers_version")"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("tie_word_embeddings"), "on");
  // A top-level value that is not a boolean names the setting.
  s = parse_config(replaced(untied_text, R"("tie_word_embeddings": true)", R"("tie_word_embeddings": "yes")"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.errors().front().setting, "tie_word_embeddings");
}

}  // namespace
