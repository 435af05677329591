// SPDX-License-Identifier: MIT
// torchtitan_version and autocast's weight copies (issue 35; docs/methodology.md, "torchtitan's releases" and
// "Autocast's weight copies"). Each expectation is derived by hand in the comment beside it.
//
// Llama 3.1 8B: V 128,256, 32 layers of 218,103,808 matrix weights (q 4096², k, v 4096 x 1024, o 4096², gate, up,
// down 4096 x 14336), lm_head 128,256 x 4096 = 525,336,576. Batch 2 x seq 8192: T = 16,384 tokens,
// T x V = 2,101,346,304.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::item;
using test::phase;

settings benchmark(const char* devices) {
  return {{"model", "llama-3.1-8b"}, {"framework", "torchtitan"}, {"finetune", "full"}, {"batch", "2"},
          {"seq", "8192"},           {"devices", devices}};
}

// From 0.1.0 compile = on compiles the loss too (components/loss.py build_cross_entropy_loss): inductor keeps the
// 16-bit logits (2 B) and an fp32 logsumexp per token, and writes the 16-bit gradient (2 B) beside them:
// forward 2 x 2,101,346,304 = 4,202,692,608; backward 4 x 2,101,346,304 = 8,405,385,216; logsumexp 4 x 16,384.
TEST(torchtitan_version, compiled_loss_from_0_1) {
  settings s = benchmark("8");
  s.insert_or_assign("compile", "on");
  EXPECT_EQ(test::resolved(s).loss, loss_kind::compiled);
  EXPECT_EQ(item(phase(s, "forward_end"), "logits and loss (forward)"), 4202692608.0);
  const estimate_result b = phase(s, "backward_start");
  EXPECT_EQ(item(b, "logits and loss (backward)"), 8405385216.0);
  EXPECT_EQ(item(b, "logsumexp (fp32)"), 65536.0);
}

// Before 0.1.0 (train.py at 9dec370 l.136: "compiling loss function causes CUDA errors, turning off for now") the
// loss stays eager whatever compile says: cross_entropy(pred.float()): forward 2 + 4 + 4 = 10 B (logits, fp32 upcast,
// log-softmax) = 21,013,463,040; backward 12 B (the saved log-softmax + two fp32 gradients) = 25,216,155,648.
// compile = off is eager in every release.
TEST(torchtitan_version, eager_loss_before_0_1_and_without_compile) {
  settings old = benchmark("8");
  old.insert_or_assign("compile", "on");
  old.insert_or_assign("torchtitan_version", "0.0");
  settings off = benchmark("8");
  off.insert_or_assign("compile", "off");
  for (const settings& s : {old, off}) {
    EXPECT_EQ(test::resolved(s).loss, loss_kind::hf);
    EXPECT_EQ(item(phase(s, "forward_end"), "logits and loss (forward)"), 21013463040.0);
    EXPECT_EQ(item(phase(s, "backward_start"), "logits and loss (backward)"), 25216155648.0);
  }
}

// A stated loss_impl wins over the release's default.
TEST(torchtitan_version, stated_loss_wins) {
  settings s = benchmark("8");
  s.insert_or_assign("compile", "on");
  s.insert_or_assign("loss_impl", "hf");
  EXPECT_EQ(test::resolved(s).loss, loss_kind::hf);
}

const std::string copies = "16-bit autocast copies of the trained matrices";

// One device: torch.autocast over the fp32 model (distributed/utils.py maybe_enable_amp), exited before
// loss.backward() (train.py forward_backward_step). End of forward: the cache holds every matrix's copy,
// 2 B x (32 x 218,103,808 + 525,336,576) = 15,009,316,864. Start of backward, op-level checkpointing: the cache is
// cleared and the blocks saved none (the casts are PREFER_RECOMPUTE): the lm_head's only, 2 x 525,336,576 =
// 1,050,673,152. Without checkpointing mm saved every copy: 15,009,316,864. selective_ac_option 2: 16 of 32 blocks
// unwrapped keep theirs: 2 x (16 x 218,103,808 + 525,336,576) = 8,029,995,008.
TEST(autocast_copies, one_device_torchtitan) {
  const settings s = benchmark("1");
  EXPECT_EQ(item(phase(s, "forward_end"), "parameters", copies), 15009316864.0);
  EXPECT_EQ(item(phase(s, "backward_start"), "parameters", copies), 1050673152.0);
  settings none = s;
  none.insert_or_assign("recompute", "none");
  EXPECT_EQ(item(phase(none, "backward_start"), "parameters", copies), 15009316864.0);
  settings layer = s;
  layer.insert_or_assign("selective_ac_option", "2");
  EXPECT_EQ(item(phase(layer, "backward_start"), "parameters", copies), 8029995008.0);
}

// The HF Trainer: fp32 load + bf16 autocast (accelerate wraps forward in torch.autocast, backward runs outside it).
// gradient_checkpointing (recompute full): the start of backward keeps the lm_head's copy only (1,050,673,152), the
// end of forward all of them (15,009,316,864). Korthikanti's selective recompute keeps the linears' saved inputs,
// their weight copies among them: 15,009,316,864.
TEST(autocast_copies, hf_fp32_under_autocast) {
  settings s = {{"model", "llama-3.1-8b"}, {"framework", "hf"}, {"seq", "2048"}, {"recompute", "full"}};
  EXPECT_EQ(item(phase(s, "forward_end"), "parameters", copies), 15009316864.0);
  EXPECT_EQ(item(phase(s, "backward_start"), "parameters", copies), 1050673152.0);
  s.insert_or_assign("recompute", "selective");
  EXPECT_EQ(item(phase(s, "backward_start"), "parameters", copies), 15009316864.0);
}

}  // namespace
