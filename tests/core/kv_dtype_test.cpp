// SPDX-License-Identifier: MIT
// kv_dtype in the runtimes' own words: llama.cpp's cache types (-ctk/-ctv, OLLAMA_KV_CACHE_TYPE) under llama.cpp
// and Ollama, vLLM's fp8 names, f16/f32. Bytes per value from ggml's blocks (ggml-common.h): per 32 values Q8_0 34 B
// (32 int8 + fp16 d), Q4_0 18 (16 B of nibbles + d), Q4_1 20 (+ fp16 m), Q5_0 22 (+ 4 B of high bits), Q5_1 24,
// IQ4_NL 18; F16 and BF16 2 B per value, F32 4.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/runtime.hpp"

using namespace llm_memory;

namespace {

constexpr double MiB = 1048576.0;

// Mistral 7B v0.1 without its sliding window: 32 layers, 8 KV heads of 128; seq 1024 (a multiple of 256, so the
// cells are 1024), one slot, every layer on the GPU. KV = 32 x 1024 cells x 8 x 128 x (K + V bytes per value)
// = 32 MiB x 2 x bytes per value = 2 MiB x (block bytes) for a 32-value block.
settings llama_run(const std::string& runtime, const std::string& kv_dtype) {
  return {{"mode", "inference"},  {"model", "mistral-7b-v0.1"},
          {"runtime", runtime},   {"weights_dtype", "q4_k_m"},
          {"seq", "1024"},        {"batch", "1"},
          {"attention", "flash"}, {"sliding_window", "0"},
          {"kv_dtype", kv_dtype}};
}

double kv_buffer(const settings& s) {
  const auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value().runtime.kv_buffer : -1;
}

}  // namespace

TEST(kv_dtype_names, llama_cpp_quantized_types_under_llamacpp) {
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "q8_0")), 2 * 34 * MiB);  // 68 MiB
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "q4_0")), 2 * 18 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "q4_1")), 2 * 20 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "iq4_nl")), 2 * 18 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "q5_0")), 2 * 22 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "q5_1")), 2 * 24 * MiB);
}

TEST(kv_dtype_names, llama_cpp_float_types_under_llamacpp) {
  // 32 MiB x 2 x 2 B = 128 MiB; f32 256 MiB.
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "f16")), 128 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "bf16")), 128 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "f32")), 256 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "fp32")), 256 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("llamacpp", "auto")), 128 * MiB);  // llama.cpp's f16
}

TEST(kv_dtype_names, ollama_reads_llama_cpp_types) {
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("ollama", "Q8_0")), 2 * 34 * MiB);
  EXPECT_DOUBLE_EQ(kv_buffer(llama_run("ollama", "q4_0")), 2 * 18 * MiB);
}

TEST(kv_dtype_names, cache_type_given_beside_wins_for_its_cache) {
  auto s = llama_run("llamacpp", "q8_0");
  s["cache_type_v"] = "q4_0";
  // K q8_0, V q4_0: 32 MiB x (34 + 18) / 32 = 52 MiB.
  EXPECT_DOUBLE_EQ(kv_buffer(s), 52 * MiB);
}

TEST(kv_dtype_names, quantized_v_without_flash_names_kv_dtype) {
  auto s = llama_run("llamacpp", "q8_0");
  s["attention"] = "eager";
  const auto r = estimate(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "kv_dtype");
  EXPECT_NE(r.errors()[0].message.find("q8_0"), std::string::npos);
}

TEST(kv_dtype_names, vllm_fp8_names_are_one_byte) {
  for (const char* name : {"fp8", "fp8_e4m3", "fp8_e5m2", "FP8_E4M3"}) {
    const auto r = resolve({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "vllm"}, {"kv_dtype", name}});
    ASSERT_TRUE(r.ok()) << name;
    EXPECT_EQ(r.value().values.kv_dtype, "fp8") << name;
    EXPECT_EQ(r.value().kv, dtype::fp8) << name;
  }
  const auto f16 =
      resolve({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "vllm"}, {"kv_dtype", "f16"}});
  ASSERT_TRUE(f16.ok());
  EXPECT_EQ(f16.value().kv, dtype::fp16);
}

TEST(kv_dtype_names, llama_cpp_types_are_refused_elsewhere) {
  for (const char* runtime : {"vllm", "sglang", "tgi", "transformers"}) {
    const auto r =
        resolve({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", runtime}, {"kv_dtype", "q8_0"}});
    ASSERT_FALSE(r.ok()) << runtime;
    EXPECT_EQ(r.errors()[0].setting, "kv_dtype") << runtime;
    EXPECT_NE(r.errors()[0].message.find(runtime), std::string::npos) << r.errors()[0].message;
  }
}

TEST(kv_dtype_names, unknown_name_is_refused_naming_the_setting) {
  const auto r = resolve({{"mode", "inference"}, {"kv_dtype", "q3_k"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "kv_dtype");
}
