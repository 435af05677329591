// SPDX-License-Identifier: MIT
// Issue 32, MiniMax-Text-01 / MiniMax-M1 (lightning attention, layers/lightning_attention.cpp; the minimax family)
// and Kimi Linear (KDA, layers/kda.cpp; the kimi_linear family), both in families/linear_hybrids.cpp. Every number
// is summed by hand from transformers' modular_minimax.py, Kimi Linear's modeling_kimi.py and vLLM's mamba_utils.py
// (docs/models.md) and checked against the published total.
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

// MiniMax-Text-01 by hand (h 6,144, 64 heads of 128, 8 KV heads, vocab 200,064, 32 experts of 9,216):
// lightning layer: qkv_proj 6,144 x 24,576 = 150,994,944, output_gate 6,144 x 8,192 = 50,331,648, out_proj 8,192 x
// 6,144 = 50,331,648, norm 8,192: 251,666,432 x 70 = 17,616,650,240; softmax layer: q and o 6,144 x 8,192 =
// 50,331,648 each, k and v 6,144 x 1,024 = 6,291,456 each: 113,246,208 x 10 = 1,132,462,080; MoE 32 x 3 x 6,144 x
// 9,216 = 5,435,817,984 + router 6,144 x 32 = 196,608: 5,436,014,592 x 80 = 434,881,167,360; two norms 12,288 x 80 =
// 983,040; embedding and untied lm_head 2 x 200,064 x 6,144 = 2,458,386,432; final norm 6,144: 456,089,655,296.
// Active: the same with 2 experts a layer (2 x 3 x 6,144 x 9,216 = 339,738,624 + 196,608) x 80 = 27,194,818,560 in
// place of the MoE: 48,403,306,496, 45,944,920,064 without the embedding and head (the official "45.9B active").
TEST(families_linear, minimax_text_01_by_hand) {
  const run_spec r = resolved({{"model", "minimax-text-01"}});
  EXPECT_EQ(r.model.params.total, 456089655296.0);
  EXPECT_EQ(r.model.params.active, 48403306496.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::lightning, 80), 70);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 80), 10);
  EXPECT_EQ(r.model.params.moe_layers(), 80);
  EXPECT_EQ(resolved({{"model", "MiniMaxAI/MiniMax-M1-40k"}}).model.params.total, 456089655296.0);
}

// transformers' MiniMax-Text-01-hf spelling: layer_types, "linear_attention" being lightning attention here (not
// Gated DeltaNet). Two layers of h 64, 4 heads of 16, 2 KV heads, vocab 100, 4 experts of 32: lightning 64 x 192 +
// 64 x 64 x 2 + norm 64 = 20,544; softmax 64 x 64 x 2 + 64 x 32 x 2 = 12,288; MoE 4 x 3 x 64 x 32 + router 256 =
// 24,832 x 2; norms 128 x 2; embeddings 2 x 6,400; final norm 64: 20,544 + 12,288 + 49,664 + 256 + 12,800 + 64 =
// 95,616.
TEST(families_linear, minimax_hf_layer_types_are_lightning) {
  const std::string hf = R"({"model_type": "minimax", "hidden_size": 64, "intermediate_size": 32,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
      "num_local_experts": 4, "num_experts_per_tok": 2, "layer_types": ["linear_attention", "full_attention"]})";
  auto config = parse_config(hf);
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  EXPECT_EQ(config.value().at("layer_types"), "lightning_attention,full_attention");
  EXPECT_EQ(resolved({}, config.value()).model.params.total, 95616.0);
}

TEST(families_linear, minimax_bad_lists_name_the_setting) {
  const std::string base = R"({"model_type": "minimax_text_01", "hidden_size": 64, "intermediate_size": 32,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
      "num_local_experts": 4, "num_experts_per_tok": 2, )";
  for (const std::string tail : {R"("attn_type_list": [0, 2]})", R"("attn_type_list": [0]})",
                                 R"("attn_type_list": [0, 1], "shared_intermediate_size": 128})"}) {
    const auto r = parse_config(base + tail);
    ASSERT_FALSE(r.ok()) << tail;
    const std::string setting = r.errors().front().setting;
    EXPECT_TRUE(setting == "layer_types" || setting == "shared_expert_intermediate_size") << tail << ": " << setting;
  }
}

// vLLM (mamba_utils.py linear_attention_state_shape (heads // tp, d, d), mamba cache dtype "auto": bf16): 64 x 128 x
// 128 x 2 = 2,097,152 B per lightning layer and sequence, x 70 layers, whatever the context; the 10 softmax layers
// cache 2 x 8 x 128 x 2 = 4,096 B per token each. At tp 8: 8 heads a rank, 262,144 B; one KV head a rank, 512 B.
TEST(families_linear, minimax_state_beside_kv) {
  settings run = {
      {"model", "minimax-text-01"}, {"mode", "inference"}, {"runtime", "vllm"}, {"batch", "2"}, {"seq", "1000"}};
  const estimate_result e = estimated(run);
  EXPECT_EQ(item(e, "lightning-attention state (per sequence)"), 2 * 70 * 2097152.0);
  EXPECT_EQ(item(e, "full-attention layers"), 2 * 1000 * 10 * 4096.0);
  run["seq"] = "100000";
  EXPECT_EQ(item(estimated(run), "lightning-attention state (per sequence)"), 2 * 70 * 2097152.0);
  run["tp"] = "8";
  run["devices"] = "8";
  const estimate_result t = estimated(run);
  EXPECT_EQ(item(t, "lightning-attention state (per sequence)"), 2 * 70 * 262144.0);
  EXPECT_EQ(item(t, "full-attention layers"), 2 * 100000 * 10 * 512.0);
}

// llama.cpp and Ollama have no MiniMax-01 architecture, TGI no minimax model: each refused, naming the runtime.
TEST(families_linear, minimax_llamacpp_ollama_tgi_refuse) {
  for (const char* runtime : {"llamacpp", "ollama", "tgi"}) {
    const auto r = estimate({{"model", "minimax-text-01"}, {"mode", "inference"}, {"runtime", runtime}});
    ASSERT_FALSE(r.ok()) << runtime;
    EXPECT_EQ(r.errors()[0].setting, "runtime") << runtime;
  }
  const auto r = estimate({{"model", "minimax-text-01"}, {"mode", "inference"}, {"runtime", "llamacpp"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors()[0].message.find("MiniMax-Text-01"), std::string::npos);
}

// Training (bf16, recompute none, b 1, s 512, generic): a lightning layer of h 64, 4 heads of 16 (width 64) keeps its
// input once (64), silu's input and output 6 x 64, the intra-block scores and their decayed copy 2 x 4 x 256, the
// normed output, pre-norm output and gate logits 3 x 64, out_proj's input 64: 2,752 values x 2 B per token, and the
// carried state 64 x 16 x 2 B per block, counted as s / 256 + 1 = 3 blocks: 512 x 5,504 + 6,144 = 2,824,192 B. The
// same model with an MLP-only block in its place keeps that much less.
TEST(families_linear, lightning_training_saves) {
  const std::string tiny = R"({"model_type": "minimax", "hidden_size": 64, "intermediate_size": 32,
      "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
      "num_local_experts": 4, "num_experts_per_tok": 2, "layer_types": ["linear_attention"]})";
  auto config = parse_config(tiny);
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  const settings base = {{"mode", "train"},     {"batch", "1"},           {"seq", "512"},
                         {"recompute", "none"}, {"framework", "generic"}, {"input_copies", "shared"}};
  settings mlp_only = base;
  mlp_only["layer_types"] = "none+moe";
  const auto activations = [&](const settings& s) {
    auto r = estimate(s, config.value());
    if (!r.ok()) {
      ADD_FAILURE() << to_string(r.errors().front());
      return -1.0;
    }
    for (const auto& b : r.value().buckets)
      if (b.key == "activations") return b.bytes;
    return -1.0;
  };
  EXPECT_EQ(activations(base) - activations(mlp_only), 2824192.0);
}

// Kimi-Linear-48B-A3B by hand (h 2,304, KDA 32 heads of 128, kernel 4; MLA 32 heads, kv_lora 512, nope 128, rope 64,
// v 128; 256 experts of 1,024, 1 shared, the first layer dense of 9,216; vocab 163,840). KDA: q, k, v 3 x 2,304 x
// 4,096 = 28,311,552, convolutions 3 x 4,096 x 4 = 49,152, A_log 32, f_a 2,304 x 128 = 294,912, f_b 128 x 4,096 =
// 524,288, dt_bias 4,096, b_proj 2,304 x 32 = 73,728, g_a 294,912, g_b 524,288, o_norm 128, o_proj 9,437,184:
// 39,514,272 x 20 = 790,285,440. MLA: q 2,304 x 32 x 192 = 14,155,776, kv_a 2,304 x 576 = 1,327,104, kv_a norm 512,
// kv_b 512 x 32 x 256 = 4,194,304, o 4,096 x 2,304 = 9,437,184: 29,114,880 x 7 = 203,804,160. MoE 256 x 3 x 2,304 x
// 1,024 = 1,811,939,328 + shared 7,077,888 + router 589,824 + correction bias 256 = 1,819,607,296 x 26 =
// 47,309,789,696; dense 3 x 2,304 x 9,216 = 63,700,992; norms 2 x 2,304 x 27 = 124,416; untied embeddings 2 x
// 163,840 x 2,304 = 754,974,720; final norm 2,304: 49,122,681,728, the Hub's safetensors total.
TEST(families_linear, kimi_linear_by_hand) {
  const run_spec r = resolved({{"model", "kimi-linear-48b-a3b-instruct"}});
  EXPECT_EQ(r.model.params.total, 49122681728.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::kda, 27), 20);
  EXPECT_EQ(r.model.layers_of(layer_kind::mla, 27), 7);
  EXPECT_EQ(r.model.params.moe_layers(), 26);
}

// vLLM (mamba_utils.py kda_state_shape and kda_state_dtype): conv (4 - 1) x (4,096 + 2 x 4,096) x 2 B = 73,728 B
// and recurrent 32 x 128 x 128 x 4 B = 2,097,152 B per KDA layer and sequence, x 20, whatever the context; the 7
// MLA layers cache 576 x 2 = 1,152 B per token each. llama.cpp (f32 R and S): 4 x (3 x 12,288 + 524,288) =
// 2,244,608 B per KDA layer at -np 1.
TEST(families_linear, kimi_linear_state_beside_latent) {
  settings run = {{"model", "kimi-linear-48b-a3b-instruct"},
                  {"mode", "inference"},
                  {"runtime", "vllm"},
                  {"batch", "2"},
                  {"seq", "1000"}};
  const estimate_result e = estimated(run);
  EXPECT_EQ(item(e, "linear-attention state (KDA, per sequence)"), 2 * 20 * (73728.0 + 2097152));
  EXPECT_EQ(item(e, "MLA latent cache"), 2 * 1000 * 7 * 1152.0);
  // vLLM's KimiMLAAttention (models/kimi_linear.py @01d99586) gives the MLA wrapper rotary_emb=None (use_nope) but
  // kv_a_proj_with_mqa still yields kv_lora_rank + qk_rope_head_dim = 576 values a token, the latent cached above;
  // no rotary cos/sin cache is built.
  EXPECT_EQ(item(e, "rotary cos/sin cache"), -1);
  run["seq"] = "100000";
  EXPECT_EQ(item(estimated(run), "linear-attention state (KDA, per sequence)"), 2 * 20 * (73728.0 + 2097152));
  const estimate_result l = estimated({{"model", "kimi-linear-48b-a3b-instruct"},
                                       {"mode", "inference"},
                                       {"runtime", "llamacpp"},
                                       {"weights_dtype", "q8_0"}});
  EXPECT_EQ(item(l, "RS buffer (llama_memory_recurrent: R and S in f32)"), 20 * 2244608.0);
  const auto t = estimate({{"model", "kimi-linear-48b-a3b-instruct"}, {"mode", "inference"}, {"runtime", "tgi"}});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.errors()[0].setting, "runtime");
}

TEST(families_linear, kimi_linear_bad_lists_name_the_setting) {
  const std::string base = R"({"model_type": "kimi_linear", "hidden_size": 64, "intermediate_size": 32,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
      "qk_rope_head_dim": 8, "v_head_dim": 8, )";
  for (const std::string tail :
       {R"("linear_attn_config": {"num_heads": 2, "head_dim": 8, "kda_layers": [1, 2],
                                     "full_attn_layers": [2]}})",
        R"("linear_attn_config": {"num_heads": 2, "head_dim": 8, "kda_layers": [1],
                                     "full_attn_layers": []}})",
        R"("linear_attn_config": {"head_dim": 8, "kda_layers": [1], "full_attn_layers": [2]}})",
        R"("layer_types": ["full_attention", "full_attention"]})"}) {
    const auto r = parse_config(base + tail);
    ASSERT_FALSE(r.ok()) << tail;
    const std::string setting = r.errors().front().setting;
    EXPECT_TRUE(setting == "layer_types" || setting == "linear_num_value_heads") << tail << ": " << setting;
  }
}

// At tp 2 each rank keeps half the KDA heads and half the convolution channels: (73,728 + 2,097,152) / 2 per layer
// and sequence. A kda layer list without KDA's sizes is refused naming linear_num_value_heads.
TEST(families_linear, kda_state_per_rank_and_missing_sizes) {
  const estimate_result e = estimated({{"model", "kimi-linear-48b-a3b-instruct"},
                                       {"mode", "inference"},
                                       {"runtime", "vllm"},
                                       {"devices", "2"},
                                       {"tp", "2"}});
  EXPECT_EQ(item(e, "linear-attention state (KDA, per sequence)"), 20 * (73728.0 + 2097152) / 2);
  const auto r = resolve({{"params", "7e9"}, {"layer_types", "3*kda,full_attention"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().setting, "linear_num_value_heads");
}

}  // namespace
