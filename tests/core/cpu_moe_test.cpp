// SPDX-License-Identifier: MIT
// MoE experts on the CPU (llama.cpp --n-cpu-moe, the n_cpu_moe setting): the placement, the solver's answer before
// a second device and the "what runs on my machine" row. Qwen3-30B-A3B (config.json): hidden 2048, 48 layers, every
// one MoE, 128 experts of moe_intermediate 768 (gate, up, down), no expert bias. One layer's routed experts:
//   3 x 2048 x 768 x 128 = 603,979,776 parameters;
// in Q8_0 (34 B per block of 32 values, 1.0625 B a value; llama.cpp stores every matrix of a Q8_0 file so):
//   603,979,776 x 1.0625 = 641,728,512 B a layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "llm_memory/emit.hpp"
#include "llm_memory/fits.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/solve.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;
using llm_memory::test::estimated;

constexpr double q8_experts_per_layer = 641728512;

settings qwen3_moe(const std::string& weights, const std::string& n_cpu_moe) {
  return {{"model", "qwen3-30b-a3b"}, {"mode", "inference"},   {"runtime", "llamacpp"},
          {"weights_dtype", weights}, {"seq", "8192"},         {"gpu", "rtx-3060"},
          {"host_ram", "64GB"},       {"n_cpu_moe", n_cpu_moe}};
}

// The ranking's Qwen3-30B-A3B row for `q`, which must fit all 48 layers on the GPUs at Q4_K_M.
fits_row ranked_qwen3_moe(fits_request q) {
  q.ram_bytes = 64e9;
  q.family = "qwen3-30b-a3b";
  const auto ranked = fits(q);
  EXPECT_TRUE(ranked.ok());
  if (!ranked.ok()) return {};
  const auto& rows = ranked.value().rows;
  const auto row = std::find_if(rows.begin(), rows.end(), [](const fits_row& f) { return f.model == "qwen3-30b-a3b"; });
  EXPECT_NE(row, rows.end());
  if (row == rows.end()) return {};
  EXPECT_TRUE(row->fits);
  EXPECT_EQ(row->format, "q4_k_m");
  EXPECT_EQ(row->gpu_layers, 48);
  return *row;
}

// Each layer named moves its 641,728,512 B of experts from the CUDA0 model buffer to the host buffer; past the 48
// layers nothing more moves. The compute buffer stays: its logits phase, 4 x 512 x 151,936 + 4 x 512 x 2048 =
// 315,359,232 B, is larger than one expert tensor copied in for its op, 2048 x 768 x 128 x 1.0625 = 213,909,504 B
// plus 4 x 512 x (inner + hidden) of activations.
TEST(ExpertsOnCpu, EachLayersRoutedExpertsMoveToTheHost) {
  const auto none = estimated(qwen3_moe("q8_0", "0"));
  const auto ten = estimated(qwen3_moe("q8_0", "10"));
  const auto all = estimated(qwen3_moe("q8_0", "48"));
  const auto more = estimated(qwen3_moe("q8_0", "1000"));
  EXPECT_NEAR(none.runtime.model_buffer - ten.runtime.model_buffer, 10 * q8_experts_per_layer, 2);
  EXPECT_NEAR(ten.runtime.host_buffer - none.runtime.host_buffer, 10 * q8_experts_per_layer, 2);
  EXPECT_NEAR(none.runtime.model_buffer - all.runtime.model_buffer, 48 * q8_experts_per_layer, 2);
  EXPECT_EQ(more.runtime.model_buffer, all.runtime.model_buffer);
  EXPECT_EQ(ten.runtime.compute_buffer, none.runtime.compute_buffer);
  EXPECT_GE(none.runtime.compute_buffer, 315359232);
}

// Layers -ngl already left on the CPU hold their experts there: with -ngl 40 the first 8 layers are CPU layers, so
// --n-cpu-moe 10 moves the experts of layers 8 and 9 only: 2 x 641,728,512 B.
TEST(ExpertsOnCpu, OnlyLayersOnTheGpuChange) {
  auto at = [](const std::string& n) {
    auto s = qwen3_moe("q8_0", n);
    s["n_gpu_layers"] = "40";
    return estimated(s);
  };
  EXPECT_NEAR(at("0").runtime.model_buffer - at("10").runtime.model_buffer, 2 * q8_experts_per_layer, 2);
}

// Q4_K_M on an RTX 3060 12GB (12 GiB read from the marketed size) at 8K, 64 GB of RAM: the solver keeps every
// layer on the GPU and moves the experts of the first N layers. By hand: the dense part on the GPU is about
// 48 x 18.9M attention parameters at ~0.6 B (0.54 GB), the output layer 151,936 x 2048 at Q6_K (0.26 GB), the KV
// cells 8192 x 48 x 4 x 128 x 2 x 2 B (0.81 GB), the compute buffer (0.32 GB) and the CUDA context (0.48 GB): about
// 2.4 GB, which leaves about 10.5 GB for experts at 0.34-0.50 GB a layer (Q4_K / Q6_K), so 21 to 31 layers keep
// theirs and N is 17 to 27. The search's own boundary: N fits, N - 1 does not.
TEST(ExpertsOnCpu, SolverMovesExpertsBeforeASecondDevice) {
  const auto r = solve(qwen3_moe("q4_k_m", "0"));
  ASSERT_TRUE(r.ok());
  const solve_answer& a = r.value().min_devices;
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.value, 1);
  ASSERT_TRUE(a.delta.contains("n_cpu_moe")) << a.message;
  EXPECT_FALSE(a.delta.contains("n_gpu_layers"));
  const int n = std::stoi(a.delta.at("n_cpu_moe"));
  EXPECT_GE(n, 17);
  EXPECT_LE(n, 27);
  const auto at_n = estimated(qwen3_moe("q4_k_m", std::to_string(n)));
  const auto below = estimated(qwen3_moe("q4_k_m", std::to_string(n - 1)));
  EXPECT_TRUE(at_n.fits);
  EXPECT_FALSE(below.fits);
  EXPECT_NE(a.message.find("--n-cpu-moe " + std::to_string(n)), std::string::npos) << a.message;
}

// The ranking answers the same machine the same way: Q4_K_M, all 48 layers on the GPU, the solver's N layers'
// experts in host RAM.
TEST(ExpertsOnCpu, FitsRowNamesTheLayersWhoseExpertsStayOnTheHost) {
  fits_request q;
  q.gpu = "rtx-3060";
  const auto row = ranked_qwen3_moe(q);
  ASSERT_TRUE(row.fits);
  const auto solved = solve(qwen3_moe("q4_k_m", "0"));
  ASSERT_TRUE(solved.ok());
  EXPECT_EQ(std::to_string(row.n_cpu_moe), solved.value().min_devices.delta.at("n_cpu_moe"));
  EXPECT_EQ(row.delta.at("n_cpu_moe"), std::to_string(row.n_cpu_moe));
}

// Two devices, llama.cpp's layer split (-sm layer, pp 2: each device 24 of the 48 layers, the first device layers
// 0-23, the last 24-47 and the output layer, common/arg.cpp's -ts by default even for equal devices).
// --n-cpu-moe N keeps the experts of layers 0..N-1 on the host whichever device holds them: the first device loses
// min(N, 24) layers' experts, the last max(0, N - 24). Q8_0: 641,728,512 B a layer (above).
TEST(ExpertsOnCpu, SeveralDevicesEachLoseTheirOwnFirstLayersExperts) {
  auto stages = [](const std::string& n) {
    settings s = qwen3_moe("q8_0", n);
    s["devices"] = "2";
    s["pp"] = "2";
    const auto all = estimate_stages(llm_memory::test::resolved(s));
    EXPECT_EQ(all.size(), 2u);
    return all.size() == 2 ? std::pair{all[0].runtime.model_buffer, all[1].runtime.model_buffer} : std::pair{0.0, 0.0};
  };
  const auto none = stages("0"), ten = stages("10"), thirty = stages("30"), all = stages("48");
  EXPECT_NEAR(none.first - ten.first, 10 * q8_experts_per_layer, 2);
  EXPECT_EQ(ten.second, none.second);
  EXPECT_NEAR(none.first - thirty.first, 24 * q8_experts_per_layer, 2);
  EXPECT_NEAR(none.second - thirty.second, 6 * q8_experts_per_layer, 2);
  EXPECT_NEAR(none.first - all.first, 24 * q8_experts_per_layer, 2);
  EXPECT_NEAR(none.second - all.second, 24 * q8_experts_per_layer, 2);
}

// The ranking on two devices with host RAM answers a MoE model that does not fit them whole with --n-cpu-moe (it
// did not look past a second device before): Qwen3-30B-A3B on 2 x RTX 4060 Ti 8GB at 32K. Each device holds 24
// layers: their experts at Q4_K_M, 24 x 603,979,776 parameters at 0.56-0.82 B (Q4_K / Q6_K), are 8.1-11.9 GB, over
// 8 GiB before anything else; AWQ over tp 2 is 15 GB of weights a device pair (7.6 GB each) plus vLLM's budget. The
// row keeps every layer on the GPUs and names N, the fewest: its settings fit and one layer fewer does not.
TEST(ExpertsOnCpu, FitsOnSeveralDevicesMovesExpertsToTheHost) {
  fits_request q;
  q.gpu = "rtx-4060-ti-8gb";
  q.devices = 2;
  q.seq = 32768;
  const auto row = ranked_qwen3_moe(q);
  ASSERT_TRUE(row.fits);
  EXPECT_GT(row.n_cpu_moe, 0);
  EXPECT_LE(row.n_cpu_moe, 48);
  EXPECT_EQ(row.delta.at("pp"), "2");
  EXPECT_TRUE(estimated(row.delta).fits);
  settings fewer = row.delta;
  fewer["n_cpu_moe"] = std::to_string(row.n_cpu_moe - 1);
  EXPECT_FALSE(estimated(fewer).fits);
}

// A GGUF file's own tensors (--gguf): --n-cpu-moe moves the tensors llm_ffn_exps_block_regex matches
// ("blk\\.i\\.ffn_(up|down|gate|gate_up)_(ch|)exps"), by their stored bytes, the router (ffn_gate_inp) staying.
// Block 0: attn_q 2,304 + up_exps 1,000 + down_exps 1,000 + gate_inp 64 = 4,368 B (experts 2,000); block 1: attn_q
// 4,352 + gate_up_exps 3,000 + down_chexps 500 = 7,852 B (experts 3,500); output_norm 256 + output 204; token_embd
// 384 in host memory.
TEST(ExpertsOnCpu, AGgufFilesExpertTensorsMoveByName) {
  gguf_placement p;
  p.add("token_embd.weight", 384);
  p.add("blk.0.attn_q.weight", 2304);
  p.add("blk.0.ffn_up_exps.weight", 1000);
  p.add("blk.0.ffn_down_exps.weight", 1000);
  p.add("blk.0.ffn_gate_inp.weight", 64);
  p.add("blk.1.attn_q.weight", 4352);
  p.add("blk.1.ffn_gate_up_exps.weight", 3000);
  p.add("blk.1.ffn_down_chexps.weight", 500);
  p.add("output_norm.weight", 256);
  p.add("output.weight", 204);
  ASSERT_EQ(p.experts.size(), 2u);
  EXPECT_EQ(p.experts[0], 2000);
  EXPECT_EQ(p.experts[1], 3500);
  const auto file = std::make_shared<const gguf_placement>(p);
  const settings config = {{"hidden_size", "64"},        {"num_hidden_layers", "2"},   {"num_attention_heads", "4"},
                           {"num_key_value_heads", "2"}, {"intermediate_size", "128"}, {"vocab_size", "3"}};
  auto stages = [&](settings changes) {
    settings s{{"mode", "inference"}, {"runtime", "llamacpp"}, {"weights_dtype", "q4_k_m"}, {"seq", "256"}};
    for (const auto& [k, v] : changes) s[k] = v;
    const auto r = resolve(s, config, file);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
    std::vector<std::pair<double, double>> out;  // model buffer, host buffer of each stage
    if (r.ok())
      for (const auto& e : estimate_stages(r.value())) out.emplace_back(e.runtime.model_buffer, e.runtime.host_buffer);
    return out;
  };
  using buffers = std::vector<std::pair<double, double>>;
  const double output = 256 + 204;
  EXPECT_EQ(stages({}), (buffers{{4368 + 7852 + output, 384}}));
  EXPECT_EQ(stages({{"n_cpu_moe", "1"}}), (buffers{{4368 - 2000 + 7852 + output, 384 + 2000}}));
  EXPECT_EQ(stages({{"n_cpu_moe", "999"}}), (buffers{{4368 - 2000 + 7852 - 3500 + output, 384 + 2000 + 3500}}));
  // -ngl 1: block 0 is a CPU layer already (and the output layer stays on the host), so N = 1 moves nothing.
  EXPECT_EQ(stages({{"n_gpu_layers", "1"}, {"n_cpu_moe", "1"}}), (buffers{{7852, 384 + 4368 + output}}));
  // Two devices (pp 2): block 0 on the first with token_embd's host part, block 1 and the output on the last.
  const settings two{{"devices", "2"}, {"pp", "2"}};
  EXPECT_EQ(stages(two), (buffers{{4368, 384}, {7852 + output, 0}}));
  settings two_moved = two;
  two_moved["n_cpu_moe"] = "2";
  EXPECT_EQ(stages(two_moved), (buffers{{4368 - 2000, 384 + 2000}, {7852 - 3500 + output, 3500}}));
}

// llama-server's own options read into the setting and written back (common/arg.cpp: -ncmoe N, -cmoe for every
// layer); Ollama has no such option, so its Modelfile says it does not carry it.
TEST(ExpertsOnCpu, LaunchOptionsReadAndEmitted) {
  EXPECT_EQ(read_launch("llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf -ncmoe 12").values.at("n_cpu_moe"), "12");
  EXPECT_EQ(read_launch("llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf --n-cpu-moe 3").values.at("n_cpu_moe"), "3");
  EXPECT_EQ(read_launch("llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf --cpu-moe").values.at("n_cpu_moe"), "999");
  EXPECT_EQ(read_launch("LLAMA_ARG_N_CPU_MOE=7 llama-server -m m.gguf").values.at("n_cpu_moe"), "7");
  const run_spec r = llm_memory::test::resolved(qwen3_moe("q4_k_m", "12"));
  const auto llama = emit(r.values, "llamacpp");
  ASSERT_TRUE(llama.ok());
  EXPECT_NE(llama.value().text.find("--n-cpu-moe 12"), std::string::npos) << llama.value().text;
  const auto ollama = emit(r.values, "ollama");
  ASSERT_TRUE(ollama.ok());
  EXPECT_NE(std::find(ollama.value().not_carried.begin(), ollama.value().not_carried.end(), "n_cpu_moe"),
            ollama.value().not_carried.end());
  const auto none = emit(llm_memory::test::resolved(qwen3_moe("q4_k_m", "0")).values, "llamacpp");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none.value().text.find("n-cpu-moe"), std::string::npos);
}

}  // namespace
