// SPDX-License-Identifier: MIT
// Issue 32: Gemma 4's KV cache per attention kind. Its full-attention layers cache keys and values of their own
// heads, global_head_dim wide and, with attention_k_eq_v, num_global_key_value_heads of them; the keys-as-values
// layers still cache both tensors (transformers modeling_gemma4.py @c308a309, vLLM gemma4.py @eee7972f, llama.cpp
// src/models/gemma4.cpp @9af0434d; docs/methodology.md, "KV cache per attention kind").
//
// Gemma 4 31B (google/gemma-4-31B-it, the preset's config): 60 layers, every 6th full attention: 10 full + 50
// sliding (window 1024). Sliding layers: 16 KV heads x head_dim 256; full layers: 4 KV heads x 512. At bf16:
//   sliding: 2 x 16 x 256 x 2 B = 16,384 B per token and layer;
//   full:    2 x  4 x 512 x 2 B =  8,192 B per token and layer (the sliding shape gave 16,384 before).
#include <gtest/gtest.h>

#include "run_support.hpp"

#include <cmath>
#include <cstdint>

#include "llm_memory/estimate.hpp"
#include "llm_memory/runtime.hpp"

namespace {

using namespace llm_memory;

settings gemma4_31b(const char* runtime, const char* seq) {
  return {{"mode", "inference"}, {"model", "gemma-4-31b-it"}, {"runtime", runtime}, {"gpu", "h100-80gb"}, {"seq", seq},
          {"batch", "1"},        {"kv_dtype", "bf16"}};
}

TEST(gemma4_kv, preset_reads_the_full_layers_shape) {
  const run_spec r = test::resolved(gemma4_31b("transformers", "4096"));
  EXPECT_EQ(r.model.kv_heads, 16);
  EXPECT_EQ(r.model.head_dim, 256);
  EXPECT_EQ(r.model.full_kv_heads, 4);
  EXPECT_EQ(r.model.full_head_dim, 512);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 60), 10);
  EXPECT_EQ(r.model.layers_of(layer_kind::sliding_attention, 60), 50);
}

// transformers' cache, one sequence: full layers s tokens, sliding layers min(s, 1024).
//   128K: full 10 x 131,072 x 8,192 = 10,737,418,240 B; sliding 50 x 1,024 x 16,384 = 838,860,800 B.
//   512:  full 10 x 512 x 8,192 = 41,943,040 B;         sliding 50 x 512 x 16,384 = 419,430,400 B.
TEST(gemma4_kv, transformers_full_and_sliding_items) {
  const estimate_result long_run = test::estimated(gemma4_31b("transformers", "131072"));
  EXPECT_EQ(test::item(long_run, "full-attention layers"), 10737418240.0);
  EXPECT_EQ(test::item(long_run, "sliding-window layers"), 838860800.0);
  const estimate_result short_run = test::estimated(gemma4_31b("transformers", "512"));
  EXPECT_EQ(test::item(short_run, "full-attention layers"), 41943040.0);
  EXPECT_EQ(test::item(short_run, "sliding-window layers"), 419430400.0);
}

// vLLM's KV bucket holds the same items (128K: 10,737,418,240 + 838,860,800 B; 4096: full 10 x 4096 x 8,192 =
// 335,544,320 B, sliding 50 x 1,024 x 16,384 = 838,860,800 B).
TEST(gemma4_kv, vllm_items) {
  const estimate_result long_run = test::estimated(gemma4_31b("vllm", "131072"));
  EXPECT_EQ(test::item(long_run, "full-attention layers"), 10737418240.0);
  EXPECT_EQ(test::item(long_run, "sliding-window layers"), 838860800.0);
  const estimate_result short_run = test::estimated(gemma4_31b("vllm", "4096"));
  EXPECT_EQ(test::item(short_run, "full-attention layers"), 335544320.0);
  EXPECT_EQ(test::item(short_run, "sliding-window layers"), 838860800.0);
}

// vLLM's pages (block 16, tp 1): sliding 16 x 16 x (256 + 256) x 2 B = 262,144 B; full 16 x 4 x (512 + 512) x 2 B
// = 131,072 B, so unify_kv_cache_spec_page_size gives the full layers 32-token blocks of 262,144 B. Groups
// (10 full, 50 sliding): group_size 10, 1 full + 5 sliding groups. One request of 131,072 tokens (N_bt 8192 on an
// H100): full cdiv(131072, 32) = 4096 blocks, sliding 5 x (cdiv(min(1023 + 8192, 131072), 16) + 1 = 577) = 2885:
// 6981 blocks (11,077 at the sliding layers' page, 8192 + 2885). The token line: blocks // 6 x min block 16.
TEST(gemma4_kv, vllm_pages_groups_and_report) {
  const vllm_hybrid_pages p = vllm_unify_pages(16, 131072, 262144);
  EXPECT_EQ(p.page, 262144);
  EXPECT_EQ(p.full_block, 32);
  EXPECT_EQ(p.sliding_block, 16);
  const vllm_hybrid_groups g = vllm_hybrid_grouping(10, 50);
  EXPECT_EQ(g.group_size, 10);
  EXPECT_EQ(g.full_groups, 1);
  EXPECT_EQ(g.sliding_groups, 5);
  EXPECT_EQ(vllm_hybrid_blocks_per_request(g, 131072, 1024, 8192, p), 6981);

  const estimate_result r = test::estimated(gemma4_31b("vllm", "131072"));
  ASSERT_GT(r.runtime.kv_available, 0);
  const auto blocks = static_cast<std::int64_t>(std::floor(std::floor(r.runtime.kv_available / 262144) / 10));
  EXPECT_EQ(r.runtime.kv_capacity_tokens, static_cast<double>(blocks / 6 * 16));
  EXPECT_DOUBLE_EQ(r.runtime.max_concurrency, static_cast<double>(blocks) / 6981);
}

// Gemma 4 E4B (no attention_k_eq_v: the full layers keep num_key_value_heads 2, at global_head_dim 512): 42 layers,
// every 6th full, the last 18 KV-shared, so the first 24 cache: 4 full (layers 5, 11, 17, 23) and 20 sliding
// (window 512). Full 2 x 2 x 512 x 2 B = 4096 B per token and layer, sliding 2 x 2 x 256 x 2 B = 2048 B. At 4096
// tokens: full 4 x 4096 x 4096 = 67,108,864 B, sliding 20 x 512 x 2048 = 20,971,520 B.
TEST(gemma4_kv, e4b_full_layers_keep_their_kv_heads) {
  const estimate_result r = test::estimated({{"mode", "inference"},
                                             {"model", "gemma-4-e4b-it"},
                                             {"runtime", "transformers"},
                                             {"seq", "4096"},
                                             {"batch", "1"},
                                             {"kv_dtype", "bf16"}});
  EXPECT_EQ(test::item(r, "full-attention layers"), 67108864.0);
  EXPECT_EQ(test::item(r, "sliding-window layers"), 20971520.0);
}

// Pages that do not divide one another: vLLM raises NotImplementedError (page 0). Gemma 4 E2B's full layers are
// the larger page (1 KV head x 512 against 1 x 256): the sliding layers take the 32-token blocks.
TEST(gemma4_kv, vllm_unify_pages_edges) {
  EXPECT_EQ(vllm_unify_pages(16, 98304, 131072).page, 0);
  const vllm_hybrid_pages e2b = vllm_unify_pages(16, 32768, 16384);
  EXPECT_EQ(e2b.page, 32768);
  EXPECT_EQ(e2b.full_block, 16);
  EXPECT_EQ(e2b.sliding_block, 32);
}

// llama.cpp (f16 cache, one slot, n_ubatch 512): a full layer's cell is n_embd_k_gqa + n_embd_v_gqa = 4 x 512 x
// (2 + 2) = 8,192 B, a sliding layer's 16 x 256 x 4 = 16,384 B. 128K: cells 131,072 (a multiple of 256), the SWA
// cache pad(min(131072, 1024 + 512), 256) = 1536 cells: full 10 x 131,072 x 8,192 = 10,737,418,240 B, sliding
// 50 x 1536 x 16,384 = 1,258,291,200 B. 4096: full 10 x 4096 x 8,192 = 335,544,320 B, sliding the same 1536 cells.
TEST(gemma4_kv, llamacpp_cells) {
  const estimate_result long_run = test::estimated(gemma4_31b("llamacpp", "131072"));
  EXPECT_EQ(test::item(long_run, "full-attention layers"), 10737418240.0);
  EXPECT_EQ(test::item(long_run, "sliding-window layers"), 1258291200.0);
  const estimate_result short_run = test::estimated(gemma4_31b("llamacpp", "4096"));
  EXPECT_EQ(test::item(short_run, "full-attention layers"), 335544320.0);
  EXPECT_EQ(test::item(short_run, "sliding-window layers"), 1258291200.0);
}

// Other models keep one shape: Gemma 3 27B's full layers cache 16 KV heads x 128 as before (10 full layers at 4096
// tokens: 10 x 4096 x 2 x 16 x 128 x 2 B = 335,544,320 B).
TEST(gemma4_kv, other_models_unchanged) {
  const estimate_result r = test::estimated({{"mode", "inference"},
                                             {"model", "gemma-3-27b-it"},
                                             {"runtime", "transformers"},
                                             {"seq", "4096"},
                                             {"batch", "1"},
                                             {"kv_dtype", "bf16"}});
  EXPECT_EQ(test::item(r, "full-attention layers"), 335544320.0);
}

TEST(gemma4_kv, full_layers_heads_checked) {
  const auto r = resolve({{"model", "gemma-4-31b-it"}, {"num_global_key_value_heads", "5"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().setting, "num_global_key_value_heads");
}

}  // namespace
