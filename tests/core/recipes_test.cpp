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

// Unsloth's notebook script (the Llama 3.1 8B Alpaca notebook's cells, as unslothai/unsloth's README quotes them):
// module-level max_seq_length and load_in_4bit passed by name, get_peft_model with r 16 on the seven projections,
// "unsloth" checkpointing, TrainingArguments with batch 2, accumulation 4, adamw_8bit; bf16 =
// is_bfloat16_supported() is an expression, not read.
TEST(Recipes, UnslothNotebookScript) {
  const auto r = read_launch(
      "from unsloth import FastLanguageModel\nimport torch\n"
      "max_seq_length = 2048 # Choose any! We auto support RoPE Scaling internally!\n"
      "dtype = None\nload_in_4bit = True # Use 4bit quantization to reduce memory usage. Can be False.\n\n"
      "model, tokenizer = FastLanguageModel.from_pretrained(\n    model_name = \"unsloth/Meta-Llama-3.1-8B\",\n"
      "    max_seq_length = max_seq_length,\n    dtype = dtype,\n    load_in_4bit = load_in_4bit,\n)\n"
      "model = FastLanguageModel.get_peft_model(\n    model,\n    r = 16, # Choose any number >0 !\n"
      "    target_modules = [\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\",\n"
      "                      \"gate_proj\", \"up_proj\", \"down_proj\",],\n    lora_alpha = 16,\n"
      "    lora_dropout = 0, # Supports any, but = 0 is optimized\n    bias = \"none\",\n"
      "    use_gradient_checkpointing = \"unsloth\", # True or \"unsloth\" for very long context\n"
      "    random_state = 3407,\n)\n"
      "trainer = SFTTrainer(\n    model = model,\n    args = TrainingArguments(\n"
      "        per_device_train_batch_size = 2,\n        gradient_accumulation_steps = 4,\n"
      "        learning_rate = 2e-4,\n        fp16 = not is_bfloat16_supported(),\n"
      "        bf16 = is_bfloat16_supported(),\n        optim = \"adamw_8bit\",\n        output_dir = \"outputs\",\n"
      "    ),\n)\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(r.command, "Unsloth script");
  EXPECT_EQ(value_of(r, "mode"), "train");
  EXPECT_EQ(value_of(r, "framework"), "unsloth");
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "seq"), "2048");
  EXPECT_EQ(value_of(r, "finetune"), "qlora");  // get_peft_model over the 4-bit load
  EXPECT_EQ(value_of(r, "weights_dtype"), "nf4");
  EXPECT_EQ(value_of(r, "lora_rank"), "16");
  EXPECT_EQ(value_of(r, "lora_dropout"), "0");
  EXPECT_EQ(value_of(r, "lora_targets"), "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj");
  EXPECT_EQ(value_of(r, "recompute"), "full");
  EXPECT_EQ(value_of(r, "activation_offload"), "full");
  EXPECT_EQ(value_of(r, "batch"), "2");
  EXPECT_EQ(value_of(r, "grad_accum"), "4");
  EXPECT_EQ(value_of(r, "optimizer"), "adamw_8bit");
  EXPECT_FALSE(r.values.contains("autocast"));  // an expression: the profile's
  // Without load_in_4bit, from_pretrained's default (True) is read; full_finetuning turns it off.
  const auto plain = read_launch(
      "model, tok = FastLanguageModel.from_pretrained(model_name = \"Qwen/Qwen2.5-7B\")\n"
      "model = FastLanguageModel.get_peft_model(model, r = 8)\n");
  EXPECT_EQ(value_of(plain, "weights_dtype"), "nf4");
  EXPECT_EQ(value_of(plain, "finetune"), "qlora");
  const auto full = read_launch(
      "model, tok = FastLanguageModel.from_pretrained(model_name = 'Qwen/Qwen2.5-7B', load_in_4bit = True, "
      "full_finetuning = True)\n");
  EXPECT_EQ(value_of(full, "finetune"), "full");
  EXPECT_FALSE(full.values.contains("weights_dtype"));
}

// Hostile Python: an unterminated string, a list that never closes, a value that is an expression: no crash, no
// value read from them.
TEST(Recipes, UnslothScriptHostileInput) {
  const auto r = read_launch(
      "FastLanguageModel.from_pretrained(model_name = 'unterminated\n r = [1, 2, \n"
      "max_seq_length = 2 * 1024\n");
  EXPECT_EQ(r.command, "Unsloth script");
  EXPECT_FALSE(r.values.contains("seq"));
  EXPECT_FALSE(r.values.contains("lora_rank"));
  EXPECT_FALSE(r.values.contains("model"));
  std::string deep = "FastLanguageModel.from_pretrained(\ntarget_modules = [";
  for (int i = 0; i < 5000; ++i) deep += "'q_proj', ";
  const auto big = read_launch(deep + "]\n");
  EXPECT_FALSE(big.values.contains("lora_targets"));  // more items than the reader takes
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
  // axolotl's own profile (frameworks/axolotl.cpp), which runs DeepSpeed's engine from the stage the named file
  // gives (another --from).
  EXPECT_EQ(value_of(r, "framework"), "axolotl");
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
  EXPECT_EQ(value_of(r, "framework"), "llamafactory");  // its own profile (frameworks/llamafactory.cpp)
  EXPECT_FALSE(noted(r, "has no profile of its own"));
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

// Two files: the later one's setting wins, the earlier entry stays marked overridden, each names its file; but a
// DeepSpeed config leaves LLaMA-Factory's framework, whose profile runs DeepSpeed's engine from that stage.
TEST(Recipes, CombinedFilesLaterWins) {
  const auto a =
      read_launch("model_name_or_path: Qwen/Qwen2.5-7B\nfinetuning_type: lora\nper_device_train_batch_size: 2\n");
  const auto b = read_launch("{\"train_micro_batch_size_per_gpu\": 4, \"zero_optimization\": {\"stage\": 2}}");
  const auto both = combine_launches({{"a.yaml", a}, {"ds.json", b}});
  ASSERT_TRUE(both.errors.empty());
  EXPECT_EQ(both.command, "a.yaml (LLaMA-Factory config) + ds.json (DeepSpeed config)");
  EXPECT_EQ(value_of(both, "batch"), "4");
  EXPECT_EQ(value_of(both, "framework"), "llamafactory");
  EXPECT_EQ(value_of(both, "zero"), "2");
  EXPECT_EQ(value_of(both, "finetune"), "lora");
  const auto kept = std::find_if(both.ignored.begin(), both.ignored.end(),
                                 [](const launch_ignored& i) { return i.option == "DeepSpeed config"; });
  ASSERT_NE(kept, both.ignored.end());
  EXPECT_EQ(kept->file, "ds.json");
  EXPECT_NE(kept->why.find("framework llamafactory stays"), std::string::npos) << kept->why;
  // The other order: the recipe, later, sets its framework as any later file does.
  EXPECT_EQ(value_of(combine_launches({{"ds.json", b}, {"a.yaml", a}}), "framework"), "llamafactory");
  // A TRL command's framework (hf) has no DeepSpeed engine: the DeepSpeed config's framework wins.
  const auto trl = read_launch("trl sft --model_name_or_path Qwen/Qwen2.5-7B --per_device_train_batch_size 2");
  EXPECT_EQ(value_of(combine_launches({{"trl.sh", trl}, {"ds.json", b}}), "framework"), "deepspeed");
  const auto first_batch =
      std::find_if(both.read.begin(), both.read.end(), [](const launch_option& o) { return o.setting == "batch"; });
  ASSERT_NE(first_batch, both.read.end());
  EXPECT_EQ(first_batch->file, "a.yaml");
  EXPECT_TRUE(first_batch->overridden);
  const auto one = combine_launches({{"a.yaml", a}});
  EXPECT_TRUE(one.read.front().file.empty());  // one file: its read unchanged
}

}  // namespace
