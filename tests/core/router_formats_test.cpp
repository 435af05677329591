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
