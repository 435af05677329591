// SPDX-License-Identifier: MIT
// Llama 4's chunked local attention per runtime (attention_chunk_size 8192: 3 layers of 4 chunked, every 4th global;
// runtimes/<name>.cpp, docs/runtimes.md). Every expectation is derived by hand in its comment.
//
// Llama 4 Scout: 48 layers, 8 KV heads x head_dim 128, bf16: one token in one layer is 2 x 8 x 128 x 2 B = 4096 B.
// With the chunks as a window (sliding_window 8192, sliding_window_pattern 4): 36 chunked and 12 global layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/runtime.hpp"
#include "run_support.hpp"

namespace llm_memory::test {
namespace {

constexpr double MiB = 1048576;
const std::string scout = "llama-4-scout-17b-16e-instruct";

settings served(const std::string& runtime, const std::string& seq) {
  return {{"mode", "inference"}, {"model", scout}, {"runtime", runtime}, {"seq", seq}, {"batch", "1"}};
}

bool has_note(const estimate_result& r, const std::string& part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

// The preset reads attention_chunk_size from text_config, and keeps every layer full attention in the model: the
// chunks are each runtime's to cache.
TEST(runtime_chunked, preset_reads_the_chunk) {
  settings s = served("vllm", "32768");
  s["mode"] = "train";
  const run_spec r = resolved(s);
  EXPECT_EQ(r.values.attention_chunk_size, 8192);
  EXPECT_EQ(r.values.model_type, "llama4_text");
  EXPECT_EQ(r.values.sliding_window, 0);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 48), 48);
}

// llama.cpp (LLM_ARCH_LLAMA4: swa_type CHUNKED, n_swa 8192, set_swa_pattern(4)) at 32,768 tokens: the 12 global
// layers 32,768 cells x 4096 B = 12 x 128 MiB = 1536 MiB; the 36 chunked layers in the iSWA cache, pad(8192 + ubatch
// 512, 256) = 8704 cells x 4096 B = 34 MiB each, 1224 MiB: 2760 MiB (every layer at full length: 6144 MiB).
TEST(runtime_chunked, llamacpp_pages_the_chunks_as_its_iswa_cache) {
  const estimate_result r = estimated(served("llamacpp", "32768"));
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "full-attention layers"), 1536 * MiB);
  EXPECT_DOUBLE_EQ(item(r, "kv_cache", "sliding-window layers"), 1224 * MiB);
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 2760 * MiB);
  EXPECT_TRUE(has_note(r, "llama.cpp caches llama4_text's chunked-attention layers (3 of 4) as a window of 8192"));
  const run_spec run = resolved(served("llamacpp", "32768"));
  EXPECT_EQ(run.model.layers_of(layer_kind::sliding_attention, 48), 36);
  EXPECT_EQ(run.model.layers_of(layer_kind::attention, 48), 12);
}

// vLLM from 0.17 (the hybrid KV cache manager on for chunked attention, PR #29627): the chunked layers hold
// min(32,768, 8192) tokens: 36 x 8192 x 4096 B = 1152 MiB, the global ones 12 x 32,768 x 4096 B = 1536 MiB.
// vLLM 0.11 (PR #21761 turns the manager off for attention_chunk_size) and V0: every layer at the whole context,
// 48 x 32,768 x 4096 B = 6144 MiB.
TEST(runtime_chunked, vllm_by_version) {
  for (const char* version : {"0.21", "0.17"}) {
    settings s = served("vllm", "32768");
    s["vllm_version"] = version;
    const estimate_result r = estimated(s);
    EXPECT_DOUBLE_EQ(item(r, "kv_cache", "full-attention layers"), 1536 * MiB) << version;
    EXPECT_DOUBLE_EQ(item(r, "kv_cache", "sliding-window layers"), 1152 * MiB) << version;
    EXPECT_TRUE(has_note(r, "vLLM caches llama4_text's chunked-attention layers")) << version;
  }
  for (const char* version : {"0.11", "0.6"}) {
    settings s = served("vllm", "32768");
    s["vllm_version"] = version;
    const estimate_result r = estimated(s);
    EXPECT_DOUBLE_EQ(item(r, "kv_cache", "full-attention layers"), 6144 * MiB) << version;
    EXPECT_TRUE(has_note(r, "keeps llama4_text's chunked-attention layers at the whole context")) << version;
  }
}

// ChunkedLocalAttentionSpec.max_memory_usage_bytes: cdiv(min(chunk + N_bt, M), block), no extra block (a sliding
// window's is cdiv(min(w - 1 + N_bt, M), block) + 1). Scout at M 32,768, N_bt 8192, block 16: the groups (12 global,
// 36 chunked: 36 >= 1.5 x 12, so group_size 12) are 1 full + 3 chunked; per request 1 x cdiv(32,768, 16) = 2048 +
// 3 x cdiv(min(16,384, 32,768), 16) = 3 x 1024: 5120 blocks (as a window: 3 x (cdiv(16,383, 16) + 1) = 3075, 5123).
TEST(runtime_chunked, vllm_chunked_blocks_by_hand) {
  EXPECT_EQ(vllm_chunked_blocks(8192, 8192, 32768, 16), 1024);
  EXPECT_EQ(vllm_chunked_blocks(8192, 8192, 10000, 16), 625);  // min(16,384, 10,000) / 16
  const vllm_hybrid_groups g = vllm_hybrid_grouping(12, 36);
  EXPECT_EQ(g.group_size, 12);
  EXPECT_EQ(g.full_groups, 1);
  EXPECT_EQ(g.sliding_groups, 3);
  const vllm_hybrid_pages p{65536, 16, 16};
  EXPECT_EQ(vllm_hybrid_blocks_per_request(g, 32768, 8192, 8192, p, true), 5120);
  EXPECT_EQ(vllm_hybrid_blocks_per_request(g, 32768, 8192, 8192, p, false), 5123);
}

// SGLang (Llama4ForConditionalGeneration is a hybrid-SWA architecture) and transformers (a sliding-window cache
// layer per chunked layer) keep attention_chunk_size tokens in the chunked layers: 1152 MiB, as vLLM 0.21.
TEST(runtime_chunked, sglang_and_transformers_keep_one_chunk) {
  for (const char* runtime : {"sglang", "transformers"}) {
    const estimate_result r = estimated(served(runtime, "32768"));
    EXPECT_DOUBLE_EQ(item(r, "kv_cache", "full-attention layers"), 1536 * MiB) << runtime;
    EXPECT_DOUBLE_EQ(item(r, "kv_cache", "sliding-window layers"), 1152 * MiB) << runtime;
  }
}

// Below one chunk nothing changes in size: at 4096 tokens llama.cpp's chunked layers take pad(min(4096, 8704), 256)
// = 4096 cells, as the global ones: 48 x 4096 x 4096 B = 768 MiB.
TEST(runtime_chunked, short_context_is_full_length) {
  EXPECT_DOUBLE_EQ(estimated(served("llamacpp", "4096")).runtime.kv_buffer, 768 * MiB);
}

// A config.json whose no_rope_layers put the global layers elsewhere is refused, naming the setting.
TEST(runtime_chunked, irregular_chunk_layout_is_refused) {
  const std::string config = R"({"model_type": "llama4_text", "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 32, "intermediate_size_mlp": 128,
      "vocab_size": 100, "num_local_experts": 2, "num_experts_per_tok": 1, "attention_chunk_size": 8192, )";
  const auto bad = parse_config(config + R"("no_rope_layers": [1, 0, 1, 1]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors().front().setting, "attention_chunk_size");
  const auto good = parse_config(config + R"("no_rope_layers": [1, 1, 1, 0]})");
  ASSERT_TRUE(good.ok()) << to_string(good.errors().front());
  EXPECT_EQ(good.value().at("attention_chunk_size"), "8192");
  // transformers' own layer_types for it ("chunked_attention" / "full_attention") read as full attention.
  const auto typed = parse_config(config + R"("layer_types": ["chunked_attention", "chunked_attention",
      "chunked_attention", "full_attention"]})");
  ASSERT_TRUE(typed.ok()) << to_string(typed.errors().front());
  EXPECT_EQ(typed.value().at("sliding_window"), "0");
}

}  // namespace
}  // namespace llm_memory::test
