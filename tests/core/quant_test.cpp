// SPDX-License-Identifier: MIT
// Quantised checkpoints (quantization_config), multi-token-prediction layers and vision towers (issue 18, items
// 2-3). Every expectation is summed by hand from the formats' tensor layouts (docs/methodology.md, "Quantised
// checkpoints"; docs/research/models/quant.md) and, where one was found, compared with a published checkpoint size
// (tests/validation/published.json, "checkpoints").
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/config_json.hpp"
#include "llm_memory/dtype.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

// The bytes of the item `name` of the parameters bucket of an inference estimate.
double weights_item(settings s, const std::string& name = "weights") {
  s.emplace("mode", "inference");
  s.emplace("framework", "generic");
  auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors().front()));
  if (!r.ok()) return -1;
  for (const auto& item : r.value().buckets.front().items)
    if (item.name == name) return item.bytes;
  return -2;
}

double layer_bytes(dtype d, layout_params p, double in, double out, double bias = 0, bool routed = false) {
  return layout_linear_bytes(d, p, in, out, bias, routed).value_or(-1);
}

// GPTQ 4-bit, group 128, one Llama 3.1 8B layer [out, in] (AutoGPTQ QuantLinear buffers):
// q 4096x4096: qweight 4 x (4096 x 4 / 32 = 512) x 4096 = 8,388,608; qzeros 4 x 32 groups x 512 = 65,536;
//   scales 2 x 32 x 4096 = 262,144; g_idx 4 x 4096 = 16,384; bias 2 x 4096 = 8,192 -> 8,740,864 (o the same)
// k 4096->1024: 2,097,152 + 4 x 32 x 128 = 16,384 + 2 x 32 x 1024 = 65,536 + 16,384 + 2,048 -> 2,197,504 (v same)
// gate/up 4096->14336: 29,360,128 + 4 x 32 x 1792 = 229,376 + 917,504 + 16,384 + 28,672 -> 30,552,064 each
// down 14336->4096: 4 x 1792 x 4096 = 29,360,128 + 4 x 112 x 512 = 229,376 + 2 x 112 x 4096 = 917,504
//   + 4 x 14336 = 57,344 + 8,192 -> 30,572,544
// Layer: 2 x 8,740,864 + 2 x 2,197,504 + 2 x 30,552,064 + 30,572,544 = 113,553,408.
TEST(quant, gptq_llama31_8b_layer_and_model_by_hand) {
  const layout_params g128{4, 128, 2};
  EXPECT_EQ(layer_bytes(dtype::gptq, g128, 4096, 4096), 8740864);
  EXPECT_EQ(layer_bytes(dtype::gptq, g128, 4096, 1024), 2197504);
  EXPECT_EQ(layer_bytes(dtype::gptq, g128, 4096, 14336), 30552064);
  EXPECT_EQ(layer_bytes(dtype::gptq, g128, 14336, 4096), 30572544);
  // Model: 32 x 113,553,408 = 3,633,709,056 + fp16 embedding, lm_head and norms 2 x (2 x 128,256 x 4,096 + 65 x
  // 4,096) = 2,101,878,784 -> 5,735,587,840.
  EXPECT_EQ(weights_item({{"model", "llama-3.1-8b"}, {"weights_dtype", "gptq"}}), 5735587840.0);
}

// AWQ GEMM 4-bit g128 (AutoAWQ WQLinear_GEMM: qweight [in, out/8] I32, qzeros [in/128, out/8] I32, scales
// [in/128, out] F16, no g_idx, no bias in Llama): q 8,388,608 + 65,536 + 262,144 = 8,716,288; k 2,097,152 + 16,384
// + 65,536 = 2,179,072; gate/up and down 29,360,128 + 229,376 + 917,504 = 30,507,008 each. Layer 2 x 8,716,288 +
// 2 x 2,179,072 + 3 x 30,507,008 = 113,311,744; model 32 x that = 3,625,975,808 + 2,101,878,784 = 5,727,854,592.
TEST(quant, awq_llama31_8b_by_hand) {
  const layout_params g128{4, 128, 2};
  EXPECT_EQ(layer_bytes(dtype::awq, g128, 4096, 4096), 8716288);
  EXPECT_EQ(layer_bytes(dtype::awq, g128, 14336, 4096), 30507008);
  EXPECT_EQ(weights_item({{"model", "llama-3.1-8b"}, {"weights_dtype", "awq"}}), 5727854592.0);
}

// A published GPTQ file: itdevwu/Genz-70b-GPTQ, 3-bit, group_size -1, desc_act, Llama 2 70B shapes, fp16 rest,
// one file of 26,774,982,616 bytes. By hand (G = 1): q 8192->8192: qweight 4 x 768 x 8192 = 25,165,824, qzeros 4 x
// 768 = 3,072, scales 16,384, g_idx 32,768, bias 16,384 -> 25,234,432 (o same); k/v 8192->1024: 3,145,728 + 384 +
// 2,048 + 32,768 + 2,048 = 3,182,976; gate/up 8192->28672: 88,080,384 + 10,752 + 57,344 + 32,768 + 57,344 =
// 88,238,592; down 28672->8192: 4 x 2688 x 8192 = 88,080,384 + 3,072 + 16,384 + 114,688 + 16,384 = 88,230,912.
// Layer 321,542,912; 80 layers 25,723,432,960; fp16 rest 2 x (2 x 32,000 x 8,192 + 161 x 8,192) = 1,051,213,824;
// total 26,774,646,784: 335,832 bytes (0.0013 %) under the file, which also holds the 8-byte length and the JSON
// header of its 2,963 tensors.
TEST(quant, gptq_3bit_llama2_70b_matches_a_published_file) {
  const double computed = weights_item(
      {{"model", "llama-2-70b"}, {"weights_dtype", "gptq"}, {"quant_bits", "3"}, {"quant_group_size", "0"}});
  EXPECT_EQ(computed, 26774646784.0);
  EXPECT_LT(26774982616.0 - computed, 400000) << "the header of 2,963 tensors";
  EXPECT_GT(26774982616.0 - computed, 0);
}

// gpt-oss-20b MXFP4 (transformers integrations/mxfp4.py): only the routed experts are MXFP4, 17 bytes per 32
// values: 24 layers x 32 experts x 3 x 2880 x 2880 = 19,110,297,600 values -> 19,110,297,600 x 17 / 32 =
// 10,152,345,600 B; every other parameter (20,914,757,184 - 19,110,297,600 = 1,804,459,584, the expert biases
// included) in bf16: 3,608,919,168 B. Sum 13,761,264,768 = metadata.total_size of openai/gpt-oss-20b's
// model.safetensors.index.json, to the byte.
TEST(quant, mxfp4_gpt_oss_20b_equals_the_published_index) {
  EXPECT_EQ(weights_item({{"model", "gpt-oss-20b"}, {"weights_dtype", "mxfp4"}}), 13761264768.0);
  // Not an expert: stays 16-bit (layout_linear_bytes declines it).
  EXPECT_FALSE(layout_linear_bytes(dtype::mxfp4, {}, 2880, 4096, 0, false).has_value());
}

// DeepSeek-V3 FP8, 128x128 blocks with an fp32 scale_inv each. Scales per layer, sum of ceil(out/128) x
// ceil(in/128): MLA q_a 12 x 56 = 672, q_b 192 x 12 = 2,304, kv_a 5 x 56 = 280, kv_b 256 x 4 = 1,024, o 56 x 128 =
// 7,168 -> 11,448; dense MLP 3 x 144 x 56 = 24,192; MoE: 257 experts (256 routed + 1 shared) x 3 x 16 x 56 =
// 690,816. 3 dense layers x 35,640 + 58 MoE layers x 702,264 = 40,838,232 scales (+ 702,264 in the MTP layer =
// 41,540,496, the published count's excess over the parameters). Linear weights: attention 11,010,048 +
// 37,748,736 + 4,128,768 + 16,777,216 + 117,440,512 = 187,105,280 per layer; dense MLP 396,361,728; MoE 257 x 3 x
// 7168 x 2048 = 11,318,329,344: 3 x 583,467,008 + 58 x 11,505,434,624 = 669,065,609,216 FP8 bytes. The rest of the
// 671,026,419,200 parameters (embedding, lm_head, norms, routers) is 1,960,809,984 at 2 B. Weights:
// 669,065,609,216 + 4 x 40,838,232 + 2 x 1,960,809,984 = 673,150,582,112.
TEST(quant, fp8_block_deepseek_v3_by_hand) {
  EXPECT_EQ(layer_bytes(dtype::fp8_block, {4, 128, 2}, 7168, 1536), 7168.0 * 1536 + 4 * 672);
  EXPECT_EQ(weights_item({{"model", "deepseek-v3"}, {"weights_dtype", "fp8_block"}}), 673150582112.0);
  // Per-tensor FP8 (no weight_block_size): one fp32 scale per matrix.
  EXPECT_EQ(layer_bytes(dtype::fp8_block, {4, 0, 2}, 4096, 1024), 4096.0 * 1024 + 4);
}

// compressed-tensors W4A16 (pack_quantized): weight_packed I32 [out, in/8], weight_scale bf16 [out, in/128],
// weight_shape I64 [2]: 4096x4096 -> 8,388,608 + 2 x 4096 x 32 = 262,144 + 16 = 8,650,768.
TEST(quant, w4a16_layout_by_hand) {
  EXPECT_EQ(layer_bytes(dtype::w4a16, {4, 128, 2}, 4096, 4096), 8650768);
  // Channel-wise (group 0): one scale per output row: 8,388,608 + 8,192 + 16.
  EXPECT_EQ(layer_bytes(dtype::w4a16, {4, 0, 2}, 4096, 4096), 8396816);
}

settings config_of(const std::string& quantization) {
  const std::string text = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "quantization_config": )" +
                           quantization + "}";
  auto r = parse_config(text);
  EXPECT_TRUE(r.ok()) << quantization << (r.ok() ? "" : to_string(r.errors().front()));
  return r.ok() ? r.value() : settings{};
}

std::string error_of(const std::string& quantization) {
  auto r = parse_config(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "quantization_config": )" +
                        quantization + "}");
  if (r.ok()) return "";
  return r.errors().front().setting + ": " + r.errors().front().message;
}

TEST(quant, quantization_config_becomes_settings) {
  auto s = config_of(R"({"quant_method": "gptq", "bits": 3, "group_size": -1, "desc_act": true})");
  EXPECT_EQ(s["weights_dtype"], "gptq");
  EXPECT_EQ(s["quant_bits"], "3");
  EXPECT_EQ(s["quant_group_size"], "0");
  s = config_of(R"({"quant_method": "awq", "w_bit": 4, "q_group_size": 64, "version": "GEMM", "zero_point": true})");
  EXPECT_EQ(s["weights_dtype"], "awq");
  EXPECT_EQ(s["quant_group_size"], "64");
  s = config_of(R"({"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]})");
  EXPECT_EQ(s["weights_dtype"], "fp8_block");
  EXPECT_EQ(s["quant_group_size"], "128");
  // Per-tensor FP8: quant_method fp8 without weight_block_size (transformers FineGrainedFP8 / vLLM Fp8Config: one
  // weight_scale per tensor), and NVIDIA ModelOpt's quant_algo FP8, flat or under "quantization" (vLLM modelopt.py
  // ModelOptFp8Config.from_config).
  s = config_of(R"({"quant_method": "fp8", "activation_scheme": "static"})");
  EXPECT_EQ(s["weights_dtype"], "fp8_block");
  EXPECT_EQ(s["quant_group_size"], "0");
  for (const char* q : {R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"})",
                        R"({"quant_method": "modelopt", "quantization": {"quant_algo": "FP8"}})"}) {
    s = config_of(q);
    EXPECT_EQ(s["weights_dtype"], "fp8_block") << q;
    EXPECT_EQ(s["quant_group_size"], "0") << q;
  }
  s = config_of(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "lm_head"]})");
  EXPECT_EQ(s["weights_dtype"], "mxfp4");
  s = config_of(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "fp4",
                    "bnb_4bit_use_double_quant": true})");
  EXPECT_EQ(s["weights_dtype"], "nf4");
  EXPECT_EQ(s["double_quant"], "on");
  s = config_of(R"({"load_in_8bit": true})");
  EXPECT_EQ(s["weights_dtype"], "int8");
  s = config_of(R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"group_0":
      {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "group",
      "group_size": 128}}}, "ignore": ["lm_head"]})");
  EXPECT_EQ(s["weights_dtype"], "w4a16");
  EXPECT_EQ(s["quant_bits"], "4");
  EXPECT_EQ(s["quant_group_size"], "128");
}

TEST(quant, unknown_or_unmodelled_formats_name_weights_dtype) {
  EXPECT_NE(error_of(R"({"quant_method": "hqq"})").find("weights_dtype: config.json quantization_config"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"quant_method": "hqq"})").find("\"hqq\""), std::string::npos);
  EXPECT_NE(error_of(R"({"quant_method": "awq", "version": "gemv"})").find("gemv"), std::string::npos);
  EXPECT_NE(error_of(R"({"quant_method": "gptq", "bits": 16})").find("bits"), std::string::npos);
  EXPECT_NE(error_of(R"({"quant_method": "fp8", "weight_block_size": [128, 64]})").find("square"), std::string::npos);
  EXPECT_NE(error_of(R"({"quant_method": "compressed-tensors", "format": "float-quantized"})").find("float-quantized"),
            std::string::npos);
  EXPECT_NE(error_of(R"("gptq")").find("object"), std::string::npos);
  EXPECT_NE(error_of(R"({"quant_method": "modelopt", "quant_algo": "NVFP4"})").find("modelopt quant_algo \"nvfp4\""),
            std::string::npos);
  // Full training of a quantised checkpoint as stored is refused, naming weights_dtype.
  auto r = resolve({}, config_of(R"({"quant_method": "gptq", "bits": 4, "group_size": 128})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().setting, "weights_dtype");
}

// DeepSeek-V3's multi-token-prediction module (num_nextn_predict_layers 1): one more MoE layer + enorm, hnorm,
// shared_head.norm (3 x 7,168) + eh_proj 2 x 7,168^2 = 102,760,448 + its own embedding and head 2 x 129,280 x
// 7,168 = 1,853,358,080. The MoE layer: MLA attention 187,105,280 + norms q_a 1,536 + kv_a 512 = 187,107,328;
// experts and shared expert 11,318,329,344; router 256 x 7,168 + 256 bias = 1,835,264; two RMSNorms 14,336:
// 11,507,286,272. MTP = 11,507,286,272 + 21,504 + 102,760,448 + 1,853,358,080 = 13,463,426,304; with the 61-layer
// model's 671,026,419,200 the checkpoint holds 684,489,845,504 parameters (the Hub's 684,531,386,000 adds the
// 41,540,496 FP8 scales). Runtimes load the 61 layers only (vLLM: the MTP layer only for speculative decoding).
TEST(mtp, deepseek_v3_counts_the_module_apart) {
  auto r = resolve({{"model", "deepseek-v3"}});
  ASSERT_TRUE(r.ok());
  const auto& p = r.value().model.params;
  EXPECT_EQ(p.mtp, 13463426304.0);
  EXPECT_EQ(p.total, 684489845504.0);
  EXPECT_EQ(r.value().params, 671026419200.0) << "loaded: no MTP";
  // The same model without the field: no MTP part.
  auto plain = resolve({{"model", "deepseek-v3"}, {"num_nextn_predict_layers", "0"}});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.value().model.params.total, 671026419200.0);
}

// Gemma 3 4B: the SigLIP tower (27 x 15,239,504 + patch conv 678,528 + 4,096 x 1,152 positions + post-LayerNorm
// 2,304 = 416,866,032) and the projector (1,152 x 2,560 + 1,152 = 2,950,272): 419,816,304, its own part. With the
// text model 3,880,263,168: 4,300,079,472 = safetensors total of google/gemma-3-4b-it.
TEST(vision, gemma3_tower_is_its_own_part_and_the_total_is_official) {
  auto r = resolve({{"model", "gemma-3-4b-pt"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.vision, 419816304.0);
  EXPECT_EQ(r.value().model.params.total, 4300079472.0);
  // The parameters bucket shows it as "vision tower", 2 B each in bf16.
  EXPECT_EQ(weights_item({{"model", "gemma-3-4b-pt"}}, "vision tower"), 2 * 419816304.0);
  EXPECT_EQ(weights_item({{"model", "gemma-3-4b-pt"}}, "weights"), 2 * 3880263168.0);
}

// LLaVA 1.5 7B (llava-hf/llava-1.5-7b-hf config, CLIP ViT-L/14-336): class embedding 1,024 + patch conv 3 x 14 x 14
// x 1,024 = 602,112 + 577 x 1,024 positions = 590,848 -> 1,193,984; pre/post LayerNorms 4,096; 24 layers x
// (4 x (1,024^2 + 1,024) + 1,024 x 4,096 + 4,096 + 4,096 x 1,024 + 1,024 + 4,096) = 24 x 12,596,224 =
// 302,309,376; projector 1,024 x 4,096 + 4,096 x 4,096 + 2 x 4,096 = 20,979,712: 324,487,168. Text: Llama 2 7B
// with 32,064 tokens: 6,738,415,616 + 2 x 64 x 4,096 = 6,738,939,904. Total 7,063,427,072 = sum(p.numel()) of
// LlavaForConditionalGeneration for that config (quoted in public code, docs/models.md).
TEST(vision, llava_clip_tower_by_hand) {
  const std::string text = R"({"architectures": ["LlavaForConditionalGeneration"], "model_type": "llava",
    "text_config": {"architectures": ["LlamaForCausalLM"], "max_position_embeddings": 4096, "model_type": "llama",
      "rms_norm_eps": 1e-05, "torch_dtype": "float16", "vocab_size": 32064},
    "tie_word_embeddings": false, "torch_dtype": "float16",
    "vision_config": {"hidden_size": 1024, "image_size": 336, "intermediate_size": 4096,
      "model_type": "clip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 24, "patch_size": 14,
      "projection_dim": 768, "vocab_size": 32000},
    "vision_feature_layer": -2, "vision_feature_select_strategy": "default", "vocab_size": 32064})";
  auto s = parse_config(text);
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "324487168");
  auto r = resolve({{"mode", "inference"}}, s.value());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.total, 7063427072.0);
}

// Mistral Small 3.1 / 3.2 (Mistral3ForConditionalGeneration; the config as in Mistral3Config's defaults and in
// NVIDIA/TensorRT-LLM@56851033:tests/unittest/_torch/modeling/test_modeling_mistral.py, 40 text layers).
// Pixtral (modeling_pixtral.py): patch conv 1,024 x 3 x 14 x 14 = 602,112; ln_pre 1,024; 24 layers x (q/k/v/o
// 4 x 1,024^2 = 4,194,304 + gate/up/down 3 x 1,024 x 4,096 = 12,582,912 + two RMSNorms 2,048) = 24 x 16,779,264 =
// 402,702,336 -> 403,305,472. Projector (modeling_mistral3.py): norm 1,024 + merging_layer 4 x 1,024 x 1,024 =
// 4,194,304 + linear_1 1,024 x 5,120 = 5,242,880 + linear_2 5,120^2 = 26,214,400 (no biases) = 35,652,608.
// Vision 438,958,080. Text (Mistral, untied): 2 x 131,072 x 5,120 = 1,342,177,280 + 40 x (attention 52,428,800 +
// MLP 3 x 5,120 x 32,768 = 503,316,480 + 10,240) = 22,230,220,800 + 5,120 = 23,572,403,200 (the text-only
// Mistral-Small-24B-2501 count). Total 24,011,361,280 = mistralai/Mistral-Small-3.2-24B-Instruct-2506 num_params
// in debaditc/kvfit@bd4ccabf914323ee9831bc4dfae6bff777aa7966:src/kvfit/data/models.json.
const std::string pixtral_vision = R"({"attention_dropout": 0.0, "head_dim": 64, "hidden_act": "silu",
  "hidden_size": 1024, "image_size": 1540, "initializer_range": 0.02, "intermediate_size": 4096, "model_type": "pixtral",
  "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 24, "patch_size": 14, "rope_theta": 10000.0})";

std::string mistral_small_3(const std::string& vision = pixtral_vision) {
  return R"({"architectures": ["Mistral3ForConditionalGeneration"], "image_token_index": 10,
  "model_type": "mistral3", "multimodal_projector_bias": false, "projector_hidden_act": "gelu",
  "spatial_merge_size": 2,
  "text_config": {"attention_dropout": 0.0, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
    "initializer_range": 0.02, "intermediate_size": 32768, "max_position_embeddings": 131072, "model_type": "mistral",
    "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
    "rope_theta": 1000000000.0, "sliding_window": null, "use_cache": true, "vocab_size": 131072},
  "torch_dtype": "bfloat16", "vision_config": )" +
         vision + R"(, "vision_feature_layer": -1})";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(vision, mistral3_pixtral_tower_by_hand) {
  auto s = parse_config(mistral_small_3());
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "438958080");
  auto r = resolve({{"mode", "inference"}}, s.value());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.vision, 438958080.0);
  EXPECT_EQ(r.value().model.params.total, 24011361280.0);
  // Projector biases on: linear_1 and linear_2 each gain 5,120.
  s = parse_config(
      replaced(mistral_small_3(), R"("multimodal_projector_bias": false)", R"("multimodal_projector_bias": true)"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("vision_params"), "438968320");
  // No spatial merge: merging_layer is 1,024 x 1,024 = 1,048,576, 3,145,728 fewer.
  s = parse_config(replaced(mistral_small_3(), R"("spatial_merge_size": 2)", R"("spatial_merge_size": 1)"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("vision_params"), "435812352");
  // Two feature layers concatenated: linear_1 doubles its input, + 5,242,880.
  s = parse_config(replaced(mistral_small_3(), R"("vision_feature_layer": -1)", R"("vision_feature_layer": [-1, -2])"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("vision_params"), "444200960");
  // An empty vision_config takes PixtralVisionConfig's defaults (patch 16): patch conv 786,432, 184,320 more.
  s = parse_config(mistral_small_3("{}"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("vision_params"), "439142400");
}

TEST(vision, mistral3_refuses_what_it_does_not_model) {
  auto s =
      parse_config(replaced(mistral_small_3(), R"("model_type": "pixtral")", R"("model_type": "siglip_vision_model")"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.errors().front().setting, "vision_params");
  EXPECT_NE(s.errors().front().message.find("siglip_vision_model"), std::string::npos);
  s = parse_config(replaced(mistral_small_3(), R"("spatial_merge_size": 2)", R"("spatial_merge_size": 0)"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.errors().front().setting, "vision_params");
  EXPECT_NE(s.errors().front().message.find("spatial_merge_size"), std::string::npos);
}

// Pixtral 12B's transformers port (LlavaForConditionalGeneration around a Pixtral encoder; its vision_config lists
// only what differs from PixtralVisionConfig). Pixtral: patch conv 1,024 x 3 x 16 x 16 = 786,432 + ln_pre 1,024 +
// 402,702,336 (layers as above) = 403,489,792; LLaVA projector with biases 1,024 x 5,120 + 5,120 + 5,120^2 + 5,120 =
// 31,467,520: vision 434,957,312. Text: Mistral NeMo (vocab 131,072, 40 layers, MLP 14,336) 12,247,782,400. Total
// 12,682,739,712 = mistral-experimental/pixtral-12b parameters_raw in
// AlexsJones/llmfit@a3e0eb27c57fe05298292f4c61699b9aed2824ea:llmfit-core/data/hf_models.json.
TEST(vision, llava_pixtral_tower_by_hand) {
  const std::string text = R"({"architectures": ["LlavaForConditionalGeneration"], "image_token_index": 10,
    "model_type": "llava", "projector_hidden_act": "gelu",
    "text_config": {"hidden_size": 5120, "head_dim": 128, "intermediate_size": 14336, "model_type": "mistral",
      "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
      "rope_theta": 1000000000.0, "sliding_window": null, "vocab_size": 131072},
    "vision_config": {"head_dim": 64, "hidden_act": "silu", "image_size": 1024, "model_type": "pixtral",
      "patch_size": 16, "rope_theta": 10000.0, "tie_word_embeddings": false},
    "vision_feature_layer": -1, "vision_feature_select_strategy": "full"})";
  auto s = parse_config(text);
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "434957312");
  auto r = resolve({{"mode", "inference"}}, s.value());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.total, 12682739712.0);
}

// Qwen2-VL and Qwen2.5-VL keep the language model (Qwen2's) at the top level of config.json. The 7B text model:
// embeddings 2 x 152,064 x 3,584 = 1,089,994,752 + 28 x (q 3,584^2 + 3,584 + k, v 2 x (3,584 x 512 + 512) + o
// 3,584^2 = 29,364,736 + MLP 3 x 3,584 x 18,944 = 203,685,888 + norms 7,168) = 6,525,618,176 + 3,584 = 7,615,616,512.
std::string qwen_vl_7b(const std::string& type, const std::string& vision) {
  return R"({"architectures": ["Qwen2VLForConditionalGeneration"], "attention_dropout": 0.0, "hidden_act": "silu",
    "hidden_size": 3584, "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
    "model_type": ")" +
         type + R"(", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": false,
    "use_sliding_window": false, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vocab_size": 152064, "vision_config": )" +
         vision + "}";
}

// Qwen2-VL 7B (modeling_qwen2_vl.py): Conv3d 1,280 x 3 x 2 x 14 x 14 = 1,505,280; 32 blocks x (LayerNorms 5,120 +
// qkv 1,280 x 3,840 + 3,840 = 4,919,040 + proj 1,639,680 + fc1 1,280 x 5,120 + 5,120 = 6,558,720 + fc2 5,120 x
// 1,280 + 1,280 = 6,554,880) = 32 x 19,677,440 = 629,678,080; merger ln_q 2,560 + 5,120^2 + 5,120 = 26,219,520 +
// 5,120 x 3,584 + 3,584 = 18,353,664 -> 44,575,744. Vision 675,759,104; total 8,291,375,616 = Qwen/Qwen2-VL-7B-Instruct
// parameters_raw in AlexsJones/llmfit@a3e0eb27c57fe05298292f4c61699b9aed2824ea:llmfit-core/data/hf_models.json.
TEST(vision, qwen2_vl_tower_by_hand) {
  auto s = parse_config(qwen_vl_7b("qwen2_vl", R"({"depth": 32, "embed_dim": 1280, "mlp_ratio": 4, "num_heads": 16,
    "in_chans": 3, "hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2, "spatial_patch_size": 14,
    "temporal_patch_size": 2})"));
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "675759104");
  auto r = resolve({{"mode", "inference"}}, s.value());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.total, 8291375616.0);
  // Qwen2VLVisionConfig's defaults are the 7B's tower.
  s = parse_config(qwen_vl_7b("qwen2_vl", "{}"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().at("vision_params"), "675759104");
}

// Qwen2.5-VL 7B (modeling_qwen2_5_vl.py): Conv3d 1,505,280; 32 blocks x (RMSNorms 2,560 + qkv 4,919,040 + proj
// 1,639,680 + gate, up 2 x (1,280 x 3,420 + 3,420) = 8,762,040 + down 3,420 x 1,280 + 1,280 = 4,378,880) = 32 x
// 19,702,200 = 630,470,400; merger ln_q 1,280 + 26,219,520 + 18,353,664 = 44,574,464. Vision 676,550,144; total
// 8,292,166,656 = Qwen/Qwen2.5-VL-7B-Instruct parameters_raw in the llmfit registry above.
const std::string qwen2_5_vision = R"({"depth": 32, "hidden_act": "silu", "hidden_size": 1280,
  "intermediate_size": 3420, "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584, "patch_size": 14,
  "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31],
  "tokens_per_second": 2, "temporal_patch_size": 2})";

TEST(vision, qwen2_5_vl_tower_by_hand) {
  auto s = parse_config(qwen_vl_7b("qwen2_5_vl", qwen2_5_vision));
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "676550144");
  auto r = resolve({{"mode", "inference"}}, s.value());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.total, 8292166656.0);
  // Qwen2.5-VL 3B, in the nested layout newer transformers write: text Qwen2.5-3B (tied) 151,936 x 2,048 =
  // 311,164,928 + 36 x (attention 9,439,744 + MLP 3 x 2,048 x 11,008 = 67,633,152 + 4,096) + 2,048 =
  // 3,085,938,688; the tower's merger ends at 2,048: 5,120 x 2,048 + 2,048 = 10,487,808 instead of 18,353,664, so
  // vision 668,684,288. Total 3,754,622,976 = Qwen/Qwen2.5-VL-3B-Instruct parameters_raw in the llmfit registry.
  std::string vision_3b = qwen2_5_vision;
  vision_3b.replace(vision_3b.find("3584"), 4, "2048");
  s = parse_config(R"({"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
    "text_config": {"model_type": "qwen2_5_vl_text", "hidden_size": 2048, "intermediate_size": 11008,
      "num_attention_heads": 16, "num_hidden_layers": 36, "num_key_value_heads": 2, "tie_word_embeddings": true,
      "use_sliding_window": false, "vocab_size": 151936},
    "vision_config": )" +
                   vision_3b + "}");
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "668684288");
  r = resolve({{"mode", "inference"}}, s.value());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.total, 3754622976.0);
  // A field that is not a whole number names vision_params.
  s = parse_config(qwen_vl_7b("qwen2_5_vl", R"({"depth": 1.5})"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.errors().front().setting, "vision_params");
}

// Llama 4 Scout and Maverick (Llama4ForConditionalGeneration; text_config as debaditc/kvfit's registry records
// Scout's, vision_config as the checkpoints'). Vision (modeling_llama4.py): patch Linear 3 x 14^2 x 1,408 = 827,904
// + class embedding 1,408 + (24^2 + 1) x 1,408 = 812,416 positions + pre/post LayerNorms 5,632; 34 layers x
// (q/k/v/o 4 x (1,408^2 + 1,408) = 7,935,488 + fc1 / fc2 1,408 x 5,632 x 2 + 5,632 + 1,408 = 15,866,752 +
// LayerNorms 5,632) = 34 x 23,807,872 = 809,467,648; adapter 5,632 x 4,096 + 4,096^2 = 39,845,888; projector
// 4,096 x 5,120 = 20,971,520: 871,932,416. Scout's text 107,769,861,120 -> 108,641,793,536 = meta-llama/
// Llama-4-Scout-17B-16E-Instruct num_params in debaditc/kvfit@bd4ccabf914323ee9831bc4dfae6bff777aa7966:
// src/kvfit/data/models.json; Maverick (128 experts on every 2nd layer) 400,711,848,960 -> 401,583,781,376 =
// meta-llama/Llama-4-Maverick-17B-128E-Instruct parameters_raw in
// AlexsJones/llmfit@a3e0eb27c57fe05298292f4c61699b9aed2824ea:llmfit-core/data/hf_models.json.
std::string llama4(const std::string& experts) {
  return R"({"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
    "text_config": {"model_type": "llama4_text", "tie_word_embeddings": false, "attention_chunk_size": 8192,
      "head_dim": 128, "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
      "num_attention_heads": 40, "num_experts_per_tok": 1, "num_hidden_layers": 48, "num_key_value_heads": 8,
      "vocab_size": 202048, )" +
         experts + R"(},
    "vision_config": {"attention_dropout": 0.0, "hidden_act": "gelu", "hidden_size": 1408, "image_size": 336,
      "intermediate_size": 5632, "model_type": "llama4_vision_model", "multi_modal_projector_bias": false,
      "norm_eps": 1e-05, "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 34, "patch_size": 14,
      "pixel_shuffle_ratio": 0.5, "projector_dropout": 0.0, "projector_input_dim": 4096, "projector_output_dim": 4096,
      "rope_theta": 10000, "vision_feature_layer": -1, "vision_feature_select_strategy": "default",
      "vision_output_dim": 4096}})";
}

TEST(vision, llama4_tower_by_hand) {
  auto s = parse_config(llama4(R"("num_local_experts": 16, "interleave_moe_layer_step": 1)"));
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  EXPECT_EQ(s.value().at("vision_params"), "871932416");
  auto r = resolve({{"mode", "inference"}}, s.value());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.total, 108641793536.0);
  s = parse_config(llama4(R"("num_local_experts": 128, "interleave_moe_layer_step": 2)"));
  ASSERT_TRUE(s.ok()) << to_string(s.errors().front());
  r = resolve({{"mode", "inference"}}, s.value());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().model.params.total, 401583781376.0);
}

}  // namespace
