// SPDX-License-Identifier: MIT
// The litgpt config, Megatron-LM's pretraining flags and `tune run` overrides read into settings (launch.hpp,
// docs/readers.md): each setting derived by hand from the text by the rules docs/readers.md gives; what no
// setting maps is listed by name; bad values are errors naming the key or flag.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/launch.hpp"

namespace {

using namespace llm_memory;

std::string recipe(const std::string& name) {
  std::ifstream file(std::string(LLM_MEMORY_TESTS_DIR) + "/cli/recipes/" + name, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string value_of(const launch_read& r, const std::string& key) {
  const auto it = r.values.find(key);
  return it == r.values.end() ? "(unset)" : it->second;
}

bool ignored(const launch_read& r, const std::string& option) {
  for (const auto& i : r.ignored)
    if (i.option == option) return true;
  return false;
}

bool noted(const launch_read& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// litgpt config_hub/finetune/llama-3.1-8b/qlora.yaml (Lightning-AI/litgpt 47053876).
TEST(litgpt_config, reads_the_published_qlora_recipe) {
  const launch_read r = read_launch(recipe("litgpt-llama-3.1-8b-qlora.yaml"));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().setting << ": " << r.errors.front().message;
  EXPECT_EQ(r.command, "litgpt config");
  EXPECT_EQ(value_of(r, "mode"), "train");
  EXPECT_EQ(value_of(r, "framework"), "litgpt");
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");  // checkpoints/meta-llama/Meta-Llama-3.1-8B
  EXPECT_EQ(value_of(r, "weights_dtype"), "nf4");   // quantize: bnb.nf4 over bf16-true
  EXPECT_EQ(value_of(r, "double_quant"), "off");
  EXPECT_EQ(value_of(r, "finetune"), "qlora");  // lora_r with an nf4 base
  EXPECT_EQ(value_of(r, "lora_rank"), "32");
  EXPECT_EQ(value_of(r, "lora_dropout"), "0.05");
  EXPECT_EQ(value_of(r, "lora_targets"), "q_proj,v_proj");  // lora_query and lora_value only
  EXPECT_EQ(value_of(r, "devices"), "1");
  EXPECT_EQ(value_of(r, "batch"), "2");
  // TrainArgs.gradient_accumulation_iters: global_batch_size 8 // devices 1 // micro_batch_size 2 = 4.
  EXPECT_EQ(value_of(r, "grad_accum"), "4");
  EXPECT_EQ(value_of(r, "seq"), "512");
  EXPECT_EQ(value_of(r, "optimizer"), "adamw");  // class_path: torch.optim.AdamW
  EXPECT_TRUE(ignored(r, "num_nodes"));
  EXPECT_TRUE(ignored(r, "lora_alpha"));
  EXPECT_TRUE(ignored(r, "out_dir"));
  EXPECT_TRUE(ignored(r, "eval"));
  // The adapters: 32 layers x r 32 x (q: 4096 + 4096, v: 4096 + 1024) = 32 x 32 x 13312 = 13,631,488.
  const auto est = estimate(r.values);
  ASSERT_TRUE(est.ok()) << est.errors().front().message;
  EXPECT_EQ(est.value().trainable_params, 13631488);
}

TEST(litgpt_config, mixed_precision_a_full_recipe_and_bad_values) {
  const launch_read full = read_launch(
      "checkpoint_dir: checkpoints/meta-llama/Llama-3.2-1B\nprecision: bf16-mixed\ndevices: 4\n"
      "train:\n  global_batch_size: 64\n  micro_batch_size: 4\n");
  ASSERT_TRUE(full.errors.empty()) << full.errors.front().message;
  EXPECT_EQ(value_of(full, "weights_dtype"), "fp32");  // -mixed: fp32 weights under bf16 autocast
  EXPECT_EQ(value_of(full, "autocast"), "bf16");
  EXPECT_EQ(value_of(full, "finetune"), "(unset)");  // no lora_* key: full.yaml
  EXPECT_EQ(value_of(full, "grad_accum"), "4");      // 64 // 4 devices // 4 = 4
  const launch_read bad = read_launch("checkpoint_dir: x\nprecision: bf16-true\ntrain:\n  global_batch_size: many\n");
  ASSERT_FALSE(bad.errors.empty());
  EXPECT_EQ(bad.errors.front().setting, "train.global_batch_size");
  const launch_read bad_flag = read_launch("checkpoint_dir: x\nprecision: bf16-true\nlora_mlp: maybe\n");
  ASSERT_FALSE(bad_flag.errors.empty());
  EXPECT_EQ(bad_flag.errors.front().setting, "lora_mlp");
}

TEST(megatron_args, reads_a_pretrain_gpt_launch) {
  const launch_read r = read_launch(recipe("megatron-pretrain-gpt.sh"));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().setting << ": " << r.errors.front().message;
  EXPECT_EQ(value_of(r, "framework"), "megatron");
  EXPECT_EQ(value_of(r, "mode"), "train");
  EXPECT_EQ(value_of(r, "devices"), "8");  // --nproc_per_node 8
  EXPECT_EQ(value_of(r, "tp"), "2");
  EXPECT_EQ(value_of(r, "pp"), "2");
  EXPECT_EQ(value_of(r, "sequence_parallel"), "on");
  EXPECT_EQ(value_of(r, "batch"), "1");
  // data-parallel = 8 / (2 x 2) = 2; accumulation = 64 / (1 x 2) = 32.
  EXPECT_EQ(value_of(r, "grad_accum"), "32");
  EXPECT_EQ(value_of(r, "seq"), "4096");
  EXPECT_EQ(value_of(r, "recompute"), "selective");  // --recompute-activations
  EXPECT_EQ(value_of(r, "zero"), "1");               // --use-distributed-optimizer
  EXPECT_EQ(value_of(r, "weights_dtype"), "bf16");
  EXPECT_EQ(value_of(r, "num_hidden_layers"), "32");
  EXPECT_EQ(value_of(r, "hidden_size"), "4096");
  EXPECT_EQ(value_of(r, "intermediate_size"), "14336");
  EXPECT_EQ(value_of(r, "num_attention_heads"), "32");
  EXPECT_EQ(value_of(r, "num_key_value_heads"), "8");
  EXPECT_EQ(value_of(r, "vocab_size"), "128256");
  EXPECT_EQ(value_of(r, "max_position_embeddings"), "8192");
  EXPECT_EQ(value_of(r, "position_embedding"), "rope");
  EXPECT_EQ(value_of(r, "norm"), "rmsnorm");
  EXPECT_EQ(value_of(r, "mlp"), "gated");
  EXPECT_EQ(value_of(r, "attention_bias"), "none");
  EXPECT_EQ(value_of(r, "mlp_bias"), "off");
  EXPECT_EQ(value_of(r, "tie_word_embeddings"), "off");
  EXPECT_TRUE(ignored(r, "--lr"));
  EXPECT_TRUE(ignored(r, "--data-path"));
  // The flags give Llama 3.1 8B's shape: its published count, the safetensors index's total_size 16,060,522,496 B
  // of bf16 / 2 B = 8,030,261,248 (meta-llama/Llama-3.1-8B model.safetensors.index.json).
  const auto est = estimate(r.values);
  ASSERT_TRUE(est.ok()) << est.errors().front().message;
  EXPECT_EQ(est.value().params, 8030261248.0);
}

TEST(megatron_args, defaults_fp32_and_bad_batches) {
  // `python pretrain_gpt.py`: one process; no --bf16 or --fp16 is fp32 without master copies; Megatron's shape
  // defaults (learned positions, LayerNorm, plain MLP, biases, tied embeddings).
  const launch_read r = read_launch(
      "python pretrain_gpt.py --num-layers 12 --hidden-size 768 --num-attention-heads 12 "
      "--micro-batch-size 4 --global-batch-size 10 --num-query-groups 4");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(r.command, "python pretrain_gpt.py");
  EXPECT_EQ(value_of(r, "weights_dtype"), "fp32");
  EXPECT_EQ(value_of(r, "master_weights"), "off");
  EXPECT_EQ(value_of(r, "position_embedding"), "learned");
  EXPECT_EQ(value_of(r, "norm"), "layernorm");
  EXPECT_EQ(value_of(r, "mlp"), "plain");
  EXPECT_EQ(value_of(r, "attention_bias"), "all");
  EXPECT_EQ(value_of(r, "tie_word_embeddings"), "on");
  EXPECT_EQ(value_of(r, "num_key_value_heads"), "(unset)");  // no --group-query-attention
  EXPECT_TRUE(ignored(r, "--num-query-groups"));
  EXPECT_EQ(value_of(r, "grad_accum"), "2");  // 10 / (4 x 1) = 2.5: Megatron refuses it; the multiple below
  EXPECT_TRUE(noted(r, "not a multiple"));
  EXPECT_TRUE(noted(r, "--vocab_size"));
  const launch_read bad = read_launch("python pretrain_gpt.py --global-batch-size 0 --tensor-model-parallel-size x");
  ASSERT_EQ(bad.errors.size(), 2u);
  EXPECT_EQ(bad.errors[0].setting, "--tensor-model-parallel-size");
  EXPECT_EQ(bad.errors[1].setting, "--global-batch-size");
}

TEST(tune_run, reads_the_overrides_as_a_recipe) {
  const launch_read r = read_launch(recipe("tune-run-lora.sh"));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().setting << ": " << r.errors.front().message;
  EXPECT_EQ(r.command, "tune run");
  EXPECT_EQ(value_of(r, "framework"), "torchtune");
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "finetune"), "lora");
  EXPECT_EQ(value_of(r, "lora_rank"), "16");
  EXPECT_EQ(value_of(r, "lora_targets"), "k_proj,q_proj,v_proj");  // torchtune.cpp lists them sorted
  EXPECT_EQ(value_of(r, "batch"), "4");
  EXPECT_EQ(value_of(r, "grad_accum"), "2");
  EXPECT_EQ(value_of(r, "recompute"), "full");
  EXPECT_EQ(value_of(r, "seq"), "2048");
  EXPECT_TRUE(ignored(r, "lora_finetune_single_device"));
  EXPECT_TRUE(noted(r, "--config \"llama3_1/8B_lora_single_device\" is not opened"));
  // 32 layers x r 16 x (q: 4096 + 4096, k: 4096 + 1024, v: 4096 + 1024) = 32 x 16 x 18432 = 9,437,184.
  const auto est = estimate(r.values);
  ASSERT_TRUE(est.ok()) << est.errors().front().message;
  EXPECT_EQ(est.value().trainable_params, 9437184);
  const launch_read odd = read_launch("tune run --nproc_per_node 2 full_finetune_distributed ~compile \"x=[1,\"");
  EXPECT_EQ(value_of(odd, "devices"), "2");
  EXPECT_TRUE(ignored(odd, "~compile"));
  EXPECT_TRUE(noted(odd, "is not a list"));
}

}  // namespace
