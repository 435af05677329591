// SPDX-License-Identifier: MIT
// The training stacks of issue 35 (torchtitan, LLaMA-Factory, axolotl, Unsloth's releases) and DeepSpeed ZeRO-3's
// bucket settings. Each expectation is derived by hand in the comment beside it (docs/methodology.md, "Profiles").
// Llama 3.1 8B: h 4096, L 32, a 32, n_kv 8, d 128, i 14336, V 128256, untied;
// Ψ = 32 x 218,112,000 + 2 x 525,336,576 + 4096 = 8,030,261,248.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::item;
using test::phase;
using test::resolved;

bool has_item(const estimate_result& r, const std::string& bucket_key, const std::string& name) {
  for (const auto& b : r.buckets)
    if (b.key == bucket_key)
      for (const auto& i : b.items)
        if (i.name == name) return true;
  return false;
}

settings llama8b(const char* framework, const char* method) {
  return {{"model", "llama-3.1-8b"}, {"framework", framework}, {"finetune", method}, {"seq", "2048"}};
}

// torchtitan on one device: torch.autocast(bf16) over the fp32 model (maybe_enable_amp), fused fp32 AdamW,
// op-level SAC as selective, the fp32 cross-entropy, K/V expanded. Weights 4Ψ = 32,121,044,992, AdamW 8Ψ =
// 64,242,089,984.
TEST(framework_stacks, torchtitan_one_device_autocasts_the_fp32_model) {
  const settings s = llama8b("torchtitan", "full");
  const run_spec r = resolved(s);
  EXPECT_EQ(r.weights, dtype::fp32);
  EXPECT_EQ(r.values.autocast, "bf16");
  EXPECT_EQ(r.recompute, recompute_policy::selective);
  EXPECT_EQ(r.loss, loss_kind::hf);
  EXPECT_EQ(r.attention, attention_kernel::sdpa);
  EXPECT_EQ(r.values.zero, 0);
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(item(a, "parameters", "weights"), 32121044992.0);
  EXPECT_EQ(a.bytes("optimizer"), 64242089984.0);
}

// torchtitan on 8 devices: fully_shard over all of them (ZeRO-3) with bf16 compute over fp32 shards: bf16 weights
// 2Ψ/8 = 2,007,565,312, fp32 master + AdamW (4 + 8)Ψ/8 = 12,045,391,872, fp32 gradients 4Ψ/8 = 4,015,130,624 at
// the step.
TEST(framework_stacks, torchtitan_shards_over_every_device) {
  settings s = llama8b("torchtitan", "full");
  s.insert_or_assign("devices", "8");
  const run_spec r = resolved(s);
  EXPECT_EQ(r.values.zero, 3);
  EXPECT_EQ(r.weights, dtype::bf16);
  const estimate_result d = phase(s, "optimizer_step");
  EXPECT_EQ(item(d, "parameters", "weights"), 2007565312.0);
  EXPECT_EQ(d.bytes("optimizer"), 12045391872.0);
  EXPECT_EQ(d.bytes("gradients"), 4015130624.0);
}

// torchtitan's llama3 has its own output linear (model.py l.407): Llama 3.2 1B's tied lm_head becomes a second
// V x h = 128,256 x 2,048 = 262,668,288 parameters.
TEST(framework_stacks, torchtitan_unties_the_lm_head) {
  settings tt = {{"model", "llama-3.2-1b"}, {"framework", "torchtitan"}};
  settings hf = {{"model", "llama-3.2-1b"}, {"framework", "hf"}};
  EXPECT_EQ(resolved(tt).params - resolved(hf).params, 262668288.0);
}

// LLaMA-Factory LoRA: rank 8 on every linear, no dropout, gradient checkpointing on.
// Adapters per layer r(in + out): q, o 8 x 8192; k, v 8 x 5120; gate, up, down 8 x 18432 = 655,360; x 32 =
// 20,971,520 (LLaMA-Factory's log: "trainable params: 20,971,520"), fp32: 83,886,080 B.
// Checkpoints: bf16 residual 2·T·h x 32 layers, T = 2048: 536,870,912.
TEST(framework_stacks, llamafactory_lora_defaults) {
  const settings s = llama8b("llamafactory", "lora");
  const run_spec r = resolved(s);
  EXPECT_EQ(r.values.lora_rank, 8);
  EXPECT_EQ(r.values.lora_dropout, 0);
  EXPECT_EQ(r.values.lora_targets, "all-linear");
  EXPECT_EQ(r.recompute, recompute_policy::full);
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(item(a, "parameters", "LoRA adapters"), 83886080.0);
  EXPECT_EQ(item(a, "activations", "layer inputs (checkpoints)"), 536870912.0);
}

// LLaMA-Factory QLoRA: no prepare_model_for_kbit_training, so the residual stream stays bf16 (checkpoints
// 536,870,912, half the HF recipe's fp32 ones), and the Trainer's AdamW in allocated memory: 8 B x 20,971,520 =
// 167,772,160.
TEST(framework_stacks, llamafactory_qlora_keeps_bf16_and_adamw) {
  const settings s = llama8b("llamafactory", "qlora");
  EXPECT_FALSE(resolved(s).values.qlora_upcast);
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(item(a, "activations", "layer inputs (checkpoints)"), 536870912.0);
  EXPECT_EQ(a.bytes("optimizer"), 167772160.0);
}

// axolotl full (fft-8b.yaml): bf16 weights 2Ψ = 16,060,522,496 without a master copy, paged 8-bit AdamW outside
// allocated memory, flash attention, checkpointing.
TEST(framework_stacks, axolotl_full_is_pure_bf16_with_paged_adamw) {
  const settings s = llama8b("axolotl", "full");
  const run_spec r = resolved(s);
  EXPECT_EQ(r.attention, attention_kernel::flash);
  EXPECT_EQ(r.recompute, recompute_policy::full);
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(item(a, "parameters", "weights"), 16060522496.0);
  EXPECT_EQ(a.bytes("optimizer"), 0);
}

// axolotl LoRA / QLoRA (lora-8b.yml, qlora.yml): rank 32 on every linear, 4 x 20,971,520 = 83,886,080 adapters,
// fp32: 335,544,320 B; dropout 0.05; QLoRA's embedding goes back to bf16 (checkpoints 536,870,912) and its
// paged 32-bit AdamW leaves allocated memory.
TEST(framework_stacks, axolotl_adapter_recipes) {
  const run_spec lora = resolved(llama8b("axolotl", "lora"));
  EXPECT_EQ(lora.values.lora_rank, 32);
  EXPECT_EQ(lora.values.lora_dropout, 0.05);
  const settings q = llama8b("axolotl", "qlora");
  const estimate_result a = phase(q, "forward_end");
  EXPECT_EQ(item(a, "parameters", "LoRA adapters"), 335544320.0);
  EXPECT_EQ(item(a, "activations", "layer inputs (checkpoints)"), 536870912.0);
  EXPECT_EQ(a.bytes("optimizer"), 0);
}

// Unsloth releases (T = 2048, QLoRA): 2025.8 fuses the loss (no logits); 2024.4-2025.7 keep the bf16 logits of the
// Triton kernel, 2·T·V = 525,336,576, with the checkpoints offloaded; before 2024.4 the checkpoints stay on the
// GPU: bf16 residual 2·T·h x 32 = 536,870,912. use_gradient_checkpointing=True on the current release is
// activation_offload=none: the same checkpoints, the fused loss kept.
TEST(framework_stacks, unsloth_versions_and_plain_checkpointing) {
  settings s = llama8b("unsloth", "qlora");
  EXPECT_EQ(resolved(s).loss, loss_kind::fused);
  s.insert_or_assign("unsloth_version", "2024.4");
  const estimate_result mid = phase(s, "forward_end");
  EXPECT_EQ(item(mid, "activations", "logits and loss (forward)"), 525336576.0);
  EXPECT_EQ(item(mid, "activations", "layer inputs (checkpoints offloaded to CPU)"), 0);
  s.insert_or_assign("unsloth_version", "2024.1");
  EXPECT_EQ(item(phase(s, "forward_end"), "activations", "layer inputs (checkpoints)"), 536870912.0);
  settings plain = llama8b("unsloth", "qlora");
  plain.insert_or_assign("activation_offload", "none");
  EXPECT_EQ(resolved(plain).loss, loss_kind::fused);
  EXPECT_EQ(item(phase(plain, "forward_end"), "activations", "layer inputs (checkpoints)"), 536870912.0);
}

// DeepSpeed ZeRO-3 on 8 devices, largest leaf module = the lm_head V·h = 525,336,576.
// stage3_prefetch_bucket_size 5e7 (DeepSpeed's default, not the Trainer's auto 0.9·h^2): window
// (525,336,576 + min(5e7, 1e9 - 525,336,576)) x 2 B = 1,150,673,152.
// stage3_max_live_parameters 5.3e8 caps the auto bucket 15,099,494.4 at 5.3e8 - 525,336,576 = 4,663,424:
// (525,336,576 + 4,663,424) x 2 B = 1,060,000,000.
// Persistence (auto 10·h = 40,960 > h): every norm weight stays whole, (2 x 32 + 1) x 4096 = 266,240 x 2 B x
// (1 - 1/8) = 465,920; a threshold of 4096 (not above h) keeps none.
TEST(framework_stacks, deepspeed_zero3_bucket_settings) {
  settings s = {{"model", "llama-3.1-8b"}, {"framework", "deepspeed"}, {"devices", "8"}, {"zero", "3"}};
  const std::string window = "ZeRO-3 gathered window (largest leaf module + prefetch bucket)";
  const std::string persistent = "ZeRO-3 persistent parameters (norms below the persistence threshold, unsharded)";
  EXPECT_EQ(item(phase(s, "forward_end"), "parameters", persistent), 465920.0);
  settings bucket = s;
  bucket.insert_or_assign("stage3_prefetch_bucket_size", "5e7");
  EXPECT_EQ(item(phase(bucket, "forward_end"), "parameters", window), 1150673152.0);
  settings live = s;
  live.insert_or_assign("stage3_max_live_parameters", "5.3e8");
  EXPECT_EQ(item(phase(live, "forward_end"), "parameters", window), 1060000000.0);
  settings small = s;
  small.insert_or_assign("stage3_param_persistence_threshold", "4096");
  EXPECT_FALSE(has_item(phase(small, "forward_end"), "parameters", persistent));
}

}  // namespace
