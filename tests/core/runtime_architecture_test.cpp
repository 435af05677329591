// SPDX-License-Identifier: MIT
// The runtimes' per-architecture rules (runtimes/<name>.cpp, docs/runtimes.md): which sliding windows each runtime
// runs, and vLLM's V0 engine (vllm_version 0.6). Every expectation is derived by hand in its comment.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"
#include "run_support.hpp"

namespace llm_memory::test {
namespace {

constexpr double MiB = 1048576;

settings served(const std::string& model, const std::string& runtime, const std::string& seq) {
  return {{"mode", "inference"}, {"model", model}, {"runtime", runtime}, {"seq", seq}, {"batch", "1"}};
}

bool has_note(const estimate_result& r, const std::string& part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

// The presets carry config.json's model_type, which the runtimes' tables read.
TEST(runtime_architecture, presets_carry_the_model_type) {
  EXPECT_EQ(resolved(served("phi-3-mini-4k-instruct", "vllm", "4096")).values.model_type, "phi3");
  EXPECT_EQ(resolved(served("gemma-3-4b-pt", "vllm", "4096")).values.model_type, "gemma3_text");  // text_config's
}

// Phi-3 mini 4K (sliding_window 2047) on llama.cpp: LLM_ARCH_PHI3 disables the window, so every layer keeps every
// cell. 32 layers x 4096 cells (n_ctx 4096, padded to 256) x 32 KV heads x head_dim 96 x (K + V) 2 x 2 B
// = 32 x 4096 x 12,288 B = 1536 MiB. With the window it was 2560 cells (pad(2047 + ubatch 512, 256)): 960 MiB.
TEST(runtime_architecture, llamacpp_runs_phi3_without_its_window) {
  const estimate_result r = estimated(served("phi-3-mini-4k-instruct", "llamacpp", "4096"));
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 1536 * MiB);
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "full-attention layers"), 1536 * MiB);
  EXPECT_TRUE(has_note(r, "llama.cpp runs phi3 without its sliding window of 2047 tokens"));
  const run_spec run = resolved(served("phi-3-mini-4k-instruct", "llamacpp", "4096"));
  EXPECT_EQ(run.values.sliding_window, 0);
  EXPECT_EQ(run.model.layers_of(layer_kind::sliding_attention, 32), 0);
}

// Phi-3 mini 128K's architecture (Phi-3.5 mini: the same shapes, sliding_window 262144) at its whole 131,072-token
// context on llama.cpp: 32 layers x 131,072 cells x 12,288 B = 48 GiB, every layer at full length.
TEST(runtime_architecture, llamacpp_phi3_128k_at_full_context) {
  const estimate_result r = estimated(served("phi-3.5-mini-instruct", "llamacpp", "131072"));
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 48 * 1024 * MiB);
  EXPECT_TRUE(has_note(r, "llama.cpp runs phi3 without its sliding window of 262144 tokens"));
}

// Mistral 7B v0.1 (sliding_window 4096) at 32,768 tokens. llama.cpp converts it to LLM_ARCH_LLAMA, which reads no
// window: 32 layers x 32,768 cells x 8 KV heads x 128 x 2 x 2 B = 32 x 32,768 x 4096 B = 4096 MiB (with the window
// 4608 cells: 576 MiB). vLLM keeps the window (CacheConfig.sliding_window): 32 layers x min(32,768, 4096) x 4096 B
// = 512 MiB, in V1 and in V0.
TEST(runtime_architecture, mistral_v0_1_window_by_runtime) {
  const estimate_result cpp = estimated(served("mistral-7b-v0.1", "llamacpp", "32768"));
  EXPECT_DOUBLE_EQ(cpp.runtime.kv_buffer, 4096 * MiB);
  EXPECT_TRUE(has_note(cpp, "llama.cpp runs mistral without its sliding window of 4096 tokens"));
  for (const char* version : {"0.21", "0.6"}) {
    settings s = served("mistral-7b-v0.1", "vllm", "32768");
    s["vllm_version"] = version;
    const estimate_result v = estimated(s);
    EXPECT_DOUBLE_EQ(item(v, "kv_cache", "sliding-window layers"), 512 * MiB) << version;
    EXPECT_FALSE(has_note(v, "without its sliding window")) << version;
  }
}

// SGLang's MistralForCausalLM is its LlamaForCausalLM: no sliding_window_size, every layer full.
TEST(runtime_architecture, sglang_runs_mistral_with_full_attention) {
  const run_spec run = resolved(served("mistral-7b-v0.1", "sglang", "32768"));
  EXPECT_EQ(run.model.layers_of(layer_kind::sliding_attention, 32), 0);
  EXPECT_EQ(run.model.layers_of(layer_kind::attention, 32), 32);
}

// Gemma 2 9B (42 layers alternating sliding and full, window 4096, 8 KV heads x 256) at 8192 tokens: one token in
// one layer is 2 x 8 x 256 x 2 B = 8192 B.
//   llama.cpp (iSWA): full 21 x 8192 cells x 8192 B = 1344 MiB; sliding 21 x pad(4096 + 512, 256) = 4608 cells
//   x 8192 B = 756 MiB: 2100 MiB.
//   vLLM V1 (per-layer windows): full 21 x 8192 x 8192 B = 1344 MiB; sliding 21 x min(8192, 4096) x 8192 B = 672 MiB.
//   vLLM V0 (every layer paged alike): 42 x 8192 x 8192 B = 2688 MiB.
TEST(runtime_architecture, gemma2_on_llamacpp_and_vllm) {
  const estimate_result cpp = estimated(served("gemma-2-9b", "llamacpp", "8192"));
  EXPECT_DOUBLE_EQ(item(cpp, "kv_cache", "full-attention layers"), 1344 * MiB);
  EXPECT_DOUBLE_EQ(item(cpp, "kv_cache", "sliding-window layers"), 756 * MiB);
  EXPECT_DOUBLE_EQ(cpp.runtime.kv_buffer, 2100 * MiB);
  const estimate_result v1 = estimated(served("gemma-2-9b", "vllm", "8192"));
  EXPECT_DOUBLE_EQ(item(v1, "kv_cache", "full-attention layers"), 1344 * MiB);
  EXPECT_DOUBLE_EQ(item(v1, "kv_cache", "sliding-window layers"), 672 * MiB);
  settings v0 = served("gemma-2-9b", "vllm", "8192");
  v0["vllm_version"] = "0.6";
  const estimate_result old = estimated(v0);
  EXPECT_DOUBLE_EQ(item(old, "kv_cache", "full-attention layers"), 2688 * MiB);
  EXPECT_TRUE(has_note(old, "vLLM's V0 engine runs gemma2 without its sliding window of 4096 tokens"));
}

// SGLang's KV pool with sliding layers (runtimes/sglang.cpp, window_pool_cell). gpt-oss-20b is a hybrid-SWA
// architecture (configs/model_config.py is_hybrid_swa_model): 12 full and 12 sliding layers of 8 KV heads x 64, one
// token in one layer 2 x 8 x 64 x 2 B = 2,048 B; HybridSWAPoolConfigurator prices a pool token at 12 x 2,048 +
// 0.8 x 12 x 2,048 = 24,576 + 19,660.8 = 44,236.8 B, and full_layer_tokens = the bytes left after the weights //
// that. Gemma 2 9B is not (DefaultPoolConfigurator): 42 layers x 2 x 8 x 256 x 2 B = 344,064 B a token, windows or
// not. Both pools' tokens are the runtime's capacity and longest context; a request of 8,192 tokens sets the
// concurrency.
TEST(runtime_architecture, sglang_window_pools) {
  const estimate_result oss = estimated(served("gpt-oss-20b", "sglang", "8192"));
  ASSERT_GT(oss.runtime.kv_available, 0);
  EXPECT_DOUBLE_EQ(oss.runtime.kv_capacity_tokens, std::floor(oss.runtime.kv_available / (24576 + 0.8 * 24576)));
  EXPECT_DOUBLE_EQ(oss.runtime.max_concurrency, oss.runtime.kv_capacity_tokens / 8192);
  EXPECT_TRUE(has_note(oss, "swa_layer_tokens = 0.8 x full_layer_tokens"));
  const estimate_result g2 = estimated(served("gemma-2-9b", "sglang", "8192"));
  ASSERT_GT(g2.runtime.kv_available, 0);
  EXPECT_DOUBLE_EQ(g2.runtime.kv_capacity_tokens, std::floor(g2.runtime.kv_available / 344064));
  EXPECT_EQ(g2.runtime.max_context, static_cast<std::int64_t>(g2.runtime.kv_capacity_tokens));
  EXPECT_TRUE(has_note(g2, "gemma2 is not a hybrid-SWA architecture"));
  // --page-size 64 (block_size): both pools rounded down to whole pages (model_runner_kv_cache_mixin.py
  // init_memory, pool_configurator.py _solve_pool_sizes align_page_size): floor(tokens / 64) x 64.
  settings paged = served("gpt-oss-20b", "sglang", "8192");
  paged["block_size"] = "64";
  const estimate_result oss64 = estimated(paged);
  EXPECT_DOUBLE_EQ(oss64.runtime.kv_capacity_tokens, std::floor(oss.runtime.kv_capacity_tokens / 64) * 64);
  paged = served("gemma-2-9b", "sglang", "8192");
  paged["block_size"] = "64";
  EXPECT_DOUBLE_EQ(estimated(paged).runtime.kv_capacity_tokens, std::floor(g2.runtime.kv_capacity_tokens / 64) * 64);
}

// A stated window on a custom model (no model_type) is every runtime's to keep: llama.cpp pages 4608 cells of the
// 8192-token context (pad(4096 + 512, 256)) in each of the 32 layers: 32 x 4608 x 4096 B = 576 MiB.
TEST(runtime_architecture, no_model_type_keeps_the_window) {
  settings s = served("mistral-7b-v0.1", "llamacpp", "8192");
  s["model_type"] = "";
  const estimate_result r = estimated(s);
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 576 * MiB);
}

// vLLM V0 (vllm_version 0.6): chunked prefill off up to a 32K context, so the profile run takes the whole prompt,
// max_num_batched_tokens = max(max_model_len, 2048), 256 sequences, gpu_memory_utilization 0.90, no CUDA-graph term
// (captured after the KV cache is sized). Past 32K without a window: chunked prefill, 512 tokens.
TEST(runtime_architecture, vllm_v0_profile) {
  settings s = served("llama-3.1-8b", "vllm", "4096");
  s["vllm_version"] = "0.6";
  const run_spec r = resolved(s);
  EXPECT_EQ(r.values.max_num_batched_tokens, 4096);
  EXPECT_EQ(r.values.max_num_seqs, 256);
  EXPECT_DOUBLE_EQ(r.values.gpu_memory_utilization, 0.9);
  EXPECT_DOUBLE_EQ(r.values.cuda_graph_memory, 0);
  s["seq"] = "1024";
  EXPECT_EQ(resolved(s).values.max_num_batched_tokens, 2048);
  s["seq"] = "40000";
  EXPECT_EQ(resolved(s).values.max_num_batched_tokens, 512);
  // The profile reads seq: varying it resolves the run again (vary()'s fast path would keep 4096).
  const auto varied = vary(r, {{"seq", "8192"}});
  ASSERT_TRUE(varied.ok());
  EXPECT_EQ(varied.value().values.max_num_batched_tokens, 8192);
}

// V0's profiling peak for Llama 3.1 8B at 4096 tokens: the forward 4096 x 2 B x (3 x 14,336 + 3 x 4096)
// = 452,984,832 B; the sampler over 256 sequences sorts as 0.11 does: 6 + 4 + 8 + 8 + 4 + 8 = 38 B per logit,
// 256 x 128,256 x 38 = 1,247,674,368 B + the held hidden states 4096 x 4096 x 2 = 33,554,432 B
// = 1,281,228,800 B, the larger.
TEST(runtime_architecture, vllm_v0_profiling_peak) {
  settings s = served("llama-3.1-8b", "vllm", "4096");
  s["vllm_version"] = "0.6";
  const estimate_result r = estimated(s);
  EXPECT_DOUBLE_EQ(item(r, "activations", "profiling sampler over max_num_seqs"), 1281228800);
}

}  // namespace
}  // namespace llm_memory::test
