// SPDX-License-Identifier: MIT
// The device catalogue (core/data/gpus.json, docs/devices.md): every entry's figures in range and sourced, the
// earlier ids still naming their devices, the runtimes' refusals on devices they do not run on, and the issue's
// "done when": Qwen2.5-32B on 2 x A100 40GB with vLLM at tp 2 answers as vLLM does.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/resolve.hpp"

using namespace llm_memory;

namespace {

constexpr double GiB = 1073741824.0;

bool mentions(const std::vector<error>& errors, const std::string& key, const std::string& words) {
  for (const auto& e : errors)
    if (e.setting == key && e.message.find(words) != std::string::npos) return true;
  return false;
}

}  // namespace

// Every id and alias names one device; every figure is in range, whole bytes, sourced; what a framework sees is
// never more than what is marketed (vendor GB read as GiB).
TEST(devices, catalogue_integrity) {
  EXPECT_GE(gpu_presets().size(), 80u);
  std::set<std::string> names;
  for (const auto& g : gpu_presets()) {
    EXPECT_TRUE(names.insert(g.id).second) << g.id;
    for (const auto& alias : g.aliases) EXPECT_TRUE(names.insert(alias).second) << alias;
    EXPECT_FALSE(g.name.empty()) << g.id;
#ifndef __EMSCRIPTEN__  // the WebAssembly module carries no sources (core/embed_data.cmake)
    EXPECT_FALSE(g.source.empty()) << g.id;
#endif
    EXPECT_FALSE(g.interconnect.empty()) << g.id;
    EXPECT_TRUE(g.vendor == "NVIDIA" || g.vendor == "AMD" || g.vendor == "Intel" || g.vendor == "Apple") << g.id;
    EXPECT_GE(g.marketed_bytes, 6 * GiB) << g.id;
    EXPECT_LE(g.marketed_bytes, 512 * GiB) << g.id;
    EXPECT_GT(g.memory_bytes, 4 * GiB) << g.id;
    EXPECT_EQ(g.memory_bytes, std::floor(g.memory_bytes)) << g.id;
    EXPECT_LE(g.memory_bytes, g.marketed_bytes) << g.id;
    EXPECT_LE(g.visible_bytes, g.marketed_bytes) << g.id;
    EXPECT_LE(g.reported_bytes, g.marketed_bytes) << g.id;
    if (g.visible_bytes > 0 && g.reported_bytes > 0) {
      EXPECT_LE(g.visible_bytes, g.reported_bytes) << g.id;
    }
    EXPECT_GT(g.bandwidth_bytes_per_s, 50e9) << g.id;
    EXPECT_LT(g.bandwidth_bytes_per_s, 10e12) << g.id;
    EXPECT_GE(g.bf16_flops, 0) << g.id;
    EXPECT_LT(g.bf16_flops, 3e15) << g.id;
    EXPECT_GE(g.fp8_flops, 0) << g.id;
    EXPECT_LT(g.fp8_flops, 6e15) << g.id;
    // A figure left out says why in the note.
    if (g.bf16_flops == 0 || g.visible_bytes == 0) {
      EXPECT_FALSE(g.note.empty()) << g.id;
    }
    if (g.backend == device_backend::metal) {
      EXPECT_EQ(g.unified_memory_bytes, g.marketed_bytes) << g.id;
    }
  }
}

// The memory an estimate compares with is the framework's figure where one is published: the A100 40GB as CUDA's
// deviceQuery prints it (42,298,834,944 B = 39.39 GiB, where nvidia-smi says 40,960 MiB); the H100 as PyTorch's
// OOM message prints it (79.19 GiB = 81,091 MiB); the driver's total where only it is (A10G, 23,028 MiB); the
// marketed size otherwise (V100 16GB); Apple silicon's Metal working set (2/3 of 16 GiB).
TEST(devices, memory_is_what_the_framework_sees) {
  const gpu_preset* a100 = find_gpu("a100-40gb");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->memory_bytes, 42298834944.0);
  EXPECT_EQ(a100->basis, memory_basis::framework);
  EXPECT_EQ(a100->marketed_bytes, 40 * GiB);
  EXPECT_EQ(a100->reported_bytes, 40960 * 1048576.0);
  EXPECT_EQ(find_gpu("h100-80gb")->memory_bytes, 81091 * 1048576.0);
  EXPECT_EQ(find_gpu("a10g")->memory_bytes, 23028 * 1048576.0);
  EXPECT_EQ(find_gpu("a10g")->basis, memory_basis::driver);
  EXPECT_EQ(find_gpu("v100-16gb")->memory_bytes, 16 * GiB);
  EXPECT_EQ(find_gpu("v100-16gb")->basis, memory_basis::nominal);
  EXPECT_EQ(find_gpu("m4-16gb")->memory_bytes, std::floor(16 * GiB * 2 / 3));
  EXPECT_EQ(find_gpu("m4-16gb")->basis, memory_basis::working_set);
  auto r = resolve({{"gpu", "a100-40gb"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().values.gpu_memory, 42298834944.0);
}

// The catalogue's earlier ids keep working: the Apple ids by memory size name one chip of that size with the same
// unified memory (so the same working set), and the run carries the preset's id.
TEST(devices, earlier_ids_are_aliases) {
  for (const char* id :
       {"h100-80gb", "h100-pcie-80gb", "h200-141gb", "b200-180gb", "a100-80gb", "a100-40gb", "l40s", "l4", "a10g", "t4",
        "v100-16gb", "v100-32gb", "rtx-3090", "rtx-4090", "rtx-5090", "rtx-a6000", "mi250x-gcd", "mi300x", "mi325x"})
    EXPECT_NE(find_gpu(id), nullptr) << id;
  for (const int gb : {16, 24, 32, 36, 48, 64, 96, 128, 192}) {
    const std::string id = "apple-" + std::to_string(gb) + "gb";
    const gpu_preset* gpu = find_gpu(id);
    ASSERT_NE(gpu, nullptr) << id;
    EXPECT_EQ(gpu->unified_memory_bytes, gb * GiB) << id;
    auto r = resolve({{"gpu", id}, {"runtime", "llamacpp"}});
    ASSERT_TRUE(r.ok()) << id;
    EXPECT_EQ(r.value().values.gpu, gpu->id) << id;
    EXPECT_EQ(r.value().values.gpu_memory, metal_working_set_bytes(gb * GiB)) << id;
  }
}

// vLLM on Apple silicon builds for the CPU only: an inference run naming it there is refused, naming runtime when
// chosen, gpu when auto chose vLLM; llama.cpp runs there. SGLang and TGI have no Metal backend; ggml none for Gaudi.
TEST(devices, runtimes_refuse_devices_they_do_not_run_on) {
  const auto vllm = resolve({{"mode", "inference"}, {"gpu", "m4-max-128gb"}, {"runtime", "vllm"}});
  ASSERT_FALSE(vllm.ok());
  EXPECT_TRUE(mentions(vllm.errors(), "runtime", "VLLM_TARGET_DEVICE=cpu"));
  const auto automatic = resolve({{"mode", "inference"}, {"gpu", "m4-max-128gb"}});
  ASSERT_FALSE(automatic.ok());
  EXPECT_TRUE(mentions(automatic.errors(), "gpu", "runtime auto's pick"));
  EXPECT_TRUE(resolve({{"mode", "inference"}, {"gpu", "m4-max-128gb"}, {"runtime", "llamacpp"}}).ok());
  EXPECT_TRUE(resolve({{"mode", "inference"}, {"gpu", "m4-max-128gb"}, {"runtime", "transformers"}}).ok());
  EXPECT_TRUE(mentions(resolve({{"mode", "inference"}, {"gpu", "m2-ultra-192gb"}, {"runtime", "sglang"}}).errors(),
                       "runtime", "docs.sglang.io"));
  EXPECT_FALSE(resolve({{"mode", "inference"}, {"gpu", "m2-ultra-192gb"}, {"runtime", "tgi"}}).ok());
  EXPECT_TRUE(mentions(resolve({{"mode", "inference"}, {"gpu", "gaudi3"}, {"runtime", "llamacpp"}}).errors(), "runtime",
                       "Gaudi"));
  EXPECT_TRUE(resolve({{"mode", "inference"}, {"gpu", "gaudi3"}, {"runtime", "vllm"}}).ok());
  EXPECT_TRUE(resolve({{"mode", "inference"}, {"gpu", "arc-b580"}, {"runtime", "vllm"}}).ok());  // Intel XPU
  // Memory given without a preset is any device; training is not an inference runtime's run.
  EXPECT_TRUE(resolve({{"mode", "inference"}, {"gpu_memory", "16GiB"}, {"runtime", "vllm"}}).ok());
  EXPECT_TRUE(resolve({{"gpu", "m4-max-128gb"}}).ok());
}

// Qwen2.5-32B, vLLM 0.17 (gpu_memory_utilization 0.9, its default), tp 2 on 2 x A100 40GB, max_model_len 32768.
// By hand, per device:
//   budget  = ceil(0.9 x 42,298,834,944) = 38,068,951,450 (vLLM's request_memory on torch's total)
//   weights = 2 B x (64 layers x 243,807,744 + 2 x 76,032 x 5120 + 5120) + rotary 131072 x 128 x 2
//           = 32,764,536,832 + 33,554,432 = 32,798,091,264; one layer's shard: q 5120 x 2560 + 2560, k and v
//             5120 x 512 + 512 each, o 2560 x 5120, MLP 3 x 5120 x 13824, two norms of 5120
//   profile = the sampler: 256 seqs x 152,064 x 14 B + 2048 x 5120 x 2 B = 565,968,896 (above the forward's
//             2048 x 2 x (3 x 27648 / 2 + 3 x 5120) = 232,783,872)
//   non-torch 0.73 GiB = 783,831,531.52 (tp > 1); no CUDA graphs in the 0.17 budget
//   KV      = 38,068,951,450 - 32,798,091,264 - 565,968,896 - 783,831,531.52 = 3,921,059,758.48 B = 3.65 GiB
// One 32,768-token request needs 64 x 2 x 4 KV heads x 128 x 2 B x 32,768 = 4 GiB: vLLM does not start. Its
// blocks: floor(floor(KV / 32,768 B) / 64 layers) = 1869 of 16 tokens = 29,904 tokens, the longest context.
// On the catalogue's former 40 GiB the same run kept 4,506,813,972.48 B (4.20 GiB) and said it fits. vLLM 0.21 (the
// default release) also holds its CUDA-graph estimate, 0.84 GiB = 901,943,132.16 B, in the budget: 3,019,116,626.32
// B left, floor(floor(KV / 32,768) / 64) = 1439 blocks = 23,024 tokens; it does not start either.
TEST(devices, qwen25_32b_tp2_on_two_a100_40gb_as_vllm_answers) {
  const settings run = {{"mode", "inference"},
                        {"model", "qwen2.5-32b"},
                        {"runtime", "vllm"},
                        {"vllm_version", "0.17"},
                        {"gpu", "a100-40gb"},
                        {"devices", "2"},
                        {"tp", "2"},
                        {"seq", "32768"},
                        {"gpu_memory_utilization", "0.9"}};
  const auto r = estimate(run);
  ASSERT_TRUE(r.ok());
  const estimate_result& e = r.value();
  EXPECT_DOUBLE_EQ(e.runtime.budget, 38068951450);
  EXPECT_DOUBLE_EQ(e.runtime.terms[0].bytes, 32798091264);
  EXPECT_DOUBLE_EQ(e.runtime.terms[1].bytes, 565968896);
  EXPECT_NEAR(e.runtime.kv_available, 38068951450.0 - 32798091264.0 - 565968896.0 - 0.73 * GiB, 1);
  EXPECT_DOUBLE_EQ(e.runtime.kv_capacity_tokens, 29904);
  EXPECT_EQ(e.runtime.max_context, 29904);
  EXPECT_FALSE(e.fits);

  settings v0_21 = run;
  v0_21["vllm_version"] = "0.21";
  const auto current = estimate(v0_21);
  ASSERT_TRUE(current.ok());
  EXPECT_NEAR(current.value().runtime.kv_available,
              38068951450.0 - 32798091264.0 - 565968896.0 - 0.73 * GiB - 0.84 * GiB, 1);
  EXPECT_EQ(current.value().runtime.max_context, 23024);
  EXPECT_FALSE(current.value().fits);

  settings nominal = run;
  nominal["gpu_memory"] = "40GiB";
  const auto before = estimate(nominal);
  ASSERT_TRUE(before.ok());
  EXPECT_NEAR(before.value().runtime.kv_available, 38654705664.0 - 32798091264.0 - 565968896.0 - 0.73 * GiB, 1);
  EXPECT_TRUE(before.value().fits);
}
