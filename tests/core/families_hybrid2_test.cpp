// SPDX-License-Identifier: MIT
// Issue 32, Falcon-H1 (attention and Mamba-2 side by side in every layer, layers/attention_mamba.cpp) and Jamba
// (Mamba-1 and attention layers, layers/mamba1.cpp). Every number is summed by hand from transformers'
// modeling_falcon_h1.py and modeling_jamba.py (docs/models.md) and checked against the checkpoint's published total.
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

// ai21labs/Jamba-v0.1's config.json (JambaConfig's defaults for the periods and the Mamba-1 mixer).
const std::string jamba_v0_1 = R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba",
    "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "vocab_size": 65536, "num_experts": 16, "num_experts_per_tok": 2,
    "attn_layer_period": 8, "attn_layer_offset": 4, "expert_layer_period": 2, "expert_layer_offset": 1,
    "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_dt_rank": "auto", "mamba_conv_bias": true,
    "mamba_proj_bias": false, "tie_word_embeddings": false})";

// Jamba-v0.1: attention at layers 4, 12, 20, 28 (i % 8 == 4), experts at odd layers. Mamba-1 (inner 2 x 4,096 =
// 8,192, dt rank ceil(4,096 / 16) = 256, d_state 16): in_proj 4,096 x 16,384 = 67,108,864, x_proj 8,192 x (256 + 32)
// = 2,359,296, dt_proj 256 x 8,192 + 8,192 = 2,105,344, out_proj 33,554,432, conv1d 8,192 x 4 + 8,192 = 40,960,
// A_log 8,192 x 16 = 131,072, D 8,192, dt/B/C norms 288: 105,308,448 x 28. Attention 2 x 4,096^2 + 2 x 4,096 x 1,024
// = 41,943,040 x 4. Dense SwiGLU 3 x 4,096 x 14,336 = 176,160,768 x 16; MoE 16 x 176,160,768 + router 16 x 4,096 =
// 2,818,637,824 x 16. Norms 2 x 4,096 x 32 = 262,144; untied embeddings 2 x 65,536 x 4,096 = 536,870,912; final
// norm 4,096: 51,570,323,328, the count a third-party reproduction of Jamba-v0.1 records as exact.
TEST(families_hybrid2, jamba_v0_1_by_hand) {
  auto config = parse_config(jamba_v0_1);
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  EXPECT_EQ(config.value().at("mamba_d_inner"), "8192");
  EXPECT_EQ(config.value().at("mamba_dt_rank"), "256");
  const run_spec r = resolved({}, config.value());
  EXPECT_EQ(r.model.params.total, 51570323328.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::mamba1, 32), 28);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 32), 4);
  EXPECT_EQ(r.model.params.moe_layers(), 16);
  EXPECT_EQ(resolved({{"model", "jamba-v0.1"}}).model.params.total, 51570323328.0);
}

// Jamba's state per sequence and Mamba-1 layer in vLLM (mamba_utils.py mamba1_state_shape; "auto": bf16): conv
// (4 - 1) x 8,192 x 2 = 49,152 B and SSM 8,192 x 16 x 2 = 262,144 B, in 28 layers; the four attention layers keep
// 2 x 8 x 128 x 2 = 4,096 B per token each.
TEST(families_hybrid2, jamba_state_beside_kv) {
  settings run = {{"model", "jamba-v0.1"}, {"mode", "inference"}, {"runtime", "vllm"}, {"batch", "2"}, {"seq", "1000"}};
  const estimate_result e = estimated(run);
  EXPECT_EQ(item(e, "Mamba-1 state (SSM + conv, per sequence)"), 2 * 28 * (49152.0 + 262144));
  EXPECT_EQ(item(e, "full-attention layers"), 2 * 1000 * 4 * 4096.0);
  run["seq"] = "10000";
  const estimate_result l = estimated(run);
  EXPECT_EQ(item(l, "Mamba-1 state (SSM + conv, per sequence)"), 2 * 28 * (49152.0 + 262144));
}

// llama.cpp: R (4 - 1) x 8,192 and S 16 x 8,192 in f32: 4 x (24,576 + 131,072) = 622,592 B per Mamba-1 layer, x 28 at
// -np 1. TGI has no Jamba: refused, naming the runtime.
TEST(families_hybrid2, jamba_llamacpp_and_tgi) {
  const estimate_result e =
      estimated({{"model", "jamba-v0.1"}, {"mode", "inference"}, {"runtime", "llamacpp"}, {"weights_dtype", "q8_0"}});
  EXPECT_EQ(item(e, "RS buffer (llama_memory_recurrent: R and S in f32)"), 28 * 622592.0);
  const auto r = estimate({{"model", "jamba-v0.1"}, {"mode", "inference"}, {"runtime", "tgi"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "runtime");
}

// Training (bf16, recompute none, b 1, s 512): a Mamba-1 layer keeps in_proj's input (4,096), in_proj's output
// (2 x 8,192: the conv input and the gate z), the conv output, delta, the scan output and out_proj's input (4 x
// 8,192), x_proj's output and the normed dt, B, C (2 x 288), 107,648 values x 2 B per token, and the scan's fp32
// chunk states 8,192 x 2 x 16 x 4 B = 1,048,576 B per chunk, counted as s / 2,048 + 1 = 1.25 chunks (the bound that
// keeps the sweep linear; the kernel keeps ceil(512 / 2,048) = 1): 512 x 107,648 + 1,310,720 = 56,426,496 B. The
// same model with those 28 layers MLP-only keeps that much less per layer (framework generic: every bucket summed,
// not the optimizer step's peak, where the activations are freed).
TEST(families_hybrid2, jamba_training_saves_the_scan) {
  const settings base = {{"model", "jamba-v0.1"}, {"mode", "train"},     {"batch", "1"},
                         {"seq", "512"},          {"recompute", "none"}, {"framework", "generic"}};
  settings mlp_only = base;
  mlp_only["layer_types"] = "none+dense,none+moe,none+dense,none+moe,full_attention+dense,none+moe,none+dense,none+moe";
  const auto activations = [](const estimate_result& e) {
    for (const auto& b : e.buckets)
      if (b.key == "activations") return b.bytes;
    return -1.0;
  };
  EXPECT_EQ(activations(estimated(base)) - activations(estimated(mlp_only)), 28 * 56426496.0);
}

}  // namespace
