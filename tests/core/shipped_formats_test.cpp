// SPDX-License-Identifier: MIT
// Issue 32, item 6: a preset's shipped weights format (its config's quantization_config: FP8 block-scaled, MXFP4) is
// the default of inference on the runtimes that load the checkpoint itself (resolve.cpp loads_as_shipped). The bytes
// are summed by hand from the format table's layouts (core/src/dtype.cpp layout_linear_bytes).
#include <gtest/gtest.h>

#include "run_support.hpp"

#include <string>
#include <utility>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::estimated;
using test::item;
using test::resolved;

// DeepSeek-V3 ships FP8 e4m3 in 128 x 128 blocks: served as shipped, the 669,065,609,216 linear weights of its 61
// layers take 1 B each plus one fp32 scale per block (40,838,232: quant_test.cpp), the rest (embedding and lm_head
// 2 x 926,679,040, 61 x 16,384 layer norms, the final norm 7,168, 58 routers x 1,835,264) 2 B each:
// 669,065,609,216 + 163,352,928 + 3,921,619,968 = 673,150,582,112 B.
TEST(shipped_formats, deepseek_v3_inference_defaults_to_its_shipped_fp8) {
  const run_spec r = resolved({{"model", "deepseek-v3"}, {"mode", "inference"}});
  EXPECT_EQ(r.values.weights_dtype, "fp8_block");
  EXPECT_EQ(r.values.quant_group_size, 128);
  const estimate_result one = estimated({{"model", "deepseek-v3"}, {"mode", "inference"}});
  EXPECT_EQ(item(one, "weights"), 669065609216.0 + 4 * 40838232.0 + 2 * 1960809984.0);
  // The first try on 8 x H200 (tensor parallel over the 8) fits as shipped; in bf16 it did not.
  const settings h200{
      {"model", "deepseek-v3"}, {"mode", "inference"}, {"gpu", "h200-141gb"}, {"devices", "8"}, {"tp", "8"}};
  EXPECT_TRUE(estimated(h200).fits);
  settings bf16 = h200;
  bf16["weights_dtype"] = "bf16";
  EXPECT_FALSE(estimated(bf16).fits);
}

// The shipped format is the default of runs that load the checkpoint itself only: training starts from the
// dequantised weights, llama.cpp and Ollama load a GGUF conversion, and an explicit format wins.
TEST(shipped_formats, shipped_format_only_where_the_checkpoint_is_loaded) {
  // Training keeps the framework's format (HF Trainer: fp32 master weights), as for any other preset.
  EXPECT_EQ(resolved({{"model", "deepseek-v3"}}).values.weights_dtype,
            resolved({{"model", "llama-3.1-8b"}}).values.weights_dtype);
  for (const char* runtime : {"llamacpp", "ollama"})
    EXPECT_EQ(resolved({{"model", "deepseek-v3"}, {"mode", "inference"}, {"runtime", runtime}}).values.weights_dtype,
              "bf16")
        << runtime;
  for (const char* runtime : {"vllm", "sglang", "tgi", "transformers"})
    EXPECT_EQ(resolved({{"model", "gpt-oss-20b"}, {"mode", "inference"}, {"runtime", runtime}}).values.weights_dtype,
              "mxfp4")
        << runtime;
  EXPECT_EQ(resolved({{"model", "deepseek-v3"}, {"mode", "inference"}, {"weights_dtype", "int8"}}).values.weights_dtype,
            "int8");
  // A preset shipped in bf16 keeps the table's default.
  EXPECT_EQ(resolved({{"model", "llama-3.1-8b"}, {"mode", "inference"}}).values.weights_dtype, "bf16");
}

// gpt-oss-120b ships its routed experts in MXFP4 (_blocks U8 [out, in/32, 16] + _scales U8 [out, in/32]: 17 B per
// 32 values) and the rest in bf16. Experts: 36 layers x 128 x 3 matrices x 2,880 x 90 x 17 = 60,914,073,600 B and
// their biases 36 x 128 x 8,640 x 2 B = 79,626,240; the other layer weights (attention, sinks, routers, norms)
// 969,080,832 x 2 B; embedding, lm_head and the norms 1,158,477,120 x 2 B: 65,248,815,744 B, which fits one H100.
TEST(shipped_formats, gpt_oss_120b_on_one_h100_as_shipped) {
  const settings s{{"model", "gpt-oss-120b"}, {"mode", "inference"}, {"gpu", "h100-80gb"}};
  const estimate_result e = estimated(s);
  EXPECT_EQ(item(e, "weights"), 60914073600.0 + 79626240.0 + 2 * 969080832.0 + 2 * 1158477120.0);
  EXPECT_TRUE(e.fits);
}

// Issue 32's "done when": a first try of each 2025-26 preset (inference, runtime auto) answers in the format its
// checkpoint ships. Each expected format is the checkpoint's own, not the code's output: FP8 in 128 x 128 blocks
// where the repo's config.json carries quantization_config {quant_method fp8, weight_block_size [128, 128]}
// (DeepSeek-V3 / V3.2-Exp, Kimi K2, MiniMax-M2, Qwen's -FP8 repos), MXFP4 for gpt-oss (its routed experts), bf16 for
// the rest (torch_dtype bfloat16 and no quantization_config in their repos: docs/models.md "Issue 32's presets").
TEST(shipped_formats, every_2025_26_preset_answers_in_its_shipped_format) {
  const std::vector<std::pair<std::string, std::string>> presets = {
      {"deepseek-v3.2-exp", "fp8_block"},
      {"kimi-k2-instruct", "fp8_block"},
      {"kimi-k2-base", "fp8_block"},
      {"kimi-k2-instruct-0905", "fp8_block"},
      {"minimax-m2", "fp8_block"},
      {"qwen3-4b-instruct-2507-fp8", "fp8_block"},
      {"qwen3-235b-a22b-instruct-2507-fp8", "fp8_block"},
      {"qwen3-30b-a3b-instruct-2507-fp8", "fp8_block"},
      {"gpt-oss-20b", "mxfp4"},
      {"gpt-oss-120b", "mxfp4"},
      {"qwen3-next-80b-a3b-instruct", "bf16"},
      {"qwen3.5-397b-a17b", "bf16"},
      {"qwen3.5-122b-a10b", "bf16"},
      {"qwen3.5-35b-a3b", "bf16"},
      {"qwen3.5-27b", "bf16"},
      {"qwen3.5-9b", "bf16"},
      {"gemma-4-31b-it", "bf16"},
      {"gemma-4-26b-a4b-it", "bf16"},
      {"gemma-4-e2b-it", "bf16"},
      {"gemma-4-e4b-it", "bf16"},
      {"glm-4.6", "bf16"},
      {"glm-4.7", "bf16"},
      {"olmo-3-1025-7b", "bf16"},
      {"olmo-3-1125-32b", "bf16"},
      {"nvidia-nemotron-nano-9b-v2", "bf16"},
      {"nvidia-nemotron-3-nano-30b-a3b-bf16", "bf16"},
      {"granite-4.0-h-small", "bf16"},
      {"lfm2-1.2b", "bf16"},
      {"lfm2.5-1.2b-instruct", "bf16"},
      {"lfm2-8b-a1b", "bf16"},
      {"falcon-h1-7b-base", "bf16"},
      {"minimax-text-01", "bf16"},
      {"minimax-m1-80k", "bf16"},
      {"kimi-linear-48b-a3b-instruct", "bf16"},
      {"zamba2-1.2b", "bf16"},
      {"zamba2-7b-instruct", "bf16"},
      {"llama-4-scout-17b-16e-instruct", "bf16"},
      {"llama-4-maverick-17b-128e-instruct", "bf16"},
      {"mistral-small-3.2-24b-instruct-2506", "bf16"},
      {"devstral-small-2507", "bf16"},
  };
  for (const auto& [id, format] : presets) {
    const auto r = resolve({{"model", id}, {"mode", "inference"}});
    ASSERT_TRUE(r.ok()) << id << ": " << to_string(r.errors().front());
    EXPECT_EQ(r.value().values.weights_dtype, format) << id;
    EXPECT_TRUE(estimate(r.value()).buckets.size() > 0) << id;
  }
}

}  // namespace
