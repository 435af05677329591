// SPDX-License-Identifier: MIT
// torchtitan's op-level selective activation checkpointing (selective_ac_option = "op"; parallelisms/
// parallelize_llama.py `_save_list` and `_custom_policy` at 9dec370 / 004b314; docs/methodology.md, "torchtitan's
// op-level selective checkpointing"). Each expectation is derived by hand from the policy in the comment beside it.
//
// Llama 3.1 8B: h 4096, a 32, n_kv 8, d 128, i 14336, 32 layers. The block's aten.mm in forward order: wq (1),
// wk (2), wv (3), wo (4), w1 (5), w3 (6), w2 (7); the odd ones are saved: wq 4096, wv 1024, w1 14336, w2 4096
// values per token. The flash SDPA keeps its output (a x d = 4096 values) and an fp32 logsumexp per head (32 x 4 B).
// The checkpoint keeps the block's input (the residual stream, h values). Nothing else is saved.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::item;
using test::phase;

const std::string op_sac = "transformer layers (op-level selective checkpointing)";

settings benchmark(const char* devices) {
  return {{"model", "llama-3.1-8b"}, {"framework", "torchtitan"}, {"finetune", "full"}, {"batch", "2"},
          {"seq", "8192"},           {"devices", devices}};
}

// FSDP over 8 devices (bf16 compute): per token 2 B x (input 4096 + wq 4096 + wv 1024 + w1 14336 + w2 4096 + SDPA
// output 4096) + 4 B x 32 = 2 x 31,744 + 128 = 63,616 B; T = 2 x 8192 = 16,384 tokens: 1,042,284,544 B per layer,
// x 32 layers = 33,353,105,408.
TEST(torchtitan_sac, fsdp_keeps_every_other_mm_sdpa_and_the_block_input) {
  const estimate_result a = phase(benchmark("8"), "forward_end");
  EXPECT_EQ(item(a, "activations", op_sac), 33353105408.0);
}

// One device: autocast over fp32 weights keeps an fp32 residual stream (4 B x 4096 = 16,384 B per token for the
// block input) and bf16 matmul / SDPA outputs: 16,384 + 2 x 27,648 + 128 = 71,808 B per token x 16,384 tokens x 32
// = 37,648,072,704.
TEST(torchtitan_sac, one_device_keeps_the_fp32_block_input) {
  const estimate_result a = phase(benchmark("1"), "forward_end");
  EXPECT_EQ(item(a, "activations", op_sac), 37648072704.0);
}

// Tensor parallel 2 with sequence parallelism: the column-parallel outputs halve: 2 B x (wq 4096 + wv 1024 + w1 14336)
// / 2 = 19,456 and SDPA 8,320 / 2 = 4,160; w2's row-parallel output is a whole partial sum (2 B x 4096 = 8,192); the
// block input and the two reduce_scatter outputs (after wo and w2) are sequence sharded: 3 x 8,192 / 2 = 12,288.
// Per token 44,096 B x 16,384 tokens x 32 layers = 23,119,003,648.
TEST(torchtitan_sac, tensor_parallel_keeps_the_row_parallel_partial_sum_whole) {
  settings s = benchmark("8");
  s.insert_or_assign("tp", "2");
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(item(a, "activations", op_sac), 23119003648.0);
}

// compile = on: torchtitan compiles each block after wrapping it in the checkpoint (parallelize_llama.py l.67-77 at
// 9dec370), so AOTAutograd's partitioner saves the policy's MUST_SAVE outputs but drops any no backward node reads
// (torch/_functorch/partitioners.py `_extract_fwd_bwd_modules`); eager SAC keeps every one until the recompute
// (torch/utils/checkpoint.py `_CachingTorchDispatchMode`). w2's output only feeds `out = h + ffn(...)`, whose backward
// reads nothing: 8 devices, 63,616 - 2 B x 4096 = 55,424 B per token x 16,384 tokens x 32 = 29,058,138,112 B, 4 GiB
// (2 x 4096 x 16,384 x 32 = 4,294,967,296 B) under the eager count.
TEST(torchtitan_sac, compile_drops_the_down_output_no_backward_reads) {
  settings s = benchmark("8");
  s.insert_or_assign("compile", "on");
  EXPECT_EQ(item(phase(s, "forward_end"), "activations", op_sac), 29058138112.0);
  s.insert_or_assign("compile", "off");
  EXPECT_EQ(item(phase(s, "forward_end"), "activations", op_sac), 33353105408.0);
}

// Compiled with tensor parallel 2: w2's whole partial sum (8,192 B) and the reduce_scatter after it (8,192 / 2) go;
// the one after wo stays, it rebuilds h for the ffn norm: 44,096 - 8,192 - 4,096 = 31,808 B per token x 16,384 x 32
// = 16,676,552,704.
TEST(torchtitan_sac, compile_with_tensor_parallel_drops_the_second_reduce_scatter) {
  settings s = benchmark("8");
  s.insert_or_assign("tp", "2");
  s.insert_or_assign("compile", "on");
  EXPECT_EQ(item(phase(s, "forward_end"), "activations", op_sac), 16676552704.0);
}

// A norm after the MLP (Gemma 2's post_feedforward_layernorm: four norms per layer) reads down's output in its
// backward, so compiling keeps it: the same count as eager.
TEST(torchtitan_sac, compile_keeps_the_down_output_a_post_norm_reads) {
  settings s = {{"model", "gemma-2-2b"}, {"framework", "torchtitan"},
                {"finetune", "full"},    {"batch", "1"},
                {"seq", "4096"},         {"devices", "8"}};
  const double eager = item(phase(s, "forward_end"), "activations", op_sac);
  s.insert_or_assign("compile", "on");
  EXPECT_EQ(item(phase(s, "forward_end"), "activations", op_sac), eager);
}

// recompute = none is torchtitan's ActivationCheckpoint.mode = "none": the per-tensor count, not the op policy.
TEST(torchtitan_sac, no_checkpointing_keeps_the_per_tensor_count) {
  settings s = benchmark("8");
  s.insert_or_assign("recompute", "none");
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(test::item(a, op_sac), -1.0);
  EXPECT_GT(item(a, "activations", "transformer layers"), 33353105408.0);
}

// Layer-level selective checkpointing (selective_ac_option N; distributed/activation_checkpoint.py _apply_layer_sac
// @cfb93265: block k of the counter, from 1, is checkpointed whole when k % N == 0, N 0 every block). Of 32 blocks,
// N 2 checkpoints 16 (blocks 2, 4, ..., 32) and leaves 16 as recompute = none leaves them: half the none run's
// "transformer layers"; the checkpointed 16 keep their input, 16 x 2 B x 16,384 tokens x 4096 = 2,147,483,648 B.
// N 3: floor(32 / 3) = 10 checkpointed (inputs 1,342,177,280 B), 22 kept. N 0 and 1: all 32 checkpointed.
TEST(torchtitan_sac, layer_level_every_nth_block) {
  settings none = benchmark("8");
  none.insert_or_assign("recompute", "none");
  const double all_kept = item(phase(none, "forward_end"), "activations", "transformer layers");
  settings s = benchmark("8");
  s.insert_or_assign("selective_ac_option", "2");
  const estimate_result two = phase(s, "forward_end");
  EXPECT_DOUBLE_EQ(item(two, "activations", "transformer layers not checkpointed (selective_ac_option 2)"),
                   all_kept / 2);
  EXPECT_DOUBLE_EQ(item(two, "activations", "layer inputs (checkpoints)"), 2147483648.0);
  EXPECT_EQ(test::item(two, op_sac), -1.0);
  s.insert_or_assign("selective_ac_option", "3");
  const estimate_result three = phase(s, "forward_end");
  EXPECT_DOUBLE_EQ(item(three, "activations", "transformer layers not checkpointed (selective_ac_option 3)"),
                   all_kept * 22 / 32);
  EXPECT_DOUBLE_EQ(item(three, "activations", "layer inputs (checkpoints)"), 1342177280.0);
  for (const char* every : {"0", "1"}) {
    s.insert_or_assign("selective_ac_option", every);
    const estimate_result a = phase(s, "forward_end");
    EXPECT_DOUBLE_EQ(item(a, "activations", std::string("transformer layers not checkpointed (selective_ac_option 1)")),
                     0.0)
        << every;
    EXPECT_DOUBLE_EQ(item(a, "activations", "layer inputs (checkpoints)"), 4294967296.0) << every;
  }
}

// Only a framework that reads it (torchtitan) takes N; a value that is neither op nor a whole number is refused.
TEST(torchtitan_sac, layer_option_is_torchtitans_and_checked) {
  settings hf = benchmark("8");
  hf.insert_or_assign("framework", "hf");
  hf.insert_or_assign("recompute", "selective");
  hf.insert_or_assign("selective_ac_option", "2");
  EXPECT_EQ(test::resolved(hf).layer_sac, 0);
  settings bad = benchmark("8");
  bad.insert_or_assign("selective_ac_option", "every 2");
  const auto r = resolve(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().setting, "selective_ac_option");
}

}  // namespace
