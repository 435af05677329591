// SPDX-License-Identifier: MIT
// Issue 35: every switch of the torchtune and HF Trainer profiles, changed alone, gives the state the framework
// itself would run with (each expectation read from the framework's config or code, cited beside it), and what
// torch.compile changes in the saved activations (derived by hand from docs/methodology.md, "torch.compile").
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

// One setting (insert_or_assign: GCC 12's -Wrestrict misfires on operator[] with a literal).
settings with(settings s, const char* key, const char* value) {
  s.insert_or_assign(key, value);
  return s;
}

setting_values resolved(const settings& s) {
  auto r = resolve(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value().values : setting_values{};
}

// An item of the forward_end phase (every bucket present), or -1 when absent.
double item(const settings& s, const std::string& bucket_key, const std::string& name) {
  auto spec = resolve(s);
  EXPECT_TRUE(spec.ok());
  if (!spec.ok()) return -2;
  for (const auto& r : estimate_stages(spec.value()))
    if (r.peak.phase == "forward_end")
      for (const auto& b : r.buckets)
        if (b.key == bucket_key)
          for (const auto& i : b.items)
            if (i.name == name) return i.bytes;
  return -1;
}

// ---- torchtune (v0.6.1 recipes/configs) ----

settings tune(const char* model, const char* method = "full") {
  return {{"model", model}, {"framework", "torchtune"}, {"finetune", method}};
}

// llama3_1/8B_full_single_device.yaml: PagedAdamW8bit, optimizer_in_bwd True, checkpointing True, compile False.
TEST(profile_switches, torchtune_llama_8b_full_single_device) {
  const setting_values v = resolved(tune("llama-3.1-8b"));
  EXPECT_EQ(v.optimizer, "adamw_8bit");
  EXPECT_EQ(v.optimizer_impl, "paged");
  EXPECT_TRUE(v.optimizer_in_backward);
  EXPECT_EQ(v.recompute, "full");
  EXPECT_EQ(v.compile, "auto");
  EXPECT_EQ(v.loss_impl, "torchtune_chunked");
}

// optimizer._component_=torch.optim.AdamW: torch allocates the states like the bf16 parameters, nothing paged;
// optimizer_in_bwd is a separate switch of the config and stays True.
TEST(profile_switches, torchtune_stated_adamw_is_not_paged) {
  const setting_values v = resolved(with(tune("llama-3.1-8b"), "optimizer", "adamw"));
  EXPECT_EQ(v.optimizer, "adamw");
  EXPECT_EQ(v.optimizer_impl, "fused");
  EXPECT_EQ(v.optimizer_dtype, "bf16");
  EXPECT_TRUE(v.optimizer_in_backward);
}

// Stating the config's own optimizer keeps the config.
TEST(profile_switches, torchtune_stated_8bit_stays_paged) {
  EXPECT_EQ(resolved(with(tune("llama-3.1-8b"), "optimizer", "adamw_8bit")).optimizer_impl, "paged");
}

// compile: True compiles the loss's compute_cross_entropy (training/_compile.py compile_loss); an explicit
// loss_impl still wins (the expert override).
TEST(profile_switches, torchtune_compile_compiles_the_loss) {
  const setting_values on = resolved(with(tune("llama-3.1-8b"), "compile", "on"));
  EXPECT_EQ(on.loss_impl, "torchtune_compiled");
  EXPECT_EQ(on.optimizer_impl, "paged");  // nothing else moves
  EXPECT_EQ(resolved(with(with(tune("llama-3.1-8b"), "compile", "on"), "loss_impl", "torchtune_chunked")).loss_impl,
            "torchtune_chunked");
  EXPECT_EQ(resolved(with(tune("llama-3.1-8b"), "compile", "off")).loss_impl, "torchtune_chunked");
}

// gradient_accumulation_steps 2: the recipe refuses optimizer_in_bwd with accumulation; the optimizer stays.
TEST(profile_switches, torchtune_accumulation_turns_optimizer_in_backward_off) {
  const setting_values v = resolved(with(tune("llama-3.1-8b"), "grad_accum", "2"));
  EXPECT_FALSE(v.optimizer_in_backward);
  EXPECT_EQ(v.optimizer_impl, "paged");
}

// llama3_1/8B_full.yaml (two devices): torch.optim.AdamW fused, optimizer_in_bwd False, checkpointing True.
TEST(profile_switches, torchtune_distributed_full) {
  const setting_values v = resolved(with(tune("llama-3.1-8b"), "devices", "2"));
  EXPECT_EQ(v.optimizer, "adamw");
  EXPECT_EQ(v.optimizer_impl, "fused");
  EXPECT_FALSE(v.optimizer_in_backward);
  EXPECT_EQ(v.recompute, "full");
}

// llama3_1/8B_lora_single_device.yaml: checkpointing True; 8B_lora.yaml (distributed): False.
TEST(profile_switches, torchtune_lora_checkpointing_per_recipe) {
  EXPECT_EQ(resolved(tune("llama-3.1-8b", "lora")).recompute, "full");
  EXPECT_EQ(resolved(with(tune("llama-3.1-8b", "lora"), "devices", "2")).recompute, "none");
  EXPECT_EQ(resolved(tune("llama-3.1-8b", "lora")).optimizer_impl, "fused");
}

// llama3_2/1B_*: enable_activation_checkpointing False in every recipe; the single-device full one still pages
// its 8-bit AdamW in backward.
TEST(profile_switches, torchtune_small_llama_does_not_checkpoint) {
  const setting_values full = resolved(tune("llama-3.2-1b"));
  EXPECT_EQ(full.recompute, "none");
  EXPECT_EQ(full.optimizer_impl, "paged");
  EXPECT_EQ(resolved(tune("llama-3.2-1b", "qlora")).recompute, "none");
  EXPECT_EQ(resolved(with(tune("llama-3.2-1b"), "recompute", "full")).recompute, "full");  // stated wins
}

// qwen2_5/0.5B_full_single_device.yaml: torch.optim.AdamW fused, optimizer_in_bwd False, checkpointing False.
TEST(profile_switches, torchtune_qwen_half_b_full_single_device) {
  const setting_values v = resolved(tune("qwen2.5-0.5b"));
  EXPECT_EQ(v.optimizer, "adamw");
  EXPECT_EQ(v.optimizer_impl, "fused");
  EXPECT_EQ(v.optimizer_dtype, "bf16");
  EXPECT_FALSE(v.optimizer_in_backward);
  EXPECT_EQ(v.recompute, "none");
}

// qwen2_5/7B_full_single_device.yaml: bitsandbytes.optim.PagedAdamW (32-bit states, paged) in backward; stating
// torch's AdamW unpages it.
TEST(profile_switches, torchtune_paged_32bit_adamw) {
  const setting_values v = resolved(tune("qwen2.5-7b"));
  EXPECT_EQ(v.optimizer, "adamw");
  EXPECT_EQ(v.optimizer_impl, "paged");
  EXPECT_EQ(v.optimizer_dtype, "fp32");
  EXPECT_TRUE(v.optimizer_in_backward);
  const setting_values torch_adamw = resolved(with(tune("qwen2.5-7b"), "optimizer", "adamw"));
  EXPECT_EQ(torch_adamw.optimizer_impl, "fused");
  EXPECT_EQ(torch_adamw.optimizer_dtype, "bf16");
}

// Llama 3.1 8B, torchtune full, b 1, s 2048, optimizer stated AdamW: the bf16 Adam states are allocated,
// 2 x 2 B x Ψ = 4 x 8,030,261,248 = 32,121,044,992 (before the fix they were paged, outside allocated).
TEST(profile_switches, torchtune_stated_adamw_states_are_allocated) {
  const settings s = with(tune("llama-3.1-8b"), "optimizer", "adamw");
  EXPECT_EQ(item(s, "optimizer", "bf16 Adam first moment (m)") + item(s, "optimizer", "bf16 Adam second moment (v)"),
            32121044992.0);
}

// ---- HF Trainer (transformers <= 4.57 from_pretrained, TrainingArguments bf16=True) ----

settings hf(const char* method = "full") {
  return {{"model", "llama-3.1-8b"}, {"framework", "hf"}, {"finetune", method}};
}

// Nothing stated: fp32 load (from_pretrained's default) + bf16=True: bf16 autocast over fp32 weights.
TEST(profile_switches, hf_default_is_fp32_load_under_bf16_autocast) {
  const setting_values v = resolved(hf());
  EXPECT_EQ(v.weights_dtype, "fp32");
  EXPECT_EQ(v.autocast, "bf16");
}

// torch_dtype=torch.bfloat16 + bf16=True: pure bf16, AdamW states in the parameters' dtype, no master copy.
TEST(profile_switches, hf_bf16_load_is_pure_bf16) {
  const setting_values v = resolved(with(hf(), "weights_dtype", "bf16"));
  EXPECT_FALSE(v.master_weights);
  EXPECT_EQ(v.optimizer_dtype, "bf16");
  EXPECT_EQ(v.autocast, "bf16");
  // No master copy: 4 x Ψ bf16 states (m, v) = 32,121,044,992 and nothing else in the optimizer bucket.
  const settings s = with(hf(), "weights_dtype", "bf16");
  EXPECT_EQ(item(s, "optimizer", "fp32 master weights"), -1);
  EXPECT_EQ(item(s, "optimizer", "bf16 Adam first moment (m)"), 16060522496.0);
}

// fp16 load: pure fp16 (fp16 states, no master copy).
TEST(profile_switches, hf_fp16_load_is_pure_fp16) {
  const setting_values v = resolved(with(hf(), "weights_dtype", "fp16"));
  EXPECT_FALSE(v.master_weights);
  EXPECT_EQ(v.optimizer_dtype, "fp16");
  EXPECT_EQ(v.autocast, "fp16");
}

// Stated fp32 without bf16=True trains in fp32; fp16=True over it is fp16 AMP (fp32 weights are the master).
TEST(profile_switches, hf_stated_fp32_turns_autocast_off_unless_asked) {
  EXPECT_EQ(resolved(with(hf(), "weights_dtype", "fp32")).autocast, "off");
  EXPECT_EQ(resolved(with(with(hf(), "weights_dtype", "fp32"), "autocast", "fp16")).autocast, "fp16");
  EXPECT_EQ(resolved(with(with(hf(), "weights_dtype", "fp32"), "autocast", "bf16")).autocast, "bf16");
}

// LoRA: the load dtype is the frozen base's; the fp32 adapters and bf16 autocast stay.
TEST(profile_switches, hf_lora_load_dtype_keeps_the_recipe) {
  const setting_values v = resolved(with(hf("lora"), "weights_dtype", "bf16"));
  EXPECT_EQ(v.autocast, "bf16");
  EXPECT_EQ(v.adapter_dtype, "fp32");
}

// transformers_version: >= 4.54 SDPA with enable_gqa (PR #39412); 4.46-4.53 SDPA with repeat_kv; 4.36-4.45 the same
// with the legacy loss (logits upcast in the model); before 4.36 eager attention (SDPA default from v4.36.0).
TEST(profile_switches, hf_transformers_version_moves_attention_and_loss) {
  EXPECT_EQ(resolved(hf()).attention, "sdpa_gqa");
  EXPECT_EQ(resolved(hf()).loss_impl, "hf");
  const setting_values v446 = resolved(with(hf(), "transformers_version", "4.46"));
  EXPECT_EQ(v446.attention, "sdpa");
  EXPECT_EQ(v446.loss_impl, "hf");
  const setting_values v436 = resolved(with(hf(), "transformers_version", "4.36"));
  EXPECT_EQ(v436.attention, "sdpa");
  EXPECT_EQ(v436.loss_impl, "hf_legacy");
  const setting_values v435 = resolved(with(hf(), "transformers_version", "4.35"));
  EXPECT_EQ(v435.attention, "eager");
  EXPECT_EQ(v435.loss_impl, "hf_legacy");
  EXPECT_EQ(resolved(with(with(hf(), "transformers_version", "4.35"), "attention", "flash")).attention, "flash");
}

// ---- torch.compile ----

// HF full, Llama 3.1 8B, b 1, s 2048 (T = 2048), bf16 autocast over fp32 weights, torch_compile=True. Saved per
// layer (the eager HF-2 derivation in frameworks_test.cpp, fused): norms 2 x 2·T·h = 33,554,432 (16-bit input
// only); one shared input copy for q/k/v 2·T·h = 16,777,216; q 16,777,216; k + v 8,388,608; SDPA output
// 16,777,216; LSE 4·32·T = 262,144; one gate/up input copy 16,777,216; gate and up 2 x 2·T·14336 = 117,440,512
// (silu and the product recomputed) -> 226,754,560; x 32 = 7,256,145,920. The autocast weight copies are
// recomputed from the fp32 weights, not kept.
TEST(profile_switches, hf_compile_fuses_norms_mlp_and_casts) {
  settings s = hf();
  s.insert_or_assign("seq", "2048");
  s.insert_or_assign("compile", "on");
  EXPECT_EQ(item(s, "activations", "transformer layers"), 7256145920.0);
  EXPECT_EQ(item(s, "parameters", "16-bit autocast copies of the trained matrices"), -1);
}

// The same run with a plain MLP (up, act, down; i 14336), compiled: per layer norms 33,554,432 + one q/k/v input
// copy 16,777,216 + q 16,777,216 + k, v 8,388,608 + SDPA output 16,777,216 + LSE 262,144 + one up input copy
// 16,777,216 + the activation's input 2·T·14336 = 58,720,256 (its output, down_proj's input, recomputed)
// = 168,034,304; x 32 = 5,377,097,728.
TEST(profile_switches, compile_plain_mlp_keeps_the_activation_input_only) {
  settings s = hf();
  s.insert_or_assign("seq", "2048");
  s.insert_or_assign("compile", "on");
  s.insert_or_assign("mlp", "plain");
  EXPECT_EQ(item(s, "activations", "transformer layers"), 5377097728.0);
}

}  // namespace
