// SPDX-License-Identifier: MIT
// Every runtime's sizing of hybrid (recurrent-state) models, derived by hand from each runtime's code
// (docs/methodology.md, "Runtimes: recurrent layers"). Q = Qwen3-Next-80B's attention and Gated DeltaNet sizes
// (/work/research/gdn.md: h 2048, 48 layers, every 4th full attention, 16 heads, 2 KV heads, head_dim 256; GDN 32
// value heads, 16 key heads, d_k = d_v = 128, kernel 4) with a dense MLP; N = Nemotron-Nano-9B-v2's Mamba-2 and
// attention sizes (h 4480, 40 heads, 8 KV heads, d 128; 128 SSM heads x 80, d_state 128, 8 groups, d_conv 4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/runtime.hpp"

using namespace llm_memory;

namespace {

settings qwen3_next(const std::string& runtime) {
  return {{"mode", "inference"},
          {"runtime", runtime},
          {"hidden_size", "2048"},
          {"num_hidden_layers", "48"},
          {"num_attention_heads", "16"},
          {"num_key_value_heads", "2"},
          {"head_dim", "256"},
          {"intermediate_size", "5120"},
          {"vocab_size", "151936"},
          {"layer_types", "3*linear_attention,full_attention"},
          {"linear_num_value_heads", "32"},
          {"linear_num_key_heads", "16"},
          {"linear_key_head_dim", "128"},
          {"linear_value_head_dim", "128"},
          {"linear_conv_kernel_dim", "4"},
          {"seq", "4096"},
          {"batch", "1"},
          {"gpu_memory", "80GB"}};
}

settings nemotron_h(const std::string& runtime) {
  return {{"mode", "inference"},
          {"runtime", runtime},
          {"hidden_size", "4480"},
          {"num_hidden_layers", "12"},
          {"num_attention_heads", "40"},
          {"num_key_value_heads", "8"},
          {"head_dim", "128"},
          {"intermediate_size", "15680"},
          {"vocab_size", "131072"},
          {"layer_types", "mamba+none,mlp,mamba+none,mlp,attention+none,mlp"},
          {"mamba_num_heads", "128"},
          {"mamba_head_dim", "80"},
          {"mamba_d_state", "128"},
          {"mamba_n_groups", "8"},
          {"mamba_d_conv", "4"},
          {"seq", "4096"},
          {"batch", "1"},
          {"gpu_memory", "80GB"}};
}

settings with(settings s, const std::string& key, const std::string& value) {
  s[key] = value;
  return s;
}

estimate_result run(const settings& s) {
  const auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value() : estimate_result{};
}

double item(const estimate_result& r, const std::string& bucket, const std::string& prefix) {
  for (const auto& b : r.buckets)
    if (b.key == bucket)
      for (const auto& i : b.items)
        if (i.name.rfind(prefix, 0) == 0) return i.bytes;
  return -1;
}

bool noted(const estimate_result& r, const std::string& text) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

// Q's GDN state per layer (vLLM mamba_utils.py gated_delta_net_state_shape, bf16 "auto"): conv 3 x 8,192 x 2 =
// 49,152 + temporal 32 x 128 x 128 x 2 = 1,048,576: 1,097,728 B. One token's attention page 2 x 2 x 256 x 2 = 2,048
// B; HybridAttentionMambaModelConfig: block 16 x cdiv(1,097,728, 16 x 2,048) = 16 x 34 = 544 tokens, page 544 x
// 2,048 = 1,114,112 B, the state padded by 16,384 B (1.49 %).
TEST(runtimes_hybrid, vllm_pages_and_pool) {
  const estimate_result r = run(qwen3_next("vllm"));
  EXPECT_TRUE(noted(r,
                    "Setting attention block size to 544 tokens to ensure that attention page size is >= mamba "
                    "page size."));
  EXPECT_TRUE(noted(r, "Padding mamba page size by 1.49% to ensure"));
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "full-attention layers"), 12.0 * 4096 * 2048);
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "linear-attention state"), 36.0 * 1097728);
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "recurrent state padded"), 36.0 * 16384);
  // 12 attention and 36 GDN layers: group_size 12 (36 >= 1.5 x 12), 1 + 3 groups; a request of 4,096 tokens takes
  // cdiv(4096, 544) = 8 attention blocks and 3 state blocks.
  const double page = 1114112, avail = r.runtime.kv_available;
  ASSERT_GT(avail, 0);
  const double blocks = std::floor(std::floor(avail / page) / 12);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, std::floor(blocks / 4) * 544);
  EXPECT_NEAR(r.runtime.max_concurrency, blocks / 11, 1e-9);
  EXPECT_EQ(r.runtime.max_context, static_cast<std::int64_t>(std::floor((std::floor(avail / page) - 36) / 12) * 544));
}

// SGLang (configs/mamba_utils.py: conv bf16, temporal "float32" by default): the state per request 36 x (49,152 +
// 32 x 128 x 128 x 4 = 2,097,152) = 77,266,944 B (mamba_cache_per_req); the mamba pool gets
// rest x 0.9 / 1.9; the KV pool (12 layers x 2,048 B a token = 24,576 B) what it leaves. With the radix cache a
// running request holds 3 states (model_runner_kv_cache_mixin.py MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO), so
// at most states // 3 requests run.
TEST(runtimes_hybrid, sglang_mamba_pool) {
  const estimate_result r = run(qwen3_next("sglang"));
  const double rest = r.runtime.kv_available, per_req = 77266944;
  ASSERT_GT(rest, 0);
  const double states = std::floor(rest * 0.9 / 1.9 / per_req);
  const double tokens = std::floor((rest - states * per_req) / 24576);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, tokens);
  EXPECT_DOUBLE_EQ(r.runtime.max_concurrency, std::min(std::floor(states / 3), tokens / 4096));
  EXPECT_TRUE(noted(r, "max_mamba_cache_size"));
  // --page-size 64 (block_size): the token pool rounded down to whole pages (init_memory).
  const estimate_result paged = run(with(qwen3_next("sglang"), "block_size", "64"));
  EXPECT_DOUBLE_EQ(paged.runtime.kv_capacity_tokens, std::floor(tokens / 64) * 64);
}

// SGLang's MiniMax-Text-01 (models/minimax_text_01.py @0400545e): the lightning states in a float32
// MinimaxCacheManager of 32 slots, allocated with the model. A MiniMax-shaped model of 8 layers (every 8th softmax:
// 7 lightning, 1 full attention), 64 heads of 128, 8 KV heads: per sequence and lightning layer 64 x 128 x 128 x 4 B =
// 4,194,304 B (the model's bf16 would be half); the cache 32 x 7 x 4,194,304 = 939,524,096 B comes out of what the
// weights leave, the KV pool (1 layer x 2 x 8 x 128 x 2 B = 4,096 B a token) gets the rest, and at most 32 sequences
// run.
TEST(runtimes_hybrid, sglang_minimax_cache_fp32_32_slots) {
  const settings s{{"mode", "inference"},
                   {"runtime", "sglang"},
                   {"model_type", "minimax"},
                   {"hidden_size", "6144"},
                   {"num_hidden_layers", "8"},
                   {"num_attention_heads", "64"},
                   {"num_key_value_heads", "8"},
                   {"head_dim", "128"},
                   {"intermediate_size", "9216"},
                   {"vocab_size", "200064"},
                   {"layer_types", "7*lightning_attention,full_attention"},
                   {"seq", "1000"},
                   {"batch", "1"},
                   {"gpu_memory", "80GB"}};
  const estimate_result r = run(s);
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "lightning-attention state"), 7.0 * 4194304);
  EXPECT_TRUE(noted(r, "MinimaxCacheManager: 32 slots x 7 lightning layers"));
  ASSERT_EQ(r.runtime.terms.size(), 2u);
  EXPECT_DOUBLE_EQ(r.runtime.terms[1].bytes, 939524096.0);
  EXPECT_DOUBLE_EQ(r.runtime.kv_available, r.runtime.budget - r.runtime.terms[0].bytes - 939524096.0);
  ASSERT_GT(r.runtime.kv_available, 0);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, std::floor(r.runtime.kv_available / 4096));
  EXPECT_DOUBLE_EQ(r.runtime.max_concurrency, 32);  // the slots, not the thousands the pool would hold
  // vLLM keeps the state in the model's dtype ("auto"): 2 B a value.
  const estimate_result vllm = run(with(s, "runtime", "vllm"));
  EXPECT_DOUBLE_EQ(item(vllm, "kv_cache", "lightning-attention state"), 7.0 * 4194304 / 2);
}

// llama.cpp at -np 2: R (3 x 8,192) and S (128 x 4,096 = 32 x 128 x 128) in f32 per layer: 4 x 548,864 =
// 2,195,456 B, x 36 layers x 2 rows = 158,072,832 B = 150.75 MiB; KV cells only in the 12 attention layers: 2 x
// 4,096 cells x 2 x 256 x (2 + 2) B.
TEST(runtimes_hybrid, llamacpp_rs_buffer) {
  const estimate_result r = run(with(with(qwen3_next("llamacpp"), "batch", "2"), "weights_dtype", "q8_0"));
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "RS buffer"), 158072832.0);
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "full-attention layers"), 12.0 * 8192 * 2048);
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 12.0 * 8192 * 2048);
  EXPECT_TRUE(noted(r, "llama_memory_recurrent: CUDA0 RS buffer size =   150.75 MiB"));
}

// transformers: the conv state keeps the whole kernel (8,192 x 4 x 2 B) and the recurrent state is fp32 (32 x 128
// x 128 x 4 B): 36 x (65,536 + 2,097,152) = 77,856,768 B (gdn.md's transformers figure).
TEST(runtimes_hybrid, transformers_cache) {
  const estimate_result r = run(qwen3_next("transformers"));
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "linear-attention state"), 77856768.0);
}

TEST(runtimes_hybrid, tgi_refuses) {
  const auto r = estimate(qwen3_next("tgi"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "runtime");
  EXPECT_NE(to_string(r.errors()[0]).find("TGI does not serve"), std::string::npos);
}

// N's Mamba-2 state per layer in vLLM (bf16): conv 3 x (10,240 + 2 x 8 x 128) x 2 = 73,728 + SSM 128 x 80 x 128 x 2
// = 2,621,440: 2,695,168 B; one token's page 2 x 8 x 128 x 2 = 4,096 B: block 16 x cdiv(2,695,168, 65,536) = 16 x 42
// = 672, page 2,752,512 B, padding 57,344 B (2.13 %). 2 attention and 4 Mamba layers: group_size 2 (4 >= 1.5 x 2),
// 1 + 2 groups; a 4,096-token request cdiv(4096, 672) = 7 + 2 blocks.
TEST(runtimes_hybrid, vllm_mamba2) {
  const estimate_result r = run(nemotron_h("vllm"));
  EXPECT_TRUE(noted(r, "Setting attention block size to 672 tokens"));
  EXPECT_TRUE(noted(r, "Padding mamba page size by 2.13%"));
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "Mamba state"), 4.0 * 2695168);
  const double page = 2752512, avail = r.runtime.kv_available;
  ASSERT_GT(avail, 0);
  const double blocks = std::floor(std::floor(avail / page) / 2);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, std::floor(blocks / 3) * 672);
  EXPECT_NEAR(r.runtime.max_concurrency, blocks / 9, 1e-9);
}

// llama.cpp on N: 4 x (3 x 12,288 + 128 x 80 x 128) = 5,390,336 B per layer (27 layers of Nano-9B-v2 give
// 145,539,072 B, mamba.md), x 4 layers x -np 1; the MLP-only blocks keep neither cells nor state.
TEST(runtimes_hybrid, llamacpp_mamba2) {
  const estimate_result r = run(with(nemotron_h("llamacpp"), "weights_dtype", "q8_0"));
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "RS buffer"), 4.0 * 5390336);
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "full-attention layers"), 2.0 * 4096 * 8 * 128 * 4);
}

// Published: vllm-project/vllm#40691 (vLLM 0.19.0, Qwen3.5-27B, --max-model-len 32768): "GPU KV cache size: 290,864
// tokens", "Maximum concurrency for 32,768 tokens per request: 33.04x". Qwen3.5-27B (gdn.md): 16 attention layers of
// 4 KV heads x 256, 48 GDN layers of 48 value heads, 16 key heads, d 128, kernel 4; conv bf16 3 x 10,240 x 2 =
// 61,440 + temporal fp32 (mamba_ssm_dtype) 48 x 128 x 128 x 4 = 3,145,728: 3,207,168 B; one token 2 x 4 x 256 x 2 =
// 4,096 B: block 16 x cdiv(3,207,168, 65,536) = 784 tokens, page 3,211,264 B. Groups of 16: 1 + 3. Both logged
// figures follow from one pool of 1,487 blocks: 1,487 // 4 x 784 and 1,487 / (cdiv(32,768, 784) + 3) = 1,487 / 45.
TEST(runtimes_hybrid, vllm_log_qwen3_5_27b) {
  const vllm_hybrid_groups g = vllm_hybrid_grouping(16, 48);
  EXPECT_EQ(g.group_size, 16);
  EXPECT_EQ(vllm_hybrid_tokens(1487, g, 784), 290864);
  EXPECT_NEAR(1487.0 / static_cast<double>(g.full_groups * 42 + g.sliding_groups), 33.04, 0.005);
  settings s = qwen3_next("vllm");
  for (const auto& [k, v] : settings{{"hidden_size", "5120"},
                                     {"num_hidden_layers", "64"},
                                     {"num_attention_heads", "24"},
                                     {"num_key_value_heads", "4"},
                                     {"intermediate_size", "17408"},
                                     {"vocab_size", "248320"},
                                     {"linear_num_value_heads", "48"},
                                     {"state_dtype", "fp32"},
                                     {"seq", "32768"}})
    s[k] = v;
  const estimate_result r = run(s);
  EXPECT_TRUE(noted(r, "Setting attention block size to 784 tokens"));
  EXPECT_TRUE(noted(r, "Padding mamba page size by 0.13%"));
  const double blocks = std::floor(std::floor(r.runtime.kv_available / 3211264) / 16);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, std::floor(blocks / 4) * 784);
  EXPECT_NEAR(r.runtime.max_concurrency, blocks / 45, 1e-9);
}

// Published: ROCm/ROCm#6055 (vLLM 0.18.1rc1, Qwen3.5-35B-A3B-AWQ, dtype half, max_model_len 8192, util 0.25):
// "Setting attention block size to 1056 tokens ..." and "Padding mamba page size by 0.76% ...". Qwen3.5-35B-A3B
// (the preset's config.json): 10 attention layers of 2 KV heads x 256, one token's page 2 x 2 x 256 x 2 = 2,048 B;
// 30 GDN layers with conv_dim 2 x 16 x 128 + 32 x 128 = 8,192: conv 3 x 8,192 x 2 = 49,152 + temporal fp32
// (mamba_ssm_dtype float32) 32 x 128 x 128 x 4 = 2,097,152: 2,146,304 B; block 16 x cdiv(2,146,304, 16 x 2,048) =
// 16 x 66 = 1,056 tokens, page 1,056 x 2,048 = 2,162,688 B, padding 16,384 / 2,146,304 = 0.763 %. The engine failed
// before sizing its pool, so only the page lines are published. The pages do not depend on the device; the bf16
// weights (about 67 GiB) need one larger than the default 80 GB for the runtime to size its pool at all.
TEST(runtimes_hybrid, vllm_log_qwen3_5_35b_a3b_pages) {
  const estimate_result r =
      run({{"mode", "inference"}, {"model", "qwen3.5-35b-a3b"}, {"runtime", "vllm"}, {"seq", "8192"}, {"gpu", "h200"}});
  EXPECT_TRUE(noted(r, "Setting attention block size to 1056 tokens"));
  EXPECT_TRUE(noted(r, "Padding mamba page size by 0.76%"));
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "recurrent state padded"), 30.0 * 16384);
}

// Published: a vLLM residency plugin's notes (search-index file 66202049190, "Block size, and what it costs"): the
// logged attention block of Qwen3.5-9B is 528 tokens with a bf16 KV cache and 1,056 with fp8. 8 attention layers
// of 4 KV heads x 256: one token 2 x 4 x 256 x 2 = 4,096 B (2,048 B in fp8); the GDN state as above, 2,146,304 B:
// 16 x cdiv(2,146,304, 65,536) = 16 x 33 = 528; 16 x cdiv(2,146,304, 32,768) = 16 x 66 = 1,056.
TEST(runtimes_hybrid, vllm_log_qwen3_5_9b_block_by_kv_dtype) {
  const settings s{{"mode", "inference"}, {"model", "qwen3.5-9b"}, {"runtime", "vllm"}, {"seq", "8192"}};
  EXPECT_TRUE(noted(run(s), "Setting attention block size to 528 tokens"));
  EXPECT_TRUE(noted(run(with(s, "kv_dtype", "fp8")), "Setting attention block size to 1056 tokens"));
}

}  // namespace
