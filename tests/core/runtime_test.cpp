// SPDX-License-Identifier: MIT
// The runtimes' arithmetic (runtime.hpp) against values derived by hand from their code (docs/methodology.md,
// "Runtimes"). L8 = Llama 3.1 8B: h 4096, L 32, H 32, n_kv 8, d 128, I 14336, V 128256, bf16, untied.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "llm_memory/dtype.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/runtime.hpp"
#include "llm_memory/solve.hpp"

using namespace llm_memory;

namespace {

constexpr double MiB = 1048576.0;
constexpr double GiB = 1073741824.0;

estimate_result run(const settings& s) {
  const auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value() : estimate_result{};
}

// ---- A: GGUF block sizes (ggml-common.h static_asserts) --------------------------------------------------------

TEST(runtime_ggml, block_bytes) {
  EXPECT_EQ(ggml_row_bytes(ggml_type::q8_0, 32), 34);               // 2 (f16 d) + 32
  EXPECT_EQ(ggml_row_bytes(ggml_type::q4_0, 4096), 2304);           // 128 blocks x 18
  EXPECT_EQ(ggml_row_bytes(ggml_type::q4_k, 256), 144);             // 2 x 2 + 12 + 128
  EXPECT_EQ(ggml_row_bytes(ggml_type::q6_k, 256), 210);             // 2 + 16 + 192
  EXPECT_EQ(ggml_row_bytes(ggml_type::q3_k, 256), 110);             // 2 + 64 + 32 + 12
  EXPECT_EQ(ggml_row_bytes(ggml_type::q2_k, 256), 84);              // 4 + 16 + 64
  EXPECT_EQ(ggml_row_bytes(ggml_type::q5_k, 256), 176);             // 4 + 12 + 128 + 32
  EXPECT_EQ(ggml_row_bytes(ggml_type::iq4_xs, 256), 136);           // 2 + 2 + 4 + 128
  EXPECT_EQ(ggml_row_bytes(ggml_type::iq2_xxs, 256), 66);           // 2 + 32 x 2
  EXPECT_EQ(ggml_row_bytes(ggml_type::iq3_s, 256), 110);            // 2 + 13 x 8 + 4
  EXPECT_EQ(ggml_row_bytes(ggml_type::iq1_m, 256), 56);             // 32 + 16 + 8
  EXPECT_EQ(ggml_row_bytes(ggml_type::iq4_nl, 32), 18);             // 2 + 16
  EXPECT_EQ(ggml_row_bytes(ggml_type::mxfp4, 32), 17);              // 1 + 16
  EXPECT_EQ(ggml_row_bytes(ggml_type::q4_1, 32), 20);               // 2 + 2 + 16
  EXPECT_EQ(ggml_row_bytes(ggml_type::q5_1, 32), 24);               // 2 + 2 + 4 + 16
  EXPECT_FALSE(ggml_row_bytes(ggml_type::q4_k, 4095).has_value());  // rows are whole blocks
}

TEST(runtime_ggml, new_weight_mixes_parse) {
  for (const char* name : {"q4_k_s", "q5_k_s", "q3_k_s", "q3_k_l", "iq4_xs", "iq4_nl", "iq3_s", "iq3_xxs", "iq2_s",
                           "iq2_xs", "iq2_xxs", "iq1_m", "iq1_s"}) {
    const auto d = find_dtype(name);
    ASSERT_TRUE(d.has_value()) << name;
    EXPECT_EQ(info(*d).family, dtype_family::gguf_mix) << name;
  }
  EXPECT_DOUBLE_EQ(info(dtype::iq4_xs).bytes_per_value(), 4.25 / 8);
}

// ---- B: llama.cpp -------------------------------------------------------------------------------------------

TEST(runtime_llamacpp, cells) {
  EXPECT_EQ(llamacpp_cell_count(35000, 1, true).total, 35072);  // PAD(35000, 256)
  const auto b6 = llamacpp_cell_count(8192, 4, false);          // PAD(8192 / 4, 256) = 2048 per stream
  EXPECT_EQ(b6.per_stream, 2048);
  EXPECT_EQ(b6.total, 8192);
  const auto b7 = llamacpp_cell_count(1000, 3, false);  // PAD(1000) = 1024; 1024 / 3 = 341 -> 512
  EXPECT_EQ(b7.per_stream, 512);
  EXPECT_EQ(b7.total, 1536);
  EXPECT_EQ(llamacpp_cell_count(8192, 4, true).total, 8192);  // llama-server's auto slots: unified
  // gpt-oss-20b SWA: PAD(min(131072, 128 x 1 + 512), 256) = 768
  EXPECT_EQ(llamacpp_swa_cells(131072, 128, 1, true, 512), 768);
}

llamacpp_graph l8(double kv_cells, bool flash, double ub = 512) {
  return {ub, kv_cells, 32, 4096, 14336, 128256, flash};
}

TEST(runtime_llamacpp, compute_buffer_is_the_largest_phase) {
  // B12: out = 4 x 512 x 128256 + 4 x 512 x 4096 = 271,056,896 (258.5 MiB) > attention 65 MiB, MLP 72 MiB
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer(l8(512, false), true), 271056896);
  // B13: 4 x 512 x 8192 x 32 + 4 x 512 x 8192 + 16 x 512 x 4096 = 512 + 16 + 32 MiB
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer(l8(8192, false), true), 560 * MiB);
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer(l8(32768, false), true), 2144 * MiB);       // B14: 2048 + 64 + 32
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer(l8(8192, false, 1024), true), 1120 * MiB);  // B16: every term doubles
  // B15 Mistral-7B (V 32768): 128 + 4 + 32 MiB against logits 64 + 8 = 72 MiB
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer({512, 2048, 32, 4096, 14336, 32768, false}, true), 164 * MiB);
  // B18: flash attention: the logits phase (258.5 MiB) dominates
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer(l8(8192, true), true), 258.5 * MiB);
  // B24: 6 x 512 x 131072 + 4 x 512 x 4096 = 384 + 8 MiB (provisional: derived from the graph code)
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer(l8(131072, true), true), 392 * MiB);
  // B21 gpt-oss-20b on the device with the output: 4 x 512 x 201088 + 4 x 512 x 2880 = 398.375 MiB
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer({512, 131072, 64, 2880, 4 * 2880, 201088, true}, true), 398.375 * MiB);
  // Without the output layer the logits phase is elsewhere: max(65, 72) MiB = the MLP phase 4 x 512 x (2I + 2h)
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer(l8(512, false), false), 72 * MiB);
  // B17: host: 4 x 512 x 4096 + 4 x 512 x 2048 = 12 MiB (log 12.01)
  EXPECT_DOUBLE_EQ(llamacpp_host_compute_buffer(l8(2048, false)), 12 * MiB);
}

settings l8_llamacpp(std::string seq) {
  return {{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "llamacpp"}, {"seq", std::move(seq)}};
}

TEST(runtime_llamacpp, kv_buffer_by_cache_type) {
  settings s = l8_llamacpp("8192");
  EXPECT_DOUBLE_EQ(run(s).bytes("kv_cache"), 1073741824);  // B8: 32 x 8192 x 8 x 128 x 2 x 2 B
  s["cache_type_k"] = "q8_0";
  s["cache_type_v"] = "q8_0";
  EXPECT_DOUBLE_EQ(run(s).bytes("kv_cache"), 570425344);  // B9: 32 x 8192 x 1024 x 2 x 34/32
  s = l8_llamacpp("32768");
  s["cache_type_k"] = "q4_0";
  s["cache_type_v"] = "q4_0";
  EXPECT_DOUBLE_EQ(run(s).bytes("kv_cache"), 1152 * MiB);  // B10: 32 x 32768 x 1024 x 2 x 18/32
  s = l8_llamacpp("35000");
  const auto r = run(s);
  EXPECT_EQ(r.runtime.kv_cells, 35072);  // B5
  EXPECT_DOUBLE_EQ(r.bytes("kv_cache"), 32.0 * 35072 * 8 * 128 * 2 * 2);
}

TEST(runtime_llamacpp, quantized_v_cache_needs_flash_attention) {
  settings s = l8_llamacpp("4096");
  s["cache_type_v"] = "q8_0";
  s["attention"] = "standard";
  const auto r = estimate(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "cache_type_v");
  s["attention"] = "flash";
  EXPECT_TRUE(estimate(s).ok());
}

// B1-B3, B12, the host compute of row 7 of published.json: Llama-3-8B Q4_K_M, n_ctx 512, -fa off, all layers.
TEST(runtime_llamacpp, buffers_of_llama3_8b_q4_k_m) {
  settings s = l8_llamacpp("512");
  s["weights_dtype"] = "q4_k_m";
  s["attention"] = "standard";
  const estimate_result r = run(s);
  ASSERT_TRUE(r.runtime.has_buffers);
  // output q6_K 430,940,160 + 32 layers of q4_K/q6_K (16 use_more_bits layers) + 65 f32 norms
  EXPECT_NEAR(r.runtime.model_buffer, 4617396224, 1);
  EXPECT_DOUBLE_EQ(r.runtime.host_buffer, 295501824);  // token_embd 128256 x 4096 / 256 x 144
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 64 * MiB);     // 32 x 512 x 8 x 128 x 2 x 2 B
  EXPECT_DOUBLE_EQ(r.runtime.compute_buffer, 258.5 * MiB);
  EXPECT_DOUBLE_EQ(r.runtime.host_compute_buffer, 9 * MiB);  // 4 x 512 x 4096 + 4 x 512 x 512 (log 9.01)
  EXPECT_NEAR(r.bytes("parameters"), 4617396224, 1);
  // B4: -ngl 32 (= n_layer): the output layer (q6_K output + f32 output_norm) stays on the host
  s["n_gpu_layers"] = "32";
  const estimate_result partial = run(s);
  EXPECT_NEAR(partial.runtime.model_buffer, 4617396224.0 - 430940160 - 16384, 1);
  EXPECT_NEAR(partial.runtime.host_buffer, 295501824.0 + 430940160 + 16384, 1);
}

TEST(runtime_llamacpp, gguf_weights_choose_llamacpp_when_auto) {
  const estimate_result r = run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"weights_dtype", "q6_k"}});
  EXPECT_EQ(r.runtime.name, runtime_kind::llamacpp);
  EXPECT_DOUBLE_EQ(r.runtime.host_buffer, 430940160);  // B2: token_embd Q6_K 525,336,576 / 256 x 210
}

// ---- C: vLLM ------------------------------------------------------------------------------------------------

TEST(runtime_vllm, pages_and_blocks) {
  EXPECT_DOUBLE_EQ(vllm_page_bytes(16, 8, 128, 2), 65536);                        // C1: 16 x 8 x 256 x 2
  EXPECT_DOUBLE_EQ(vllm_page_bytes(16, 8, 128, 1), 32768);                        // C2: fp8
  EXPECT_DOUBLE_EQ(vllm_page_bytes(16, kv_heads_per_rank(8, 2), 128, 2), 32768);  // C3: tp 2
  EXPECT_DOUBLE_EQ(kv_heads_per_rank(8, 16), 1);                                  // C4: replicated
  EXPECT_DOUBLE_EQ(vllm_mla_page_bytes(16, 512 + 64, 2), 18432);                  // C5: no K/V factor
  EXPECT_EQ(vllm_num_blocks(20701716725, 65536, 32), 9871);                       // C6: 19.28 GiB
  EXPECT_NEAR(vllm_concurrency(9871, 131072, 16), 1.20, 0.005);                   // C7: 9871 / 8192
  EXPECT_NEAR(vllm_concurrency(29750, 8192, 16), 58.11, 0.005);                   // C8: 29750 / 512
  EXPECT_EQ(vllm_sliding_blocks(4096, 2048, 131072, 16), 385);                    // C9: cdiv(6143, 16) + 1
  EXPECT_EQ(vllm_max_model_len(6596464936, 65536, 32, 16), 50320);                // C11: 3145 x 16
  EXPECT_EQ(vllm_max_model_len(52247870013, 65536, 62, 16), 205728);              // C20: 12858 x 16
  EXPECT_EQ(vllm_num_blocks(0, 65536, 32), 0);                                    // C21
}

TEST(runtime_vllm, budget_and_profile_terms) {
  EXPECT_DOUBLE_EQ(vllm_budget(25393994137.6, 0.92), 23362474607);                        // C12: ceil(0.92 x 23.65 GiB)
  EXPECT_DOUBLE_EQ(vllm_forward_peak(8192, 2, 14336, 4096, 1), 905969664);                // C13
  EXPECT_DOUBLE_EQ(vllm_sampler_peak(vllm_release::v0_21, 1024, 128256, 0), 1838678016);  // C14: x 14 B
  const auto h100 = vllm_defaults(79.19 * GiB, false);                                    // C15
  EXPECT_EQ(h100.batched_tokens, 8192);
  EXPECT_EQ(h100.seqs, 1024);
  const auto a100 = vllm_defaults(79.15 * GiB, true);  // C16: A100 excluded (PR #17885)
  EXPECT_EQ(a100.batched_tokens, 2048);
  EXPECT_EQ(a100.seqs, 256);
}

// The dummy sampler per release (top_k = V - 1, top_p = 0.9; vllm_version). Bytes per logit alive at the peak, from
// the code: 0.21 FlashInfer (bf16 logits 2 + fp32 logits 4 + masked logits 4 + probs 4) and 0.17 Triton (2 + 4 +
// probs 4 + exponential noise 4) = 14; 0.11 PyTorch's sort from 128 rows: 2 + 4 + sorted values 4 + int64 indices 8
// + int64 reverse indices 8 + cub's alternate keys 4 and values 8 = 38; 2-127 rows two int2 buffers instead of the
// reverse indices: 46; one row a row of int64 indices (8 per logit): 38.
TEST(runtime_vllm, sampler_per_release) {
  EXPECT_DOUBLE_EQ(vllm_sampler_bytes_per_logit(vllm_release::v0_21, 1024), 14);
  EXPECT_DOUBLE_EQ(vllm_sampler_bytes_per_logit(vllm_release::v0_17, 1024), 14);
  EXPECT_DOUBLE_EQ(vllm_sampler_bytes_per_logit(vllm_release::v0_11, 1024), 38);
  EXPECT_DOUBLE_EQ(vllm_sampler_bytes_per_logit(vllm_release::v0_11, 128), 38);
  EXPECT_DOUBLE_EQ(vllm_sampler_bytes_per_logit(vllm_release::v0_11, 127), 46);
  EXPECT_DOUBLE_EQ(vllm_sampler_bytes_per_logit(vllm_release::v0_11, 1), 38);
  // Llama 3.1 8B at the H100 defaults (1024 rows of 128,256): 1024 x 128256 x 38 = 4,990,697,472 (4.648 GiB; vLLM
  // v0.11.0 logged a torch peak increase of 4.76 GiB), + the forward's 8192 x 4096 x 2 = 67,108,864 hidden states.
  EXPECT_DOUBLE_EQ(vllm_sampler_peak(vllm_release::v0_11, 1024, 128256, 67108864), 5057806336);
  // gpt-oss-120b at max_num_seqs 6: 6 x 201088 x 46 = 55,500,288, below its forward.
  EXPECT_DOUBLE_EQ(vllm_sampler_peak(vllm_release::v0_11, 6, 201088, 0), 55500288);
}

// The profile by release: 0.21 keeps the table's gpu_memory_utilization (0.92) and budgets 0.84 GiB of CUDA graphs;
// earlier releases default to 0.90 and capture the graphs after sizing (0 in the budget); 0.11 has the non-torch
// memory measured on v0.11.0 (0.14 GiB at tp 1, 0.55 GiB at tp 2), later releases the 0.32 GiB calibration.
TEST(runtime_vllm, profile_per_release) {
  const settings base{{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "vllm"}, {"gpu_memory", "80GiB"}};
  auto with = [&](const char* version, const char* tp) {
    settings s = base;
    s.emplace("vllm_version", version);
    s.emplace("tp", tp);
    s.emplace("devices", tp);
    return run(s).settings;
  };
  const auto v21 = with("0.21", "1"), v17 = with("0.17", "1"), v11 = with("0.11", "1"), v11_tp2 = with("0.11", "2");
  EXPECT_DOUBLE_EQ(v21.gpu_memory_utilization, 0.92);
  EXPECT_DOUBLE_EQ(v21.cuda_graph_memory, std::round(0.84 * GiB));
  EXPECT_DOUBLE_EQ(v17.gpu_memory_utilization, 0.9);
  EXPECT_DOUBLE_EQ(v17.cuda_graph_memory, 0);
  EXPECT_DOUBLE_EQ(v17.non_torch_memory, std::ceil(0.32 * GiB));
  EXPECT_DOUBLE_EQ(v11.gpu_memory_utilization, 0.9);
  EXPECT_DOUBLE_EQ(v11.non_torch_memory, std::round(0.14 * GiB));
  EXPECT_DOUBLE_EQ(v11_tp2.non_torch_memory, std::round(0.55 * GiB));
}

// vLLM 0.11 on an H100 (torch total 79.19 GiB), Llama 3.1 8B, API-server defaults (8192 tokens, 1024 sequences):
// budget ceil(0.90 x 85,029,615,042.56) = 76,526,653,539; weights 16,094,076,928; the sampler 5,057,806,336
// (above); non-torch 0.14 GiB = 150,323,855 B; no graphs: 55,224,446,420 B for the KV cache, 26,333 blocks of
// 32 x 65536 B (421,328 tokens). At 0.21 the same card keeps 3.2 GiB more: the sampler's 14 B per logit instead of 38.
TEST(runtime_vllm, llama_8b_h100_v0_11) {
  const estimate_result r = run({{"mode", "inference"},
                                 {"model", "llama-3.1-8b"},
                                 {"runtime", "vllm"},
                                 {"vllm_version", "0.11"},
                                 {"gpu_memory", "79.19GiB"},
                                 {"seq", "16000"}});
  EXPECT_DOUBLE_EQ(r.runtime.budget, 76526653539);
  EXPECT_DOUBLE_EQ(r.runtime.kv_available, 55224446420);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, 421328);
}

// C12a + C18 (spec section 1.6): L8 on an RTX 4090 (torch total 23.65 GiB), vllm serve, eager, util 0.92.
settings l8_4090() {
  return {{"mode", "inference"},
          {"model", "llama-3.1-8b"},
          {"runtime", "vllm"},
          {"gpu_memory", "25393994138"},
          {"gpu_memory_utilization", "0.92"},
          {"seq", "32768"},
          {"max_num_batched_tokens", "2048"},
          {"max_num_seqs", "256"},
          {"cuda_graph_memory", "0"},
          {"non_torch_memory", "343597383"}};
}

TEST(runtime_vllm, llama_8b_on_a_4090) {
  const estimate_result r = run(l8_4090());
  // weights 2 x 8,030,261,248 + rotary cache 131072 x 128 x 2 = 16,094,076,928 ("Model loading took 14.99 GiB")
  EXPECT_DOUBLE_EQ(r.bytes("parameters"), 16094076928);
  EXPECT_DOUBLE_EQ(r.runtime.budget, 23362474607);
  // 23,362,474,607 - 16,094,076,928 - max(226,492,416, 256 x 128256 x 14 + 2048 x 4096 x 2 = 476,446,720)
  // - 343,597,383 = 6,448,353,576; / 65536 = 98,394 pages, / 32 layers = 3074 blocks
  EXPECT_DOUBLE_EQ(r.runtime.kv_available, 6448353576);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, 49184);  // 3074 blocks x 16
  EXPECT_NEAR(r.runtime.max_concurrency, 3074.0 / 2048, 1e-12);
  EXPECT_EQ(r.runtime.max_context, 49184);
  EXPECT_TRUE(r.fits);
}

TEST(runtime_vllm, refusal_names_the_longest_context) {
  settings s = l8_4090();
  s["seq"] = "131072";  // needs 32 x 65536 x 8192 = 16 GiB > 6.01 GiB available
  const estimate_result r = run(s);
  EXPECT_FALSE(r.fits);
  bool named = false;
  for (const auto& note : r.notes) named |= note.find("estimated maximum model length is 49184") != std::string::npos;
  EXPECT_TRUE(named);
}

// The issue's "done when": no runtime named, Llama 3.1 8B at 32K on a 24 GB card is answered by vLLM (budget,
// KV capacity), not by a seq^2 attention workspace. By hand: budget ceil(0.92 x 24e9) = 22,080,000,000; weights
// 16,094,076,928; profiling peak max(2048 x 2 x (3 x 14336 + 3 x 4096), 256 x 128256 x 14 + 2048 x 4096 x 2) =
// 476,446,720; non-torch 0.32 GiB = 343,597,383.68; graphs 0.84 GiB = 901,943,132.16; KV = the rest,
// 4,263,935,836.2 B, in blocks of 32 x 65536 B: 2033 blocks of 16 tokens = 32,528 tokens, 240 short of one
// 32,768-token request (4 GiB), so vLLM refuses to start and names 32,528 as the longest context.
TEST(runtime_vllm, done_when_llama_8b_32k_on_24gb) {
  const estimate_result r =
      run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"seq", "32768"}, {"gpu_memory", "24GB"}});
  EXPECT_EQ(r.runtime.name, runtime_kind::vllm);
  const double kv = 22080000000.0 - 16094076928.0 - 476446720.0 - 0.32 * GiB - 0.84 * GiB;
  EXPECT_NEAR(r.runtime.kv_available, kv, 1);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, std::floor(std::floor(kv / 65536) / 32) * 16);
  EXPECT_LT(r.bytes("activations"), 0.5e9);  // no a x s^2 term
  EXPECT_EQ(r.runtime.max_context, 32528);
  EXPECT_FALSE(r.fits);
  const std::string json = to_json(r);
  EXPECT_NE(json.find("\"kv_capacity_tokens\""), std::string::npos);
  EXPECT_NE(json.find("\"max_concurrency\""), std::string::npos);
}

// Tensor parallel: NCCL's buffers, connected during the profiling run, are non-torch memory inside vLLM's budget.
// vLLM v0.11.0 on H100 (search-index file 27349653019, DEBUG "non-torch forward increase memory"): 0.13-0.14 GiB at
// tp 1, 0.54-0.55 GiB at tp 2 (Qwen3-32B, Llama-3.3-70B-FP8): + 0.41 GiB on the tp 1 calibration of 0.32 GiB.
TEST(runtime_vllm, non_torch_memory_at_tensor_parallel) {
  const settings base{{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "vllm"}, {"gpu_memory", "80GiB"}};
  EXPECT_DOUBLE_EQ(run(base).settings.non_torch_memory, std::ceil(0.32 * GiB));
  settings tp2 = base;
  tp2.emplace("tp", "2");
  tp2.emplace("devices", "2");
  EXPECT_DOUBLE_EQ(run(tp2).settings.non_torch_memory, std::ceil(0.73 * GiB));  // 0.32 + 0.41
}

// ---- D: SGLang ----------------------------------------------------------------------------------------------

TEST(runtime_sglang, mem_fraction_static_defaults) {
  EXPECT_DOUBLE_EQ(sglang_mem_fraction(24564, 1, 1), 0.847);  // D3: reserved 512 + 3072 + 48 + 128 = 3760
  EXPECT_DOUBLE_EQ(sglang_mem_fraction(81559, 1, 1), 0.835);  // D4: 13440 >= 10240
  EXPECT_DOUBLE_EQ(sglang_mem_fraction(81559, 8, 1), 0.818);  // D5: 512 + 12288 + 1024 + 1024 = 14848
  EXPECT_EQ(sglang_chunked_prefill(24564), 2048);
  EXPECT_EQ(sglang_chunked_prefill(81559), 8192);
}

TEST(runtime_sglang, token_capacity) {
  // D6: (8.24 - 23.20 x 0.153) GiB = 4.6904 GiB = 4.6904 x 8192 cells of 131,072 B = 38,423.76 -> 38,423
  EXPECT_EQ(sglang_tokens(23.20 * GiB, 8.24 * GiB, 0.847, 131072), 38423);
  EXPECT_EQ(sglang_tokens(10 * GiB, 1 * GiB, 0.5, 131072), 0);  // nothing left
}

// ---- E: TGI ---------------------------------------------------------------------------------------------------

TEST(runtime_tgi, free_memory_and_blocks) {
  EXPECT_NEAR(tgi_free(10 * GiB, 24 * GiB, 0.9), 7.6 * GiB, 1);            // E1: 10 - 0.1 x 24
  EXPECT_DOUBLE_EQ(tgi_free(2 * GiB, 24 * GiB, 0.9), 0);                   // E2
  EXPECT_EQ(tgi_blocks(5 * GiB, 32.0 * 16 * 8 * 128 * 2 * 2, 256), 2816);  // E3: 2560 + 256
}

// E6: the KV memory of each release from 10 GiB free after warmup on an 80 GiB device (TGI_WIGGLE_ROOM and the
// warmup code at v3.3.0, v3.1.0, v3.0.0, v2.4.0, v2.2.0, v1.4.0).
TEST(runtime_tgi, kv_memory_by_release) {
  EXPECT_NEAR(tgi_kv_memory(tgi_release::v3_3, 10 * GiB, 80 * GiB, 1), 2 * GiB, 1);      // 10 - 0.10 x 80
  EXPECT_NEAR(tgi_kv_memory(tgi_release::v3_1, 10 * GiB, 80 * GiB, 1), 4.4 * GiB, 1);    // 10 - 0.07 x 80
  EXPECT_NEAR(tgi_kv_memory(tgi_release::v3_0, 10 * GiB, 80 * GiB, 1), 6 * GiB, 1);      // 10 - 0.05 x 80
  EXPECT_NEAR(tgi_kv_memory(tgi_release::v2_4, 10 * GiB, 80 * GiB, 1), 9 * GiB, 1);      // 0.90 x 10
  EXPECT_NEAR(tgi_kv_memory(tgi_release::v1_4_1, 10 * GiB, 80 * GiB, 1), 9.5 * GiB, 1);  // 0.95 x 10
  EXPECT_NEAR(tgi_kv_memory(tgi_release::v1_0, 10 * GiB, 80 * GiB, 1), 10 * GiB, 1);     // all of it
  // --cuda-memory-fraction 0.95 at 3.3: 10 - (1 - 0.855) x 80 = -1.6 -> 0; at 1.4.1: 0.95 x (10 - 0.05 x 80) = 5.7
  EXPECT_DOUBLE_EQ(tgi_kv_memory(tgi_release::v3_3, 10 * GiB, 80 * GiB, 0.95), 0);
  EXPECT_NEAR(tgi_kv_memory(tgi_release::v1_4_1, 10 * GiB, 80 * GiB, 0.95), 5.7 * GiB, 1);
}

// The warmup batch (router client warmup, FlashCausalLMBatch.from_pb) and its logits (prefill_logprobs: true).
TEST(runtime_tgi, warmup_batch_and_logits) {
  // TGI 2.2 defaults for max_total_tokens 4096: prefill 4145 = requests of 4095 and 50 tokens, each asking
  // 4096 - input new tokens: 2 x cdiv(4095, 16) = 2 x 256 = 512 blocks.
  EXPECT_EQ(tgi_warmup_blocks(4145, 4095, 4096, 16), 512);
  EXPECT_EQ(tgi_warmup_blocks(4096, 1024, 2048, 16), 512);  // TGI 1.x defaults: 4 x cdiv(2047, 16) = 4 x 128
  EXPECT_EQ(tgi_warmup_blocks(4096, 4095, 4096, 1), 8190);  // flashinfer: 2 x 4095 one-token blocks
  // 4145 tokens x V 128256 x 2 B, the logits and their log_softmax: 2 x 1,063,242,240 B.
  EXPECT_DOUBLE_EQ(tgi_warmup_logits(4145, 128256, 2, 1), 2126484480.0);
  // tp 4: the gathered logits, their log_softmax and the local quarter: 2.25 x 1,063,242,240 B.
  EXPECT_DOUBLE_EQ(tgi_warmup_logits(4145, 128256, 2, 4), 2392295040.0);
}

// The warmup's logit rows by release: every prefill token up to 2.4 (prefill_logprobs honoured); from 3.0
// FlashCausalLMBatch.from_pb clears prefill_logprobs unless REQUEST_LOGPROBS, so the head runs on each request's
// last position (v3.0.0 flash_causal_lm.py: `if not REQUEST_LOGPROBS: r.prefill_logprobs = False`).
TEST(runtime_tgi, warmup_logit_rows_by_release) {
  EXPECT_EQ(tgi_warmup_logit_rows(tgi_release::v3_3, 8000, 7999), 2);  // requests of 7999 and 1: cdiv(8000, 7999)
  EXPECT_EQ(tgi_warmup_logit_rows(tgi_release::v3_1, 4096, 1023), 5);  // cdiv(4096, 1023) = 5 requests
  EXPECT_EQ(tgi_warmup_logit_rows(tgi_release::v3_0, 4096, 8191), 1);  // one request holds the whole prefill
  EXPECT_EQ(tgi_warmup_logit_rows(tgi_release::v2_4, 4096, 4095), 4096);
  EXPECT_EQ(tgi_warmup_logit_rows(tgi_release::v1_4_1, 4145, 4095), 4145);
  EXPECT_EQ(tgi_warmup_logit_rows(tgi_release::v3_3, 0, 7999), 0);
  // Gemma 3 (V 262208) at tp 2: 2 rows x 262208 x 2 B x (2 + 1/2) = 2,622,080 B.
  EXPECT_DOUBLE_EQ(tgi_warmup_logits(2, 262208, 2, 2), 2622080.0);
}

// A tied head is its own tensor in TGI (TensorParallelHead.load: get_sharded along the vocabulary, the whole
// matrix when the vocabulary does not divide by tp).
TEST(runtime_tgi, tied_head_rows) {
  EXPECT_DOUBLE_EQ(tgi_tied_head_rows(262208, 2), 131104);  // 262208 / 2
  EXPECT_DOUBLE_EQ(tgi_tied_head_rows(262208, 3), 262208);  // 262208 = 3 x 87402 + 2: not divisible
  EXPECT_DOUBLE_EQ(tgi_tied_head_rows(128256, 1), 128256);
}

// TGI 3.3 pages every layer at full length, sliding-window layers included (FlashCausalLM.init_kv_cache), and gives
// a token count for such models. Gemma 3 27B-it (62 layers, n_kv 16, d 128, I 21504, h 5376, V 262208, tied) on
// 2 x RTX A6000 at nvidia-smi's total (T = 51,527,024,640 B; the preset holds PyTorch's 47.50 GiB), tp 2, seq 8000,
// prefill 8000, the profile's context 0.45 GiB:
// - KV of one request: 62 layers x 8000 x 2 x 8 x 128 x 2 B = 2,031,616,000 B (vLLM: 10 x 8000 + 52 x 1024 tokens);
// - parameters per shard: text weights 27,010,684,928 + vision 423,060,336 + the tied head's own copy
//   131,104 x 5376 x 2 = 1,409,630,208 -> P = 28,843,375,472 B;
// - block = 62 x 8 x 128 x 2 x 2 = 253,952 B; warmup 2 x cdiv(7999, 1) = 15,998 blocks; forward 8000 x 2 x
//   (3 x 10752 + 3 x 5376) = 774,144,000 B; logits of 2 last positions 2,622,080 B;
// - free = T - 0.45 GiB - P - 15,998 x 253,952 - forward - logits = 17,360,975,171.2 B; 3.3 keeps
//   free - 0.10 T = 12,208,272,707.2 B -> 48,073 blocks + 15,998 = 64,071 tokens (the log: 52,125; not asserted).
TEST(runtime_tgi, sliding_window_model_paged_at_full_length) {
  const settings gemma{
      {"mode", "inference"}, {"model", "gemma-3-27b-it"},       {"runtime", "tgi"}, {"tgi_version", "3.3"},
      {"gpu", "rtx-a6000"},  {"gpu_memory", "51527024640"},     {"tp", "2"},        {"devices", "2"},
      {"seq", "8000"},       {"max_num_batched_tokens", "8000"}};
  const estimate_result r = run(gemma);
  EXPECT_DOUBLE_EQ(r.bytes("kv_cache"), 2031616000.0);
  EXPECT_DOUBLE_EQ(r.bytes("parameters") - 27010684928.0 - 423060336.0, 1409630208.0);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, 64071);
  EXPECT_DOUBLE_EQ(r.runtime.max_concurrency, 64071.0 / 8000);
  settings vllm = gemma;
  vllm["runtime"] = "vllm";
  EXPECT_DOUBLE_EQ(run(vllm).bytes("kv_cache"), 4096.0 * (10 * 8000 + 52 * 1024));  // windows kept by vLLM
}

// TGI caches an MLA model's keys and values uncompressed (models/__init__.py @v3.3.4: head_size = max(128 + 64,
// v_head_dim), num_key_value_heads // tp heads per shard; KVCache's key and value tensors). DeepSeek-V2-Lite (27
// layers, 16 KV heads, v_head_dim 128) at 4096 tokens: 27 x 4096 x 2 x 16 x 192 x 2 B = 1,358,954,496 B at tp 1,
// half at tp 2; vLLM caches the latent: 27 x 4096 x (512 + 64) x 2 B = 127,401,984 B. tp beyond the KV heads is
// refused (16 // 32 = 0 heads per shard).
TEST(runtime_tgi, mla_cached_uncompressed) {
  settings s{{"mode", "inference"}, {"model", "deepseek-v2-lite"}, {"runtime", "tgi"}, {"seq", "4096"}};
  EXPECT_DOUBLE_EQ(run(s).bytes("kv_cache"), 1358954496.0);
  s["tp"] = s["devices"] = "2";
  EXPECT_DOUBLE_EQ(run(s).bytes("kv_cache"), 1358954496.0 / 2);
  s["tp"] = s["devices"] = "1";
  s["runtime"] = "vllm";
  EXPECT_DOUBLE_EQ(run(s).bytes("kv_cache"), 127401984.0);
  s["runtime"] = "tgi";
  s["tp"] = s["devices"] = "32";
  const auto refused = estimate(s);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(std::any_of(refused.errors().begin(), refused.errors().end(), [](const error& e) {
    return e.setting == "tp" && e.message.find("TGI shards the 16 KV heads") != std::string::npos;
  }));
}

// The log of huggingface/text-generation-inference#1856 (TGI 1.4, Llama-3-8B-Instruct bf16, RTX 3090), end to end.
// T = 23.58 GiB, context 1.15 GiB (0.7 of other processes + 0.45), W = 8,030,261,248 x 2 = 16,060,522,496 B;
// block = 32 x 16 x 8 x 128 x 2 x 2 = 2 MiB; warmup (seq 2048 -> max_input 2047): cdiv(4096, 2047) = 3 requests x
// cdiv(2047, 16) = 128 -> 384 blocks; prefill forward 4096 x 2 x (3 x 14336 + 3 x 4096) = 452,984,832 B, logits
// 4096 x 128256 x 4 = 2,101,346,304 B. free = 23.58 - 1.15 GiB - W - 768 MiB - forward - logits = 4.34357 GiB;
// 0.95 x free / 2 MiB = 2112.6 -> 2112 + 384 = 2496 blocks = 39,936 tokens (the log: 38,928).
TEST(runtime_tgi, issue_1856_log) {
  const estimate_result r = run({{"mode", "inference"},
                                 {"model", "meta-llama-3-8b"},
                                 {"runtime", "tgi"},
                                 {"tgi_version", "1.4.1"},
                                 {"gpu_memory", "23.58GiB"},
                                 {"seq", "2048"},
                                 {"max_num_batched_tokens", "4096"},
                                 {"cuda_context", "1.15GiB"}});
  EXPECT_EQ(r.settings.block_size, 16);  // paged attention before 2.4
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, 39936);
  const double free = 23.58 * GiB - 1.15 * GiB - 16060522496.0 - 768 * MiB - 452984832.0 - 2101346304.0;
  EXPECT_NEAR(r.runtime.kv_available, 0.95 * free + 768 * MiB, 1);  // the KV share and the warmup's blocks
  EXPECT_NEAR(r.bytes("overhead") - 1.15 * GiB, 0.05 * free, 1);    // left free: the 5 % wiggle room
}

// The profile by release: flashinfer (block 1) and prefill 4096 from 2.4; paged (16) and max_input + 50 before.
TEST(runtime_tgi, profile_by_release) {
  const estimate_result now = run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "tgi"}});
  EXPECT_EQ(now.settings.block_size, 1);
  EXPECT_EQ(now.settings.max_num_batched_tokens, 4096);
  EXPECT_DOUBLE_EQ(now.settings.gpu_memory_utilization, 1);  // --cuda-memory-fraction
  const estimate_result v22 = run({{"mode", "inference"},
                                   {"model", "llama-3.1-8b"},
                                   {"runtime", "tgi"},
                                   {"tgi_version", "1.4.1"},
                                   {"seq", "4096"}});
  EXPECT_EQ(v22.settings.block_size, 16);
  EXPECT_EQ(v22.settings.max_num_batched_tokens, 4145);  // "Default `max_batch_prefill_tokens` to 4145"
}

// ---- F: Ollama ------------------------------------------------------------------------------------------------

TEST(runtime_ollama, num_ctx_default_and_reserve) {
  EXPECT_EQ(ollama_num_ctx(24 * GiB, 131072), 32768);   // F1
  EXPECT_EQ(ollama_num_ctx(48 * GiB, 131072), 131072);  // F2: 262144 capped at the training context
  EXPECT_EQ(ollama_num_ctx(16 * GiB, 0), 4096);         // F3
  EXPECT_DOUBLE_EQ(ollama_minimum_memory, 457 * MiB);   // F5
  const estimate_result r =
      run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "ollama"}, {"gpu_memory", "24GiB"}});
  EXPECT_EQ(r.settings.seq, 32768);
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 4096 * MiB);  // 32 x 32768 x 8 x 128 x 2 x 2 B
}

// ---- G: transformers and the factor rule ------------------------------------------------------------------------

TEST(runtime_transformers, dynamic_cache_and_sdpa) {
  const estimate_result r =
      run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "transformers"}, {"seq", "32768"}});
  EXPECT_DOUBLE_EQ(r.bytes("kv_cache"), 4 * GiB);  // G1: 2 x 32 x 32768 x 8 x 128 x 2 B
  EXPECT_EQ(r.settings.attention, "sdpa");
}

// Item 6: overhead=factor makes the whole inference estimate weights x factor (seed 2).
TEST(runtime_factor, whole_estimate_is_weights_times_factor) {
  const estimate_result r = run({{"mode", "inference"}, {"params", "13e9"}, {"overhead", "factor"}, {"seq", "8192"}});
  EXPECT_DOUBLE_EQ(r.total_bytes, 26e9 * 1.2);
  EXPECT_DOUBLE_EQ(r.bytes("kv_cache"), 0);
  EXPECT_DOUBLE_EQ(r.bytes("activations"), 0);
}

}  // namespace

namespace {

// transformers splits layers over devices (device_map="auto"), so its split is pipeline stages. L8 at seq 1 on 9e9
// B devices: one device holds 8,030,261,248 x 2 B (> 9e9); on two, each stage holds 16 of the 32 layers (218,112,000
// parameters each: q and o 4096^2, k and v 4096 x 1024, gate/up/down 3 x 4096 x 14336, two norms of 4096) plus the
// embeddings (first stage) or the final norm and lm_head (last stage, 525,336,576 + 4096): the last stage holds
// 4,015,132,672 x 2 B = 8,030,265,344 B and a KV cache of 2 x 16 layers x 1 token x 8 x 128 x 2 B = 65,536, with
// under 2 MB of workspace.
TEST(runtime_solve, transformers_splits_layers) {
  const auto spec = resolve({{"mode", "inference"},
                             {"model", "llama-3.1-8b"},
                             {"runtime", "transformers"},
                             {"overhead", "none"},
                             {"seq", "1"},
                             {"gpu_memory", "9e9"}});
  ASSERT_TRUE(spec.ok());
  const solve_result r = solve(spec.value());
  ASSERT_TRUE(r.min_devices.found);
  EXPECT_EQ(r.min_devices.value, 2);
  EXPECT_EQ(r.min_devices.delta, (settings{{"devices", "2"}, {"tp", "1"}, {"pp", "2"}}));
  EXPECT_GE(r.min_devices.total_bytes, 8030265344.0 + 65536);
  EXPECT_LT(r.min_devices.total_bytes, 8030265344.0 + 65536 + 2e6);
}

// vLLM is launched at tp 1, 2, 4 or 8 within a node and adds pipeline stages only across nodes, so 3 devices (tp 1
// x pp 3) is never an answer: on 8e9 B devices (budget ceil(0.92 x 8e9) = 7.36e9) tp 2 holds (6,979,321,856 +
// 1,050,673,152) / 2 x 2 B + 266,240 x 2 B = 8,030,527,488 B of weights alone, over the budget; tp 4 holds
// 4,015,529,984 B of weights + 33,554,432 rotary cache + the sampler's 256 x 128256 x 14 + 2048 x 4096 x 2 =
// 476,446,720 + the non-torch memory at tp > 1, 0.73 GiB = 783,831,531.52 (the profile as applying tp 4 resolves
// it, not the run's own 0.32 GiB at tp 1) + 0.84 GiB graphs = 901,943,132.16 + a KV cache of 2 x 32 x 1024 x 2
// heads x 128 x 2 B = 33,554,432, and what lies outside the budget on the device (the custom all-reduce buffers and
// the rest): 8e9 - 7.36e9 = 640,000,000: 6,884,860,231.68 B.
TEST(runtime_solve, vllm_prefers_tensor_parallel_within_a_node) {
  const auto spec = resolve(
      {{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "vllm"}, {"seq", "1024"}, {"gpu_memory", "8e9"}});
  ASSERT_TRUE(spec.ok());
  const solve_result r = solve(spec.value());
  ASSERT_TRUE(r.min_devices.found) << r.min_devices.message;
  EXPECT_EQ(r.min_devices.value, 4);
  EXPECT_EQ(r.min_devices.delta, (settings{{"devices", "4"}, {"tp", "4"}, {"pp", "1"}}));
  EXPECT_NE(r.min_devices.message.find("tensor parallel 4 x pipeline 1"), std::string::npos) << r.min_devices.message;
  EXPECT_NEAR(r.min_devices.total_bytes, 6884860231.68, 1.0);
}

// Beyond a node, vLLM keeps tp at the node's largest valid degree and adds stages: L8 has 8 KV heads and 32 query
// heads, so tp 8 x pp n. TGI shards by tensor parallelism only (no pipeline): its search stops at 8 devices.
TEST(runtime_solve, splits_beyond_a_node_and_tgi_without_pipeline) {
  const auto vllm =
      resolve({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "vllm"}, {"gpu_memory", "1e9"}});
  ASSERT_TRUE(vllm.ok());
  const solve_result rv = solve(vllm.value());
  EXPECT_EQ(rv.min_devices.limit, 8 * 32);  // tp 8 x pp up to the 32 layers
  if (rv.min_devices.found) {
    EXPECT_EQ(std::stoll(rv.min_devices.delta.at("tp")), 8);
  }
  const auto tgi =
      resolve({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "tgi"}, {"gpu_memory", "1e9"}});
  ASSERT_TRUE(tgi.ok());
  const solve_result rt = solve(tgi.value());
  EXPECT_FALSE(rt.min_devices.found);
  EXPECT_EQ(rt.min_devices.limit, 8);
  EXPECT_NE(rt.min_devices.message.find("TGI shards by tensor parallel only"), std::string::npos);
}

// Llama 2 70B at 32K x 4 on an H100 80GB (the issue's example): some split fits, with tp x pp devices.
TEST(runtime_solve, llama2_70b_long_context_finds_a_split) {
  const auto spec = resolve(
      {{"mode", "inference"}, {"model", "llama-2-70b"}, {"seq", "32768"}, {"batch", "4"}, {"gpu", "h100-80gb"}});
  ASSERT_TRUE(spec.ok());
  const solve_result r = solve(spec.value());
  ASSERT_TRUE(r.min_devices.found) << r.min_devices.message;
  const auto tp = std::stoll(r.min_devices.delta.at("tp")), pp = std::stoll(r.min_devices.delta.at("pp"));
  EXPECT_EQ(tp * pp, r.min_devices.value);
  EXPECT_EQ(64 % tp, 0);  // tp divides the 64 query heads
}

}  // namespace

namespace {

// transformers with bitsandbytes: one weight dequantised to bf16 at a time; for L8 the largest is an MLP
// projection, 4096 x 14336 x 2 B = 117,440,512 B (112 MiB).
TEST(runtime_transformers, bitsandbytes_dequantisation_workspace) {
  const estimate_result r = run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"weights_dtype", "nf4"}});
  EXPECT_EQ(r.runtime.name, runtime_kind::transformers);  // auto: bitsandbytes weights
  double workspace = -1;
  for (const auto& b : r.buckets)
    for (const auto& i : b.items)
      if (i.name == "bitsandbytes dequantisation workspace") workspace = i.bytes;
  EXPECT_DOUBLE_EQ(workspace, 117440512);
}

}  // namespace

namespace {

// ---- vLLM hybrid models: sliding-window and full-attention layers (kv_cache_utils.py @ 001cabc1be16) -------------

// _get_kv_cache_groups_uniform_page_size: group_size = the smaller type count, the larger when it is under 1.5 x the
// smaller; each type splits into cdiv(count, group_size) groups.
TEST(runtime_vllm_hybrid, grouping) {
  // Gemma 3 27B: 62 layers, every 6th full: 10 full + 52 sliding -> group_size 10, 1 + cdiv(52, 10) = 6 groups
  // (the last sliding group padded with 8 layers: vLLM's "Add 8 padding layers" warning).
  const vllm_hybrid_groups gemma = vllm_hybrid_grouping(10, 52);
  EXPECT_EQ(gemma.group_size, 10);
  EXPECT_EQ(gemma.full_groups, 1);
  EXPECT_EQ(gemma.sliding_groups, 6);
  // gpt-oss-20b: 12 + 12 alternating -> one group of each.
  const vllm_hybrid_groups oss = vllm_hybrid_grouping(12, 12);
  EXPECT_EQ(oss.group_size, 12);
  EXPECT_EQ(oss.full_groups + oss.sliding_groups, 2);
  // The code comment's example: 13 full + 12 sliding: 13 < 1.5 x 12, so group_size 13 (pad to 13 + 13).
  const vllm_hybrid_groups eagle = vllm_hybrid_grouping(13, 12);
  EXPECT_EQ(eagle.group_size, 13);
  EXPECT_EQ(eagle.full_groups, 1);
  EXPECT_EQ(eagle.sliding_groups, 1);
  // Every layer sliding (one type): one group of all layers.
  const vllm_hybrid_groups all = vllm_hybrid_grouping(0, 32);
  EXPECT_EQ(all.group_size, 32);
  EXPECT_EQ(all.full_groups, 0);
  EXPECT_EQ(all.sliding_groups, 1);
}

// One request of M = 32768 tokens with N_bt = 8192 and a 1024-token window: full groups take cdiv(32768, 16) = 2048
// blocks, sliding groups cdiv(min(1023 + 8192, 32768), 16) + 1 = 576 + 1 = 577: Gemma 3 27B 2048 + 6 x 577 = 5510.
TEST(runtime_vllm_hybrid, blocks_tokens_and_longest_context) {
  const vllm_hybrid_groups g = vllm_hybrid_grouping(10, 52);
  EXPECT_EQ(vllm_hybrid_blocks_per_request(g, 32768, 1024, 8192, {131072, 16, 16}), 5510);
  // The token line: num_blocks // 7 groups x 16: 55,100 blocks -> 7871 x 16 = 125,936.
  EXPECT_EQ(vllm_hybrid_tokens(55100, g, 16), 125936);
  // The longest context for 30,000 pages of one layer: below M = 9215 every sliding layer holds cdiv(M, 16) + 1
  // blocks, so 10 cdiv(M, 16) + 52 (cdiv(M, 16) + 1) = 62 cdiv(M, 16) + 52 <= 30000 -> cdiv(M, 16) <= 483 ->
  // M = 7728 (62 x 483 + 52 = 29,998; at 7729, 62 x 484 + 52 = 30,060).
  const vllm_hybrid_pages pages{131072, 16, 16};
  EXPECT_EQ(vllm_hybrid_max_model_len(30000 * pages.page, pages, 10, 52, 1024, 8192, 1 << 20), 7728);
  EXPECT_EQ(vllm_hybrid_max_model_len(0, pages, 10, 52, 1024, 8192, 1 << 20), 0);
}

// Gemma 3 27B on an H100 under vLLM (N_bt 8192 on >= 70 GiB): the report's tokens and concurrency follow from its
// KV memory by the hybrid rules: page = 16 x 16 KV heads x (128 + 128) x 2 B = 131,072 B; blocks =
// floor(floor(available / page) / 10); tokens = blocks // 7 x 16; concurrency = blocks / 5510 at 32K.
TEST(runtime_vllm_hybrid, gemma3_27b_on_h100) {
  const estimate_result r = run({{"mode", "inference"},
                                 {"model", "gemma-3-27b-pt"},
                                 {"runtime", "vllm"},
                                 {"gpu", "h100-80gb"},
                                 {"seq", "32768"}});
  ASSERT_GT(r.runtime.kv_available, 0);
  const auto blocks = static_cast<std::int64_t>(std::floor(std::floor(r.runtime.kv_available / 131072) / 10));
  EXPECT_EQ(r.runtime.kv_capacity_tokens, static_cast<double>(blocks / 7 * 16));
  EXPECT_DOUBLE_EQ(r.runtime.max_concurrency, static_cast<double>(blocks) / 5510);
  EXPECT_GT(r.runtime.max_context, 32768);
}

// The gpt-oss-120b log of vLLM 0.11.2 on an H100 (tonghuikang/blog _posts/2025-12-28-vllm-logs.md: max_model_len
// 98304, N_bt 8192, "Available KV cache memory: 8.99 GiB", "GPU KV cache size: 130,960 tokens", "Maximum
// concurrency for 98,304 tokens per request: 2.46x"). 36 layers alternating, 18 full + 18 sliding (window 128):
// group_size 18, one group of each. Page = 16 x 8 KV heads x (64 + 64) x 2 B = 32,768 B. The token line
// 130,960 = 8185 x 16 is num_blocks // 2 x 16, so num_blocks is 16,370 or 16,371 (16,370 x 18 x 32,768 B =
// 8.9923 GiB: the printed 8.99). A request: full cdiv(98304, 16) = 6144 blocks, sliding cdiv(min(127 + 8192,
// 98304), 16) + 1 = 520 + 1 = 521: 6665; 16,370 / 6665 = 2.4561, printed 2.46 (N_bt 2048 would give
// 16,370 / (6144 + 137) = 2.61: the log's second "max_num_batched_tokens=8192" line is the one in force).
TEST(runtime_vllm_hybrid, gpt_oss_120b_log_v0_11_2) {
  const vllm_hybrid_groups g = vllm_hybrid_grouping(18, 18);
  EXPECT_EQ(g.group_size, 18);
  EXPECT_EQ(g.full_groups, 1);
  EXPECT_EQ(g.sliding_groups, 1);
  EXPECT_EQ(vllm_page_bytes(16, 8, 64, 2), 32768);
  EXPECT_EQ(vllm_num_blocks(16370.0 * 18 * 32768, 32768, 18), 16370);
  EXPECT_EQ(vllm_hybrid_tokens(16370, g, 16), 130960);
  EXPECT_EQ(vllm_hybrid_tokens(16371, g, 16), 130960);
  const std::int64_t per_request = vllm_hybrid_blocks_per_request(g, 98304, 128, 8192, {32768, 16, 16});
  EXPECT_EQ(per_request, 6665);
  EXPECT_NEAR(16370.0 / static_cast<double>(per_request), 2.46, 0.005);
  EXPECT_EQ(vllm_hybrid_blocks_per_request(g, 98304, 128, 2048, {32768, 16, 16}), 6281);
}

}  // namespace

namespace {

// ---- tensor-parallel communication buffers ---------------------------------------------------------------------

// vLLM's CustomAllreduce (max_size 8 MiB): IPC buffer 8 MiB + meta and intermediate 8 MiB + rank_data 8 MiB
// = 25,165,824 B per rank, for tp in {2, 4, 6, 8} only; NCCL's three protocol buffers per channel per peer:
// 4,194,304 + 4,915,200 + 524,288 = 9,633,792 B.
TEST(runtime_comm, custom_all_reduce_and_nccl_buffers) {
  EXPECT_EQ(custom_all_reduce_bytes(1), 0);
  EXPECT_EQ(custom_all_reduce_bytes(2), 25165824);
  EXPECT_EQ(custom_all_reduce_bytes(3), 0);
  EXPECT_EQ(custom_all_reduce_bytes(8), 25165824);
  EXPECT_EQ(nccl_connection_bytes, 9633792);
}

double item(const estimate_result& r, const std::string& bucket, const std::string& prefix) {
  for (const auto& b : r.buckets)
    if (b.key == bucket)
      for (const auto& i : b.items)
        if (i.name.rfind(prefix, 0) == 0) return i.bytes;
  return -1;
}

// vLLM at tp 2 (T = the device memory of the page default, gpu_memory): the all-reduce
// buffers sit in what lies outside the budget, T - ceil(0.92 T), which shrinks by the same 25,165,824 B.
TEST(runtime_comm, vllm_tp2_all_reduce_outside_the_budget) {
  const estimate_result r =
      run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "vllm"}, {"tp", "2"}, {"devices", "2"}});
  const double T = r.gpu_memory_bytes;
  EXPECT_EQ(item(r, "overhead", "custom all-reduce buffers"), 25165824);
  EXPECT_EQ(item(r, "overhead", "outside vLLM's budget"), T - std::ceil(T * 0.92) - 25165824);
  const estimate_result one = run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "vllm"}});
  EXPECT_EQ(item(one, "overhead", "custom all-reduce buffers"), -1);  // tp 1: none
}

// SGLang measures the free memory after the all-reduce buffers exist: total_free = T - cuda_context - 25,165,824,
// and max_total_num_tokens = (total_free - weights - total_free x (1 - mfs)) // cell, cell = 4 KV heads per rank x
// 128 x 32 layers x 2 x 2 B = 65,536 B at tp 2.
TEST(runtime_comm, sglang_tp2_tokens_after_the_all_reduce_buffers) {
  const estimate_result r =
      run({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "sglang"}, {"tp", "2"}, {"devices", "2"}});
  const double total_free = r.gpu_memory_bytes - r.settings.cuda_context - 25165824;
  const double weights = r.buckets[0].bytes;
  const double mfs = r.settings.mem_fraction_static;
  EXPECT_EQ(r.runtime.kv_capacity_tokens, std::floor((total_free - weights - total_free * (1 - mfs)) / 65536));
}

// Issue 36: a budget smaller than what it holds before the KV cache never reads as a negative KV memory. L8 as on the
// 4090 above, on 16 GB: budget ceil(0.92 x 16,000,000,000) = 14,720,000,000; before the KV cache: weights
// 16,094,076,928 + the sampler's peak 476,446,720 + non-torch 343,597,383 = 16,914,121,031, which passes the budget
// by 2,194,121,031 B (2.19 GB): vLLM refuses to start ("No available memory for the cache blocks").
TEST(runtime_vllm, budget_shortfall_is_never_a_negative_kv_memory) {
  settings s = l8_4090();
  s["gpu_memory"] = "16000000000";
  const estimate_result r = run(s);
  EXPECT_DOUBLE_EQ(r.runtime.budget, 14720000000);
  EXPECT_DOUBLE_EQ(r.runtime.kv_available, 0);
  EXPECT_DOUBLE_EQ(r.runtime.kv_shortfall, 2194121031);
  EXPECT_DOUBLE_EQ(r.runtime.kv_capacity_tokens, 0);
  bool named = false;
  for (const auto& note : r.notes)
    named |= note.find("no available memory for the cache blocks") != std::string::npos &&
             note.find("by 2.19 GB") != std::string::npos;
  EXPECT_TRUE(named);
  EXPECT_FALSE(r.fits);
}

// SGLang likewise: weights 2 x 8,030,261,248 B past a budget of mem_fraction_static x (gpu_memory - cuda_context).
TEST(runtime_sglang, budget_shortfall_is_never_a_negative_kv_memory) {
  const estimate_result r = run({{"mode", "inference"},
                                 {"model", "llama-3.1-8b"},
                                 {"runtime", "sglang"},
                                 {"gpu_memory", "16000000000"},
                                 {"seq", "4096"}});
  EXPECT_DOUBLE_EQ(r.runtime.kv_available, 0);
  const double free = 16000000000.0 - r.settings.cuda_context;
  EXPECT_NEAR(r.runtime.kv_shortfall, 2 * 8030261248.0 - free * r.settings.mem_fraction_static, 1);
}

}  // namespace
