// SPDX-License-Identifier: MIT
// The MoE router as each stack stores it when the weights format compresses the linears, and the tensor-parallel
// degrees a framework or runtime refuses. Every number is summed by hand from the shapes in the model's config.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "run_support.hpp"

#include "llm_memory/estimate.hpp"

namespace {

using namespace llm_memory;
using test::estimated;

double weights(settings s, const char* runtime, const char* format) {
  s["runtime"] = runtime;
  s["weights_dtype"] = format;
  return test::item(estimated(s), "weights");
}

bool refused_tp(const settings& s, const std::string& words) {
  const auto r = estimate(s);
  return !r.ok() && std::any_of(r.errors().begin(), r.errors().end(), [&](const error& e) {
    return e.setting == "tp" && e.message.find(words) != std::string::npos;
  });
}

// Qwen3-235B-A22B's routers: 94 layers x hidden 4,096 x 128 experts = 49,283,072 weights. vLLM and SGLang build the
// gate with quant_config=None (qwen3_moe.py Qwen3MoeSparseMoeBlock) and TGI loads it as a plain FastLinear, so an
// fp8 / int8 / int4 format leaves it at 2 B; transformers' bitsandbytes swap converts it (an nn.Linear) with the other
// linears. Everything else is stored alike, so the weights differ by the routers alone: fp8 and int8 49,283,072 x
// (2 - 1) B (int8's fp32 row scales cover the linears' rows, not the router's, in both); int4 (128-value groups,
// (4 x 128 + 16 + 4) / 8 = 66.5 B a group: 0.51953125 B a value) 49,283,072 x 1.48046875 = 72,962,048 B.
TEST(router_formats, inference_runtimes_keep_the_router_16_bit_in_a_compressed_format) {
  const double routers = 94 * 4096 * 128.0;
  EXPECT_EQ(routers, 49283072.0);
  EXPECT_EQ((4.0 * 128 + 16 + 4) / 8 / 128, 0.51953125);
  EXPECT_EQ(routers * (2 - 0.51953125), 72962048.0);
  const settings s{{"model", "qwen3-235b-a22b"}, {"mode", "inference"}};
  for (const char* runtime : {"vllm", "sglang", "tgi"}) {
    EXPECT_EQ(weights(s, runtime, "fp8") - weights(s, "transformers", "fp8"), routers) << runtime;
    EXPECT_EQ(weights(s, runtime, "int8") - weights(s, "transformers", "int8"), routers) << runtime;
    EXPECT_EQ(weights(s, runtime, "int4") - weights(s, "transformers", "int4"), 72962048.0) << runtime;
  }
  // Whole on every rank: at tp 8 on vLLM in fp8 the routers' 98,566,144 B stay on each rank, the rest splits. The
  // tp-1 weights W_1 = L + 98,566,144 (L the linears at 1 B, norms 774,144 x 2 B among them), so each rank holds
  // (W_1 - 98,566,144 - 1,548,288) / 8 + 98,566,144 + 1,548,288 plus the 4 KV heads' replicated k/v (49,283,072
  // more values at 1 B): W_8 - W_1 / 8 = 7/8 x (98,566,144 + 1,548,288) + 49,283,072 = 136,883,200 B.
  EXPECT_EQ(7.0 / 8 * (98566144 + 1548288.0) + 49283072, 136883200.0);
  settings t = s;
  t["tp"] = t["devices"] = "8";
  EXPECT_EQ(weights(t, "vllm", "fp8") - weights(s, "vllm", "fp8") / 8, 136883200.0);
}

// bitsandbytes (transformers' replace_with_bnb_linear: every nn.Linear but the output embedding, which
// get_keys_to_not_convert keeps) converts Qwen3-MoE's gate, an nn.Linear, with the other linears, for QLoRA and for
// transformers' inference alike; vLLM's bitsandbytes method never reaches a gate built with quant_config=None. NF4
// without double quantisation: 64 values in 32 B + a 4 B absmax, 0.5625 B a value: 49,283,072 x (2 - 0.5625) =
// 70,844,416 B between them.
TEST(router_formats, bitsandbytes_quantises_an_nn_linear_router) {
  EXPECT_EQ((32 + 4) / 64.0, 0.5625);
  EXPECT_EQ(49283072 * (2 - 0.5625), 70844416.0);
  const settings s{{"model", "qwen3-235b-a22b"}, {"mode", "inference"}, {"double_quant", "off"}};
  EXPECT_EQ(weights(s, "vllm", "nf4") - weights(s, "transformers", "nf4"), 70844416.0);
}

// A router that is an nn.Parameter of its own is no nn.Linear for _replace_with_bnb_linear to swap: it stays at the
// load dtype (DeepSeek's MoEGate / DeepseekV3TopkRouter, gpt-oss's GptOssTopKRouter: docs/methodology.md). DeepSeek-
// V3's 58 MoE layers (61 less first_k_dense_replace 3) hold 256 x 7,168 router weights and the 256-value score
// correction: 58 x 1,835,264 = 106,445,312 values at 2 B, not NF4's 0.5625 B: 106,445,312 x 1.4375 = 153,015,136 B
// more than the same shapes with an nn.Linear router (model_type mixtral), and as much as vLLM keeps.
TEST(router_formats, bitsandbytes_leaves_a_parameter_router_16_bit) {
  EXPECT_EQ(58 * (256 * 7168.0 + 256), 106445312.0);
  EXPECT_EQ(106445312 * (2 - 0.5625), 153015136.0);
  const settings s{{"model", "deepseek-v3"}, {"mode", "inference"}, {"double_quant", "off"}};
  settings linear = s;
  linear["model_type"] = "mixtral";
  EXPECT_EQ(weights(s, "transformers", "nf4") - weights(linear, "transformers", "nf4"), 153015136.0);
  EXPECT_EQ(weights(s, "vllm", "nf4"), weights(s, "transformers", "nf4"));
  // QLoRA with prepare_model_for_kbit_training (qlora_upcast) casts every 16-bit parameter to fp32, the Parameter
  // router with the embeddings: gpt-oss-20b's 24 layers x (32 x 2,880 + 32 bias) = 2,212,608 values at 4 B, not
  // 0.5625 B: 2,212,608 x 3.4375 = 7,605,840 B.
  EXPECT_EQ(24 * (32 * 2880.0 + 32) * (4 - 0.5625), 7605840.0);
  settings q{{"model", "gpt-oss-20b"}, {"finetune", "qlora"}, {"qlora_upcast", "on"}, {"double_quant", "off"}};
  settings q_linear = q;
  q_linear["model_type"] = "mixtral";
  EXPECT_EQ(test::item(estimated(q), "frozen base weights") - test::item(estimated(q_linear), "frozen base weights"),
            7605840.0);
}

// peft's all-linear adapts every nn.Linear but the output layer (tuners_utils.py _maybe_include_all_linear_layers):
// Mixtral-8x7B's gate (4,096 -> 8) gets r x (4,096 + 8) adapter weights a layer, 16 x 4,104 x 32 layers = 2,101,248
// at rank 16, beside the 16 x (8,192 + 5,120 x 2 + 8,192 + 8 experts x 3 x 18,432) x 32 = 240,123,904 of the seven
// projections: 242,225,152 adapter weights at 4 B (fp32 adapters), Adam's two fp32 moments 8 B each. At tp 2 the
// projections' adapters split, the router's stay whole: (120,061,952 + 2,101,248) x 4 B = 488,652,800 B.
TEST(router_formats, all_linear_adapts_an_nn_linear_router) {
  EXPECT_EQ(16 * 4104 * 32.0, 2101248.0);
  EXPECT_EQ(16 * (8192 + 5120 * 2 + 8192 + 8 * 3 * 18432.0) * 32, 240123904.0);
  settings s{{"model", "mixtral-8x7b-v0.1"}, {"finetune", "lora"}, {"lora_rank", "16"}, {"lora_targets", "all-linear"}};
  const auto all = estimated(s);
  EXPECT_EQ(test::item(all, "LoRA adapters"), 242225152.0 * 4);
  EXPECT_EQ(all.bytes("optimizer"), 242225152.0 * 8);
  s["tp"] = s["devices"] = "2";
  EXPECT_EQ(test::item(estimated(s), "LoRA adapters"), 488652800.0);
  // Adafactor factors each adapter matrix into a row and a column vector: lora_A (r x h) and lora_B (E x r) of the
  // gate hold r + h + E + r = 32 + 4,104 values a layer, 4,136 x 32 x 4 B = 529,408 B beside the seven projections'.
  EXPECT_EQ((2 * 16 + 4096 + 8) * 32 * 4.0, 529408.0);
  settings f{{"model", "mixtral-8x7b-v0.1"}, {"finetune", "lora"}, {"lora_rank", "16"}, {"optimizer", "adafactor"}};
  f["lora_targets"] = "all-linear";
  const double all_factored = test::item(estimated(f), "fp32 Adafactor factored second moment");
  f["lora_targets"] = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj";
  EXPECT_EQ(all_factored - test::item(estimated(f), "fp32 Adafactor factored second moment"), 529408.0);
  // Qwen1.5-MoE-A2.7B: the gate (2,048 -> 60) and the shared_expert_gate (2,048 -> 1), 24 layers: 16 x (2,108 +
  // 2,049) x 24 = 1,596,288 adapter weights more than the seven projections' adapters, 6,385,152 B.
  EXPECT_EQ(16 * (2108 + 2049) * 24.0 * 4, 6385152.0);
  settings q{{"model", "qwen1.5-moe-a2.7b"}, {"finetune", "lora"}, {"lora_rank", "16"}, {"lora_targets", "all-linear"}};
  settings seven = q;
  seven["lora_targets"] = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj";
  EXPECT_EQ(test::item(estimated(q), "LoRA adapters") - test::item(estimated(seven), "LoRA adapters"), 6385152.0);
  // A Parameter router gets none: DeepSeek-V3's 58 routers would take 16 x (7,168 + 256) x 58 = 6,889,472 adapter
  // weights (27,557,888 B) as nn.Linear gates (model_type mixtral).
  EXPECT_EQ(16 * (7168 + 256) * 58.0 * 4, 27557888.0);
  settings d{{"model", "deepseek-v3"}, {"finetune", "lora"}, {"lora_rank", "16"}, {"lora_targets", "all-linear"}};
  settings d_linear = d;
  d_linear["model_type"] = "mixtral";
  EXPECT_EQ(test::item(estimated(d_linear), "LoRA adapters") - test::item(estimated(d), "LoRA adapters"), 27557888.0);
}

// Megatron-Core's Attention divides num_query_groups by tp (megatron/core/transformer/attention.py): Llama 3.1 70B's
// 8 KV heads at tp 16 are refused, at tp 8 they split; torchtitan alike. vLLM and SGLang replicate them at tp 16 (each
// of 8 heads twice) and refuse tp 5 for Qwen2.5-14B's 8 KV heads (40 query heads: resolve's head check passes).
TEST(router_formats, tp_must_split_the_kv_heads_as_the_stack_does) {
  settings megatron{{"model", "llama-3.1-70b"}, {"framework", "megatron"}, {"tp", "16"}, {"devices", "16"}};
  EXPECT_TRUE(refused_tp(megatron, "Megatron-LM splits the query groups (num_key_value_heads = 8)"));
  megatron["tp"] = megatron["devices"] = "8";
  EXPECT_TRUE(estimate(megatron).ok());
  // torchtitan views each rank's wk / wv output as whole heads (Attention.forward): 8 KV heads over 16 ranks are half
  // a head each.
  settings titan{{"model", "llama-3.1-70b"}, {"framework", "torchtitan"}, {"tp", "16"}, {"devices", "16"}};
  EXPECT_TRUE(refused_tp(titan, "torchtitan shards wk and wv"));
  titan["tp"] = "8";
  EXPECT_TRUE(estimate(titan).ok());
  for (const char* runtime : {"vllm", "sglang"}) {
    const settings replicated{
        {"model", "llama-3.1-70b"}, {"mode", "inference"}, {"runtime", runtime}, {"tp", "16"}, {"devices", "16"}};
    EXPECT_TRUE(estimate(replicated).ok()) << runtime;
    const settings uneven{
        {"model", "qwen2.5-14b"}, {"mode", "inference"}, {"runtime", runtime}, {"tp", "5"}, {"devices", "5"}};
    EXPECT_TRUE(refused_tp(uneven, "splits the 8 KV heads")) << runtime;
  }
}

// Nemotron 3 Super on vLLM: GateLinear(force_fp32_compute=True) keeps its 40 MoE blocks' routers (4,096 x 512 each,
// no bias: the e_score_correction_bias is its own parameter) in fp32 off Hopper and Blackwell: 40 x 4,096 x 512 =
// 83,886,080 weights x (4 - 2) B = 167,772,160 B more on an A100 or an RTX PRO 6000 (capability 12.0), on every tp
// rank alike; none on an H100 or a B200, none without a GPU preset, none with fp32 weights.
TEST(router_formats, vllm_keeps_nemotron_h_router_in_fp32_off_hopper_and_blackwell) {
  const std::string name = "router in fp32 (GateLinear off Hopper and Blackwell)";
  EXPECT_EQ(40 * 4096 * 512.0 * 2, 167772160.0);
  settings s{{"model", "nvidia-nemotron-3-super-120b-a12b-bf16"},
             {"mode", "inference"},
             {"runtime", "vllm"},
             {"gpu", "a100-80gb"},
             {"tp", "4"},
             {"devices", "4"}};
  EXPECT_EQ(test::item(estimated(s), name), 167772160.0);
  s["gpu"] = "rtx-pro-6000";
  EXPECT_EQ(test::item(estimated(s), name), 167772160.0);
  s["tp"] = s["devices"] = "8";
  EXPECT_EQ(test::item(estimated(s), name), 167772160.0);
  for (const char* gpu : {"h100-80gb", "h200-141gb", "b200-180gb", ""}) {
    s["gpu"] = gpu;
    EXPECT_EQ(test::item(estimated(s), name), -1) << gpu;
  }
  s["gpu"] = "a100-80gb";
  s["weights_dtype"] = "fp32";
  EXPECT_EQ(test::item(estimated(s), name), -1);
}

// ZeRO-3 gathers one layer's shard of a tp rank's part: the router is whole on every rank, the rest split. Qwen3-30B-
// A3B (48 layers, hidden 2,048, 128 experts of 768, 32 heads and 4 KV heads of 128): a layer is attention
// 2,048 x 4,096 x 2 + 2,048 x 512 x 2 = 18,874,368, q/k norms 256, experts 128 x 3 x 2,048 x 768 = 603,979,776,
// router 262,144, norms 4,096: 623,120,640. At tp 2 the gathered window is 2 x ((623,120,640 - 262,144) / 2 +
// 262,144) x 2 B = 1,246,765,568 B, not 2 x 623,120,640 / 2 x 2 = 1,246,241,280 B.
TEST(router_formats, zero3_gathers_the_router_whole) {
  const double layer = 2048 * 4096 * 2.0 + 2048 * 512 * 2.0 + 256 + 128 * 3 * 2048 * 768.0 + 262144 + 4096;
  EXPECT_EQ(layer, 623120640.0);
  EXPECT_EQ(2 * ((layer - 262144) / 2 + 262144) * 2, 1246765568.0);
  const settings s{{"model", "qwen3-30b-a3b"}, {"framework", "generic"}, {"zero", "3"}, {"tp", "2"},
                   {"devices", "4"},           {"weights_dtype", "bf16"}};
  EXPECT_EQ(test::item(estimated(s), "ZeRO-3 gathered layers (current + prefetched)"), 1246765568.0);
}

}  // namespace
