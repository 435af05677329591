// SPDX-License-Identifier: MIT
// The runtimes' table (core/src/runtimes/table.cpp): each runtime reaches its own row, auto picks by the weights,
// and Ollama is llama.cpp's row with its own reserve. L8 = Llama 3.1 8B.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"

using namespace llm_memory;

namespace {

estimate_result run(const settings& s) {
  const auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value() : estimate_result{};
}

settings inference(const std::string& runtime) {
  return {{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", runtime}, {"seq", "4096"}};
}

const bucket& overhead(const estimate_result& r) { return r.buckets.back(); }

// The first overhead item is the runtime's own (docs/methodology.md, "Runtimes"): each name reaches its row.
TEST(runtimes_table, each_runtime_reaches_its_row) {
  const std::pair<const char*, const char*> first_item[] = {
      {"transformers", "CUDA context and framework"},
      {"vllm", "non-torch memory (NCCL, cuBLAS)"},
      {"sglang", "CUDA context"},
      {"tgi", "CUDA context"},
      {"llamacpp", "beyond the logged buffers (CUDA context, cuBLAS)"},
      {"ollama", "Ollama's per-GPU minimum"},
  };
  for (const auto& [runtime, item] : first_item) {
    const estimate_result r = run(inference(runtime));
    ASSERT_FALSE(overhead(r).items.empty()) << runtime;
    EXPECT_EQ(overhead(r).items[0].name, item) << runtime;
    EXPECT_EQ(runtime_name(r.runtime.name), runtime);
  }
}

// auto: llama.cpp for a GGUF mix, transformers for bitsandbytes, vLLM for anything else.
TEST(runtimes_table, auto_picks_by_the_weights) {
  const std::pair<const char*, runtime_kind> picks[] = {
      {"q4_k_m", runtime_kind::llamacpp}, {"nf4", runtime_kind::transformers}, {"int8", runtime_kind::transformers},
      {"bf16", runtime_kind::vllm},       {"fp8", runtime_kind::vllm},
  };
  for (const auto& [weights, runtime] : picks) {
    const estimate_result r = run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"weights_dtype", weights}});
    EXPECT_EQ(r.runtime.name, runtime) << weights;
  }
}

// Ollama runs llama.cpp: the same buffers, plus MinimumMemory() = 457 MiB = 479,199,232 B of overhead per GPU.
TEST(runtimes_table, ollama_is_llamacpp_with_its_reserve) {
  const estimate_result llama = run(inference("llamacpp"));
  const estimate_result ollama = run(inference("ollama"));
  EXPECT_TRUE(ollama.runtime.has_buffers);
  EXPECT_EQ(ollama.runtime.kv_cells, llama.runtime.kv_cells);
  EXPECT_DOUBLE_EQ(ollama.runtime.compute_buffer, llama.runtime.compute_buffer);
  EXPECT_DOUBLE_EQ(overhead(ollama).bytes - overhead(llama).bytes, 479199232);
}

}  // namespace
