// SPDX-License-Identifier: MIT
// Issue 32, Falcon-H1: attention and Mamba-2 side by side in every layer (layers/attention_mamba.cpp). Every number
// is summed by hand from transformers' modeling_falcon_h1.py (docs/models.md, "Falcon-H1") and checked against the
// checkpoint's published total.
#include <gtest/gtest.h>

#include "run_support.hpp"

#include <string>
#include <utility>

#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::estimated;
using test::item;
using test::resolved;

// tiiuae/Falcon-H1-0.5B-Base's config.json (the fields that size it).
const std::string falcon_0_5b = R"({"architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1",
    "hidden_size": 1024, "intermediate_size": 2048, "num_hidden_layers": 36, "num_attention_heads": 8,
    "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 32784, "attention_bias": false, "mlp_bias": false,
    "mamba_d_ssm": 1536, "mamba_n_heads": 24, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_n_groups": 1,
    "mamba_d_conv": 4, "mamba_expand": 2, "mamba_chunk_size": 128, "mamba_conv_bias": true,
    "mamba_proj_bias": false, "mamba_rms_norm": false, "projectors_bias": false, "tie_word_embeddings": false})";

// Falcon-H1-0.5B, per layer: attention q 1,024 x 512 = 524,288, k and v 1,024 x 128 each = 262,144, o 524,288
// (1,310,720); Mamba-2 inner 24 x 64 = 1,536, conv_dim 1,536 + 2 x 128 = 1,792, in_proj 1,024 x (1,536 + 1,792 + 24)
// = 3,432,448, conv1d 1,792 x 4 + 1,792 bias = 8,960, dt_bias, A_log, D 3 x 24 = 72, no gated norm
// (mamba_rms_norm false), out_proj 1,536 x 1,024 = 1,572,864 (5,014,344); SwiGLU 3 x 1,024 x 2,048 = 6,291,456;
// input_layernorm and pre_ff_layernorm 2,048: 12,618,568 x 36 = 454,268,448. Embedding and untied lm_head
// 2 x 32,784 x 1,024 = 67,141,632, final norm 1,024: 521,411,104, the published count.
TEST(families_hybrid2, falcon_h1_0_5b_by_hand) {
  auto config = parse_config(falcon_0_5b);
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  EXPECT_EQ(config.value().at("layer_types"), "attention_mamba");
  EXPECT_EQ(config.value().at("mamba_norm"), "off");
  const run_spec r = resolved({}, config.value());
  EXPECT_EQ(r.model.params.total, 521411104.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention_mamba, 36), 36);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 36), 0);
  EXPECT_EQ(resolved({{"model", "falcon-h1-0.5b-base"}}).model.params.total, 521411104.0);
  EXPECT_EQ(resolved({{"model", "tiiuae/Falcon-H1-0.5B-Instruct"}}).model.params.total, 521411104.0);
}

// Falcon-H1-1.5B: attention (head_dim 128) 2,048 x 1,024 x 2 + 2,048 x 256 x 2 = 5,242,880; Mamba-2 inner 48 x 64 =
// 3,072, conv_dim 3,584, in_proj 2,048 x (3,072 + 3,584 + 48) = 13,729,792, conv1d 3,584 x 5 = 17,920, 3 x 48 = 144,
// gated norm 3,072, out_proj 6,291,456 (20,042,384); SwiGLU 3 x 2,048 x 4,608 = 28,311,552; norms 4,096:
// 53,600,912 x 24 = 1,286,421,888; untied embeddings 2 x 65,537 x 2,048 = 268,439,552; final norm 2,048:
// 1,554,863,488. Falcon-H1-7B: attention 3,072 x 1,536 x 2 + 3,072 x 256 x 2 = 11,010,048; Mamba-2 (24 x 128 =
// 3,072, conv_dim 3,584, in_proj 3,072 x 6,680 = 20,520,960, conv1d 17,920, 72, norm 3,072, out_proj 9,437,184)
// 29,979,208; SwiGLU 3 x 3,072 x 12,288 = 113,246,208; norms 6,144: 154,241,608 x 44 = 6,786,630,752; embeddings
// 2 x 130,048 x 3,072 = 799,014,912; final norm 3,072: 7,585,648,736.
TEST(families_hybrid2, falcon_h1_sizes_by_hand) {
  EXPECT_EQ(resolved({{"model", "falcon-h1-1.5b-instruct"}}).model.params.total, 1554863488.0);
  EXPECT_EQ(resolved({{"model", "falcon-h1-7b-base"}}).model.params.total, 7585648736.0);
}

// Per sequence and layer in vLLM (mamba_utils.py mamba2_state_shape, "auto" dtypes: bf16): conv (4 - 1) x 1,792 x 2
// = 10,752 B and SSM 24 x 64 x 128 x 2 = 393,216 B, in all 36 layers, beside every layer's keys and values:
// 2 x 2 KV heads x 64 x 2 B = 512 B per token and layer.
TEST(families_hybrid2, falcon_h1_state_beside_kv) {
  settings run = {
      {"model", "falcon-h1-0.5b-base"}, {"mode", "inference"}, {"runtime", "vllm"}, {"batch", "2"}, {"seq", "1000"}};
  const estimate_result e = estimated(run);
  EXPECT_EQ(item(e, "Mamba state (SSM + conv, per sequence)"), 2 * 36 * (3.0 * 1792 * 2 + 24.0 * 64 * 128 * 2));
  EXPECT_EQ(item(e, "full-attention layers"), 2 * 1000 * 36 * 512.0);
  run["seq"] = "10000";
  const estimate_result l = estimated(run);
  EXPECT_EQ(item(l, "Mamba state (SSM + conv, per sequence)"), 2 * 36 * (3.0 * 1792 * 2 + 24.0 * 64 * 128 * 2));
  EXPECT_EQ(item(l, "full-attention layers"), 2 * 10000 * 36 * 512.0);
}

// llama.cpp (llama-model.cpp: Falcon-H1 layers are recurrent and attend): R (4 - 1) x 1,792 and S 128 x 1,536 in f32
// per layer, 4 x (5,376 + 196,608) = 807,936 B x 36 layers at -np 1; KV cells in every one of the 36 layers.
TEST(families_hybrid2, falcon_h1_llamacpp_rs_and_cells) {
  const estimate_result e = estimated({{"model", "falcon-h1-0.5b-base"},
                                       {"mode", "inference"},
                                       {"runtime", "llamacpp"},
                                       {"weights_dtype", "q8_0"},
                                       {"seq", "4096"}});
  EXPECT_EQ(item(e, "RS buffer (llama_memory_recurrent: R and S in f32)"), 36 * 807936.0);
  EXPECT_EQ(item(e, "full-attention layers"), 36 * 4096 * 512.0);
  EXPECT_EQ(e.runtime.kv_buffer, 36 * 4096 * 512.0);
}

// TGI v3.3.x has no Falcon-H1 (server/text_generation_server/models/__init__.py): refused, naming the runtime.
TEST(families_hybrid2, falcon_h1_tgi_refuses) {
  const auto r = estimate({{"model", "falcon-h1-0.5b-base"}, {"mode", "inference"}, {"runtime", "tgi"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "runtime");
}

// Training saves (recompute none, bf16): beside full attention's saves the parallel Mamba-2 keeps the fused kernel's
// zxbcdt (2 x 1,536 + 2 x 128 + 24 = 3,352) and out_x (1,536) at 2 B per token, and no rstd (no gated norm). in_proj
// reads the input q/k/v keep: with input_copies shared no copy of its own, per linear (autocast casts each linear's
// input: the hf profile) one more h = 1,024. So the 0.5B's activations exceed the same model with attention alone
// by 36 layers x 4,888 (or 5,912) x 2 B per token.
TEST(families_hybrid2, falcon_h1_training_saves_attention_and_scan) {
  const settings base = {
      {"model", "falcon-h1-0.5b-base"}, {"mode", "train"}, {"batch", "1"}, {"seq", "512"}, {"recompute", "none"}};
  settings attention_only = base;
  attention_only["layer_types"] = "full_attention";
  const auto activations = [](const estimate_result& e) {
    for (const auto& b : e.buckets)
      if (b.key == "activations") return b.bytes;
    return -1.0;
  };
  for (const auto& [copies, width] : {std::pair{"shared", 4888.0}, std::pair{"per_linear", 5912.0}}) {
    settings parallel = base;
    parallel["input_copies"] = copies;
    attention_only["input_copies"] = copies;
    EXPECT_EQ(activations(estimated(parallel)) - activations(estimated(attention_only)), 36 * 512 * width * 2)
        << copies;
  }
}

TEST(families_hybrid2, falcon_h1_bad_fields_name_the_setting) {
  std::string bad = falcon_0_5b;
  bad.replace(bad.find("\"mamba_d_ssm\": 1536"), 19, "\"mamba_d_ssm\": 1000");
  auto r = parse_config(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().setting, "mamba_head_dim");
  std::string biased = falcon_0_5b;
  biased.replace(biased.find("\"projectors_bias\": false"), 24, "\"projectors_bias\": true ");
  r = parse_config(biased);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().setting, "mamba_proj_bias");
}

}  // namespace
