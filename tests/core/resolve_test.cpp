// SPDX-License-Identifier: MIT
// The resolve stage (resolve.hpp): choices as enums, derived facts computed once, the model built once, every check
// in one call; and the one storage-format table (dtype.hpp).
#include "llm_memory/resolve.hpp"

#include <gtest/gtest.h>

#include "llm_memory/dtype.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::resolved;

TEST(resolve, choices_become_enums) {
  const run_spec r = resolved({{"mode", "inference"},
                               {"attention", "flash"},
                               {"kv_dtype", "fp8"},
                               {"offload", "none"},
                               {"units", "gib"},
                               {"optimizer", "lion"}});
  EXPECT_EQ(r.mode, run_mode::inference);
  EXPECT_FALSE(r.train());
  EXPECT_EQ(r.attention, attention_kernel::flash);
  EXPECT_EQ(r.kv, dtype::fp8);
  EXPECT_EQ(r.units, display_units::gib);  // matched case-insensitively, stored as the table spells it
  EXPECT_EQ(r.values.units, "GiB");
  EXPECT_EQ(r.optimizer, optimizer_kind::lion);
  const run_spec zero3 = resolved({{"devices", "8"}, {"zero", "3"}, {"offload", "optimizer+params"}});
  EXPECT_EQ(zero3.offload, offload_target::optimizer_and_params);
}

// auto dtypes resolve once: gradients follow the trained weights, KV the activations (4 B with fp32 weights).
// The table's own automatic dtypes: framework generic (a profile sets its own, tests/core/frameworks_test.cpp).
TEST(resolve, automatic_dtypes) {
  const run_spec bf16 = resolved({{"framework", "generic"}});
  EXPECT_EQ(bf16.weights, dtype::bf16);
  EXPECT_EQ(bf16.gradients, dtype::bf16);
  EXPECT_EQ(bf16.optimizer_states, dtype::fp32);
  EXPECT_EQ(bf16.activation_bytes, 2);
  const run_spec fp32 = resolved({{"weights_dtype", "fp32"}, {"mode", "inference"}});
  EXPECT_EQ(fp32.kv, dtype::fp32);
  EXPECT_EQ(fp32.activation_bytes, 4);
  // QLoRA: an NF4 base whatever weights_dtype said; the adapters (and so their gradients) in bf16.
  const run_spec qlora = resolved({{"finetune", "qlora"}, {"framework", "generic"}});
  EXPECT_EQ(qlora.weights, dtype::nf4);
  EXPECT_EQ(qlora.values.weights_dtype, "nf4");
  EXPECT_EQ(qlora.trainable, dtype::bf16);
  EXPECT_EQ(qlora.gradients, dtype::bf16);
  EXPECT_TRUE(qlora.quantised());
  EXPECT_EQ(resolved({{"grads_dtype", "fp32"}, {"framework", "generic"}}).gradients, dtype::fp32);
}

// data-parallel = devices / (tp x pp) = 16 / (2 x 2) = 4; effective batch = 3 x 5 x 4 = 60; tokens = 3 x 2048.
TEST(resolve, derived_facts_once) {
  const run_spec r = resolved({{"devices", "16"}, {"tp", "2"}, {"pp", "2"}, {"batch", "3"}, {"grad_accum", "5"}});
  EXPECT_EQ(r.data_parallel, 4);
  EXPECT_EQ(r.effective_batch, 60);
  EXPECT_EQ(r.tokens, 6144);
  // The default architecture (h 4096, 32 layers, a 32, MLP 4h, no vocabulary, LayerNorm): per layer 4h^2 + 8h^2
  // weights + 2 x 2h norms = 12 x 4096^2 + 4 x 4096 = 201,342,976; x 32 + final norm 2 x 4096 = 6,442,983,424.
  EXPECT_EQ(r.model.params.total, 6442983424.0);
  EXPECT_EQ(r.params, 6442983424.0);
  EXPECT_EQ(resolved({{"params", "7e9"}}).params, 7e9);
}

TEST(resolve, with_workload_derives_again_and_keeps_the_model) {
  const run_spec base = resolved({{"devices", "8"}, {"tp", "2"}, {"grad_accum", "2"}});
  const run_spec r = with_workload(base, 4, 1024, 16);
  EXPECT_EQ(r.values.batch, 4);
  EXPECT_EQ(r.values.seq, 1024);
  EXPECT_EQ(r.values.devices, 16);
  EXPECT_EQ(r.data_parallel, 8);     // 16 / (2 x 1)
  EXPECT_EQ(r.effective_batch, 64);  // 4 x 2 x 8
  EXPECT_EQ(r.tokens, 4096);         // 4 x 1024
  EXPECT_EQ(r.model.params.total, base.model.params.total);
}

TEST(resolve, lora_targets_as_a_set) {
  const run_spec qv = resolved({{"finetune", "lora"}, {"lora_targets", "q_proj, v_proj"}});
  EXPECT_TRUE(qv.lora_targets.contains(projection::q_proj));
  EXPECT_TRUE(qv.lora_targets.contains(projection::v_proj));
  EXPECT_FALSE(qv.lora_targets.contains(projection::k_proj));
  EXPECT_FALSE(qv.lora_targets.is_all_linear());
  const run_spec all = resolved({{"finetune", "lora"}, {"lora_targets", "all-linear"}});
  EXPECT_TRUE(all.lora_targets.is_all_linear());
  EXPECT_TRUE(all.lora_targets.contains(projection::kv_a_proj_with_mqa));  // MLA projections too
}

// Every check runs in resolve(): range, consistency and model-level problems, each naming its setting.
TEST(resolve, every_check_in_one_call) {
  const auto many = resolve({{"batch", "0"}, {"zero", "9"}});
  ASSERT_FALSE(many.ok());
  ASSERT_EQ(many.errors().size(), 2u);
  EXPECT_EQ(many.errors()[0].setting, "batch");
  EXPECT_EQ(many.errors()[1].setting, "zero");
  const auto consistency = resolve({{"devices", "6"}, {"tp", "4"}, {"num_key_value_heads", "5"}});
  ASSERT_FALSE(consistency.ok());
  EXPECT_EQ(consistency.errors()[0].setting, "num_key_value_heads");
  EXPECT_EQ(consistency.errors()[1].setting, "devices");
  const auto quantised_full = resolve({{"weights_dtype", "nf4"}});
  ASSERT_FALSE(quantised_full.ok());
  EXPECT_EQ(quantised_full.errors()[0].setting, "weights_dtype");
  const auto trainable = resolve({{"params", "7e9"}, {"trainable_params", "8e9"}});
  ASSERT_FALSE(trainable.ok());
  EXPECT_EQ(trainable.errors()[0].setting, "trainable_params");
  const auto huge =
      resolve({{"hidden_size", "1000000"}, {"num_hidden_layers", "100000"}, {"num_attention_heads", "1"}});
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.errors()[0].setting, "hidden_size");
}

// Bytes per value, by hand from each layout: NF4 (4 + 32/64) / 8; with double quantisation the absmax is 8-bit plus
// one fp32 per 256 blocks: (4 + 8/64 + 32/(64 x 256)) / 8; Q8_0 34 B / 32; GPTQ-style int4 (128 x 4 + 16 + 4) bits /
// 128; Q4_K 144 B / 256.
TEST(dtype, bytes_per_value_from_the_layouts) {
  EXPECT_EQ(bytes_per_value(dtype::fp32), 4);
  EXPECT_EQ(bytes_per_value(dtype::bf16), 2);
  EXPECT_EQ(bytes_per_value(dtype::fp8), 1);
  EXPECT_EQ(bytes_per_value(dtype::nf4), 0.5625);
  EXPECT_EQ(bytes_per_value(dtype::nf4, true), 0.515869140625);
  EXPECT_EQ(bytes_per_value(dtype::q8_0), 1.0625);
  EXPECT_EQ(bytes_per_value(dtype::int4), 532.0 / 1024);
  EXPECT_EQ(bytes_per_value(dtype::q4_k_m), 0.5625);
  EXPECT_EQ(info(ggml_type::q6_k).bytes_per_value(), 210.0 / 256);
  for (const auto& d : dtype_table()) EXPECT_EQ(find_dtype(d.name), d.id) << d.name;
  EXPECT_FALSE(find_dtype("auto").has_value());
}

// llama.cpp's use_more_bits for 32 layers: the first and last eighth (i < 4, i >= 28) and every third layer between
// from i = 6 ((i - 4) % 3 == 2); i < 2 and i < 32 / 16 = 2 mark the first layers.
TEST(dtype, gguf_layer_positions) {
  std::vector<int> more;
  for (int i = 0; i < 32; ++i)
    if (gguf_position(i, 32).more_bits) more.push_back(i);
  EXPECT_EQ(more, (std::vector<int>{0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31}));
  EXPECT_TRUE(gguf_position(1, 32).first_two);
  EXPECT_FALSE(gguf_position(2, 32).first_16th);
  // Q4_K_M: v_proj and down_proj of those layers in Q6_K, the rest Q4_K; q3_k_m: v_proj of the first two in Q5_K.
  EXPECT_EQ(gguf_matrix_type(dtype::q4_k_m, "v_proj", gguf_position(6, 32), 4), ggml_type::q6_k);
  EXPECT_EQ(gguf_matrix_type(dtype::q4_k_m, "v_proj", gguf_position(7, 32), 4), ggml_type::q4_k);
  EXPECT_EQ(gguf_matrix_type(dtype::q4_k_m, "q_proj", gguf_position(0, 32), 4), ggml_type::q4_k);
  EXPECT_EQ(gguf_matrix_type(dtype::q3_k_m, "v_proj", gguf_position(1, 32), 4), ggml_type::q5_k);
  EXPECT_EQ(gguf_matrix_type(dtype::q2_k, "v_proj", gguf_position(9, 32), 4), ggml_type::q4_k);
  EXPECT_EQ(gguf_matrix_type(dtype::q2_k, "v_proj", gguf_position(9, 32), 1), ggml_type::q3_k);
  EXPECT_EQ(gguf_output_type(dtype::q8_0), ggml_type::q8_0);
  EXPECT_EQ(gguf_output_type(dtype::q4_0), ggml_type::q6_k);
}

}  // namespace
