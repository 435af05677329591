// SPDX-License-Identifier: MIT
// Training recipes in (launch.hpp read_launch, docs/readers.md "Training recipes"): each format told apart by its
// keys, each key read into its setting or listed as ignored, bad values named by their key, files combined.
// The expectations are the recipes' own values, mapped by the rules of docs/readers.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "llm_memory/launch.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::ignored;
using test::noted;
using test::value_of;

// torchtune's qlora_ builders and the 3B config's switches (recipes/configs/llama3_2/3B_qlora_single_device.yaml
// keys): the builder names the method and the preset; compile -> the compiled loss (docs/validation.md).
TEST(Recipes, TorchtuneQloraBuilderAndSwitches) {
  const auto r = read_launch(
      "model:\n  _component_: torchtune.models.llama3_2.qlora_llama3_2_3b\n  lora_attn_modules: ['q_proj', 'v_proj']\n"
      "  apply_lora_to_mlp: False\n  lora_rank: 64\ntokenizer:\n  max_seq_len: 4096\nbatch_size: 4\n"
      "optimizer:\n  _component_: bitsandbytes.optim.PagedAdamW8bit\noptimizer_in_bwd: True\ncompile: True\n"
      "enable_activation_offloading: True\ndtype: bf16\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(r.command, "torchtune config");
  EXPECT_EQ(value_of(r, "framework"), "torchtune");
  EXPECT_EQ(value_of(r, "finetune"), "qlora");
  EXPECT_EQ(value_of(r, "model"), "llama-3.2-3b");
  EXPECT_EQ(value_of(r, "lora_targets"), "q_proj,v_proj");
  EXPECT_EQ(value_of(r, "lora_rank"), "64");
  EXPECT_EQ(value_of(r, "seq"), "4096");
  EXPECT_EQ(value_of(r, "batch"), "4");
  EXPECT_EQ(value_of(r, "optimizer"), "adamw_8bit");
  EXPECT_EQ(value_of(r, "optimizer_impl"), "paged");
  EXPECT_EQ(value_of(r, "optimizer_in_backward"), "on");
  EXPECT_EQ(value_of(r, "compile"), "on");  // the profile then picks torchtune_compiled (frameworks/torchtune.cpp)
  EXPECT_EQ(value_of(r, "loss_impl"), "(unset)");  // left to the profile, which also fuses the compiled norms
  EXPECT_EQ(value_of(r, "activation_offload"), "prefetched");
  EXPECT_EQ(value_of(r, "weights_dtype"), "(unset)");  // bf16 is the compute dtype: the QLoRA base stays nf4
  EXPECT_TRUE(noted(r, "QLoRA base stays nf4"));
}

// `compile: False` (the shipped configs' value) is read as stated, not ignored: compile stays off.
TEST(Recipes, TorchtuneCompileFalseIsOff) {
  const auto r = read_launch("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ncompile: False\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(value_of(r, "compile"), "off");
  EXPECT_EQ(value_of(r, "loss_impl"), "(unset)");
}

TEST(Recipes, TorchtuneBadValueNamesItsKey) {
  const auto r = read_launch("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: two\n");
  ASSERT_EQ(r.errors.size(), 1U);
  EXPECT_EQ(r.errors[0].setting, "batch_size");
  EXPECT_NE(r.errors[0].message.find("batch: "), std::string::npos);
}

// axolotl's qlora.yml keys (examples/llama-3/qlora.yml): adapter qlora, load_in_4bit, lora_target_modules.
TEST(Recipes, AxolotlQlora) {
  const auto r = read_launch(
      "base_model: meta-llama/Llama-3.2-1B\nload_in_4bit: true\nadapter: qlora\nlora_r: 32\n"
      "lora_target_modules:\n  - q_proj\n  - v_proj\nsequence_len: 2048\nmicro_batch_size: 2\n"
      "optimizer: paged_adamw_8bit\nbf16: auto\ndeepspeed: deepspeed_configs/zero2.json\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(r.command, "axolotl config");
  EXPECT_EQ(value_of(r, "model"), "llama-3.2-1b");
  EXPECT_EQ(value_of(r, "finetune"), "qlora");
  EXPECT_EQ(value_of(r, "weights_dtype"), "nf4");  // bf16: auto leaves the 4-bit base alone
  EXPECT_EQ(value_of(r, "lora_targets"), "q_proj,v_proj");
  EXPECT_EQ(value_of(r, "optimizer"), "adamw_8bit");
  EXPECT_EQ(value_of(r, "optimizer_impl"), "paged");
  EXPECT_EQ(value_of(r, "framework"), "deepspeed");  // the run is DeepSpeed's; its file is another --from
  EXPECT_TRUE(noted(r, "deepspeed_configs/zero2.json"));
}

// LLaMA-Factory: quantization_bit 4 + lora is QLoRA; stage dpo is noted (the reference model is not modelled).
TEST(Recipes, LlamaFactoryQloraAndStage) {
  const auto r = read_launch(
      "model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: dpo\nfinetuning_type: lora\nquantization_bit: 4\n"
      "lora_rank: 8\nlora_target: q_proj,v_proj\nflash_attn: fa2\ndisable_gradient_checkpointing: true\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(r.command, "LLaMA-Factory config");
  EXPECT_EQ(value_of(r, "model"), "qwen2.5-7b");
  EXPECT_EQ(value_of(r, "finetune"), "qlora");
  EXPECT_EQ(value_of(r, "weights_dtype"), "nf4");
  EXPECT_EQ(value_of(r, "attention"), "flash");
  EXPECT_EQ(value_of(r, "recompute"), "none");
  EXPECT_TRUE(noted(r, "stage dpo"));
  EXPECT_TRUE(noted(r, "LLaMA-Factory has no profile of its own yet"));
}

// DeepSpeed's ZeRO-3 offload config (DeepSpeed docs "ZeRO-Infinity": offload_param and offload_optimizer cpu).
TEST(Recipes, DeepSpeedOffloadAndAuto) {
  const auto r = read_launch(
      "{\"zero_optimization\": {\"stage\": 3, \"offload_optimizer\": {\"device\": \"cpu\"},"
      " \"offload_param\": {\"device\": \"cpu\"}}, \"bf16\": {\"enabled\": true},"
      " \"train_micro_batch_size_per_gpu\": 4, \"gradient_accumulation_steps\": \"auto\"}");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(r.command, "DeepSpeed config");
  EXPECT_EQ(value_of(r, "framework"), "deepspeed");
  EXPECT_EQ(value_of(r, "zero"), "3");
  EXPECT_EQ(value_of(r, "offload"), "optimizer+params");
  EXPECT_EQ(value_of(r, "weights_dtype"), "bf16");
  EXPECT_EQ(value_of(r, "batch"), "4");
  EXPECT_EQ(value_of(r, "grad_accum"), "(unset)");
  EXPECT_TRUE(ignored(r, "gradient_accumulation_steps"));
}

// accelerate's FSDP1 sharding names: SHARD_GRAD_OP is ZeRO-2; DEEPSPEED with its plugin's keys.
TEST(Recipes, AccelerateShardingAndDeepSpeedPlugin) {
  const auto fsdp = read_launch(
      "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n"
      "  fsdp_offload_params: true\n");
  ASSERT_TRUE(fsdp.errors.empty());
  EXPECT_EQ(value_of(fsdp, "framework"), "fsdp");
  EXPECT_EQ(value_of(fsdp, "zero"), "2");
  EXPECT_EQ(value_of(fsdp, "devices"), "4");
  EXPECT_EQ(value_of(fsdp, "offload"), "optimizer+params");
  const auto ds = read_launch(
      "compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n  zero_stage: 2\n  offload_optimizer_device: cpu\n"
      "distributed_type: DEEPSPEED\n");
  ASSERT_TRUE(ds.errors.empty());
  EXPECT_EQ(value_of(ds, "framework"), "deepspeed");
  EXPECT_EQ(value_of(ds, "zero"), "2");
  EXPECT_EQ(value_of(ds, "offload"), "optimizer");
}

// TrainingArguments as JSON, and `python train.py` flags (HfArgumentParser: a bare flag is true).
TEST(Recipes, TrainingArgumentsJsonAndScriptFlags) {
  const auto json = read_launch(
      "{\"per_device_train_batch_size\": 8, \"gradient_checkpointing\": true, \"optim\": \"adamw_torch\","
      " \"fsdp\": \"full_shard auto_wrap offload\", \"torch_dtype\": \"bfloat16\"}");
  ASSERT_TRUE(json.errors.empty());
  EXPECT_EQ(json.command, "TrainingArguments");
  EXPECT_EQ(value_of(json, "batch"), "8");
  EXPECT_EQ(value_of(json, "recompute"), "full");
  EXPECT_EQ(value_of(json, "optimizer_impl"), "foreach");
  EXPECT_EQ(value_of(json, "framework"), "fsdp");
  EXPECT_EQ(value_of(json, "offload"), "optimizer+params");
  EXPECT_EQ(value_of(json, "weights_dtype"), "bf16");
  const auto flags = read_launch(
      "torchrun --nproc_per_node 8 train.py --model_name_or_path meta-llama/Llama-3.1-8B --bf16 --max-length=4096 "
      "--deepspeed ds_z3.json extra");
  ASSERT_TRUE(flags.errors.empty());
  EXPECT_EQ(flags.command, "torchrun");
  EXPECT_EQ(value_of(flags, "devices"), "8");
  EXPECT_EQ(value_of(flags, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(flags, "autocast"), "bf16");
  EXPECT_EQ(value_of(flags, "seq"), "4096");
  EXPECT_EQ(value_of(flags, "framework"), "deepspeed");
  EXPECT_TRUE(ignored(flags, "extra"));
}

TEST(Recipes, UnknownDocumentAndBadYamlAreErrors) {
  const auto unknown = read_launch("name: run\nsteps: 3\n");
  ASSERT_EQ(unknown.errors.size(), 1U);
  EXPECT_EQ(unknown.errors[0].setting, "document");
  const auto anchor = read_launch("base_model: &m x\nadapter: lora\n");
  ASSERT_EQ(anchor.errors.size(), 1U);
  EXPECT_EQ(anchor.errors[0].setting, "line 1");
  const auto not_json = read_launch("{\"zero_optimization\": ");
  ASSERT_EQ(not_json.errors.size(), 1U);
  EXPECT_EQ(not_json.errors[0].setting, "document");
}

// Two files: the later one's setting wins, the earlier entry stays marked overridden, each names its file.
TEST(Recipes, CombinedFilesLaterWins) {
  const auto a =
      read_launch("model_name_or_path: Qwen/Qwen2.5-7B\nfinetuning_type: lora\nper_device_train_batch_size: 2\n");
  const auto b = read_launch("{\"train_micro_batch_size_per_gpu\": 4, \"zero_optimization\": {\"stage\": 2}}");
  const auto both = combine_launches({{"a.yaml", a}, {"ds.json", b}});
  ASSERT_TRUE(both.errors.empty());
  EXPECT_EQ(both.command, "a.yaml (LLaMA-Factory config) + ds.json (DeepSpeed config)");
  EXPECT_EQ(value_of(both, "batch"), "4");
  EXPECT_EQ(value_of(both, "framework"), "deepspeed");
  EXPECT_EQ(value_of(both, "finetune"), "lora");
  const auto first_batch =
      std::find_if(both.read.begin(), both.read.end(), [](const launch_option& o) { return o.setting == "batch"; });
  ASSERT_NE(first_batch, both.read.end());
  EXPECT_EQ(first_batch->file, "a.yaml");
  EXPECT_TRUE(first_batch->overridden);
  EXPECT_TRUE(noted(both, "a.yaml: LLaMA-Factory has no profile"));
  const auto one = combine_launches({{"a.yaml", a}});
  EXPECT_TRUE(one.read.front().file.empty());  // one file: its read unchanged
}

}  // namespace
