// SPDX-License-Identifier: MIT
// Issue 35 item 1: every framework profile beside torchtune and the HF Trainer (profile_switches_test.cpp) stays
// coherent when one of its switches is changed alone: the resolved state is what the framework itself runs with,
// read from its code and cited beside each expectation (frameworks/<name>.cpp; docs/methodology.md, "Profiles").
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/resolve.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::resolved;

settings run(const char* framework, const char* method = "full") {
  return {{"model", "llama-3.1-8b"}, {"framework", framework}, {"finetune", method}, {"seq", "2048"}};
}

settings with(settings s, const char* key, const char* value) {
  s.insert_or_assign(key, value);
  return s;
}

// ---- DeepSpeed (through the HF Trainer) ----

// bf16 "auto" in the config: the engine casts the module to bf16 (runtime/engine.py _configure_distributed_model,
// `self.module.bfloat16()`), so nothing is autocast; ZeRO-1/2 keep the fp32 master in the optimizer; ZeRO-3
// allocates its gradient partitions at init (stage3.py grad_partitions_flat_buffer): resident from the start.
TEST(profile_switches_stacks, deepspeed_zero_stage_and_method) {
  const run_spec z2 = resolved(with(with(run("deepspeed"), "devices", "8"), "zero", "2"));
  EXPECT_EQ(z2.weights, dtype::bf16);
  EXPECT_EQ(z2.values.autocast, "off");
  EXPECT_TRUE(z2.values.master_weights);
  EXPECT_EQ(z2.values.grad_lifetime, "freed");
  const run_spec z3 = resolved(with(with(run("deepspeed"), "devices", "8"), "zero", "3"));
  EXPECT_EQ(z3.values.grad_lifetime, "resident");
  // QLoRA keeps the Trainer's recipe: nf4 base, checkpointing, paged 8-bit AdamW (hf.cpp hf_recipe).
  const run_spec q = resolved(with(run("deepspeed", "qlora"), "devices", "2"));
  EXPECT_EQ(q.values.weights_dtype, "nf4");
  EXPECT_EQ(q.recompute, recompute_policy::full);
  EXPECT_EQ(q.values.optimizer, "adamw_8bit");
}

// ---- FSDP (accelerate / the Trainer's fsdp_config, bf16 weights) ----

// One device: no sharding (zero 0); from two, FULL_SHARD (zero 3). The model is loaded and kept in bf16 (no
// autocast, no master copy, AdamW states like the bf16 parameters); QLoRA loads the base in nf4.
TEST(profile_switches_stacks, fsdp_devices_and_method) {
  EXPECT_EQ(resolved(run("fsdp")).values.zero, 0);
  const run_spec eight = resolved(with(run("fsdp"), "devices", "8"));
  EXPECT_EQ(eight.values.zero, 3);
  EXPECT_EQ(eight.weights, dtype::bf16);
  EXPECT_FALSE(eight.values.master_weights);
  EXPECT_EQ(eight.values.optimizer_dtype, "bf16");
  EXPECT_EQ(eight.values.autocast, "off");
  EXPECT_EQ(resolved(with(run("fsdp", "qlora"), "devices", "2")).values.weights_dtype, "nf4");
  // A stated stage wins over the profile's: zero 0 on 8 devices is DDP (NO_SHARD), one replica per device.
  EXPECT_EQ(resolved(with(with(run("fsdp"), "devices", "8"), "zero", "0")).values.zero, 0);
}

// ---- LitGPT ----

// finetune/*.py: one device runs no checkpointing; from two the FSDP strategy wraps each Block in
// activation_checkpointing_policy={Block} (recompute full). A stated recompute wins.
TEST(profile_switches_stacks, litgpt_devices_switch_checkpointing) {
  EXPECT_EQ(resolved(run("litgpt", "lora")).recompute, recompute_policy::none);
  EXPECT_EQ(resolved(with(run("litgpt", "lora"), "devices", "4")).recompute, recompute_policy::full);
  EXPECT_EQ(resolved(with(with(run("litgpt", "lora"), "devices", "4"), "recompute", "none")).recompute,
            recompute_policy::none);
  const run_spec r = resolved(run("litgpt", "lora"));
  EXPECT_EQ(r.values.lora_dropout, 0.05);
  EXPECT_EQ(r.values.optimizer_impl, "foreach");
  EXPECT_EQ(r.loss, loss_kind::litgpt);
}

// ---- Megatron-LM ----

// --use-distributed-optimizer shards the fp32 main parameters and Adam over data parallelism (zero 1) only when there
// is more than one device; fp32 main gradients stay resident (--accumulate-allreduce-grads-in-fp32); sequence
// parallelism is off unless --sequence-parallel is given, and then on.
TEST(profile_switches_stacks, megatron_devices_and_sequence_parallel) {
  EXPECT_EQ(resolved(run("megatron")).values.zero, 0);
  const run_spec eight = resolved(with(run("megatron"), "devices", "8"));
  EXPECT_EQ(eight.values.zero, 1);
  EXPECT_EQ(eight.values.grads_dtype, "fp32");
  EXPECT_EQ(eight.values.grad_lifetime, "resident");
  EXPECT_FALSE(eight.values.sequence_parallel);
  EXPECT_TRUE(
      resolved(with(with(run("megatron"), "devices", "8"), "sequence_parallel", "on")).values.sequence_parallel);
}

// ---- LLaMA-Factory ----

// model_args.py disable_gradient_checkpointing = False: every method checkpoints; a stated recompute none is
// `disable_gradient_checkpointing: true`. QLoRA: nf4 + double quant, the Trainer's adamw_torch (fused) and no
// prepare_model_for_kbit_training upcast. With a ds_z*_config.json (zero >= 1) DeepSpeed's engine runs the model in
// bf16 without autocast; at ZeRO-3 its gradient partitions are resident.
TEST(profile_switches_stacks, llamafactory_method_zero_and_checkpointing) {
  EXPECT_EQ(resolved(run("llamafactory", "lora")).recompute, recompute_policy::full);
  EXPECT_EQ(resolved(with(run("llamafactory", "lora"), "recompute", "none")).recompute, recompute_policy::none);
  const run_spec q = resolved(run("llamafactory", "qlora"));
  EXPECT_EQ(q.values.weights_dtype, "nf4");
  EXPECT_EQ(q.values.optimizer, "adamw");
  EXPECT_EQ(q.values.optimizer_impl, "fused");
  EXPECT_FALSE(q.values.qlora_upcast);
  // Full without DeepSpeed: the Trainer's fp32 load under bf16 autocast.
  const run_spec full = resolved(run("llamafactory"));
  EXPECT_EQ(full.weights, dtype::fp32);
  EXPECT_EQ(full.values.autocast, "bf16");
  const run_spec z3 = resolved(with(with(run("llamafactory"), "devices", "8"), "zero", "3"));
  EXPECT_EQ(z3.weights, dtype::bf16);
  EXPECT_EQ(z3.values.autocast, "off");
  EXPECT_EQ(z3.values.grad_lifetime, "resident");
  EXPECT_EQ(resolved(with(with(run("llamafactory"), "devices", "8"), "zero", "2")).values.grad_lifetime, "freed");
}

// ---- axolotl ----

// Its Llama 3 examples: full (fft-8b.yaml) is pure bf16 with paged 8-bit AdamW; LoRA (lora-8b.yml) adamw_bnb_8bit,
// not paged; QLoRA (qlora.yml) paged_adamw_32bit. With a deepspeed_configs/zero*_bf16.json the engine keeps an fp32
// master partition; zero3_bf16.json sets stage3_max_live_parameters 0.
TEST(profile_switches_stacks, axolotl_method_and_deepspeed) {
  const run_spec full = resolved(run("axolotl"));
  EXPECT_FALSE(full.values.master_weights);
  EXPECT_EQ(full.values.optimizer, "adamw_8bit");
  EXPECT_EQ(full.values.optimizer_impl, "paged");
  const run_spec lora = resolved(run("axolotl", "lora"));
  EXPECT_EQ(lora.values.optimizer, "adamw_8bit");
  EXPECT_NE(lora.values.optimizer_impl, "paged");
  const run_spec q = resolved(run("axolotl", "qlora"));
  EXPECT_EQ(q.values.optimizer, "adamw");
  EXPECT_EQ(q.values.optimizer_impl, "paged");
  EXPECT_FALSE(q.values.qlora_upcast);
  const run_spec z1 = resolved(with(with(run("axolotl"), "devices", "8"), "zero", "1"));
  EXPECT_TRUE(z1.values.master_weights);
  EXPECT_EQ(z1.weights, dtype::bf16);
  EXPECT_EQ(z1.values.stage3_max_live_parameters, 1e9);  // the table default: only zero3_bf16.json sets 0
  const run_spec z3 = resolved(with(with(run("axolotl"), "devices", "8"), "zero", "3"));
  EXPECT_EQ(z3.values.stage3_max_live_parameters, 0);
  EXPECT_EQ(z3.values.grad_lifetime, "resident");
}

// ---- Unsloth ----

// A full fine-tune (full_finetuning=True) runs no "unsloth" offloaded checkpointing: recompute and offload off; the
// adapter methods keep both. (The release switch is framework_stacks.unsloth_versions_and_plain_checkpointing.)
TEST(profile_switches_stacks, unsloth_full_turns_checkpointing_off) {
  const run_spec full = resolved(run("unsloth"));
  EXPECT_EQ(full.recompute, recompute_policy::none);
  EXPECT_EQ(full.activation_offload, offload_activations::none);
  const run_spec q = resolved(run("unsloth", "qlora"));
  EXPECT_EQ(q.recompute, recompute_policy::full);
  EXPECT_EQ(q.activation_offload, offload_activations::full);
  EXPECT_EQ(resolved(with(run("unsloth", "qlora"), "unsloth_version", "2024.1")).activation_offload,
            offload_activations::none);
}

// ---- torchtitan ----

// ActivationCheckpoint.mode: "full" checkpoints each block whole, "none" keeps every tensor, selective_ac_option N
// is layer-level; compile on keeps the op policy (torchtitan_sac.compile_*); one device autocasts the fp32 model,
// several shard it (framework_stacks.torchtitan_*).
TEST(profile_switches_stacks, torchtitan_checkpoint_mode_and_compile) {
  const settings eight = with(run("torchtitan"), "devices", "8");
  EXPECT_EQ(resolved(eight).recompute, recompute_policy::selective);
  EXPECT_EQ(resolved(with(eight, "recompute", "full")).recompute, recompute_policy::full);
  EXPECT_EQ(resolved(with(eight, "recompute", "none")).recompute, recompute_policy::none);
  EXPECT_EQ(resolved(with(eight, "selective_ac_option", "2")).layer_sac, 2);
  const run_spec compiled = resolved(with(eight, "compile", "on"));
  EXPECT_TRUE(compiled.compiled);
  EXPECT_EQ(compiled.recompute, recompute_policy::selective);
  EXPECT_EQ(compiled.loss, loss_kind::compiled);  // >= v0.1.0 compiles the loss with the model
  EXPECT_EQ(compiled.values.zero, 3);
  // 9dec370 leaves the loss eager (train.py l.136-138): torchtitan_version 0.0 (torchtitan_version.*).
  EXPECT_EQ(resolved(with(with(eight, "compile", "on"), "torchtitan_version", "0.0")).loss, loss_kind::hf);
}

// ---- generic ----

// The textbook profile sets nothing: the table's defaults stay whatever else changes (no sharding from the device
// count, no recipe), and compile = on applies the same compiled rules as everywhere.
TEST(profile_switches_stacks, generic_keeps_the_table_defaults) {
  const run_spec one = resolved(run("generic"));
  const run_spec eight = resolved(with(run("generic"), "devices", "8"));
  EXPECT_EQ(eight.values.zero, 0);
  EXPECT_EQ(eight.weights, one.weights);
  EXPECT_EQ(eight.recompute, recompute_policy::none);
  EXPECT_EQ(eight.values.optimizer_impl, one.values.optimizer_impl);
  EXPECT_TRUE(resolved(with(run("generic"), "compile", "on")).compiled);
  EXPECT_FALSE(one.compiled);
}

}  // namespace
