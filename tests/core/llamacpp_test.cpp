// SPDX-License-Identifier: MIT
// llama.cpp: the quantiser's per-tensor types (src/llama-quant.cpp llama_tensor_get_type @007dbbf3) and -ngl
// partial offload (llama-model.cpp load_tensors, llama-kv-cache per-layer devices, ggml-backend op offload), each
// expectation derived by hand in its comment. Block bytes per 256 values: Q2_K 84, Q3_K 110, Q4_K 144, Q5_K 176,
// Q6_K 210, IQ4_XS 136, IQ2_XS 74, IQ3_S 110; per 32: Q4_0 18, Q5_0 22, Q5_1 24, Q8_0 34, IQ4_NL 18.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "llm_memory/checkpoint.hpp"
#include "llm_memory/dtype.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/runtime.hpp"

using namespace llm_memory;

namespace {

constexpr double MiB = 1048576.0;

estimate_result run(const settings& s) {
  const auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value() : estimate_result{};
}

// Llama 3.1 8B: gqa 32 / 8 = 4, dense, 32 layers (n / 8 = 4, n / 16 = 2), n_embd 4096.
const gguf_model_facts l8{4, 0, false, 4096};

ggml_type type_of(dtype mix, std::string_view matrix, std::int64_t layer, const gguf_model_facts& m = l8,
                  double ncols = 4096) {
  return gguf_matrix_type(mix, matrix, gguf_position(layer, 32), m, ncols);
}

}  // namespace

// ---- the quantiser's rules, tensor by tensor ------------------------------------------------------------------

// Q4_K_S: attn_v Q5_K while i_attention_wv < 4; ffn_down Q5_K for i_layer < n_layer / 8 (= 4); else Q4_K.
TEST(llamacpp_quant, q4_k_s_bumps_the_first_layers) {
  EXPECT_EQ(type_of(dtype::q4_k_s, "v_proj", 3), ggml_type::q5_k);
  EXPECT_EQ(type_of(dtype::q4_k_s, "v_proj", 4), ggml_type::q4_k);
  EXPECT_EQ(type_of(dtype::q4_k_s, "down_proj", 3, l8, 14336), ggml_type::q5_k);
  EXPECT_EQ(type_of(dtype::q4_k_s, "down_proj", 4, l8, 14336), ggml_type::q4_k);
  EXPECT_EQ(type_of(dtype::q4_k_s, "o_proj", 0), ggml_type::q4_k);
  EXPECT_EQ(gguf_output_type(dtype::q4_k_s, 4096), ggml_type::q6_k);
  EXPECT_EQ(gguf_embedding_type(dtype::q4_k_s, 4096), ggml_type::q4_k);
}

// Q3_K_L: attn_v, attn_output and ffn_down Q5_K in every layer; Q3_K_S: Q3_K everywhere but the output (Q6_K).
TEST(llamacpp_quant, q3_k_l_and_q3_k_s) {
  for (const char* m : {"v_proj", "o_proj", "down_proj"}) EXPECT_EQ(type_of(dtype::q3_k_l, m, 17), ggml_type::q5_k);
  EXPECT_EQ(type_of(dtype::q3_k_l, "q_proj", 17), ggml_type::q3_k);
  for (const char* m : {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"})
    EXPECT_EQ(type_of(dtype::q3_k_s, m, 0), ggml_type::q3_k) << m;
}

// IQ4_XS with gqa >= 4: attn_v Q5_K; made with an importance matrix, ffn_down stays IQ4_XS (the Q5_K bump of
// the first eighth is for files made without one). Q4_0 with an importance matrix: ffn_down Q4_1 there.
TEST(llamacpp_quant, iq4_xs_and_q4_0) {
  EXPECT_EQ(type_of(dtype::iq4_xs, "v_proj", 20), ggml_type::q5_k);
  EXPECT_EQ(type_of(dtype::iq4_xs, "v_proj", 20, {1, 0, false, 4096}), ggml_type::iq4_xs);  // gqa 1
  EXPECT_EQ(type_of(dtype::iq4_xs, "down_proj", 3, l8, 14336), ggml_type::iq4_xs);
  EXPECT_EQ(gguf_output_type(dtype::iq4_xs, 4096), ggml_type::q6_k);
  EXPECT_EQ(type_of(dtype::q4_0, "down_proj", 3, l8, 14336), ggml_type::q4_1);
  EXPECT_EQ(type_of(dtype::q4_0, "down_proj", 4, l8, 14336), ggml_type::q4_0);
  EXPECT_EQ(type_of(dtype::q4_0, "v_proj", 3), ggml_type::q4_0);
}

// The IQ1/IQ2 group: attn_v Q4_K (gqa >= 4), ffn_down Q2_K (IQ3_S for IQ2_S) in the first eighth, attn_output
// IQ2_XXS for IQ1_*; token_embd Q2_K (IQ3_S for IQ2_S), output Q5_K. IQ2_S files default to IQ2_XS.
TEST(llamacpp_quant, low_bit_iq_group) {
  EXPECT_EQ(type_of(dtype::iq2_xs, "v_proj", 9), ggml_type::q4_k);
  EXPECT_EQ(type_of(dtype::iq2_xs, "v_proj", 9, {1, 0, false, 4096}), ggml_type::q2_k);
  EXPECT_EQ(type_of(dtype::iq2_s, "v_proj", 9, {1, 0, false, 4096}), ggml_type::iq3_s);
  EXPECT_EQ(type_of(dtype::iq2_xxs, "down_proj", 0, l8, 14336), ggml_type::q2_k);
  EXPECT_EQ(type_of(dtype::iq2_s, "down_proj", 0, l8, 14336), ggml_type::iq3_s);
  EXPECT_EQ(type_of(dtype::iq2_s, "q_proj", 9), ggml_type::iq2_xs);
  EXPECT_EQ(type_of(dtype::iq1_s, "o_proj", 9), ggml_type::iq2_xxs);
  EXPECT_EQ(type_of(dtype::iq1_m, "gate_proj", 9), ggml_type::iq1_m);
  EXPECT_EQ(gguf_embedding_type(dtype::iq1_s, 4096), ggml_type::q2_k);
  EXPECT_EQ(gguf_embedding_type(dtype::iq2_s, 4096), ggml_type::iq3_s);
  EXPECT_EQ(gguf_output_type(dtype::iq2_xxs, 4096), ggml_type::q5_k);
  EXPECT_EQ(info(dtype::iq2_s).bytes_per_value(), 74.0 / 256);  // the mix's base type IQ2_XS
}

// IQ3_XXS (made with an importance matrix): attn_q / attn_k IQ2_S, attn_v Q4_K at gqa >= 4, attn_output IQ3_S,
// token_embd IQ3_S.
TEST(llamacpp_quant, iq3_xxs) {
  EXPECT_EQ(type_of(dtype::iq3_xxs, "q_proj", 5), ggml_type::iq2_s);
  EXPECT_EQ(type_of(dtype::iq3_xxs, "k_proj", 5), ggml_type::iq2_s);
  EXPECT_EQ(type_of(dtype::iq3_xxs, "v_proj", 5), ggml_type::q4_k);
  EXPECT_EQ(type_of(dtype::iq3_xxs, "o_proj", 5), ggml_type::iq3_s);
  EXPECT_EQ(type_of(dtype::iq3_xxs, "up_proj", 5), ggml_type::iq3_xxs);
  EXPECT_EQ(gguf_embedding_type(dtype::iq3_xxs, 4096), ggml_type::iq3_s);
}

// The 70B rule (Q3_K/Q4_K attn_v -> Q5_K) and the 8-expert rules (attn_v, attn_k Q8_0; attn_output Q5_K).
TEST(llamacpp_quant, seventy_b_and_eight_experts) {
  const gguf_model_facts l70{8, 0, true, 8192}, mixtral{4, 8, false, 4096};
  EXPECT_EQ(gguf_matrix_type(dtype::q4_k_s, "v_proj", gguf_position(40, 80), l70, 8192), ggml_type::q5_k);
  EXPECT_EQ(gguf_matrix_type(dtype::q2_k, "v_proj", gguf_position(40, 80), l70, 8192), ggml_type::q5_k);
  // Q4_K_M at 80 layers: layer 12 is use_more_bits ((12 - 10) mod 3 = 2): Q6_K, untouched by the 70B rule;
  // layer 10 is not ((10 - 10) mod 3 = 0, 10 >= n/8): Q4_K, which the 70B rule raises to Q5_K.
  EXPECT_EQ(gguf_matrix_type(dtype::q4_k_m, "v_proj", gguf_position(12, 80), l70, 8192), ggml_type::q6_k);
  EXPECT_EQ(gguf_matrix_type(dtype::q4_k_m, "v_proj", gguf_position(10, 80), l70, 8192), ggml_type::q5_k);
  EXPECT_EQ(type_of(dtype::q4_k_m, "v_proj", 5, mixtral), ggml_type::q8_0);
  EXPECT_EQ(type_of(dtype::q4_k_m, "k_proj", 5, mixtral), ggml_type::q8_0);
  EXPECT_EQ(type_of(dtype::q4_k_m, "o_proj", 5, mixtral), ggml_type::q5_k);
  EXPECT_EQ(type_of(dtype::q5_k_m, "o_proj", 5, mixtral), ggml_type::q5_k);  // Q5_K_M's base is Q5_K anyway
  EXPECT_EQ(type_of(dtype::q3_k_l, "o_proj", 5, mixtral), ggml_type::q3_k);  // not in the 8-expert list
}

// tensor_type_fallback: rows that are not whole blocks. Qwen2.5 72B's ffn_down rows are 29568 = 115.5 x 256 values:
// Q4_K -> Q5_0 (29568 / 32 whole), Q6_K -> Q8_0, IQ4_XS -> IQ4_NL; 100 values are not whole blocks of 32: F16.
TEST(llamacpp_quant, row_length_fallback) {
  EXPECT_EQ(gguf_fallback(ggml_type::q4_k, 29568), ggml_type::q5_0);
  EXPECT_EQ(gguf_fallback(ggml_type::q5_k, 29568), ggml_type::q5_1);
  EXPECT_EQ(gguf_fallback(ggml_type::q6_k, 29568), ggml_type::q8_0);
  EXPECT_EQ(gguf_fallback(ggml_type::iq4_xs, 29568), ggml_type::iq4_nl);
  EXPECT_EQ(gguf_fallback(ggml_type::q3_k, 29568), ggml_type::q4_0);
  EXPECT_EQ(gguf_fallback(ggml_type::q4_k, 100), ggml_type::f16);
  EXPECT_EQ(gguf_fallback(ggml_type::q4_k, 14336), ggml_type::q4_k);  // 56 x 256
  EXPECT_EQ(type_of(dtype::q4_k_s, "down_proj", 10, l8, 29568), ggml_type::q5_0);
  // The output of a model whose n_embd is not whole blocks of the base type: Q8_0 (the OUTPUT branch).
  EXPECT_EQ(gguf_output_type(dtype::q4_k_m, 2880), ggml_type::q8_0);  // 2880 = 11.25 x 256
}

// ---- whole models: the weights bucket counts each tensor at its type -------------------------------------------

settings l8_all_on_gpu(const char* mix) {
  return {{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"runtime", "llamacpp"}, {"weights_dtype", mix},
          {"seq", "512"},        {"n_gpu_layers", "999"}};
}

// Llama 3.1 8B, every layer and the output on the GPU. One layer: q, o 4096 x 4096; k, v 4096 x 1024; gate, up,
// down 4096 x 14336: 218,103,808 weights; 2 norms of 4096 f32. Output 128256 x 4096 Q6_K = 430,940,160 B and
// output_norm 16,384 B; token_embd 525,336,576 values in host memory.
TEST(llamacpp_quant, llama_8b_q4_k_s_buffers) {
  const estimate_result r = run(l8_all_on_gpu("q4_k_s"));
  // 32 x 218,103,808 x 144/256 = 3,925,868,544; attn_v of layers 0-3 at Q5_K: + 4 x 4,194,304 x 32/256 =
  // 2,097,152; ffn_down of layers 0-3 at Q5_K: + 4 x 58,720,256 x 32/256 = 29,360,128; norms 64 x 16,384 =
  // 1,048,576; output 430,940,176.
  EXPECT_DOUBLE_EQ(r.runtime.model_buffer, 4389330944);
  EXPECT_DOUBLE_EQ(r.runtime.host_buffer, 295501824);  // token_embd Q4_K: 525,336,576 x 144/256
}

TEST(llamacpp_quant, llama_8b_q3_k_l_and_iq4_xs_buffers) {
  // Q3_K_L: 32 x 218,103,808 x 110/256 + 32 x (v 4,194,304 + down 58,720,256 + o 16,777,216) x (176 - 110)/256
  // + norms 1,048,576 + output 430,940,176 = 4,088,389,632; token_embd Q3_K 525,336,576 x 110/256 = 225,730,560.
  const estimate_result l = run(l8_all_on_gpu("q3_k_l"));
  EXPECT_DOUBLE_EQ(l.runtime.model_buffer, 4088389632);
  EXPECT_DOUBLE_EQ(l.runtime.host_buffer, 225730560);
  // IQ4_XS: 32 x 218,103,808 x 136/256 + attn_v (all 32, gqa 4) at Q5_K (+40/256)
  // = 3,707,764,736 + 32 x 4,194,304 x 40/256 + 1,048,576 + 430,940,176 = 4,160,741,376;
  // token_embd IQ4_XS 525,336,576 x 136/256 = 279,085,056.
  const estimate_result x = run(l8_all_on_gpu("iq4_xs"));
  EXPECT_DOUBLE_EQ(x.runtime.model_buffer, 4160741376);
  EXPECT_DOUBLE_EQ(x.runtime.host_buffer, 279085056);
}

// llama-bench's "size" column (llama_model_size: every tensor's bytes) for LLaMA-3-8B at llama.cpp b3441, as
// ikawrakow printed it (ik_llama.cpp discussion, July 2024; files made with an importance matrix), to its two
// decimals: GiB in [printed - 0.005, printed + 0.005]. Our bytes: every tensor at the quantiser's type, split into
// the GPU model buffer (all layers + output) and the host buffer (token_embd).
TEST(llamacpp_quant, llama_3_8b_sizes_as_llama_bench_prints) {
  const std::pair<const char*, double> printed[] = {
      {"q8_0", 7.95},   {"q6_k", 6.14},  {"q5_k_s", 5.21}, {"q4_k_s", 4.36},  {"q4_0", 4.35},   {"iq4_nl", 4.35},
      {"iq4_xs", 4.13}, {"iq3_s", 3.42}, {"q3_k_s", 3.41}, {"iq3_xxs", 3.04}, {"iq2_xs", 2.42}, {"iq2_xxs", 2.23}};
  for (const auto& [mix, gib] : printed) {
    settings s = l8_all_on_gpu(mix);
    s["model"] = "meta-llama-3-8b";
    const estimate_result r = run(s);
    const double size = (r.runtime.model_buffer + r.runtime.host_buffer) / 1073741824.0;
    EXPECT_NEAR(size, gib, 0.005) << mix;
  }
}

// ---- -ngl partial offload ---------------------------------------------------------------------------------------

// Published log (arXiv 2509.11947, appendix B): Mistral-7B-Instruct-v0.1 Q4_K_M (TheBloke), llama-cpp-python,
// RTX 4060 Laptop, -ngl 20 of 33, n_ctx 768, n_batch = n_ubatch 256, flash_attn 1. Layers 12-31 on CUDA0, 0-11
// and the output layer on the CPU. Printed: CUDA0 model buffer 2495.31 MiB, CUDA0 KV 60.00 MiB, CPU KV 36.00 MiB,
// CUDA0 compute 137.79 MiB, CUDA_Host compute 4.76 MiB.
settings mistral_ngl20() {
  return {{"mode", "inference"},  {"model", "mistral-7b-v0.1"}, {"runtime", "llamacpp"}, {"weights_dtype", "q4_k_m"},
          {"seq", "768"},         {"n_batch", "256"},           {"n_ubatch", "256"},     {"n_gpu_layers", "20"},
          {"attention", "flash"}, {"sliding_window", "0"}};
}

TEST(llamacpp_offload, mistral_7b_ngl_20_buffers) {
  const estimate_result r = run(mistral_ngl20());
  ASSERT_TRUE(r.runtime.has_buffers);
  // One layer at Q4_K: 218,103,808 x 144/256 = 122,683,392 B; a use_more_bits layer adds attn_v and ffn_down at
  // Q6_K: (4,194,304 + 58,720,256) x 66/256 = 16,220,160; norms 32,768. Layers 12-31 hold 10 use_more_bits layers
  // (12, 15, 18, 21, 24, 27, 28, 29, 30, 31): 20 x 122,683,392 + 10 x 16,220,160 + 20 x 32,768 = 2,616,524,800 B
  // = 2495.3125 MiB (printed 2495.31).
  EXPECT_DOUBLE_EQ(r.runtime.model_buffer, 2616524800);
  // KV: 20 GPU layers x 768 cells x 8 x 128 x (K + V) x 2 B = 60 MiB; the 12 CPU layers' 36 MiB are host memory.
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 60 * MiB);
  // Compute: the output layer is on the CPU and ubatch 256 >= 32, so its Q6_K matrix (32000 x 4096 x 210/256 =
  // 107,520,000 B) is copied in for the logits op: + 4 x 256 x 32000 logits + 4 x 256 x 4096 = 144,482,304 B =
  // 137.789 MiB (printed 137.79). The attention (FA) and MLP phases are 16.4 and 36 MiB.
  EXPECT_DOUBLE_EQ(r.runtime.compute_buffer, 144482304);
  // Host compute: 4 x 256 x 4096 input embeddings + the f32 mask 4 x 256 x 768 the CPU layers read = 4.75 MiB
  // (printed 4.76: llama.cpp adds a few KiB of graph inputs).
  EXPECT_DOUBLE_EQ(r.runtime.host_compute_buffer, 4.75 * MiB);
  // Host model bytes: token_embd Q4_K 73,728,000 + layers 0-11 (6 use_more_bits: 0-3, 6, 9) 12 x 122,683,392 +
  // 6 x 16,220,160 + 12 x 32,768 + output 107,520,000 + output_norm 16,384 = 1,751,179,264 B.
  EXPECT_DOUBLE_EQ(r.runtime.host_buffer, 1751179264);
  EXPECT_DOUBLE_EQ(r.bytes("parameters"), 2616524800);
}

// Every layer on the CPU (-ngl 0): no model or KV bytes on the GPU; with op offload the compute buffer still holds
// the largest copied matrix's phase or the output's: here the output (107,520,000 + 32,768,000 + 4,194,304).
TEST(llamacpp_offload, ngl_0_keeps_weights_and_kv_on_the_host) {
  settings s = mistral_ngl20();
  s["n_gpu_layers"] = "0";
  const estimate_result r = run(s);
  EXPECT_DOUBLE_EQ(r.runtime.model_buffer, 0);
  EXPECT_DOUBLE_EQ(r.runtime.kv_buffer, 0);
  EXPECT_DOUBLE_EQ(r.runtime.compute_buffer, 144482304);
  // Without op offload (ubatch 16 < 32) the GPU runs nothing: the logits phase moves to the host compute buffer,
  // 4 x 16 x 32000 + 4 x 16 x 4096 = 2,310,144 B, above the inputs and mask (4 x 16 x 4096 + 4 x 16 x 768).
  s["n_ubatch"] = "16";
  const estimate_result small = run(s);
  EXPECT_DOUBLE_EQ(small.runtime.compute_buffer, 0);
  EXPECT_DOUBLE_EQ(small.runtime.host_compute_buffer, 2310144);
}

// The phase formula directly: partial offload without flash attention puts the CPU layers' KQ phase in the host
// buffer: 4 x 512 x 2048 x 32 (KQ f32) + 4 x 512 x 2048 (mask) + 16 x 512 x 4096 = 128 + 4 + 32 = 164 MiB.
TEST(llamacpp_offload, host_compute_holds_the_cpu_layers_kq) {
  const llamacpp_graph g{512, 2048, 32, 4096, 14336, 32000, false};
  const llamacpp_offload partial{true, true, true, 0, 0};
  EXPECT_DOUBLE_EQ(llamacpp_host_compute_buffer(g, partial), 164 * MiB);
  const llamacpp_offload full{true, false, true, 0, 0};
  EXPECT_DOUBLE_EQ(llamacpp_host_compute_buffer(g, full), llamacpp_host_compute_buffer(g));
  EXPECT_DOUBLE_EQ(llamacpp_compute_buffer(g, full), llamacpp_compute_buffer(g, true));
}

// ---- the GGUF walk kept across estimates (runtimes/llamacpp.cpp per_matrix_key) ---------------------------------

// The mix's average bytes per matrix weight is walked once per model and format and kept on the thread under a key
// of every fact the walk reads, so a run estimated after another that differs in one of those facts alone must get
// its own average, not the other's. Each run below is estimated right after one that differs from it in one fact
// (the format, the layer count, the MLP's shapes), on one thread, with 20 of Mistral 7B's layers on the GPU: the
// weights bucket is 20 layers at the mix's average per layer + 20 x 32,768 B of norms (mistral_7b_ngl_20_buffers).
// With that fact dropped from the key a run gets the average of the run before it, and its expectation fails.
TEST(llamacpp_gguf_walk, kept_walks_do_not_cross_models_or_formats) {
  const settings q4 = mistral_ngl20();  // Q4_K_M, 32 layers, intermediate 14,336: 2,616,524,800 B (above)
  const auto weights = [](const settings& s) { return run(s).bytes("parameters"); };
  EXPECT_DOUBLE_EQ(weights(q4), 2616524800);
  // Q5_K_M: one layer at Q5_K 218,103,808 x 176/256 = 149,946,368 B; the use_more_bits layers (16 of 32) add attn_v
  // and ffn_down at Q6_K, (4,194,304 + 58,720,256) x (210 - 176)/256 = 8,355,840: 20 x 149,946,368 + 10 x
  // 8,355,840 + 20 x 32,768 = 3,083,141,120 B.
  settings q5 = q4;
  q5["weights_dtype"] = "q5_k_m";
  EXPECT_DOUBLE_EQ(weights(q5), 3083141120);
  EXPECT_DOUBLE_EQ(weights(q4), 2616524800);
  // 33 layers (the layer pattern, one full-attention run, does not say how many): n / 8 = 4 and 7n / 8 = 28, so 17
  // use_more_bits layers (0-3, 6, 9, .., 27, 28-32), an average of 17/33 x 16,220,160 = 8,355,840 B a layer on top
  // of Q4_K's 122,683,392: 20 x 131,039,232 + 20 x 32,768 = 2,621,440,000 B.
  settings deeper = q4;
  deeper["num_hidden_layers"] = "33";
  EXPECT_DOUBLE_EQ(weights(deeper), 2621440000);
  EXPECT_DOUBLE_EQ(weights(q4), 2616524800);
  // intermediate_size 12,288: a layer of 41,943,040 attention + 3 x 4,096 x 12,288 MLP = 192,937,984 weights, at
  // Q4_K 108,527,616 B; use_more_bits adds (4,194,304 + 50,331,648) x 66/256 = 14,057,472, half the layers:
  // 20 x (108,527,616 + 7,028,736) + 20 x 32,768 = 2,311,782,400 B.
  settings narrower = q4;
  narrower["intermediate_size"] = "12288";
  EXPECT_DOUBLE_EQ(weights(narrower), 2311782400);
  EXPECT_DOUBLE_EQ(weights(q4), 2616524800);
}

// ---- a GGUF header's own tensors replace the mix rule ----------------------------------------------------------

namespace {

// A little-endian GGUF v3 header written by hand (ggml docs/gguf.md): two blocks, the output layer, token_embd.
struct header_writer {
  std::string bytes;
  header_writer& put(std::uint64_t v, int width) {
    for (int i = 0; i < width; ++i) bytes += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  header_writer& str(std::string_view s) {
    put(s.size(), 8);
    bytes += s;
    return *this;
  }
  header_writer& kv_u32(std::string_view key, std::uint32_t v) { return str(key).put(4, 4).put(v, 4); }
  header_writer& tensor(std::string_view name, std::initializer_list<std::uint64_t> dims, std::uint32_t type,
                        std::uint64_t offset) {
    str(name).put(dims.size(), 4);
    for (auto d : dims) put(d, 8);
    return put(type, 4).put(offset, 8);
  }
};

// Tensors (ggml ids F32 0, F16 1, Q4_0 2, Q8_0 8): token_embd F16 [64, 3] = 384 B; blk.0.attn_q Q4_0 [64, 64] =
// 128 blocks x 18 = 2,304 B; blk.1.attn_q Q8_0 [64, 64] = 128 x 34 = 4,352 B; output_norm F32 [64] = 256 B;
// output Q8_0 [64, 3] = 6 x 34 = 204 B (left out when `tied`). Offsets are multiples of 32.
std::string two_block_gguf(bool tied) {
  header_writer w;
  w.bytes = "GGUF";
  w.put(3, 4).put(tied ? 4 : 5, 8).put(7, 8);
  w.str("general.architecture").put(8, 4).str("llama");
  w.kv_u32("llama.embedding_length", 64).kv_u32("llama.block_count", 2).kv_u32("llama.attention.head_count", 4);
  w.kv_u32("llama.attention.head_count_kv", 2).kv_u32("llama.feed_forward_length", 128);
  w.str("tokenizer.ggml.tokens").put(9, 4).put(8, 4).put(3, 8).str("a").str("b").str("<s>");
  w.tensor("token_embd.weight", {64, 3}, 1, 0).tensor("blk.0.attn_q.weight", {64, 64}, 2, 384);
  w.tensor("blk.1.attn_q.weight", {64, 64}, 8, 2688).tensor("output_norm.weight", {64}, 0, 7040);
  if (!tied) w.tensor("output.weight", {64, 3}, 8, 7296);
  return w.bytes;
}

estimate_result with_file(const std::string& file, settings s) {
  const auto header = parse_gguf_header(file, (file.size() + 31) / 32 * 32 + 7500, "gguf");
  EXPECT_TRUE(header.ok()) << (header.ok() ? "" : to_string(header.errors()[0]));
  if (!header.ok()) return {};
  auto spec = resolve(s, header.value().fields, std::make_shared<const gguf_placement>(header.value().placement));
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : to_string(spec.errors()[0]));
  if (!spec.ok()) return {};
  return estimate(spec.value());
}

}  // namespace

TEST(llamacpp_gguf_file, placement_by_tensor_name) {
  const std::string file = two_block_gguf(false);
  const auto header = parse_gguf_header(file, (file.size() + 31) / 32 * 32 + 7500, "gguf");
  ASSERT_TRUE(header.ok());
  const gguf_placement& p = header.value().placement;
  EXPECT_EQ(p.token_embd, 384);
  ASSERT_EQ(p.layers.size(), 2u);
  EXPECT_EQ(p.layers[0], 2304);
  EXPECT_EQ(p.layers[1], 4352);
  EXPECT_EQ(p.output, 256 + 204);
  EXPECT_FALSE(p.tied);
  EXPECT_EQ(p.total(), 7500);
  gguf_placement odd;  // block indices past the bound and malformed names count as other tensors
  odd.add("blk.99999999.attn_q.weight", 10);
  odd.add("blk..x", 5);
  odd.add("rope_freqs.weight", 1);
  EXPECT_EQ(odd.other, 16);
  EXPECT_TRUE(odd.layers.empty());
}

// The buffers are the file's bytes (the q4_k_m mix rule would give other numbers), split by -ngl.
TEST(llamacpp_gguf_file, buffers_are_the_files_bytes) {
  const settings s{{"mode", "inference"}, {"runtime", "llamacpp"}, {"weights_dtype", "q4_k_m"}, {"seq", "256"}};
  const estimate_result all = with_file(two_block_gguf(false), s);
  EXPECT_DOUBLE_EQ(all.runtime.model_buffer, 2304 + 4352 + 256 + 204);  // both blocks + the output layer
  EXPECT_DOUBLE_EQ(all.runtime.host_buffer, 384);                       // token_embd
  settings one = s;
  one["n_gpu_layers"] = "1";  // block 1 on the GPU; block 0 and the output layer on the host
  const estimate_result part = with_file(two_block_gguf(false), one);
  EXPECT_DOUBLE_EQ(part.runtime.model_buffer, 4352);
  EXPECT_DOUBLE_EQ(part.runtime.host_buffer, 384 + 2304 + 256 + 204);
  // Tied: llama.cpp duplicates token_embd as the output matrix; offloaded, the copy is GPU bytes too.
  const estimate_result tied = with_file(two_block_gguf(true), s);
  EXPECT_DOUBLE_EQ(tied.runtime.model_buffer, 2304 + 4352 + 256 + 384);
  EXPECT_DOUBLE_EQ(tied.runtime.host_buffer, 384);
  // Another runtime holds the whole file: 7,500 B.
  settings t = s;
  t["runtime"] = "transformers";
  EXPECT_DOUBLE_EQ(with_file(two_block_gguf(false), t).bytes("parameters"), 7500);
}
