// SPDX-License-Identifier: MIT
// What runs on my machine (fits.hpp): the ranking, the speed bound, llama.cpp's offload answer in the solver and
// the host-RAM check. Shapes of Llama 3.1 8B used below (config.json): hidden 4096, 32 layers, 8 KV heads of 128,
// MLP 14336, vocab 128256, 8,030,261,248 parameters. One layer holds 4096 x (4096 + 1024 + 1024 + 4096) +
// 3 x 4096 x 14336 = 218,103,808 matrix parameters. KV per token and layer in f16: 8 x 128 x 2 (K, V) x 2 B =
// 4,096 B, so 131,072 B per token over 32 layers.
#include "llm_memory/fits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/solve.hpp"
#include "llm_memory/ways_out.hpp"

namespace {

using namespace llm_memory;

const fits_row& row_of(const fits_result& r, const std::string& id) {
  const auto it = std::find_if(r.rows.begin(), r.rows.end(), [&](const fits_row& f) { return f.model == id; });
  EXPECT_NE(it, r.rows.end()) << id;
  return *it;
}

fits_result ranked(fits_request q) {
  const auto r = fits(q);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.errors().front().message);
  return r.ok() ? r.value() : fits_result{};
}

// The speed bound on a hand-built estimate: 16e9 B of weights, 8e9 parameters, 1e9 B of KV per sequence, on an
// RTX 4090 (1,008 GB/s, 165.2 dense BF16 TFLOPS).
//   decode = 1.008e12 / (16e9 + 1e9) = 59.294... tokens/s
//   batch 4 (KV bucket 4e9): 4 / ((16e9 + 4 x 1e9) / 1.008e12) = 201.6 tokens/s
//   prefill = 165.2e12 / (2 x 8e9) = 10,325 tokens/s
//   MoE with 2e9 of 8e9 active: weights read 16e9 x 0.25 = 4e9 B; decode = 1.008e12 / 5e9 = 201.6 tokens/s
TEST(SpeedBound, BandwidthOverBytesReadPerToken) {
  const gpu_preset* gpu = find_gpu("rtx-4090");
  ASSERT_NE(gpu, nullptr);
  estimate_result r;
  r.inference = true;
  r.settings.batch = 1;
  r.settings.pp = 1;
  r.settings.tp = 1;
  r.settings.num_hidden_layers = 32;
  r.model.params.total = 8e9;
  r.model.params.active = 8e9;
  r.buckets = {{"parameters", "", 16e9, "", "", {}}, {"kv_cache", "", 1e9, "", "", {}}};
  const auto one = speed_of(r, *gpu);
  ASSERT_TRUE(one.has_value());
  EXPECT_NEAR(one->decode_tokens_per_s, 1.008e12 / 17e9, 1e-9);
  EXPECT_NEAR(one->prefill_tokens_per_s, 10325, 1e-6);
  r.settings.batch = 4;
  r.buckets[1].bytes = 4e9;
  EXPECT_NEAR(speed_of(r, *gpu)->batch_tokens_per_s, 201.6, 1e-9);
  EXPECT_NEAR(speed_of(r, *gpu)->decode_tokens_per_s, 1.008e12 / 17e9, 1e-9);  // still 1e9 B of KV per sequence
  r.settings.batch = 1;
  r.buckets[1].bytes = 1e9;
  r.model.params.active = 2e9;
  EXPECT_NEAR(speed_of(r, *gpu)->decode_tokens_per_s, 201.6, 1e-9);
  r.inference = false;  // training has no decode
  EXPECT_FALSE(speed_of(r, *gpu).has_value());
}

// Published llama.cpp decode speeds (docs/validation.md, "Decode speed") against the bound at a 256-token
// context: an upper bound, within the stated factor 2 (measured between bound / 2 and bound). The measurements are
// the sources' own figures; 28.91 and 92.15 ms per token are 1000 / ms tokens/s.
TEST(SpeedBound, PublishedDecodeSpeeds) {
  struct published {
    const char* gpu;
    const char* model;
    const char* weights;
    double measured;  // tokens/s
  };
  const published runs[] = {{"m4-16gb", "llama-3.1-8b", "q4_k_m", 20.87},         // brand-o/normiebench#3
                            {"m1-max-64gb", "llama-3.1-8b", "q4_k_m", 46.2},      // brand-o/normiebench#40
                            {"rtx-3080-10gb", "llama-3.1-8b", "q4_k_m", 111.95},  // dmatora/...#12
                            {"rtx-4090", "meta-llama-3-8b", "q6_k", 93},          // dmatora/...#10
                            {"m2-pro-32gb", "llama-2-7b", "q4_0", 1000 / 28.91},  // XiongjieDai/...#1
                            {"m2-pro-32gb", "llama-2-7b", "fp16", 1000 / 92.15}};
  for (const published& p : runs) {
    const auto r = estimate({{"model", p.model},
                             {"mode", "inference"},
                             {"runtime", "llamacpp"},
                             {"weights_dtype", p.weights},
                             {"seq", "256"},
                             {"gpu", p.gpu}});
    ASSERT_TRUE(r.ok()) << p.gpu;
    const auto bound = speed_of(r.value(), *find_gpu(p.gpu));
    ASSERT_TRUE(bound.has_value()) << p.gpu;
    EXPECT_GE(bound->decode_tokens_per_s, p.measured) << p.gpu << " " << p.model;
    EXPECT_LE(bound->decode_tokens_per_s, 2 * p.measured) << p.gpu << " " << p.model;
  }
}

// Llama 3.1 8B Q4_K_M at 128K on a 12 GB RTX 3060 (12 GiB, 12,884,901,888 B): the KV alone is 131,072 x 131,072 B
// = 16 GiB, so the solver answers with -ngl, not a second GPU. A layer on the GPU costs its KV, 131,072 x 4,096 B
// = 536,870,912 B, and its Q4_K_M matrices, 218,103,808 x 4.5-5.5 bits = 0.123-0.150e9 B: 0.660-0.687e9 B. Beside
// them the device holds the CUDA context (about 0.48e9 B) and the compute buffer (below 1e9 B): 11.4-12.4e9 B for
// layers, 16.6-18.8 layers: -ngl 16 to 18.
TEST(OffloadAnswer, LlamaCppAnswersWithNglBeforeASecondGpu) {
  const settings s{{"model", "llama-3.1-8b"},   {"mode", "inference"}, {"runtime", "llamacpp"},
                   {"weights_dtype", "q4_k_m"}, {"seq", "131072"},     {"gpu", "rtx-3060-12gb"}};
  const auto solved = solve(s);
  ASSERT_TRUE(solved.ok());
  const solve_answer& a = solved.value().min_devices;
  ASSERT_TRUE(a.found) << a.message;
  EXPECT_EQ(a.value, 1);
  ASSERT_TRUE(a.delta.contains("n_gpu_layers")) << a.message;
  const int ngl = std::stoi(a.delta.at("n_gpu_layers"));
  EXPECT_GE(ngl, 16);
  EXPECT_LE(ngl, 18);
  EXPECT_NE(a.message.find("host RAM"), std::string::npos) << a.message;
  // The boundary: the answer fits and one more layer does not.
  settings at = s;
  at["n_gpu_layers"] = std::to_string(ngl);
  EXPECT_TRUE(estimate(at).value().fits);
  at["n_gpu_layers"] = std::to_string(ngl + 1);
  EXPECT_FALSE(estimate(at).value().fits);
  // The ways out show it as the devices way.
  const auto answers = answer(s);
  ASSERT_TRUE(answers.ok());
  ASSERT_FALSE(answers.value().ways_out.ways.empty());
  EXPECT_NE(answers.value().ways_out.ways.front().text.find("-ngl"), std::string::npos);
}

// The same run with 8 GB of host RAM: 32 - 18 = 14 or more layers stay on the host, at least 14 x 0.66e9 B =
// 9.2e9 B > 8e9 B: no -ngl fits, and the answer is more devices.
TEST(OffloadAnswer, HostRamTooSmallFallsBackToDevices) {
  const settings s{{"model", "llama-3.1-8b"},   {"mode", "inference"}, {"runtime", "llamacpp"},
                   {"weights_dtype", "q4_k_m"}, {"seq", "131072"},     {"gpu", "rtx-3060-12gb"},
                   {"host_ram", "8GB"}};
  const auto solved = solve(s);
  ASSERT_TRUE(solved.ok());
  EXPECT_FALSE(solved.value().min_devices.delta.contains("n_gpu_layers")) << solved.value().min_devices.message;
  EXPECT_GE(solved.value().min_devices.value, 2);
}

// host_ram checks what is offloaded: -ngl 10 of Llama 3.1 8B Q4_K_M at 8192 leaves 22 layers on the host, each
// 0.123e9 B or more of matrices: above 2.7e9 B, so 1 GB does not hold it and 64 GB does.
TEST(HostRam, OffloadedPartMustFit) {
  settings s{{"model", "llama-3.1-8b"}, {"mode", "inference"},    {"runtime", "llamacpp"}, {"weights_dtype", "q4_k_m"},
             {"seq", "8192"},           {"gpu", "rtx-3060-12gb"}, {"n_gpu_layers", "10"},  {"host_ram", "1GB"}};
  const auto small = estimate(s);
  ASSERT_TRUE(small.ok());
  EXPECT_GT(small.value().cpu_bytes, 2.7e9);
  EXPECT_FALSE(small.value().fits_in_ram);
  EXPECT_FALSE(small.value().fits);
  s["host_ram"] = "64GB";
  EXPECT_TRUE(estimate(s).value().fits_in_ram);
  EXPECT_TRUE(estimate(s).value().fits);
}

// Training: DeepSpeed ZeRO-Offload of the optimizer and parameters keeps in host RAM the fp32 master weights and
// Adam's two moments (12 B), the bf16 parameters (2 B) and the bf16 gradient partitions (2 B): 16 B x 8,030,261,248
// = 128,484,179,968 B. 128 GB does not hold it; 129 GB does.
TEST(HostRam, ZeroOffloadNeedsItsStatesInRam) {
  settings s{{"model", "llama-3.1-8b"},       {"framework", "deepspeed"}, {"zero", "3"},
             {"offload", "optimizer+params"}, {"gpu", "rtx-4090"},        {"host_ram", "128GB"}};
  const auto small = estimate(s);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small.value().cpu_bytes, 16.0 * 8030261248);
  EXPECT_FALSE(small.value().fits_in_ram);
  EXPECT_FALSE(small.value().fits);
  s["host_ram"] = "129GB";
  EXPECT_TRUE(estimate(s).value().fits_in_ram);
}

// An Apple M4 with 16 GiB: Metal's working set is 2/3 x 16 GiB = 11,453,246,122 B; vLLM does not run on Metal.
// Llama 3.1 8B Q8_0 is 8.03e9 x 34/32 B = 8.53e9 B of weights, 8192 x 131,072 B = 1.07e9 B of KV, the context
// and compute buffer about 1e9 B: 10.6e9 B, so Q8_0 (the first llama.cpp format) fits. Decode bound:
// 120e9 B/s / (8.53e9 + 1.07e9 B) = 12.5 tokens/s (11-14 with the buffers' share).
TEST(Fits, AppleM4RunsLlama8bAtQ8) {
  fits_request q;
  q.gpu = "m4-16gb";
  q.family = "llama-3.1-8b";
  const fits_result r = ranked(q);
  const fits_row& row = row_of(r, "llama-3.1-8b");
  EXPECT_TRUE(row.fits);
  EXPECT_EQ(row.format, "q8_0");
  EXPECT_EQ(row.runtime, "llamacpp");
  EXPECT_GE(row.max_context, 8192);
  EXPECT_EQ(row.max_context % 256, 0);
  EXPECT_EQ(row.offloaded_share, 0);
  EXPECT_GT(row.decode_tokens_per_s, 11);
  EXPECT_LT(row.decode_tokens_per_s, 14);
}

// Llama 3.1 70B on one RTX 3060: Q4_K_M is 70.6e9 x ~4.85 bits = 42.8e9 B, AWQ 35e9 B, neither fits 12.9e9 B; with
// 64 GB of RAM llama.cpp keeps ~0.53e9 B + 8192 x 4,096 B of KV per GPU layer: (12.9 - ~1.2) / 0.56 = 19-22 layers
// (16-22 with the compute buffer's spread), the other 58-64 of 80 (and ~32e9 B) in host RAM. 16 GB of RAM holds
// none of that.
TEST(Fits, SeventyBillionOffloadsWithEnoughRam) {
  fits_request q;
  q.gpu = "rtx-3060";
  q.family = "llama-3.1-70b";
  q.ram_bytes = 64e9;
  const fits_result result = ranked(q);  // the row refers into it
  const fits_row& row = row_of(result, "llama-3.1-70b");
  ASSERT_TRUE(row.fits);
  EXPECT_EQ(row.format, "q4_k_m");
  EXPECT_GE(row.gpu_layers, 16);
  EXPECT_LE(row.gpu_layers, 22);
  EXPECT_DOUBLE_EQ(row.offloaded_share, (80.0 - static_cast<double>(row.gpu_layers)) / 80.0);
  EXPECT_GT(row.host_bytes, 28e9);
  EXPECT_LT(row.host_bytes, 64e9);
  EXPECT_EQ(row.delta.at("n_gpu_layers"), std::to_string(row.gpu_layers));
  q.ram_bytes = 16e9;
  EXPECT_FALSE(row_of(ranked(q), "llama-3.1-70b").fits);
}

// Training on an RTX 4090 (25,425,870,848 B) at 2048 with gradient checkpointing: a full fine-tune of 8B holds
// 16 B per parameter with AdamW = 128e9 B; QLoRA holds the NF4 base, 8.03e9 x ~0.55 B = 4.4e9 B, the layer inputs
// 2048 x 4096 x 2 B x 32 = 0.54e9 B and fp32 logits 2048 x 128256 x 4 B = 1.05e9 B a copy: far below 25e9 B.
TEST(Fits, TrainingTasks) {
  fits_request q;
  q.gpu = "rtx-4090";
  q.family = "llama-3.1-8b";
  q.seq = 2048;
  q.task = fits_task::full;
  EXPECT_FALSE(row_of(ranked(q), "llama-3.1-8b").fits);
  q.task = fits_task::qlora;
  const fits_result result = ranked(q);  // the row refers into it
  const fits_row& row = row_of(result, "llama-3.1-8b");
  EXPECT_TRUE(row.fits);
  EXPECT_EQ(row.format, "nf4");
  EXPECT_EQ(row.decode_tokens_per_s, 0);
}

// Several devices serve one copy with the split vLLM is launched with (resolve.cpp default_split), not tp = devices:
// on 8 GPUs, tp 8 divides neither Qwen2.5-7B's 28 query heads nor Phi-4's 10 KV heads (vLLM refuses both). The
// largest t <= 8 dividing 8 and the query heads, with the KV heads divisible by t (or t by them): Qwen2.5-7B
// (28 heads, 4 KV) t = 4, so tp 4 x pp 2; Phi-4 (40 heads, 10 KV) t = 2 (4 leaves 10 % 4 = 2), so tp 2 x pp 4.
// Each row's link states no split, and opening it gives that split and the row's total.
TEST(Fits, SeveralDevicesTakeVllmsLaunchSplit) {
  struct expected {
    const char* model;
    std::int64_t tp;
    std::int64_t pp;
  };
  for (const expected e : {expected{"qwen2.5-7b", 4, 2}, expected{"phi-4", 2, 4}}) {
    fits_request q;
    q.gpu = "h100-80gb";
    q.devices = 8;
    q.family = e.model;
    const fits_result result = ranked(q);  // the row refers into it
    const fits_row& row = row_of(result, e.model);
    ASSERT_TRUE(row.fits) << e.model;
    EXPECT_EQ(row.runtime, "vllm") << e.model;
    EXPECT_FALSE(row.delta.contains("tp")) << e.model;
    const auto run = resolve(row.delta);
    ASSERT_TRUE(run.ok()) << e.model;
    EXPECT_EQ(run.value().values.tp, e.tp) << e.model;
    EXPECT_EQ(run.value().values.pp, e.pp) << e.model;
    EXPECT_EQ(estimate(run.value()).total_bytes, row.total_bytes) << e.model;
  }
}

TEST(Fits, OrderFiltersAndErrors) {
  fits_request q;
  q.gpu = "rtx-4090";
  q.family = "qwen3";
  q.sort = fits_sort::speed;
  const fits_result r = ranked(q);
  ASSERT_GT(r.fitting, 1);
  for (std::size_t i = 1; i < static_cast<std::size_t>(r.fitting); ++i)
    EXPECT_GE(r.rows[i - 1].decode_tokens_per_s, r.rows[i].decode_tokens_per_s);
  for (const fits_row& f : r.rows) EXPECT_NE(f.model.find("qwen3"), std::string::npos);
  q.moe = fits_moe::only;
  for (const fits_row& f : ranked(q).rows) EXPECT_TRUE(f.moe) << f.model;
  q.gpu = "no-such-gpu";
  q.devices = 0;
  const auto bad = fits(q);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors()[0].setting, "gpu");
  EXPECT_EQ(bad.errors()[1].setting, "devices");
}

}  // namespace
