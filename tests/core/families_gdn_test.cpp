// SPDX-License-Identifier: MIT
// Issue 32, the Gated DeltaNet hybrids: Qwen3-Next (qwen3_next), Qwen3.5 / Qwen3.6 (qwen3_5, qwen3_5_moe). Every
// count is summed by hand from the modeling code's shapes (docs/models.md, "Gated DeltaNet hybrids") and checked
// against the Hub's published total; the state bytes from vLLM's gated_delta_net_state_shape.
#include <gtest/gtest.h>

#include "config_support.hpp"
#include "run_support.hpp"

#include <string>
#include <utility>

#include "estimate/stage.hpp"
#include "layers/layer_kinds.hpp"

#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::estimated;
using test::item;
using test::parsed_config;
using test::resolved;

// The shapes of transformers' modeling_qwen3_next.py / modular_qwen3_5.py, written out once (docs/models.md).
struct hybrid {
  double H = 0, L = 0, nh = 0, nkv = 0, hd = 256, Hk = 16, Hv = 0, dk = 128, dv = 128, Kc = 4, V = 248320;
  double ffn = 0;     // one layer's MLP: 3 I H, or the MoE block
  double vision = 0;  // the tower, 0 for a text-only checkpoint
  bool tied = false;
};

// in_proj_qkvz (or in_proj_qkv + in_proj_z), in_proj_ba (or in_proj_b + in_proj_a), conv1d (conv_dim x Kc, no
// bias), dt_bias, A_log, the gated norm (dv), out_proj.
double gdn(const hybrid& m) {
  const double key = m.Hk * m.dk, value = m.Hv * m.dv, conv = 2 * key + value;
  return m.H * (2 * key + 2 * value) + 2 * m.Hv * m.H + conv * m.Kc + 2 * m.Hv + m.dv + value * m.H;
}

// q_proj doubled by the output gate, k_proj, v_proj, o_proj, q_norm and k_norm per head.
double gated_attention(const hybrid& m) {
  return 2 * m.nh * m.hd * m.H + 2 * m.nkv * m.hd * m.H + m.nh * m.hd * m.H + 2 * m.hd;
}

// E experts of 3 Im H, the shared expert 3 Is H, its gate (1 x H) and the router (E x H).
double moe(double H, double E, double Im, double Is) { return E * 3 * Im * H + 3 * Is * H + H + E * H; }

// Qwen3-VL's tower without DeepStack mergers: width e, MLP i, depth d (the 9B and larger: 1,152, 4,304, 27),
// out_hidden_size `out`.
double vision(double out, double e = 1152, double i = 4304, double d = 27) {
  const double w = e * 4;
  return 3 * 2 * 16 * 16 * e + e + 2304 * e + d * (4 * e + 3 * e * e + 3 * e + e * e + e + 2 * e * i + i + e) + 2 * e +
         w * w + w + w * out + out;
}

// Three GDN layers to one attention layer; each layer's FFN and two norms; embedding, head and final norm; one MTP
// module (gated attention, the FFN, fc 2H -> H, three norms); the vision tower.
double total(const hybrid& m) {
  const double full = m.L / 4, linear = m.L - full;
  const double text =
      linear * gdn(m) + full * gated_attention(m) + m.L * (m.ffn + 2 * m.H) + m.V * m.H * (m.tied ? 1 : 2) + m.H;
  const double mtp = gated_attention(m) + m.ffn + 2 * m.H + 2 * m.H * m.H + 3 * m.H;
  return text + mtp + m.vision;
}

// Qwen3-Next-80B-A3B: GDN 33,718,464, gated attention 27,263,488, MoE 1,614,809,088 per layer; 36 + 12 layers,
// embedding and head 2 x 151,936 x 2,048, final norm: 79,674,391,296; MTP 1,650,471,424; 81,324,862,720 published.
TEST(families_gdn, qwen3_next_80b_by_hand) {
  hybrid m{.H = 2048, .L = 48, .nh = 16, .nkv = 2, .Hv = 32, .V = 151936};
  m.ffn = moe(2048, 512, 512, 512);
  EXPECT_EQ(gdn(m), 33718464.0);
  EXPECT_EQ(gated_attention(m), 27263488.0);
  EXPECT_EQ(m.ffn, 1614809088.0);
  EXPECT_EQ(total(m), 81324862720.0);
  const run_spec r = resolved({{"model", "qwen3-next-80b-a3b-instruct"}});
  EXPECT_EQ(r.model.params.total, 81324862720.0);
  EXPECT_EQ(r.model.params.mtp, 1650471424.0);
  EXPECT_EQ(r.model.params.loaded(), 79674391296.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::linear_attention, 48), 36);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 48), 12);
  EXPECT_EQ(r.model.params.moe_layers(), 48);
  EXPECT_EQ(resolved({{"model", "qwen3-next-80b-a3b-thinking"}}).model.params.total, 81324862720.0);
}

// Qwen3.5 / 3.6: the text model, one MTP module and the vision tower (out_hidden_size = hidden_size), each against
// the Hub's safetensors.total (models.json's sources).
TEST(families_gdn, qwen3_5_family_by_hand) {
  struct row {
    const char* id;
    hybrid m;
    double published;
  };
  const row rows[] = {
      {"qwen3.5-397b-a17b", {.H = 4096, .L = 60, .nh = 32, .nkv = 2, .Hv = 64}, 403397928944},
      {"qwen3.5-122b-a10b", {.H = 3072, .L = 48, .nh = 32, .nkv = 2, .Hv = 64}, 125086497008},
      {"qwen3.5-35b-a3b", {.H = 2048, .L = 40, .nh = 16, .nkv = 2, .Hv = 32}, 35951822704},
      {"qwen3.5-27b", {.H = 5120, .L = 64, .nh = 24, .nkv = 4, .Hv = 48}, 27781427952},
      {"qwen3.5-9b", {.H = 4096, .L = 32, .nh = 16, .nkv = 4, .Hv = 32}, 9653104368},
  };
  const double ffn[] = {moe(4096, 512, 1024, 1024), moe(3072, 256, 1024, 1024), moe(2048, 256, 512, 512),
                        3 * 17408 * 5120.0, 3 * 12288 * 4096.0};
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    hybrid m = rows[i].m;
    m.ffn = ffn[i];
    m.vision = vision(m.H);
    EXPECT_EQ(total(m), rows[i].published) << rows[i].id;
    EXPECT_EQ(resolved({{"model", rows[i].id}}).model.params.total, rows[i].published) << rows[i].id;
  }
  // Qwen3.6 reuses the Qwen3.5 architectures: the same published totals.
  EXPECT_EQ(resolved({{"model", "qwen3.6-35b-a3b"}}).model.params.total, 35951822704.0);
  EXPECT_EQ(resolved({{"model", "qwen3.6-27b"}}).model.params.total, 27781427952.0);
  // The small sizes (issue 32 item 6) tie their embeddings; their towers are narrower (docs/models.md, "Issue 32's
  // presets"): 0.8B text 752,393,024 + MTP 20,452,864 + vision 12 x 768 (MLP 3,072) 100,592,896 = 873,438,784;
  // 2B 1,881,825,088 + 60,828,160 + 24 x 1,024 (4,096) 331,416,576 = 2,274,069,824; 4B 4,205,751,296 +
  // 120,599,552 + 333,514,240 = 4,659,865,088 (the 2B and 4B towers differ in the merger's output only).
  struct small {
    const char* id;
    hybrid m;
    double intermediate, width, mlp, depth, text, mtp, published;
  };
  const small sizes[] = {
      {"qwen3.5-0.8b",
       {.H = 1024, .L = 24, .nh = 8, .nkv = 2, .Hv = 16, .tied = true},
       3584,
       768,
       3072,
       12,
       752393024,
       20452864,
       873438784},
      {"qwen3.5-2b",
       {.H = 2048, .L = 24, .nh = 8, .nkv = 2, .Hv = 16, .tied = true},
       6144,
       1024,
       4096,
       24,
       1881825088,
       60828160,
       2274069824},
      {"qwen3.5-4b",
       {.H = 2560, .L = 32, .nh = 16, .nkv = 4, .Hv = 32, .tied = true},
       9216,
       1024,
       4096,
       24,
       4205751296,
       120599552,
       4659865088},
  };
  for (const auto& s : sizes) {
    hybrid m = s.m;
    m.ffn = 3 * s.intermediate * m.H;
    m.vision = vision(m.H, s.width, s.mlp, s.depth);
    EXPECT_EQ(total(m), s.published) << s.id;
    const run_spec r = resolved({{"model", s.id}});
    EXPECT_EQ(r.model.params.total, s.published) << s.id;
    EXPECT_EQ(r.model.params.mtp, s.mtp) << s.id;
    EXPECT_EQ(r.model.params.vision, m.vision) << s.id;
    EXPECT_EQ(r.model.params.loaded() - m.vision, s.text) << s.id;
    EXPECT_EQ(resolved({{"model", std::string(s.id) + "-base"}}).model.params.total, s.published) << s.id;
  }
  EXPECT_EQ(vision(1024, 768, 3072, 12), 100592896.0);
  EXPECT_EQ(vision(2560, 1024, 4096, 24) - vision(2048, 1024, 4096, 24), (2560 - 2048) * 4097.0);
  // The 397B tower: 456,010,480 (docs/models.md); Qwen3-VL's would add three DeepStack mergers.
  EXPECT_EQ(vision(4096), 456010480.0);
  EXPECT_EQ(resolved({{"model", "qwen3.5-397b-a17b"}}).model.params.vision, 456010480.0);
}

// vLLM (mamba_utils.py gated_delta_net_state_shape, tp 1): per GDN layer a conv state (Kc - 1) x conv_dim = 3 x
// 8,192 and a recurrent state Hv x dv x dk = 32 x 128 x 128, bf16 for Qwen3-Next: 36 x (49,152 + 1,048,576) =
// 39,518,208 B per sequence, whatever the context. The 12 attention layers cache 2 x 2 KV heads x 256 x 2 B per
// token: 12 x 1,000 x 2,048 = 24,576,000 B for 1,000 tokens.
TEST(families_gdn, qwen3_next_state_beside_the_kv_cache) {
  const estimate_result e = estimated({{"model", "qwen3-next-80b-a3b-instruct"},
                                       {"mode", "inference"},
                                       {"runtime", "vllm"},
                                       {"batch", "1"},
                                       {"seq", "1000"}});
  EXPECT_EQ(item(e, "linear-attention state (Gated DeltaNet, per sequence)"), 36.0 * (3 * 8192 * 2 + 32 * 16384 * 2));
  EXPECT_EQ(item(e, "linear-attention state (Gated DeltaNet, per sequence)"), 39518208.0);
  EXPECT_EQ(item(e, "full-attention layers"), 12.0 * 1000 * 2 * 2 * 256 * 2);
}

// Qwen3.5's mamba_ssm_dtype float32 keeps the recurrent state in fp32 (vLLM's Qwen3_5 config override): 35B-A3B's
// 30 GDN layers x (3 x 8,192 x 2 + 32 x 16,384 x 4) = 64,389,120 B per sequence.
TEST(families_gdn, qwen3_5_recurrent_state_in_fp32) {
  const estimate_result e = estimated(
      {{"model", "qwen3.5-35b-a3b"}, {"mode", "inference"}, {"runtime", "vllm"}, {"batch", "1"}, {"seq", "1000"}});
  EXPECT_EQ(item(e, "linear-attention state (Gated DeltaNet, per sequence)"), 64389120.0);
}

// Qwen/Qwen3-Next-80B-A3B-Thinking's config.json (as ai-dynamo/aiconfigurator@1b7cfb10 copies it).
constexpr const char* qwen3_next_config = R"({
    "architectures": ["Qwen3NextForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "decoder_sparse_step": 1, "eos_token_id": 151645, "full_attention_interval": 4, "head_dim": 256,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 5120,
    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
    "linear_num_value_heads": 32, "linear_value_head_dim": 128, "max_position_embeddings": 262144,
    "mlp_only_layers": [], "model_type": "qwen3_next", "moe_intermediate_size": 512, "norm_topk_prob": true,
    "num_attention_heads": 16, "num_experts": 512, "num_experts_per_tok": 10, "num_hidden_layers": 48,
    "num_key_value_heads": 2, "output_router_logits": false, "partial_rotary_factor": 0.25, "rms_norm_eps": 1e-06,
    "rope_scaling": null, "rope_theta": 10000000, "router_aux_loss_coef": 0.001,
    "shared_expert_intermediate_size": 512, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.57.0.dev0", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})";

TEST(families_gdn, real_qwen3_next_config) {
  const settings s = parsed_config(qwen3_next_config);
  EXPECT_EQ(s.at("layer_types"), "3*linear_attention,full_attention");
  EXPECT_EQ(s.at("attention_output_gate"), "on");
  EXPECT_EQ(s.at("qk_norm"), "head");
  EXPECT_EQ(s.at("shared_expert_gate"), "on");
  EXPECT_EQ(s.at("num_nextn_predict_layers"), "1");  // vLLM's default: the checkpoint stores one
  EXPECT_EQ(s.at("mtp_own_embedding"), "off");
  EXPECT_EQ(s.at("linear_num_value_heads"), "32");
  EXPECT_EQ(resolved({}, s).model.params.total, 81324862720.0);
}

// Qwen3.5's nesting: the language model in text_config (model_type qwen3_5_moe_text), an explicit layer_types list
// written in run form, the tower from vision_config, tie_word_embeddings at the top level.
TEST(families_gdn, nested_qwen3_5_config) {
  std::string types;
  for (int i = 0; i < 8; ++i)
    types += std::string(i == 0 ? "" : ",") + ((i + 1) % 4 == 0 ? "\"full_attention\"" : "\"linear_attention\"");
  const settings s = parsed_config(R"({"model_type": "qwen3_5_moe", "tie_word_embeddings": false,
      "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 64, "num_hidden_layers": 8,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
        "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 8,
        "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16, "shared_expert_intermediate_size": 16,
        "mtp_num_hidden_layers": 1, "mamba_ssm_dtype": "float32", "layer_types": [)" +
                                   types + R"(]},
      "vision_config": {"depth": 1, "hidden_size": 8, "intermediate_size": 16, "out_hidden_size": 64,
        "num_position_embeddings": 4, "patch_size": 2}})");
  EXPECT_EQ(s.at("layer_types"), "3*linear_attention,full_attention");
  EXPECT_EQ(s.at("tie_word_embeddings"), "off");
  EXPECT_EQ(s.at("state_dtype"), "fp32");
  EXPECT_EQ(s.at("num_nextn_predict_layers"), "1");
  // Vision: patch 3 x 2 x 2 x 2 x 8 + 8 = 200, positions 32; one block 4 x 8 + 3 x 64 + 24 + 64 + 8 + 2 x 128 + 16 +
  // 8 = 600; merger norm 16, fc1 32 x 32 + 32 = 1,056, fc2 32 x 64 + 64 = 2,112 (no DeepStack mergers): 4,016.
  EXPECT_EQ(s.at("vision_params"), "4016");
}

// layer_types with kinds other than sliding/full attention, in run form over the shortest period; unknown kinds are
// refused naming the setting.
TEST(families_gdn, layer_types_run_form) {
  const std::string base = R"({"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "vocab_size": 100, "linear_num_key_heads": 2, "linear_num_value_heads": 2,
      "linear_key_head_dim": 8, "linear_value_head_dim": 8, )";
  EXPECT_EQ(parsed_config(base + R"("layer_types": ["linear_attention", "full_attention", "linear_attention",
      "linear_attention"]})")
                .at("layer_types"),
            "linear_attention,full_attention,2*linear_attention");
  EXPECT_EQ(parsed_config(base + R"("full_attention_interval": 2})").at("layer_types"),
            "linear_attention,full_attention");
  EXPECT_EQ(parsed_config(base + R"("full_attention_interval": 1})").at("layer_types"), "full_attention");
  const auto bad = parse_config(base + R"("layer_types": ["linear_attention", "lightning"]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors().front().setting, "layer_types");
  const auto dense = parse_config(base + R"("num_experts": 4, "moe_intermediate_size": 8, "mlp_only_layers": [0]})");
  ASSERT_FALSE(dense.ok());
  EXPECT_EQ(dense.errors().front().setting, "moe_layer_step");
}

// The MTP module's shape by family: Qwen3-Next's shares the embedding and head; DeepSeek-V3's (mtp_own_embedding
// on) stores its own, 2 x V x H more. Tiny Qwen3-Next: H 64, V 100, one dense MLP (intermediate 32) per layer.
// Gated attention: q 64 x 128, k, v 2 x 64 x 32 (2 KV heads of 16), o 64 x 64, q/k norms 2 x 16 = 16,416; MLP
// 3 x 32 x 64 = 6,144; norms 2 x 64; fc 2 x 64 x 64 = 8,192; three norms 192: 31,072.
TEST(families_gdn, mtp_shape_by_family) {
  const settings s = parsed_config(R"({"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
      "intermediate_size": 32, "linear_num_key_heads": 2, "linear_num_value_heads": 2, "linear_key_head_dim": 8,
      "linear_value_head_dim": 8})");
  EXPECT_EQ(resolved({}, s).model.params.mtp, 31072.0);
  EXPECT_EQ(resolved({{"mtp_own_embedding", "on"}}, s).model.params.mtp, 31072.0 + 2 * 100 * 64);
  // DeepSeek-V3.2-Exp keeps its own (families_2025_test derives the whole module).
  EXPECT_EQ(resolved({{"model", "deepseek-v3.2-exp"}}).model.params.mtp, 13477385728.0);
}

// Training, per token and GDN layer, Qwen3-Next's widths in bf16 (docs/methodology.md, "Gated DeltaNet layers"):
// conv input 2 x 8,192 = 16,384, q and k repeated to 32 heads 2 x 2 x 32 x 128 = 16,384, their fp32 rstd
// 2 x 4 x 32 = 256, v 2 x 4,096 = 8,192, g 4 x 32 = 128, beta 2 x 32 = 64, A 2 x 32 x 64 = 4,096, the gated norm's
// input and z 2 x 2 x 4,096 = 16,384, out_proj input 8,192: 70,080 B; plus the in_proj input 2 x 2,048 = 4,096
// (input_copies shared) or one copy per in_proj (per_linear: in_proj_qkvz and in_proj_ba, 8,192).
TEST(families_gdn, gdn_saved_activations_by_hand) {
  for (const auto& [copies, input] : {std::pair{"shared", 4096.0}, std::pair{"per_linear", 8192.0}}) {
    const run_spec r = resolved({{"model", "qwen3-next-80b-a3b-instruct"},
                                 {"mode", "train"},
                                 {"batch", "1"},
                                 {"seq", "16"},
                                 {"recompute", "none"},
                                 {"input_copies", copies}});
    const detail::context c = detail::make_context(r, true, true, step_phase::sum);
    for (const layer_group& g : r.model.params.groups) {
      if (g.mixer != layer_kind::linear_attention) continue;
      detail::layer_activations out;
      detail::layer_def(layer_kind::linear_attention).saved(c, g.params, out);
      EXPECT_EQ(out.linear_terms, 16 * (70080.0 + input)) << copies;
      EXPECT_EQ(out.outside_tp, 16 * input) << copies;
    }
  }
}

// Issue 32 item 5: an unknown model_type whose layer_types declare Gated DeltaNet layers beside full attention, with
// the four linear_* widths, is counted as Qwen3.5's layers (config_json.cpp read_unknown), the assumptions named in a
// note. h 64, 3 GDN + 1 full layer, 4 heads and 2 KV heads of 16, Hv 4, Hk 2, d_k = d_v 16, kernel 4, MLP 128, vocab
// 100, untied. GDN: in_proj_qkvz 64 x (2 x 32 + 2 x 64) = 12,288, in_proj_ba 2 x 4 x 64 = 512, conv (2 x 32 + 64) x 4 =
// 512, dt_bias and A_log 8, gated norm 16, out_proj 64 x 64 = 4,096: 17,432. Gated attention: q doubled 2 x 64 x 64
// = 8,192, k and v 2 x 32 x 64 = 4,096, o 4,096, q/k norms 32: 16,416. Each layer's MLP 3 x 64 x 128 = 24,576 and two
// norms 128. 3 x 42,136 + 41,120 + embedding and head 2 x 100 x 64 = 12,800 + final norm 64 = 180,392.
TEST(families_gdn, unknown_model_type_with_gdn_layer_types_counts_as_qwen3_5) {
  const std::string text = R"({"model_type": "my_gdn_hybrid", "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128,
      "vocab_size": 100, "tie_word_embeddings": false, "linear_num_value_heads": 4, "linear_num_key_heads": 2,
      "linear_key_head_dim": 16, "linear_value_head_dim": 16, "linear_conv_kernel_dim": 4,
      "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"]})";
  const settings s = parsed_config(text);
  EXPECT_NE(s.at("model_notes")
                .find("\"my_gdn_hybrid\" is not known: its layer_types and linear_* fields counted as "
                      "Qwen3.5's layers (qwen3_5)"),
            std::string::npos);
  const run_spec r = resolved({}, s);
  EXPECT_EQ(r.model.params.total, 180392.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::linear_attention, 4), 3);
  // The estimate carries the note; vLLM keeps the state per sequence: conv 3 x 128 x 2 B + recurrent 4 x 16 x 16 x
  // 2 B = 2,816 B per GDN layer.
  const estimate_result e = estimate(resolved({{"mode", "inference"}, {"runtime", "vllm"}, {"batch", "1"}}, s));
  EXPECT_EQ(e.notes.front(), s.at("model_notes"));
  EXPECT_EQ(item(e, "linear-attention state (Gated DeltaNet, per sequence)"), 3 * 2816.0);
  // Without the widths, or with another recurrent kind, it stays refused, naming the field.
  EXPECT_FALSE(parse_config(R"({"model_type": "my_gdn_hybrid", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "layer_types": ["linear_attention", "full_attention"]})")
                   .ok());
  EXPECT_FALSE(parse_config(R"({"model_type": "my_ssm_hybrid", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "layer_types": ["mamba", "full_attention"]})")
                   .ok());
}

}  // namespace
