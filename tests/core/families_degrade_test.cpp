// SPDX-License-Identifier: MIT
// Issue 32 item 5: an unknown model_type whose config.json declares recurrent, convolution or linear-attention
// layers is counted as the family that reads those fields (core/src/families/degrade.cpp; docs/models.md, "Unknown
// model_type"), with a note naming every assumption. Each count is the known family's, summed by hand from the
// shapes docs/models.md derives for it; the same config under the family's own model_type must give the same.
#include <gtest/gtest.h>

#include "config_support.hpp"
#include "run_support.hpp"

#include <initializer_list>
#include <string>

#include "layers/layer_kinds.hpp"

#include "llm_memory/config_json.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::parsed_config;
using test::resolved;

// `json` with its model_type "<from>" written as "<to>".
std::string retyped(std::string json, const std::string& from, const std::string& to) {
  const std::string key = "\"model_type\": \"" + from + "\"";
  json.replace(json.find(key), key.size(), "\"model_type\": \"" + to + "\"");
  return json;
}

double count(const std::string& json) { return resolved({}, parsed_config(json)).model.params.total; }

std::string note(const std::string& json) { return parsed_config(json).at("model_notes"); }

bool says(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct degraded {
  std::string unknown;  // the config with its model_type retyped
  std::string note;     // the retyped config's model_notes
};

// Every kind test's shape: the known config and its retyped copy both count `by_hand`, and the retyped one's note
// says each phrase.
degraded counts_as(const std::string& known, const std::string& from, const std::string& to, double by_hand,
                   std::initializer_list<const char*> phrases) {
  degraded d{retyped(known, from, to), ""};
  EXPECT_EQ(count(known), by_hand) << from;
  EXPECT_EQ(count(d.unknown), by_hand) << to;
  d.note = note(d.unknown);
  for (const char* phrase : phrases) EXPECT_TRUE(says(d.note, phrase)) << d.note;
  return d;
}

// NVIDIA-Nemotron-Nano-9B-v2's fields (hybrid_override_pattern, mamba_num_heads, ssm_state_size: Nemotron-H's
// names). By hand (docs/models.md, families_ssm_test.cpp): Mamba-2 block 147,450,624 x 27 + relu2 MLP block
// 140,497,280 x 25 + attention block 55,054,720 x 4 + untied 2 x 131,072 x 4,480 + final norm 4,480 =
// 3,981,166,848 + 3,512,432,000 + 220,218,880 + 1,174,405,120 + 4,480 = 8,888,227,328.
const std::string nano_9b = R"({"model_type": "nemotron_h", "hidden_size": 4480, "intermediate_size": 15680,
    "num_hidden_layers": 56, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
    "vocab_size": 131072, "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
    "mamba_num_heads": 128, "mamba_head_dim": 80, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4})";

TEST(families_degrade, mamba2_in_nemotron_h_names_counts_as_nemotron_h) {
  // The fields the config leaves out are named with the value taken for them (use_conv_bias...); those it has are
  // not (n_groups).
  const degraded d = counts_as(nano_9b, "nemotron_h", "my_mamba_hybrid", 8888227328.0,
                               {"model_type \"my_mamba_hybrid\" is not known: its Mamba-2 layer list and mamba_* / "
                                "ssm_* fields counted as Nemotron-H's layers (nemotron_h)",
                                "use_conv_bias true, use_bias false"});
  EXPECT_FALSE(says(d.note, "n_groups 1")) << d.note;
  // The estimate shows the note first.
  const estimate_result e = estimate(resolved({{"mode", "inference"}, {"runtime", "vllm"}}, parsed_config(d.unknown)));
  EXPECT_EQ(e.notes.front(), d.note);
}

// Granite 4.0-H's names (layer_types of mamba and attention, mamba_n_heads, mamba_d_state). Two layers, h 64, no
// experts (docs/models.md, "Granite 4.0-H"): Mamba-2 of 4 heads, "auto" width 2 x 64 / 4 = 32, inner 128, 1 group
// of state 8: conv_dim 128 + 2 x 8 = 144; in_proj 64 x (128 + 144 + 4) = 17,664, conv1d 144 x 4 + 144 = 720,
// dt_bias, A_log, D 3 x 4 = 12, gated norm 128, out_proj 128 x 64 = 8,192: 26,716. Attention 4 heads of 16, 4 KV
// heads: 4 x 64 x 64 = 16,384. Each layer: the shared MLP 3 x 64 x 32 = 6,144 and two norms 128. Untied embedding
// and head 2 x 10 x 64 = 1,280, final norm 64: 26,716 + 16,384 + 2 x 6,272 + 1,280 + 64 = 56,988.
const std::string granite = R"({"model_type": "granitemoehybrid", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "vocab_size": 10, "num_local_experts": 0, "shared_intermediate_size": 32,
    "mamba_n_heads": 4, "mamba_d_state": 8, "layer_types": ["mamba", "attention"]})";

TEST(families_degrade, mamba2_in_granite_names_counts_as_granitemoehybrid) {
  const degraded d = counts_as(granite, "granitemoehybrid", "my_granite_like", 56988.0,
                               {"counted as Granite 4.0-H's layers (granitemoehybrid)",
                                "mamba_d_head auto (mamba_expand x hidden_size / mamba_n_heads), mamba_expand 2"});
  EXPECT_EQ(resolved({}, parsed_config(d.unknown)).model.layers_of(layer_kind::mamba, 2), 1);
}

// Jamba-v0.1's fields (attn_layer_period and the Mamba-1 mamba_* fields). By hand (families_hybrid2_test.cpp,
// docs/models.md): Mamba-1 105,308,448 x 28 + attention 41,943,040 x 4 + dense SwiGLU 176,160,768 x 16 + MoE
// 2,818,637,824 x 16 + norms 262,144 + untied embeddings 536,870,912 + final norm 4,096 = 51,570,323,328.
const std::string jamba = R"({"model_type": "jamba", "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 65536,
    "num_experts": 16, "num_experts_per_tok": 2, "attn_layer_period": 8, "attn_layer_offset": 4,
    "expert_layer_period": 2, "expert_layer_offset": 1, "mamba_d_state": 16, "mamba_expand": 2,
    "tie_word_embeddings": false})";

TEST(families_degrade, mamba1_in_jamba_names_counts_as_jamba) {
  EXPECT_EQ(105308448.0 * 28 + 41943040.0 * 4 + 176160768.0 * 16 + 2818637824.0 * 16 + 262144 + 536870912 + 4096,
            51570323328.0);
  const degraded d =
      counts_as(jamba, "jamba", "my_mamba1_hybrid", 51570323328.0,
                {"counted as Jamba's layers (jamba)", "mamba_dt_rank ceil(hidden_size / 16), mamba_d_conv 4"});
  EXPECT_EQ(resolved({}, parsed_config(d.unknown)).model.layers_of(layer_kind::mamba1, 32), 28);
}

// LFM2-1.2B's fields (layer_types of conv and full_attention, conv_L_cache). By hand (families_ssm_test.cpp): conv
// layer 16,783,360 x 10 + attention 10,485,888 x 6 + (SwiGLU 3 x 2,048 x 8,192 + two norms 4,096) x 16 + tied
// embedding 134,217,728 + final norm 2,048 = 1,170,340,608; the MLP is 2/3 of intermediate_size (12,288 -> 8,192).
const std::string lfm2 = R"({"model_type": "lfm2", "hidden_size": 2048, "intermediate_size": 12288,
    "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 65536,
    "conv_L_cache": 3, "tie_embedding": true,
    "layer_types": ["conv", "conv", "full_attention", "conv", "conv", "full_attention", "conv", "conv",
                    "full_attention", "conv", "full_attention", "conv", "full_attention", "conv", "full_attention",
                    "conv"]})";

TEST(families_degrade, short_convolutions_count_as_lfm2) {
  EXPECT_EQ(16783360.0 * 10 + 10485888.0 * 6 + (3.0 * 2048 * 8192 + 4096) * 16 + 134217728 + 2048, 1170340608.0);
  counts_as(lfm2, "lfm2", "my_conv_hybrid", 1170340608.0,
            {"its conv layers and conv_L_cache counted as LFM2's layers (lfm2)",
             "block_auto_adjust_ff_dim true: the MLP is 2/3 of intermediate_size"});
  // With experts the MoE reader (lfm2_moe) counts it: 2 layers, h 64, 4 heads of 16, conv then attention, the first
  // dense (3 x 64 x 32 = 6,144), the second 4 experts of 16 (4 x 3 x 16 x 64 = 12,288) + router 256 + expert bias 4;
  // conv layer 64 x 192 + 64 x 3 + 64 x 64 = 16,576; attention 4 x 64 x 64 + q/k norms 2 x 16 = 16,416; norms
  // 2 x 128; tied embedding 640; final norm 64: 16,576 + 16,416 + 6,144 + 12,548 + 256 + 640 + 64 = 52,644.
  const std::string moe = R"({"model_type": "my_conv_moe", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 32, "moe_intermediate_size": 16,
      "num_experts": 4, "num_experts_per_tok": 2, "num_dense_layers": 1, "conv_L_cache": 3,
      "layer_types": ["conv", "full_attention"]})";
  EXPECT_EQ(count(moe), 52644.0);
  EXPECT_TRUE(says(note(moe), "counted as LFM2-MoE's layers (lfm2_moe)"));
}

// Kimi Linear's fields (linear_attn_config; MLA of kv_lora_rank). Two layers, h 64, no experts (docs/models.md,
// "Kimi Linear", the 48B sum with these widths): KDA of 2 heads of 8 (width 16), kernel 4: q, k, v 3 x 64 x 16 =
// 3,072, convolutions 3 x 16 x 4 = 192, A_log 2, f_a 64 x 8 = 512, f_b 8 x 16 = 128, dt_bias 16, b_proj 64 x 2 =
// 128, g_a 512, g_b 128, o_norm 8, o_proj 16 x 64 = 1,024: 5,722. MLA of 4 heads: q 64 x 4 x (8 + 8) = 4,096, kv_a
// 64 x (16 + 8) = 1,536, its norm 16, kv_b 16 x 4 x (8 + 8) = 1,024, o 4 x 8 x 64 = 2,048: 8,720. Dense SwiGLU
// 3 x 64 x 32 = 6,144 x 2, norms 2 x 64 x 2 = 256, untied embeddings 2 x 100 x 64 = 12,800, final norm 64:
// 5,722 + 8,720 + 12,288 + 256 + 12,800 + 64 = 39,850.
const std::string kimi = R"({"model_type": "kimi_linear", "hidden_size": 64, "intermediate_size": 32,
    "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
    "qk_rope_head_dim": 8, "v_head_dim": 8,
    "linear_attn_config": {"num_heads": 2, "head_dim": 8, "kda_layers": [1], "full_attn_layers": [2]}})";

TEST(families_degrade, kda_counts_as_kimi_linear) {
  // The family's own note follows the degrade note.
  counts_as(kimi, "kimi_linear", "my_kda_hybrid", 39850.0,
            {"its linear_attn_config counted as Kimi Linear's layers (kimi_linear)", "short_conv_kernel_size 4",
             "Kimi Linear: the KDA recurrent state is kept in fp32"});
}

// MiniMax's remote-code names (attn_type_list: 0 lightning, 1 softmax). By hand (families_linear_test.cpp): h 64, 4
// heads of 16, 2 KV heads, 4 experts of 32: lightning 64 x 192 + 64 x 64 x 2 + norm 64 = 20,544; softmax 64 x 64 x
// 2 + 64 x 32 x 2 = 12,288; MoE (4 x 3 x 64 x 32 + router 256) x 2 = 49,664; norms 256; untied embeddings 12,800;
// final norm 64: 95,616.
const std::string minimax = R"({"model_type": "minimax_text_01", "hidden_size": 64, "intermediate_size": 32,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
    "num_local_experts": 4, "num_experts_per_tok": 2, "attn_type_list": [0, 1]})";

TEST(families_degrade, lightning_counts_as_minimax) {
  EXPECT_EQ(20544.0 + 12288 + 49664 + 256 + 12800 + 64, 95616.0);
  const degraded d = counts_as(minimax, "minimax_text_01", "my_lightning_model", 95616.0,
                               {"counted as MiniMax-Text-01's layers (minimax)"});
  EXPECT_EQ(resolved({}, parsed_config(d.unknown)).model.layers_of(layer_kind::lightning, 2), 1);
  // transformers' spelling (layer_types linear_attention) is lightning attention only beside MiniMax's factors.
  std::string hf = d.unknown;
  hf.replace(hf.find("\"attn_type_list\": [0, 1]"), 24,
             R"("layer_types": ["linear_attention", "full_attention"], "linear_attn_alpha_factor": 1)");
  EXPECT_EQ(count(hf), 95616.0);
}

// Refused (setting model_type), the message naming the field: a layer kind no family reads, a field the declared
// kind needs, and a recurrent field in no family's form. No message advises removing model_type.
TEST(families_degrade, unknown_kinds_and_missing_fields_are_refused_naming_the_field) {
  const std::string base = R"({"model_type": "my_model", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, )";
  const auto refused = [&](const std::string& tail, const std::string& setting, const std::string& part) {
    const auto r = parse_config(base + tail);
    ASSERT_FALSE(r.ok()) << tail;
    EXPECT_EQ(r.errors().front().setting, setting) << tail;
    const std::string text = to_string(r.errors().front());
    EXPECT_TRUE(says(text, part)) << text;
    EXPECT_FALSE(says(text, "remove")) << text;
  };
  refused(R"("layer_types": ["rwkv7", "full_attention"]})", "model_type",
          "its field \"layer_types\" lists \"rwkv7\", a layer kind no known family reads");
  refused(R"("layer_types": ["conv", "full_attention"]})", "model_type",
          "counted as LFM2's layers for its conv layers and conv_L_cache, it needs config.json field \"conv_L_cache\"");
  refused(R"("hybrid_override_pattern": "M*", "mamba_num_heads": 4, "mamba_head_dim": 32})", "model_type",
          "field \"ssm_state_size\"");
  refused(R"("layer_types": ["linear_attention", "full_attention"], "linear_num_value_heads": 4})", "model_type",
          "field \"linear_num_key_heads\"");
  refused(R"("time_mix_extra_dim": 32})", "model_type", "its field \"time_mix_extra_dim\" describes layers");
}

}  // namespace
