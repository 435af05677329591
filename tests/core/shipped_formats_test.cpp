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
// dequantised weights, llama.cpp and Ollama load a GGUF (Q4_K_M unless stated: below), and an explicit format wins.
TEST(shipped_formats, shipped_format_only_where_the_checkpoint_is_loaded) {
  // Training keeps the framework's format (HF Trainer: fp32 master weights), as for any other preset.
  EXPECT_EQ(resolved({{"model", "deepseek-v3"}}).values.weights_dtype,
            resolved({{"model", "llama-3.1-8b"}}).values.weights_dtype);
  for (const char* runtime : {"llamacpp", "ollama"})
    EXPECT_EQ(resolved({{"model", "deepseek-v3"}, {"mode", "inference"}, {"runtime", runtime}}).values.weights_dtype,
              "q4_k_m")
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
      {"qwen3.6-27b-fp8", "fp8_block"},
      {"qwen3.6-35b-a3b-fp8", "fp8_block"},
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
      {"gemma-3n-e2b", "bf16"},
      {"gemma-3n-e4b", "bf16"},
      {"glm-4.6", "bf16"},
      {"glm-4.7", "bf16"},
      {"olmo-3-1025-7b", "bf16"},
      {"olmo-3-1125-32b", "bf16"},
      {"nvidia-nemotron-nano-9b-v2", "bf16"},
      {"nvidia-nemotron-3-nano-30b-a3b-bf16", "bf16"},
      {"granite-4.0-h-small", "bf16"},
      {"granite-4.0-h-tiny", "bf16"},
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
      // docs/research/presets-2026-12.md's presets: Ministral 3 Instruct ships FP8 with one scale per tensor
      // (vllm-project/recipes Mistral/Ministral-3-Instruct.md; the 8B's Hub total carries 34 x 7 x 2 scales), the
      // rest bf16.
      {"ministral-3-3b-instruct-2512", "fp8_block"},
      {"ministral-3-8b-instruct-2512", "fp8_block"},
      {"granite-4.0-h-micro", "bf16"},
      {"qwen3.5-0.8b", "bf16"},
      {"qwen3.5-2b", "bf16"},
      {"qwen3.5-4b", "bf16"},
      {"nemotron-h-8b-base-8k", "bf16"},
      {"glm-4.7-flash", "bf16"},
      {"magistral-small-2506", "bf16"},
      {"mistral-small-3.1-24b-instruct-2503", "bf16"},
      // docs/research/presets-2026-12b.md: Nemotron 3 Super's BF16 repo and NVIDIA's FP8 repos (ModelOpt FP8,
      // per-tensor scales: hf_quant_config.json quant_algo FP8).
      {"nvidia-nemotron-3-super-120b-a12b-bf16", "bf16"},
      {"nvidia-nemotron-3-super-120b-a12b-fp8", "fp8_block"},
      {"nvidia-nemotron-3-nano-30b-a3b-fp8", "fp8_block"},
      {"nvidia-nemotron-3-nano-4b-fp8", "fp8_block"},
  };
  for (const auto& [id, format] : presets) {
    const auto r = resolve({{"model", id}, {"mode", "inference"}});
    ASSERT_TRUE(r.ok()) << id << ": " << to_string(r.errors().front());
    EXPECT_EQ(r.value().values.weights_dtype, format) << id;
    EXPECT_TRUE(estimate(r.value()).buckets.size() > 0) << id;
  }
}

// Ministral 3 8B Instruct 2512 ships FP8 with one fp32 weight scale per tensor (quant_method fp8, no
// weight_block_size): served as shipped, each layer's 7 linears (q, o 4,096 x 4,096, k, v 1,024 x 4,096, gate, up,
// down 4,096 x 14,336: 218,103,808 values) take 1 B each + 7 x 4 B of scales, x 34 = 7,415,530,424 B; the untied
// embedding and head 2 x 131,072 x 4,096 and the norms 34 x 8,192 + 4,096 stay bf16: 1,074,024,448 x 2 =
// 2,148,048,896 B; weights 9,563,579,320 B. The vision tower and projector (403,305,472 + 25,166,848) stay bf16:
// 856,944,640 B. (The checkpoint also stores an activation scale per linear, 238 x 4 B, not counted.)
TEST(shipped_formats, ministral_3_8b_as_shipped_fp8) {
  const settings s{{"model", "ministral-3-8b-instruct-2512"}, {"mode", "inference"}};
  EXPECT_EQ(resolved(s).values.weights_dtype, "fp8_block");
  EXPECT_EQ(resolved(s).values.quant_group_size, 0);
  const estimate_result e = estimated(s);
  EXPECT_EQ(item(e, "weights"), 34 * (218103808.0 + 7 * 4) + 2 * (2 * 131072.0 * 4096 + 34 * 8192 + 4096));
  EXPECT_EQ(item(e, "weights"), 9563579320.0);
  EXPECT_EQ(item(e, "vision tower"), 2 * (403305472.0 + 25166848));
}

// Ollama and llama.cpp run the GGUF their registries serve when no format is stated: Q4_K_M (`ollama pull` of a
// library tag without a type; llama-server -hf with no quant: common/arg.cpp). Llama 3.1 8B in llama.cpp's Q4_K_M mix
// (src/llama-quant.cpp llama_tensor_get_type): attn_v and ffn_down Q6_K (210 B per 256 values) in the 16 layers
// where use_more_bits(i, 32) holds (i < 4, i >= 28, (i - 4) % 3 == 2: 6, 9, ..., 27), Q4_K (144 B per 256) in the
// other 16; q, k, o, gate, up Q4_K everywhere; output Q6_K; token_embd Q4_K (in host memory); norms f32.
//   q + k + o + gate + up = 16,777,216 + 4,194,304 + 16,777,216 + 2 x 58,720,256 = 155,189,248 values x 0.5625
//     = 87,293,952 B per layer, x 32 = 2,793,406,464 B
//   v + down = 4,194,304 + 58,720,256 = 62,914,560 values: x 0.8203125 x 16 = 825,753,600 B, x 0.5625 x 16
//     = 566,231,040 B
//   norms (32 x 8,192 + 4,096) x 4 B = 1,064,960 B; output 128,256 x 4,096 x 0.8203125 = 430,940,160 B
//   model buffer = 2,793,406,464 + 825,753,600 + 566,231,040 + 1,064,960 + 430,940,160 = 4,617,396,224 B
//     (4,403.49 MiB, the published llama.cpp log of Llama-3-8B Q4_K_M: tests/validation/published.json)
//   token_embd 525,336,576 x 0.5625 = 295,501,824 B in host memory
TEST(shipped_formats, ollama_and_llamacpp_default_to_q4_k_m) {
  for (const char* runtime : {"ollama", "llamacpp"}) {
    const settings s{{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"runtime", runtime}, {"seq", "4096"}};
    EXPECT_EQ(resolved(s).values.weights_dtype, "q4_k_m") << runtime;
    const estimate_result e = estimated(s);
    EXPECT_EQ(item(e, "weights on the GPU (model buffer)"), 4617396224.0) << runtime;
    EXPECT_EQ(e.runtime.model_buffer, 4617396224.0) << runtime;
    EXPECT_EQ(e.runtime.host_buffer, 295501824.0) << runtime;
    // The note says what was assumed, in the runtime's words.
    const std::string said = std::string(runtime) == "ollama" ? "weights Q4_K_M: what `ollama pull <model>` serves"
                                                              : "weights Q4_K_M: the GGUF `llama-server -hf <repo>`";
    bool noted = false;
    for (const auto& n : e.notes) noted = noted || n.rfind(said, 0) == 0;
    EXPECT_TRUE(noted) << runtime;
  }
  // A stated format wins and nothing is assumed; other runtimes keep the checkpoint's.
  const estimate_result q8 =
      estimated({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"runtime", "ollama"}, {"weights_dtype", "q8_0"}});
  for (const auto& n : q8.notes) EXPECT_EQ(n.find("weights Q4_K_M"), std::string::npos) << n;
  EXPECT_EQ(
      resolved({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"runtime", "ollama"}, {"weights_dtype", "q8_0"}})
          .values.weights_dtype,
      "q8_0");
  EXPECT_EQ(resolved({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"runtime", "vllm"}}).values.weights_dtype,
            "bf16");
  // runtime = auto still serves the checkpoint as shipped (vLLM): the GGUF default is llama.cpp's and Ollama's own.
  EXPECT_EQ(resolved({{"model", "gpt-oss-20b"}, {"mode", "inference"}}).values.weights_dtype, "mxfp4");
}

// gpt-oss ships MXFP4 experts and so do its GGUFs: ggml-org/gpt-oss-20b-GGUF's one file, gpt-oss-20b-mxfp4.gguf, is
// what `llama-server -hf` falls back to without a Q4_K_M, and Ollama's gpt-oss tags are MXFP4. llama.cpp's
// MXFP4_MOE (src/llama-quant.cpp: "MoE tensors -> MXFP4, other tensors -> Q8_0"): the 3-D expert matrices at 17 B
// per 32 values, every other matrix, token_embd and output at Q8_0's 34 B per 32, norms f32.
//   experts 24 layers x 32 x (gate_up 2,880 x 5,760 + down 2,880 x 2,880) = 19,110,297,600 values x 0.53125
//     = 10,152,345,600 B
//   the layers' other matrix values (attention with biases and sinks, routers, expert biases) 19,756,349,184
//     - 19,110,297,600 = 646,051,584 x 1.0625 = 686,429,808 B
//   norms 24 x 5,760 x 4 = 552,960 B; output 201,088 x 2,880 = 579,133,440 x 1.0625 = 615,329,280 B + final norm
//     2,880 x 4 = 11,520 B
//   model buffer = 10,152,345,600 + 686,429,808 + 552,960 + 615,329,280 + 11,520 = 11,454,669,168 B = 10,924.02 MiB
//   token_embd 579,133,440 x 1.0625 = 615,329,280 B = 586.82 MiB in host memory
// Published (llama-cli -hf ggml-org/gpt-oss-20b-GGUF, all 25 layers on ROCm0, a third-party notes file: search-index
// file 49183235068): "ROCm0 model buffer size = 10949.38 MiB", "CPU_Mapped model buffer size = 586.82 MiB". The host
// buffer is exact; the device one 25.4 MiB (0.23 %) low: the 1-D biases counted here at their matrix's rate are f32
// in the file (the expert biases alone 24 x 32 x 8,640 x 4 B = 25.3 MiB).
TEST(shipped_formats, gpt_oss_keeps_mxfp4_on_llamacpp_and_ollama) {
  for (const char* runtime : {"llamacpp", "ollama"}) {
    const settings s{{"model", "gpt-oss-20b"}, {"mode", "inference"}, {"runtime", runtime}, {"seq", "4096"}};
    EXPECT_EQ(resolved(s).values.weights_dtype, "mxfp4") << runtime;
    const estimate_result e = estimated(s);
    EXPECT_EQ(e.runtime.model_buffer, 11454669168.0) << runtime;
    EXPECT_EQ(e.runtime.host_buffer, 615329280.0) << runtime;
    EXPECT_NEAR(e.runtime.model_buffer / 1048576.0, 10949.38, 0.003 * 10949.38) << runtime;
    for (const auto& n : e.notes) EXPECT_EQ(n.find("weights Q4_K_M"), std::string::npos) << n;
  }
  // A stated GGUF mix still wins; training starts from the dequantised weights as before.
  EXPECT_EQ(
      resolved({{"model", "gpt-oss-20b"}, {"mode", "inference"}, {"runtime", "llamacpp"}, {"weights_dtype", "q8_0"}})
          .values.weights_dtype,
      "q8_0");
  EXPECT_NE(resolved({{"model", "gpt-oss-20b"}}).values.weights_dtype, "mxfp4");
  // A 16-bit or FP8 checkpoint still gets Q4_K_M (the GGUF the registries serve).
  EXPECT_EQ(resolved({{"model", "deepseek-v3"}, {"mode", "inference"}, {"runtime", "ollama"}}).values.weights_dtype,
            "q4_k_m");
}

}  // namespace
