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
// norms 94 x 2 x 4,096 + 4,096 = 774,144. At tp 8 in bf16: 2 x 7/8 x (49,283,072 + 774,144) = 87,600,128 B; TGI
// (its gate a whole FastLinear; tp must divide the 4 KV heads) at tp 4: 2 x 3/4 x 50,057,216 = 75,085,824 B.
TEST(replicated_weights, moe_router_is_whole_on_every_tp_rank_in_inference) {
  const double routers = 94 * 4096 * 128.0, norms = 94 * 2 * 4096 + 4096.0;
  EXPECT_EQ(routers, 49283072.0);
  EXPECT_EQ(2 * 7.0 / 8 * (routers + norms), 87600128.0);
  EXPECT_EQ(2 * 3.0 / 4 * (routers + norms), 75085824.0);
  for (const char* runtime : {"vllm", "sglang"}) {
    const settings s{{"model", "qwen3-235b-a22b"}, {"mode", "inference"}, {"runtime", runtime}};
    EXPECT_EQ(weights(s, "8") - weights(s, "1") / 8, 87600128.0) << runtime;
  }
  const settings tgi{{"model", "qwen3-235b-a22b"}, {"mode", "inference"}, {"runtime", "tgi"}};
  EXPECT_EQ(weights(tgi, "4") - weights(tgi, "1") / 4, 75085824.0);
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
