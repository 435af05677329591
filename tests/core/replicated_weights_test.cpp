// SPDX-License-Identifier: MIT
// The weights tensor parallelism leaves whole on every rank: the MoE router (vLLM and SGLang build it as
// ReplicatedLinear, Megatron's TopKRouter holds a (num_experts, hidden) parameter on every rank, torchtitan's plan
// marks it NoParallel) and, in inference, MLA's down-projections (ReplicatedLinear in vLLM's and SGLang's
// deepseek_v2.py). With W_t the weights on one rank at tp t and W_1 the whole model on one device, the split part
// cancels: W_t - W_1 / t = b x (1 - 1/t) x (whole values), b the bytes per value. Every number is summed by hand.
#include <gtest/gtest.h>

#include "run_support.hpp"

#include "llm_memory/estimate.hpp"

namespace {

using namespace llm_memory;
using test::estimated;

double weights(settings s, const char* tp) {
  s["tp"] = tp;
  s["devices"] = tp;
  return test::item(estimated(s), "weights");
}

// Qwen3-235B-A22B (qwen3_moe.py Qwen3MoeSparseMoeBlock: gate = ReplicatedLinear(hidden, num_experts,
// quant_config=None)): routers 94 x 4,096 x 128 = 49,283,072 values (98,566,144 B, not 12,320,768 B split 8 ways);
// norms 94 x 2 x 4,096 + 4,096 = 774,144. At tp 8 in bf16: 2 x 7/8 x (49,283,072 + 774,144) = 87,600,128 B, plus
// the 4 KV heads replicated (tp 8 > 4: vLLM's and SGLang's QKVParallelLinear give each rank one whole head): k and v
// 2 x 94 x 4,096 x 128 = 98,566,144 values on each rank, not 2 x 94 x 4,096 x 512 / 8 = 49,283,072, so 49,283,072
// more x 2 B = 98,566,144 B (197,132,288 B of k/v per rank): 186,166,272 B. TGI (its gate a whole FastLinear; tp
// must divide the 4 KV heads) at tp 4: 2 x 3/4 x 50,057,216 = 75,085,824 B.
TEST(replicated_weights, moe_router_is_whole_on_every_tp_rank_in_inference) {
  const double routers = 94 * 4096 * 128.0, norms = 94 * 2 * 4096 + 4096.0;
  const double kv_per_rank = 2 * 94 * 4096 * 128.0, kv_split = 2 * 94 * 4096 * 512.0 / 8;
  EXPECT_EQ(routers, 49283072.0);
  EXPECT_EQ(2 * 7.0 / 8 * (routers + norms), 87600128.0);
  EXPECT_EQ(2 * kv_per_rank, 197132288.0);
  EXPECT_EQ(2 * 7.0 / 8 * (routers + norms) + 2 * (kv_per_rank - kv_split), 186166272.0);
  EXPECT_EQ(2 * 3.0 / 4 * (routers + norms), 75085824.0);
  for (const char* runtime : {"vllm", "sglang"}) {
    const settings s{{"model", "qwen3-235b-a22b"}, {"mode", "inference"}, {"runtime", runtime}};
    EXPECT_EQ(weights(s, "8") - weights(s, "1") / 8, 186166272.0) << runtime;
  }
  const settings tgi{{"model", "qwen3-235b-a22b"}, {"mode", "inference"}, {"runtime", "tgi"}};
  EXPECT_EQ(weights(tgi, "4") - weights(tgi, "1") / 4, 75085824.0);
}

// Replicated KV heads in a checkpoint layout: Qwen3-235B-A22B-Instruct-2507-FP8 (fp8_block, 128 x 128 blocks) at tp 8
// on vLLM. Each k/v linear (4,096 x 512) stores 2,097,152 B of F8_E4M3 and 32 x 4 fp32 block scales (512 B); the
// extra 49,283,072 k/v values per rank (23.5 linears' worth) take that rate: 49,283,072 + 23.5 x 512 = 49,295,104 B.
// The router stays 16-bit and whole, so with norms: 7/8 x 2 x (49,283,072 + 774,144) + 49,295,104 = 136,895,232 B.
TEST(replicated_weights, replicated_kv_heads_take_the_checkpoint_layouts_bytes) {
  EXPECT_EQ(49283072.0 / (4096 * 512) * 512, 12032.0);
  EXPECT_EQ(7.0 / 8 * 2 * (49283072 + 774144.0) + 49283072 + 12032, 136895232.0);
  const settings s{{"model", "qwen3-235b-a22b-instruct-2507-fp8"}, {"mode", "inference"}, {"runtime", "vllm"}};
  EXPECT_EQ(weights(s, "8") - weights(s, "1") / 8, 136895232.0);
}

// A dense model: Llama 3.1 70B (8 KV heads, head_dim 128, hidden 8,192, 80 layers) at tp 16 on vLLM: k and v
// 2 x 80 x 8,192 x 1,024 = 1,342,177,280 values; each rank holds 1/8 of them, not 1/16: 83,886,080 more x 2 B =
// 167,772,160 B; norms 80 x 2 x 8,192 + 8,192 = 1,318,912 whole: 2 x 15/16 x 1,318,912 = 2,472,960 B. At tp 8
// (= KV heads) nothing is replicated: only the norms, 2 x 7/8 x 1,318,912 = 2,308,096 B.
TEST(replicated_weights, kv_heads_are_replicated_when_tp_exceeds_them) {
  EXPECT_EQ(2 * 80 * 8192 * 1024.0 * (1.0 / 8 - 1.0 / 16) * 2, 167772160.0);
  EXPECT_EQ(2 * 15.0 / 16 * (80 * 2 * 8192 + 8192.0), 2472960.0);
  const settings s{{"model", "llama-3.1-70b"}, {"mode", "inference"}, {"runtime", "vllm"}};
  EXPECT_EQ(weights(s, "16") - weights(s, "1") / 16, 167772160.0 + 2472960.0);
  EXPECT_EQ(weights(s, "8") - weights(s, "1") / 8, 2 * 7.0 / 8 * 1318912);
  // A trainer splits k and v by tp (Megatron refuses tp 16 here: router_formats_test.cpp): norms only.
  const settings t{{"model", "llama-3.1-70b"}, {"framework", "generic"}, {"weights_dtype", "bf16"}};
  EXPECT_EQ(weights(t, "16") - weights(t, "1") / 16, 2472960.0);
}

// MQA: Gemma 2B (1 KV head of 256, hidden 2,048, 18 layers) on TGI at tp 2, which replicates a single KV head: k and v
// 2 x 18 x 2,048 x 256 = 18,874,368 values whole on each rank, half of them beyond the split: 9,437,184 x 2 B =
// 18,874,368 B; norms 18 x 2 x 2,048 + 2,048 = 75,776 whole: 2 x 1/2 x 75,776 = 75,776 B.
TEST(replicated_weights, a_single_kv_head_is_whole_on_every_rank) {
  EXPECT_EQ(2 * 18 * 2048 * 256.0 / 2 * 2 + 75776, 18950144.0);
  for (const char* runtime : {"tgi", "vllm"}) {
    const settings s{{"model", "gemma-2b"}, {"mode", "inference"}, {"runtime", runtime}};
    EXPECT_EQ(weights(s, "2") - weights(s, "1") / 2, 18950144.0) << runtime;
  }
}

// Mixtral 8x7B trained (fp32 weights) at tp 2: routers 32 x 4,096 x 8 = 1,048,576, norms 32 x 2 x 4,096 + 4,096 =
// 266,240; 4 B x 1/2 x 1,314,816 = 2,629,632 B.
TEST(replicated_weights, moe_router_is_whole_on_every_tp_rank_in_training) {
  EXPECT_EQ(4 * (32 * 4096 * 8.0 + 32 * 2 * 4096 + 4096) / 2, 2629632.0);
  for (const char* framework : {"megatron", "torchtitan"}) {
    const settings s{{"model", "mixtral-8x7b-v0.1"}, {"framework", framework}, {"weights_dtype", "fp32"}};
    EXPECT_EQ(weights(s, "2") - weights(s, "1") / 2, 2629632.0) << framework;
  }
}

// DeepSeek-V3 in bf16 on vLLM at tp 8: q_a_proj and kv_a_proj_with_mqa 61 x 7,168 x (1,536 + 512 + 64) =
// 923,467,776; the 58 MoE layers' routers and score-correction biases 58 x (256 x 7,168 + 256) = 106,445,312;
// norms 61 x 2 x 7,168 + 7,168 = 881,664: 2 x 7/8 x 1,030,794,752 = 1,803,890,816 B.
TEST(replicated_weights, mla_down_projections_are_whole_on_every_tp_rank) {
  const double a = 61 * 7168 * 2112.0, routers = 58 * (256 * 7168 + 256.0), norms = 61 * 2 * 7168 + 7168.0;
  EXPECT_EQ(a + routers + norms, 1030794752.0);
  const settings s{{"model", "deepseek-v3"}, {"mode", "inference"}, {"runtime", "vllm"}, {"weights_dtype", "bf16"}};
  EXPECT_EQ(weights(s, "8") - weights(s, "1") / 8, 1803890816.0);
  // A trainer splits the down-projections; the router stays whole (fp32 weights, tp 2: 4 B x 1/2 x (routers + norms)).
  const settings t{{"model", "deepseek-v3"}, {"framework", "megatron"}, {"weights_dtype", "fp32"}};
  EXPECT_EQ(weights(t, "2") - weights(t, "1") / 2, 2 * (routers + norms));
}

}  // namespace
