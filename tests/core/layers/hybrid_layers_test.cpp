// SPDX-License-Identifier: MIT
// Hybrid layer sequences (issue 32): the layer_types list, layer groups with their own parameters, and the
// recurrent kinds' parameters and per-sequence state, each derived by hand from the model's code
// (docs/models.md, "Layer kinds").
#include <gtest/gtest.h>

#include "layers/layer_kinds.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

run_spec spec_of(const settings& s) {
  auto r = resolve(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.errors().front().setting + ": " + r.errors().front().message);
  return r.ok() ? r.value() : run_spec{};
}

// Qwen3-Next-80B-A3B's text model as settings (its config.json: transformers configuration_qwen3_next.py fields).
settings qwen3_next() {
  return settings({{"hidden_size", "2048"},
                   {"num_hidden_layers", "48"},
                   {"num_attention_heads", "16"},
                   {"num_key_value_heads", "2"},
                   {"head_dim", "256"},
                   {"vocab_size", "151936"},
                   {"norm", "rmsnorm"},
                   {"mlp", "gated"},
                   {"qk_norm", "head"},
                   {"attention_output_gate", "on"},
                   {"layer_types", "3*linear_attention,full_attention"},
                   {"linear_num_value_heads", "32"},
                   {"linear_num_key_heads", "16"},
                   {"linear_key_head_dim", "128"},
                   {"linear_value_head_dim", "128"},
                   {"linear_conv_kernel_dim", "4"},
                   {"num_experts", "512"},
                   {"num_experts_per_tok", "10"},
                   {"moe_intermediate_size", "512"},
                   {"shared_expert_intermediate_size", "512"},
                   {"shared_expert_gate", "on"}});
}

TEST(hybrid_layers, layer_types_runs) {
  const auto runs = detail::parse_layer_types("3*linear_attention, full_attention");
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs.value().size(), 2u);
  EXPECT_EQ(runs.value()[0].kind, layer_kind::linear_attention);
  EXPECT_EQ(runs.value()[0].count, 3);
  EXPECT_FALSE(runs.value()[0].mlp.has_value());
  EXPECT_EQ(runs.value()[1].kind, layer_kind::attention);
  // Nemotron-H's "M-M*": mixer-only and MLP-only blocks; consecutive equal entries are one run.
  const auto blocks = detail::parse_layer_types("mamba+none,mlp,mamba+none,mamba+none,attention+none,moe");
  ASSERT_TRUE(blocks.ok());
  ASSERT_EQ(blocks.value().size(), 5u);
  EXPECT_EQ(blocks.value()[1].kind, layer_kind::none);
  EXPECT_EQ(blocks.value()[1].mlp, mlp_kind::dense);
  EXPECT_EQ(blocks.value()[2].count, 2);
  EXPECT_EQ(blocks.value()[4].mlp, mlp_kind::moe);
}

TEST(hybrid_layers, layer_types_errors_name_the_setting_and_entry) {
  for (const char* bad : {"lstm", "0*mamba", "mamba+relu", "x*mamba", "100001*mamba"}) {
    const auto runs = detail::parse_layer_types(bad);
    ASSERT_FALSE(runs.ok()) << bad;
    EXPECT_EQ(runs.errors().front().setting, "layer_types");
    EXPECT_NE(runs.errors().front().message.find(bad), std::string::npos) << runs.errors().front().message;
  }
  auto missing = qwen3_next();
  missing.erase("linear_num_value_heads");
  const auto r = resolve(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().setting, "linear_num_value_heads");
}

// Qwen3-Next-80B-A3B by hand (modeling_qwen3_next.py): key = 16 x 128 = 2,048, value = 32 x 128 = 4,096,
// conv_dim = 2 x 2,048 + 4,096 = 8,192.
// Gated DeltaNet: in_proj_qkvz 2,048 x (4,096 + 8,192) = 25,165,824; in_proj_ba 2,048 x 64 = 131,072; conv1d
// 8,192 x 4 = 32,768; dt_bias + A_log 64; norm 128; out_proj 4,096 x 2,048 = 8,388,608: 33,718,464.
// Gated attention: q_proj 2,048 x 16 x 256 x 2 = 16,777,216; k, v 2 x 2,048 x 512 = 2,097,152; o_proj 8,388,608;
// q/k norms 512: 27,263,488.
// MoE: 512 experts x 3 x 512 x 2,048 = 1,610,612,736; shared expert 3,145,728; shared_expert_gate 2,048; router
// 1,048,576: 1,614,809,088; norms 4,096 per layer.
// 36 x 33,718,464 + 12 x 27,263,488 + 48 x 1,614,813,184 + embedding and lm_head 2 x 151,936 x 2,048 + final norm
// 2,048 = 79,674,391,296 (the published 81,324,862,720 less the 1,650,471,424 MTP module's).
TEST(hybrid_layers, qwen3_next_counts_by_group) {
  const model_spec m = spec_of(qwen3_next()).model;
  ASSERT_EQ(m.params.groups.size(), 3u);  // the first mixer's dense group (0 layers), then two MoE groups
  EXPECT_EQ(m.params.groups[0].count, 0);
  EXPECT_EQ(m.params.groups[1].mixer, layer_kind::linear_attention);
  EXPECT_EQ(m.params.groups[1].count, 36);
  EXPECT_EQ(m.params.groups[1].params.attention, 33718464);
  EXPECT_EQ(m.params.groups[2].mixer, layer_kind::attention);
  EXPECT_EQ(m.params.groups[2].count, 12);
  EXPECT_EQ(m.params.groups[2].params.attention, 27263488);
  EXPECT_EQ(m.params.groups[2].params.mlp + m.params.groups[2].params.router, 1614809088);
  EXPECT_EQ(m.params.total, 79674391296.0);
  EXPECT_TRUE(m.hybrid());
  EXPECT_EQ(m.run_at(3).kind, layer_kind::attention);
  EXPECT_EQ(m.run_at(46).kind, layer_kind::linear_attention);
}

// vLLM's per-sequence state of one Gated DeltaNet layer (mamba_utils.py gated_delta_net_state_shape), bf16: conv
// (4 - 1) x 8,192 x 2 B = 49,152 B; recurrent 32 x 128 x 128 x 2 B = 1,048,576 B; 36 layers x 4 sequences x
// 1,097,728 B = 158,072,832 B. The 12 attention layers cache 2 x 2 heads x 256 x 2 B = 2,048 B per token: 12 x 4 x
// 8,192 tokens x 2,048 B = 805,306,368 B.
TEST(hybrid_layers, qwen3_next_state_beside_the_kv_cache) {
  auto s = qwen3_next();
  s.insert({{"mode", "inference"}, {"runtime", "vllm"}, {"batch", "4"}, {"seq", "8192"}, {"gpu_memory", "1TB"}});
  const auto r = estimate(s);
  ASSERT_TRUE(r.ok());
  const bucket& kv = r.value().buckets[4];
  ASSERT_GE(kv.items.size(), 2u);  // vLLM then pads each state to its attention page (runtimes_hybrid_test.cpp)
  EXPECT_EQ(kv.items[0].name, "full-attention layers");
  EXPECT_EQ(kv.items[0].bytes, 805306368);
  EXPECT_EQ(kv.items[1].name, "linear-attention state (Gated DeltaNet, per sequence)");
  EXPECT_EQ(kv.items[1].bytes, 158072832);
}

// A Nemotron-H-style block list (modeling_nemotron_h.py): h 1,024; Mamba-2 with 16 heads of 64 (inner 1,024), 1
// group of state 128, conv 4, conv bias, no projection bias.
// in_proj 1,024 x (2 x 1,024 + 2 x 128 + 16) = 1,024 x 2,320 = 2,375,680; conv_dim 1,024 + 256 = 1,280: conv1d
// 1,280 x 4 + 1,280 = 6,400; dt_bias, A_log, D 48; gated norm 1,024; out_proj 1,048,576: 3,431,728 per Mamba block.
// The MLP-only block: plain up/down 2 x 1,024 x 4,096 = 8,388,608. One norm per block (1,024).
TEST(hybrid_layers, nemotron_style_blocks) {
  const run_spec r = spec_of(settings({{"hidden_size", "1024"},
                                       {"num_hidden_layers", "6"},
                                       {"num_attention_heads", "8"},
                                       {"vocab_size", "0"},
                                       {"norm", "rmsnorm"},
                                       {"mlp", "plain"},
                                       {"norms_per_layer", "1"},
                                       {"intermediate_size", "4096"},
                                       {"layer_types", "mamba+none,mlp,mamba+none,mlp,full_attention+none,mlp"},
                                       {"mamba_num_heads", "16"},
                                       {"mamba_head_dim", "64"},
                                       {"mamba_d_state", "128"},
                                       {"mamba_n_groups", "1"},
                                       {"mamba_d_conv", "4"}}));
  const param_breakdown& p = r.model.params;
  double mamba = 0, mlp = 0, attention = 0;
  std::int64_t mamba_blocks = 0, mlp_blocks = 0, attention_blocks = 0;
  for (const layer_group& g : p.groups) {
    if (g.count == 0) continue;
    if (g.mixer == layer_kind::mamba) mamba = g.params.total(), mamba_blocks = g.count;
    if (g.mixer == layer_kind::none) mlp = g.params.total(), mlp_blocks = g.count;
    if (g.mixer == layer_kind::attention) attention = g.params.total(), attention_blocks = g.count;
  }
  EXPECT_EQ(mamba_blocks, 2);
  EXPECT_EQ(mlp_blocks, 3);
  EXPECT_EQ(attention_blocks, 1);
  EXPECT_EQ(mamba, 3431728 + 1024);
  EXPECT_EQ(mlp, 8388608 + 1024);
  EXPECT_EQ(attention, 4.0 * 1024 * 1024 + 1024);
  EXPECT_EQ(p.total, 2 * (3431728 + 1024) + 3 * (8388608 + 1024) + 4.0 * 1024 * 1024 + 1024 + 1024);
}

// Mamba-2's state per sequence (vLLM mamba2_state_shape), state_dtype bf16, tp 1: conv (4 - 1) x 1,280 x 2 B = 7,680 B;
// SSM 16 x 64 x 128 x 2 B = 262,144 B. LFM2's short convolution: h x (L_cache - 1) x 2 B = 1,024 x 2 x 2 = 4,096 B.
TEST(hybrid_layers, state_bytes_per_sequence) {
  const auto with = [](const char* types) {
    return estimate(settings({{"mode", "inference"},
                              {"runtime", "sglang"},
                              {"state_dtype", "bf16"},
                              {"hidden_size", "1024"},
                              {"num_hidden_layers", "4"},
                              {"num_attention_heads", "8"},
                              {"vocab_size", "1000"},
                              {"layer_types", types},
                              {"mamba_num_heads", "16"},
                              {"mamba_head_dim", "64"},
                              {"mamba_d_state", "128"},
                              {"conv_l_cache", "3"},
                              {"batch", "2"},
                              {"gpu_memory", "1TB"}}));
  };
  const auto mamba = with("mamba,full_attention");
  ASSERT_TRUE(mamba.ok());
  EXPECT_EQ(mamba.value().buckets[4].items[1].name, "Mamba state (SSM + conv, per sequence)");
  EXPECT_EQ(mamba.value().buckets[4].items[1].bytes, 2 * 2 * (7680 + 262144));
  const auto conv = with("conv,conv,full_attention");
  ASSERT_TRUE(conv.ok());
  EXPECT_EQ(conv.value().buckets[4].items[1].name, "short-convolution state (per sequence)");
  // Layers 0, 1 and 3 are conv layers (the list repeats): 3 layers x 2 sequences x 4,096 B.
  EXPECT_EQ(conv.value().buckets[4].items[1].bytes, 3 * 2 * 4096);
}

// A hybrid trains: every group's activations are counted, so the estimate is finite and grows with the context.
TEST(hybrid_layers, training_counts_every_group) {
  auto s = qwen3_next();
  s.insert({{"mode", "train"}, {"framework", "generic"}, {"seq", "1024"}, {"finetune", "lora"}});
  const auto short_run = estimate(s);
  s["seq"] = "2048";
  const auto long_run = estimate(s);
  ASSERT_TRUE(short_run.ok() && long_run.ok());
  const double a = short_run.value().buckets[3].bytes, b = long_run.value().buckets[3].bytes;
  EXPECT_GT(a, 0);
  EXPECT_GT(b, a);
}

}  // namespace
