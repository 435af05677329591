// SPDX-License-Identifier: MIT
// quant_skip_layers: the layers a quantised checkpoint keeps 16-bit whole, read from quantization_config's skip lists
// (vLLM fp8.py Fp8Config.from_config: ignored_layers, else modules_to_not_convert; compressed_tensors/utils.py: ignore,
// names or "re:" regexes; modelopt.py ModelOptQuantConfigBase.from_config: exclude_modules nested, ignore flat, with
// fnmatch wildcards) and counted by the checkpoint layout at 2 B a value without scales (estimate/weights.cpp
// store_layout). Every byte figure below is summed by hand from the shapes (docs/methodology.md, "Quantised
// checkpoints").
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

double weights_of(settings s) {
  s.emplace("mode", "inference");
  return item(estimated(s), "weights");
}

// Nemotron 3 Nano 30B-A3B FP8 (hidden 2,688; 32 heads and 2 KV heads of 128; Mamba-2 64 heads of 64, 8 groups, state
// 128): the 6 attention blocks (5, 12, 19, 26, 33, 42) and the 6 Mamba blocks before them (4, 11, 18, 25, 32, 41) stay
// bf16. Their linears: attention q, k, v, o = 2,688 x (4,096 + 256 + 256 + 4,096) = 23,396,352; Mamba in_proj
// 2,688 x (2 x 4,096 + 2 x 8 x 128 + 64) = 27,697,152 and out_proj 4,096 x 2,688 = 11,010,048. Kept 16-bit they take
// 2 B a weight instead of 1 B plus one fp32 scale per linear (36 linears):
// 6 x (23,396,352 + 38,707,200) - 36 x 4 = 372,621,312 - 144 = 372,621,168 B more.
TEST(quant_skip_layers, nano_30b_fp8_keeps_attention_and_the_mamba_before_it_16_bit) {
  const std::string model = "nvidia-nemotron-3-nano-30b-a3b-fp8";
  const run_spec r = test::resolved({{"model", model}, {"mode", "inference"}});
  EXPECT_EQ(r.values.weights_dtype, "fp8_block");
  EXPECT_EQ(r.values.quant_skip_layers, "4,5,11,12,18,19,25,26,32,33,41,42");
  const double kept = weights_of({{"model", model}});
  const double none = weights_of({{"model", model}, {"quant_skip_layers", ""}});
  EXPECT_EQ(6 * (23396352.0 + 27697152.0 + 11010048.0) - 36 * 4, 372621168.0);
  EXPECT_EQ(kept - none, 372621168.0);
  // The whole checkpoint: the count (31,577,940,288, the BF16 preset's) at 2 B, less 1 B for each FP8 weight, plus
  // one fp32 scale per FP8 linear. FP8: 23 MoE blocks' 128 routed experts (up, down 2,688 x 1,856 = 4,988,928 each)
  // and shared expert (2,688 x 3,712 = 9,977,856 each), 17 Mamba blocks' in_proj and out_proj (38,707,200):
  // 29,374,808,064 + 458,981,376 + 658,022,400 = 30,491,811,840 weights in 23 x 256 + 23 x 2 + 17 x 2 = 5,968 linears.
  // The Hub's safetensors.total of the repo (tests/validation/published.json: 31,577,946,256 values) is that count
  // plus exactly those 5,968 scales; published.json records no total_size in bytes to compare with.
  EXPECT_EQ(23 * 256 * 4988928.0 + 23 * 2 * 9977856.0 + 17 * 38707200.0, 30491811840.0);
  EXPECT_EQ(31577940288.0 + 5968, 31577946256.0);
  EXPECT_EQ(kept, 2 * 31577940288.0 - 30491811840.0 + 4 * 5968.0);
  EXPECT_EQ(kept, 32664092608.0);
}

// Nemotron 3 Nano 4B FP8 (hidden 3,136): 21 Mamba-2 blocks (in_proj 3,136 x 17,504 = 54,892,544, out_proj 7,680 x
// 3,136 = 24,084,480), 4 attention and 17 MLP blocks (up, down 3,136 x 12,544 = 39,337,984 each); the count
// 3,973,556,832 (presets_2026_test.cpp). Kept 16-bit: attention 12, 17, 24, 32 and Mamba 11, 16, 23, 31. FP8: 17 Mamba
// blocks (78,977,024) and 17 MLP blocks (78,675,968) = 2,680,100,864 weights in 68 linears, one fp32 scale each:
// 2 x 3,973,556,832 - 2,680,100,864 + 68 x 4 = 5,267,013,072 B.
TEST(quant_skip_layers, nano_4b_fp8_total_by_hand) {
  EXPECT_EQ(17 * (54892544.0 + 24084480.0) + 17 * 2 * 39337984.0, 2680100864.0);
  EXPECT_EQ(2 * 3973556832.0 - 2680100864.0 + 68 * 4, 5267013072.0);
  EXPECT_EQ(weights_of({{"model", "nvidia-nemotron-3-nano-4b-fp8"}}), 5267013072.0);
  EXPECT_EQ(
      test::resolved({{"model", "nvidia-nemotron-3-nano-4b-fp8"}, {"mode", "inference"}}).values.quant_skip_layers,
      "11,12,16,17,23,24,31,32");
}

std::string first_error(const settings& s) {
  const auto r = resolve(s);
  return r.ok() ? "(none)" : r.errors().front().setting + ": " + r.errors().front().message;
}

TEST(quant_skip_layers, errors_name_the_setting) {
  const settings base{{"model", "nvidia-nemotron-3-nano-4b-fp8"}, {"mode", "inference"}};
  settings s = base;
  s["quant_skip_layers"] = "abc";
  EXPECT_EQ(first_error(s),
            "quant_skip_layers: must list layer indices from 0 to num_hidden_layers - 1 (41), "
            "comma-separated, got \"abc\"");
  s["quant_skip_layers"] = "3,42";  // 42 layers: 0 to 41
  EXPECT_EQ(first_error(s).substr(0, 18), "quant_skip_layers:");
  s["quant_skip_layers"] = "-1";
  EXPECT_EQ(first_error(s).substr(0, 18), "quant_skip_layers:");
  s["quant_skip_layers"] = " 41, 0,0 ";  // spaces and repeats are fine
  EXPECT_EQ(first_error(s), "(none)");
}

settings config_with(const std::string& quantization) {
  auto r = parse_config(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "vocab_size": 100, "quantization_config": )" +
                        quantization + "}");
  EXPECT_TRUE(r.ok()) << quantization << (r.ok() ? "" : to_string(r.errors().front()));
  return r.ok() ? r.value() : settings{};
}

std::string skips_of(const std::string& quantization) {
  const settings s = config_with(quantization);
  const auto it = s.find("quant_skip_layers");
  return it == s.end() ? "(unset)" : it->second;
}

// fp8: ignored_layers, else modules_to_not_convert. A MoE router ("mlp.gate"), lm_head and a layer past
// num_hidden_layers (4) name no layer the layout would quantise.
TEST(quant_skip_layers, fp8_ignored_layers) {
  EXPECT_EQ(skips_of(R"({"quant_method": "fp8", "weight_block_size": [128, 128], "ignored_layers": ["lm_head",
      "model.layers.2.self_attn.q_proj", "model.layers.2.self_attn.k_proj", "model.layers.0.mlp.gate",
      "model.layers.1.mlp.down_proj", "model.layers.7.self_attn.q_proj"]})"),
            "1,2");
  EXPECT_EQ(skips_of(R"({"quant_method": "fp8", "modules_to_not_convert": ["model.layers.3.mlp.up_proj"]})"), "3");
  EXPECT_EQ(skips_of(R"({"quant_method": "fp8", "modules_to_not_convert": ["lm_head"]})"), "(unset)");
  // Qwen3.5 / 3.6 FP8 keep Gated DeltaNet's narrow in_proj_a / in_proj_b and the vision tower bf16: no whole layer.
  EXPECT_EQ(skips_of(R"({"quant_method": "fp8", "modules_to_not_convert": ["model.visual.blocks.0.attn.qkv",
      "model.language_model.layers.0.linear_attn.in_proj_a", "model.language_model.layers.0.linear_attn.in_proj_b",
      "model.language_model.layers.1.mlp.shared_expert_gate", "mtp.layers.0.self_attn.q_proj"]})"),
            "(unset)");
}

// compressed-tensors (W4A16 pack-quantized): ignore, a name or a "re:" regex with a literal layer index; a regex
// with no literal index ("re:.*mlp.gate$") maps to no layer.
TEST(quant_skip_layers, compressed_tensors_ignore_with_a_regex) {
  EXPECT_EQ(skips_of(R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups":
      {"group_0": {"weights": {"type": "int", "num_bits": 4, "symmetric": true, "strategy": "group",
      "group_size": 128}, "targets": ["Linear"]}}, "ignore": ["lm_head", "re:model\\.layers\\.3\\..*",
      "re:.*mlp.gate$", "model.layers.0.self_attn.o_proj"]})"),
            "0,3");
}

// ModelOpt FP8: exclude_modules under "quantization" (hf_quant_config.json's form), with trailing `*` wildcards;
// ignore in the flat form. Mamba's conv1d, which ModelOpt lists too, is 16-bit in every layout already.
TEST(quant_skip_layers, modelopt_exclude_modules_with_wildcards) {
  EXPECT_EQ(skips_of(R"({"quant_method": "modelopt", "quantization": {"quant_algo": "FP8",
      "exclude_modules": ["lm_head", "model.layers.1*", "model.layers.2.mixer.conv1d"]}})"),
            "1");
  EXPECT_EQ(skips_of(R"({"quant_method": "modelopt", "quant_algo": "FP8", "ignore": ["model.layers.0.*",
      "model.layers.3.self_attn.v_proj"]})"),
            "0,3");
}

// A skipped layer's linears at 2 B and no scale, in a small FP8 model: Llama, hidden 64, 4 layers of 4 heads, MLP
// 4 x 64 = 256 (plain), vocab 100. One layer's linears: q, k, v, o 4 x 64 x 64 = 16,384 and up, down 2 x 64 x 256 =
// 32,768: 49,152, six linears. Per-tensor FP8: 49,152 x 1 + 6 x 4 = 49,176 B a layer; kept 16-bit 98,304 B.
TEST(quant_skip_layers, a_small_model_by_hand) {
  settings s = config_with(R"({"quant_method": "fp8", "ignored_layers": ["model.layers.1.self_attn.q_proj"]})");
  s["mode"] = "inference";
  s["mlp"] = "plain";
  s["intermediate_size"] = "256";
  const double with = item(estimated(s), "weights");
  s["quant_skip_layers"] = "";
  const double without = item(estimated(s), "weights");
  EXPECT_EQ(with - without, 2 * 49152.0 - (49152.0 + 6 * 4));
  s["quant_skip_layers"] = "0,1,2,3";
  EXPECT_EQ(item(estimated(s), "weights") - without, 4 * (2 * 49152.0 - 49176.0));
}

}  // namespace
