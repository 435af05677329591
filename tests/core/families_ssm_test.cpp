// SPDX-License-Identifier: MIT
// Issue 32, item 2 for the state-space and short-convolution families: Nemotron-H, Granite 4.0-H, LFM2 and Mamba-2.
// Every number is summed by hand from the modeling code (docs/models.md, "State-space and short-convolution
// families") and checked against the checkpoint's published total.
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

// The published NVIDIA-Nemotron-Nano-9B-v2 fields (docs/models.md): 27 M, 25 -, 4 * blocks.
const std::string nano_9b = R"({"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h",
    "hidden_size": 4480, "intermediate_size": 15680, "num_hidden_layers": 56, "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 131072,
    "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
    "mamba_num_heads": 128, "mamba_head_dim": 80, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
    "mlp_hidden_act": "relu2"})";

// Nemotron-Nano-9B-v2 (modeling_nemotron_h.py): inner 128 x 80 = 10,240; conv_dim 10,240 + 2 x 8 x 128 = 12,288;
// in_proj 4,480 x (10,240 + 12,288 + 128) = 101,498,880; conv1d 12,288 x 4 + 12,288 = 61,440; dt_bias, A_log, D
// 3 x 128; gated norm 10,240; out_proj 10,240 x 4,480 = 45,875,200; block norm 4,480: 147,450,624 x 27 =
// 3,981,166,848. MLP block: 4,480 + 2 x 4,480 x 15,680 = 140,497,280 x 25 = 3,512,432,000. Attention block:
// 4,480 + 2 x 4,480 x 5,120 + 2 x 4,480 x 1,024 = 55,054,720 x 4 = 220,218,880. Embedding and untied lm_head
// 2 x 131,072 x 4,480 = 1,174,405,120, final norm 4,480: 8,888,227,328, the Hub's safetensors total.
TEST(families_ssm, nemotron_nano_9b_v2_by_hand) {
  auto config = parse_config(nano_9b);
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  EXPECT_EQ(config.value().at("layer_types").substr(0, 30), "mamba+none,mlp,mamba+none,mlp,");
  EXPECT_EQ(config.value().at("norms_per_layer"), "1");
  const run_spec r = resolved({}, config.value());
  EXPECT_EQ(r.model.params.total, 8888227328.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::mamba, 56), 27);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 56), 4);
  EXPECT_EQ(r.model.layers_of(layer_kind::none, 56), 25);
  EXPECT_EQ(resolved({{"model", "nvidia-nemotron-nano-9b-v2"}}).model.params.total, 8888227328.0);
  EXPECT_EQ(resolved({{"model", "nvidia/NVIDIA-Nemotron-Nano-9B-v2"}}).model.params.total, 8888227328.0);
}

// Per sequence and Mamba layer as vLLM keeps it (mamba_utils.py mamba2_state_shape): the conv state (d_conv - 1) x
// conv_dim = 3 x 12,288 = 36,864 values in bf16 (73,728 B) and the SSM state heads x head_dim x d_state = 128 x 80 x
// 128 = 1,310,720 values in fp32 (5,242,880 B): 5,316,608 B x 27 layers = 143,548,416 B per sequence, whatever the
// context. Beside it the four attention layers keep 2 x 8 x 128 x 2 B = 4,096 B per token each: 2 sequences x 1,000
// tokens x 4 x 4,096 = 32,768,000 B.
TEST(families_ssm, nemotron_nano_9b_v2_state_beside_kv) {
  const settings run = {{"model", "nvidia-nemotron-nano-9b-v2"},
                        {"mode", "inference"},
                        {"runtime", "vllm"},
                        {"batch", "2"},
                        {"seq", "1000"},
                        {"state_dtype", "fp32"}};
  const estimate_result e = estimated(run);
  EXPECT_EQ(item(e, "Mamba state (SSM + conv, per sequence)"), 2 * 27 * (3.0 * 12288 * 2 + 128.0 * 80 * 128 * 4));
  EXPECT_EQ(item(e, "full-attention layers"), 2 * 1000 * 4 * (2.0 * 8 * 128 * 2));
  // Ten times the context: the KV grows ten times, the state not at all.
  settings longer = run;
  longer["seq"] = "10000";
  const estimate_result l = estimated(longer);
  EXPECT_EQ(item(l, "Mamba state (SSM + conv, per sequence)"), 2 * 27 * (3.0 * 12288 * 2 + 128.0 * 80 * 128 * 4));
  EXPECT_EQ(item(l, "full-attention layers"), 2 * 10000 * 4 * (2.0 * 8 * 128 * 2));
}

// Nemotron 3 Nano 30B-A3B: Mamba block (inner 4,096, conv_dim 6,144, in_proj 2,688 x 10,304 = 27,697,152, conv1d
// 30,720, 192, norm 4,096, out_proj 11,010,048, block norm 2,688) 38,744,896 x 23 = 891,132,608; MoE block (router
// 128 x 2,688 + 128 correction biases, 128 relu2 experts 2 x 1,856 x 2,688 = 1,277,165,568, shared expert
// 2 x 2,688 x 3,712 = 19,955,712, norm 2,688) 1,297,468,160 x 23 = 29,841,767,680; attention block (q, o
// 2 x 2,688 x 4,096, k, v 2 x 2,688 x 256, norm) 23,399,040 x 6 = 140,394,240; embedding and lm_head
// 2 x 131,072 x 2,688 = 704,643,072; final norm 2,688: 31,577,940,288, llama.cpp's n-params.
TEST(families_ssm, nemotron_3_nano_by_hand) {
  const run_spec r = resolved({{"model", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"}});
  EXPECT_EQ(r.model.params.total, 31577940288.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::mamba, 52), 23);
  EXPECT_EQ(r.state, dtype::fp32);  // mamba_ssm_cache_dtype
}

// Granite 4.0-H Small: Mamba mixer (inner 2 x 4,096 = 8,192 in 128 heads of 64, one group: conv_dim 8,448, in_proj
// 4,096 x 16,768 = 68,681,728, conv1d 42,240, 384, norm 8,192, out_proj 33,554,432) 102,286,976 x 36 =
// 3,682,331,136; attention 2 x 4,096^2 + 2 x 4,096 x 1,024 = 41,943,040 x 4 = 167,772,160; every layer 72 experts
// x 3 x 768 x 4,096 + router 72 x 4,096 = 679,772,160, shared MLP 3 x 4,096 x 1,536 = 18,874,368, two norms 8,192:
// 698,654,720 x 40 = 27,946,188,800; tied embedding 100,352 x 4,096 = 411,041,792; final norm 4,096:
// 32,207,337,984, the published total.
TEST(families_ssm, granite_4_h_small_by_hand) {
  const run_spec r = resolved({{"model", "granite-4.0-h-small"}});
  EXPECT_EQ(r.model.params.total, 32207337984.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 40), 4);
  // Without experts the shared MLP is the layer's MLP: 3 x 64 x 32 per layer.
  auto dense = parse_config(R"({"model_type": "granitemoehybrid", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 10, "num_local_experts": 0, "shared_intermediate_size": 32,
      "intermediate_size": 1000, "mamba_n_heads": 4, "mamba_d_state": 8, "layer_types": ["mamba", "attention"]})");
  ASSERT_TRUE(dense.ok()) << to_string(dense.errors().front());
  EXPECT_EQ(dense.value().at("intermediate_size"), "32");
  EXPECT_EQ(dense.value().at("layer_types"), "mamba+dense,full_attention+dense");
  EXPECT_EQ(dense.value().at("mamba_head_dim"), "32");  // "auto": 2 x 64 / 4
}

// The published LFM2-1.2B fields: six attention layers of sixteen.
const std::string lfm2_1_2b = R"({"architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "hidden_size": 2048,
    "intermediate_size": 12288, "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
    "vocab_size": 65536, "conv_L_cache": 3, "conv_bias": false, "block_auto_adjust_ff_dim": true,
    "block_ffn_dim_multiplier": 1.0, "block_multiple_of": 256, "norm_eps": 1e-05, "tie_embedding": true,
    "layer_types": ["conv", "conv", "full_attention", "conv", "conv", "full_attention", "conv", "conv",
                    "full_attention", "conv", "full_attention", "conv", "full_attention", "conv", "full_attention",
                    "conv"]})";

// LFM2-1.2B (modeling_lfm2.py): FFN width int(2 x 12,288 / 3) = 8,192, x 1.0, rounded up to 256: 8,192. Conv layer
// in_proj 2,048 x 6,144 + conv 2,048 x 3 + out_proj 2,048^2 = 16,783,360 x 10; attention 2 x 2,048^2 + 2 x 2,048 x
// 512 + q/k norms 2 x 64 = 10,485,888 x 6; SwiGLU 3 x 2,048 x 8,192 = 50,331,648 and two norms 4,096, x 16; tied
// embedding 65,536 x 2,048 = 134,217,728 and the final norm 2,048: 1,170,340,608, the model card's count.
TEST(families_ssm, lfm2_1_2b_by_hand) {
  auto config = parse_config(lfm2_1_2b);
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  EXPECT_EQ(config.value().at("intermediate_size"), "8192");
  EXPECT_EQ(config.value().at("tie_word_embeddings"), "on");
  EXPECT_EQ(resolved({}, config.value()).model.params.total, 1170340608.0);
  EXPECT_EQ(resolved({{"model", "lfm2-1.2b"}}).model.params.total, 1170340608.0);
}

// The other sizes (the same sums, docs/models.md): 350M conv 4,197,376 x 10, attention 3,145,856 x 6, SwiGLU
// 3 x 1,024 x 4,608 (6,656 made 4,608) x 16; 700M 9,441,792 x 10, 6,291,584 x 6, 3 x 1,536 x 6,912 x 16; 2.6B
// (no width rule) 16,783,360 x 22, 10,485,888 x 8, 3 x 2,048 x 10,752 x 30.
TEST(families_ssm, lfm2_sizes_by_hand) {
  EXPECT_EQ(resolved({{"model", "lfm2-350m"}}).model.params.total,
            4197376.0 * 10 + 3145856.0 * 6 + (3.0 * 1024 * 4608 + 2048) * 16 + 65536.0 * 1024 + 1024);
  EXPECT_EQ(resolved({{"model", "lfm2-350m"}}).model.params.total, 354483968.0);
  EXPECT_EQ(resolved({{"model", "lfm2-700m"}}).model.params.total, 742489344.0);
  EXPECT_EQ(resolved({{"model", "lfm2-2.6b"}}).model.params.total,
            16783360.0 * 22 + 10485888.0 * 8 + (3.0 * 2048 * 10752 + 4096) * 30 + 65536.0 * 2048 + 2048);
  EXPECT_EQ(resolved({{"model", "lfm2-2.6b"}}).model.params.total, 2569272320.0);
}

// LFM2's short-convolution state as vLLM keeps it (mamba_utils.py short_conv_state_shape): h x (L_cache - 1) = 2,048
// x 2 values per conv layer, 10 layers, bf16: 81,920 B per sequence.
TEST(families_ssm, lfm2_conv_state_by_hand) {
  const estimate_result e =
      estimated({{"model", "lfm2-1.2b"}, {"mode", "inference"}, {"runtime", "vllm"}, {"batch", "3"}, {"seq", "500"}});
  EXPECT_EQ(item(e, "short-convolution state (per sequence)"), 3 * 10 * 2048.0 * 2 * 2);
}

// state-spaces/mamba2-2.7b (mamba_ssm, no model_type): vocab 50,277 padded to 50,288; inner 5,120 in 80 heads of
// 64; conv_dim 5,376; in_proj 2,560 x 10,576 = 27,074,560, conv1d 26,880, 240, norm 5,120, out_proj 13,107,200,
// block norm 2,560: 40,216,560 x 64 = 2,573,859,840; tied embedding 50,288 x 2,560 = 128,737,280; final norm 2,560:
// 2,702,599,680.
TEST(families_ssm, mamba2_2_7b_by_hand) {
  const run_spec r = resolved({{"model", "mamba2-2.7b"}});
  EXPECT_EQ(r.model.params.total, 2702599680.0);
  EXPECT_EQ(r.values.vocab_size, 50288);
  EXPECT_EQ(r.model.layers_of(layer_kind::mamba, 64), 64);
  // A mamba_ssm config of Mamba-1 blocks is refused, naming model_type.
  auto mamba1 = parse_config(R"({"d_model": 64, "n_layer": 2, "vocab_size": 10, "ssm_cfg": {}})");
  ASSERT_FALSE(mamba1.ok());
  EXPECT_EQ(mamba1.errors().front().setting, "model_type");
}

// Bad layer lists are errors naming layer_types.
TEST(families_ssm, bad_layer_lists_name_the_setting) {
  auto letter = parse_config(R"({"model_type": "nemotron_h", "hidden_size": 64, "num_attention_heads": 4,
      "num_hidden_layers": 3,
      "vocab_size": 10, "hybrid_override_pattern": "M*X", "mamba_num_heads": 4, "mamba_head_dim": 16})");
  ASSERT_FALSE(letter.ok());
  EXPECT_EQ(letter.errors().front().setting, "layer_types");
  auto count = parse_config(R"({"model_type": "lfm2", "hidden_size": 64, "num_hidden_layers": 3,
      "num_attention_heads": 4, "vocab_size": 10, "layer_types": ["conv", "full_attention"]})");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.errors().front().setting, "layer_types");
}

}  // namespace

namespace {

// The activations bucket of a two-layer model in full bf16 training (s 2,048, b 1, h 64, 4 heads), its layers'
// settings `layer` on top.
double activations(const settings& layer) {
  settings s{{"framework", "generic"}, {"hidden_size", "64"}, {"num_attention_heads", "4"}, {"num_hidden_layers", "2"},
             {"vocab_size", "100"},    {"seq", "2048"},       {"norms_per_layer", "1"}};
  for (const auto& [key, value] : layer) s[key] = value;
  auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors().front()));
  return r.ok() ? r.value().buckets[3].items[0].bytes : -1;
}

// Two Mamba-2 layers of `heads` heads of `head_dim`, d_state 16, `groups` groups.
double mamba_activations(const std::string& groups, const std::string& heads, const std::string& head_dim) {
  return activations({{"layer_types", "mamba+none"},
                      {"mamba_num_heads", heads},
                      {"mamba_head_dim", head_dim},
                      {"mamba_d_state", "16"},
                      {"mamba_n_groups", groups}});
}

}  // namespace

// What the fused mamba_split_conv1d_scan_combined saves per token (docs/methodology.md): zxbcdt 2I + 2GN + H values,
// out_x I values, the gated norm's fp32 rstd per group. One more group (N 16) adds 2 x 16 values in bf16 and one
// fp32 rstd: 2,048 x (64 + 4) = 139,264 B per layer; four more heads (I fixed at 64) add four dt values in bf16:
// 2,048 x 8 = 16,384 B per layer. Two layers.
TEST(families_ssm, mamba_training_saves_what_the_fused_kernel_saves) {
  const double base = mamba_activations("1", "4", "16");
  EXPECT_EQ(mamba_activations("2", "4", "16") - base, 2 * 139264.0);
  EXPECT_EQ(mamba_activations("1", "8", "8") - base, 2 * 16384.0);
}

// LFM2-MoE (modeling_lfm2_moe.py) with LFM2-8B-A1B's fields: the first num_dense_layers 2 dense (SwiGLU of
// intermediate_size 7,168, no width rule), the other 22 with 32 experts of 1,792, a router 32 x 2,048 and the
// expert_bias buffer (32): 18 conv layers x 16,783,360 + 6 attention x 10,485,888 + 2 x 3 x 2,048 x 7,168 +
// 22 x (65,536 + 32 x 3 x 1,792 x 2,048 + 32) + 24 x 2 norms 4,096 + tied embedding 65,536 x 2,048 + final norm
// 2,048 = 8,339,930,560. The Hub total (preset lfm2-8b-a1b) is 8,339,929,856, exactly the 22 x 32 expert_bias
// values fewer (presets_test.cpp).
TEST(families_ssm, lfm2_moe_by_hand) {
  auto config = parse_config(R"({"model_type": "lfm2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
      "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 7168, "moe_intermediate_size": 1792,
      "num_experts": 32, "num_experts_per_tok": 4, "num_dense_layers": 2, "use_expert_bias": true,
      "conv_L_cache": 3, "vocab_size": 65536, "tie_embedding": true,
      "layer_types": ["conv", "conv", "full_attention", "conv", "conv", "conv", "full_attention", "conv", "conv",
                      "conv", "full_attention", "conv", "conv", "conv", "full_attention", "conv", "conv", "conv",
                      "full_attention", "conv", "conv", "full_attention", "conv", "conv"]})");
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  EXPECT_EQ(resolved({}, config.value()).model.params.total, 18 * 16783360.0 + 6 * 10485888.0 + 2 * 3 * 2048.0 * 7168 +
                                                                 22 * (65536.0 + 32 * 3 * 1792.0 * 2048 + 32) +
                                                                 24 * 4096.0 + 65536.0 * 2048 + 2048);
}

namespace {

// Two MoE-only blocks (Nemotron-H "E" blocks: 4 relu2 experts of 32, top-2), the experts at hidden_size or in a
// latent.
double moe_activations(const std::string& latent) {
  return activations({{"layer_types", "moe"},
                      {"mlp", "plain"},
                      {"num_experts", "4"},
                      {"num_experts_per_tok", "2"},
                      {"moe_intermediate_size", "32"},
                      {"moe_latent_size", latent}});
}

}  // namespace

// LatentMoE in training (transformers NemotronHMoE.forward: the router and fc1_latent_proj read the block's input,
// the experts the L-wide latent, fc2_latent_proj their weighted sum): per block the routed experts keep k x T copies
// of an L-wide input instead of an h-wide one, 2 x 2,048 x 2 B x (16 - 64) = -393,216 B, and fc2_latent_proj keeps
// its L-wide input, 2,048 x 2 B x 16 = 65,536 B: -327,680 B per block, two blocks. fc1_latent_proj's input is the
// block input the router keeps already.
TEST(families_ssm, latent_moe_training_saves_the_latent) {
  EXPECT_EQ(moe_activations("16") - moe_activations("0"), 2 * (2 * 2048 * 2 * (16 - 64.0) + 2048 * 2 * 16.0));
}

// Nemotron 3's config fields: moe_latent_size read (null: none), the MTP step only as "*E" (vLLM nemotron_h_mtp.py
// builds "*" and "E" blocks; every checkpoint ships "*E"), each refusal naming its setting.
TEST(families_ssm, nemotron_latent_and_mtp_fields) {
  const std::string base = R"({"model_type": "nemotron_h", "hidden_size": 64, "num_attention_heads": 4,
      "num_hidden_layers": 3, "vocab_size": 10, "hybrid_override_pattern": "ME*", "mamba_num_heads": 4,
      "mamba_head_dim": 16, "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,)";
  const auto parsed = [&](const std::string& rest) { return parse_config(base + rest + "}"); };
  auto latent = parsed(R"("moe_latent_size": 16, "num_nextn_predict_layers": 1, "mtp_hybrid_override_pattern": "*E")");
  ASSERT_TRUE(latent.ok()) << to_string(latent.errors().front());
  EXPECT_EQ(latent.value().at("moe_latent_size"), "16");
  EXPECT_EQ(latent.value().at("num_nextn_predict_layers"), "1");
  auto none = parsed(R"("moe_latent_size": null)");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value().contains("moe_latent_size"));
  auto negative = parsed(R"("moe_latent_size": -1)");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.errors().front().setting, "moe_latent_size");
  for (const char* mtp :
       {R"("num_nextn_predict_layers": 1, "mtp_hybrid_override_pattern": "E*")", R"("num_nextn_predict_layers": 1)",
        R"("num_nextn_predict_layers": 1, "mtp_layers_block_type": ["attention", "mamba"])"}) {
    auto bad = parsed(mtp);
    ASSERT_FALSE(bad.ok()) << mtp;
    EXPECT_EQ(bad.errors().front().setting, "num_nextn_predict_layers") << mtp;
  }
}
