// SPDX-License-Identifier: MIT
// Recipes and launchers out (emit.hpp, docs/readers.md "Emit"): for random settings, the axolotl, LLaMA-Factory and
// litgpt YAML, the Megatron-LM command, the torchrun/TRL command beside its DeepSpeed config and llm-memory's own
// command line, read back by their readers, resolve to the same values of every setting the format carries and to
// the same total; the ones it cannot carry are listed by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "../random_settings.hpp"
#include "llm_memory/emit.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

template <class T>
const T& pick(std::mt19937& rng, const std::vector<T>& items) {
  return items[rng() % items.size()];
}

bool carried(const std::vector<std::string>& not_carried, const std::string& key) {
  return std::find(not_carried.begin(), not_carried.end(), key) == not_carried.end();
}

// PEFT module names as a set: sorted, all-linear as the seven projections it stands for (a reader that names the
// modules one by one, litgpt's lora_query ... lora_mlp, gives them back in its own order).
std::string module_set(const std::string& targets) {
  if (targets == "all-linear") return module_set("q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj");
  std::vector<std::string> names;
  for (std::size_t start = 0, comma; start <= targets.size(); start = comma + 1) {
    comma = targets.find(',', start);
    if (comma == std::string::npos) comma = targets.size();
    names.push_back(targets.substr(start, comma - start));
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// Emits `typed` resolved in each of `formats` (one run's files: a DeepSpeed JSON, then its command), reads every
// text back, combines the reads (a later file wins), gives the settings no file carried beside them, and compares
// `keys` and the total. Returns whether the run resolved (a refused combination is skipped).
bool round_trip(const settings& typed, const std::vector<std::string>& formats, const std::vector<std::string>& keys,
                const std::vector<std::string>& carried_by_another = {}) {
  const auto spec = resolve(typed);
  if (!spec.ok()) return false;
  std::vector<launch_file> files;
  std::vector<std::string> not_carried, texts;
  for (const auto& format : formats) {
    const auto out = emit(spec.value().values, format);
    EXPECT_TRUE(out.ok()) << format;
    if (!out.ok()) return false;
    texts.push_back(out.value().text);
    files.push_back({format, read_launch(out.value().text)});
    EXPECT_TRUE(files.back().read.errors.empty()) << out.value().text << files.back().read.errors.front().setting
                                                  << ": " << files.back().read.errors.front().message;
    for (const auto& key : out.value().not_carried) not_carried.push_back(key);
  }
  // A setting one file leaves out and another carries (`carried_by_another`) is carried.
  std::vector<std::string> missing;
  for (const auto& key : not_carried)
    if (carried(carried_by_another, key) && carried(missing, key)) missing.push_back(key);
  std::string shown;
  for (const auto& t : texts) shown += t + "---\n";
  const settings want = to_settings(spec.value().values);
  settings back = combine_launches(files).values;
  for (const auto& key : missing) back[key] = want.at(key);
  const auto again = resolve(back);
  EXPECT_TRUE(again.ok()) << shown << (again.ok() ? "" : again.errors().front().message);
  if (!again.ok()) return false;
  settings got = to_settings(again.value().values);
  if (module_set(got.at("lora_targets")) == module_set(want.at("lora_targets")))
    got["lora_targets"] = want.at("lora_targets");
  for (const auto& key : keys)
    if (carried(missing, key)) {
      EXPECT_EQ(got.at(key), want.at(key)) << key << " from\n" << shown;
    }
  std::string differing = "\ntyped:";  // what was typed, and every resolved value that came back otherwise
  for (const auto& [key, value] : typed) differing += " " + key + "=" + value;
  differing += "\ndiffering:";
  for (const auto& [key, value] : want)
    if (got.at(key) != value) differing += " " + key + "=" + got.at(key) + " (was " + value + ")";
  EXPECT_EQ(estimate(again.value()).total_bytes, estimate(spec.value()).total_bytes) << shown << differing;
  // The stack that runs it is the same one: the runtime (auto's pick among them) serving, the framework training.
  if (spec.value().mode == run_mode::inference)
    EXPECT_EQ(again.value().runtime, spec.value().runtime) << shown << differing;
  else
    EXPECT_EQ(again.value().framework, spec.value().framework) << shown << differing;
  return true;
}

// Settings a Trainer-based recipe sets, under `framework` (axolotl, llamafactory, hf, deepspeed).
settings random_hf_recipe(std::mt19937& rng, const std::string& framework) {
  const std::string method = pick<std::string>(rng, {"full", "lora", "qlora"});
  settings s{{"mode", "train"},
             {"framework", framework},
             {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b", "mistral-7b-v0.1", "llama-3.2-1b"})},
             {"finetune", method},
             {"batch", std::to_string(1 + rng() % 8)},
             {"grad_accum", std::to_string(1 + rng() % 16)},
             {"seq", std::to_string(128 + rng() % 8192)},
             {"recompute", pick<std::string>(rng, {"none", "selective", "full"})},
             {"autocast", pick<std::string>(rng, {"off", "bf16", "fp16"})},
             {"attention", pick<std::string>(rng, {"flash", "sdpa", "eager", "standard"})},
             {"optimizer", pick<std::string>(rng, {"adamw", "adamw_8bit", "sgd", "lion"})},
             {"optimizer_impl", pick<std::string>(rng, {"fused", "foreach", "paged"})},
             {"weights_dtype", pick<std::string>(rng, {"bf16", "fp16", "fp32", "int8"})}};
  if (method == "qlora") s["weights_dtype"] = "nf4";
  if (method != "full") {
    s["lora_rank"] = std::to_string(1 + rng() % 128);
    s["lora_dropout"] = pick<std::string>(rng, {"0", "0.05"});
    s["lora_targets"] = pick<std::string>(rng, {"q_proj,v_proj", "all-linear", "k_proj,o_proj,q_proj,v_proj"});
  }
  return s;
}

const std::vector<std::string> hf_keys = {"model",        "finetune",       "batch",         "grad_accum",
                                          "seq",          "recompute",      "autocast",      "attention",
                                          "optimizer",    "optimizer_impl", "weights_dtype", "lora_rank",
                                          "lora_dropout", "lora_targets",   "framework"};

TEST(emit_recipes, an_axolotl_config_reads_back_as_the_same_settings) {
  std::mt19937 rng(21);
  int checked = 0;
  for (int i = 0; i < 300; ++i) checked += round_trip(random_hf_recipe(rng, "axolotl"), {"axolotl"}, hf_keys);
  EXPECT_GT(checked, 100);
}

TEST(emit_recipes, a_llama_factory_config_reads_back_as_the_same_settings) {
  std::mt19937 rng(22);
  int checked = 0;
  for (int i = 0; i < 300; ++i)
    checked += round_trip(random_hf_recipe(rng, "llamafactory"), {"llama-factory"}, hf_keys);
  EXPECT_GT(checked, 100);
}

settings random_litgpt(std::mt19937& rng) {
  const std::string method = pick<std::string>(rng, {"full", "lora", "qlora"});
  settings s{{"mode", "train"},
             {"framework", "litgpt"},
             {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b", "llama-3.2-1b"})},
             {"finetune", method},
             {"devices", pick<std::string>(rng, {"1", "2", "4"})},
             {"batch", std::to_string(1 + rng() % 8)},
             {"grad_accum", std::to_string(1 + rng() % 16)},
             {"seq", std::to_string(128 + rng() % 8192)},
             {"autocast", pick<std::string>(rng, {"off", "bf16", "fp16"})},
             {"optimizer", pick<std::string>(rng, {"adamw", "adamw_8bit", "sgd", "lion"})},
             {"weights_dtype", pick<std::string>(rng, {"bf16", "fp16", "fp32"})}};
  if (method == "qlora") {
    s["weights_dtype"] = "nf4";
    s["double_quant"] = pick<std::string>(rng, {"on", "off"});
  }
  if (method != "full") {
    s["lora_rank"] = std::to_string(1 + rng() % 128);
    s["lora_dropout"] = pick<std::string>(rng, {"0", "0.05"});
    s["lora_targets"] = pick<std::string>(rng, {"q_proj,v_proj", "all-linear", "k_proj,o_proj,q_proj,v_proj",
                                                "down_proj,gate_proj,q_proj,up_proj,v_proj", "q_proj,up_proj"});
  }
  return s;
}

TEST(emit_recipes, a_litgpt_config_reads_back_as_the_same_settings) {
  std::mt19937 rng(23);
  int checked = 0;
  const std::vector<std::string> keys = {"model",     "finetune",     "devices",      "batch",         "grad_accum",
                                         "seq",       "autocast",     "optimizer",    "weights_dtype", "double_quant",
                                         "lora_rank", "lora_dropout", "lora_targets", "framework"};
  for (int i = 0; i < 300; ++i) checked += round_trip(random_litgpt(rng), {"litgpt"}, keys);
  EXPECT_GT(checked, 100);
}

settings random_megatron(std::mt19937& rng) {
  const int tp = static_cast<int>(1u << (rng() % 3)), pp = static_cast<int>(1u << (rng() % 2));
  return {{"mode", "train"},
          {"framework", "megatron"},
          {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b", "llama-3.2-1b"})},
          {"tp", std::to_string(tp)},
          {"pp", std::to_string(pp)},
          {"devices", std::to_string(tp * pp * static_cast<int>(1u << (rng() % 3)))},
          {"sequence_parallel", pick<std::string>(rng, {"on", "off"})},
          {"batch", std::to_string(1 + rng() % 8)},
          {"grad_accum", std::to_string(1 + rng() % 16)},
          {"seq", pick<std::string>(rng, {"2048", "4096", "8192"})},
          {"recompute", pick<std::string>(rng, {"none", "selective", "full"})},
          {"zero", pick<std::string>(rng, {"0", "1", "2"})},
          {"weights_dtype", pick<std::string>(rng, {"bf16", "fp16", "fp32"})}};
}

// The model goes beside the command (Megatron names a shape, not a model): the shape flags read back as the
// preset's own shape, so the total is the preset's.
TEST(emit_recipes, a_megatron_command_reads_back_as_the_same_settings) {
  std::mt19937 rng(24);
  int checked = 0;
  const std::vector<std::string> keys = {"framework",
                                         "tp",
                                         "pp",
                                         "devices",
                                         "sequence_parallel",
                                         "batch",
                                         "grad_accum",
                                         "seq",
                                         "recompute",
                                         "zero",
                                         "weights_dtype",
                                         "num_hidden_layers",
                                         "hidden_size",
                                         "num_attention_heads",
                                         "num_key_value_heads",
                                         "intermediate_size",
                                         "vocab_size",
                                         "tie_word_embeddings",
                                         "attention_bias",
                                         "mlp",
                                         "norm"};
  for (int i = 0; i < 300; ++i) checked += round_trip(random_megatron(rng), {"megatron"}, keys);
  EXPECT_GT(checked, 100);
}

settings random_torchtitan(std::mt19937& rng) {
  const int tp = static_cast<int>(1u << (rng() % 2)), pp = static_cast<int>(1u << (rng() % 2));
  return {{"mode", "train"},
          {"framework", "torchtitan"},
          {"model", pick<std::string>(rng, {"llama-3.1-8b", "llama-3.1-70b", "qwen2.5-7b"})},
          {"tp", std::to_string(tp)},
          {"pp", std::to_string(pp)},
          {"devices", std::to_string(tp * pp * static_cast<int>(1u << (rng() % 4)))},
          {"zero", pick<std::string>(rng, {"0", "3"})},
          {"batch", std::to_string(1 + rng() % 8)},
          {"grad_accum", std::to_string(1 + rng() % 8)},
          {"seq", pick<std::string>(rng, {"2048", "4096", "8192"})},
          {"compile", pick<std::string>(rng, {"auto", "on", "off"})},
          {"offload", pick<std::string>(rng, {"none", "optimizer+params"})},
          {"recompute", pick<std::string>(rng, {"none", "selective", "full"})},
          {"selective_ac_option", pick<std::string>(rng, {"op", "2"})},
          {"optimizer_impl", pick<std::string>(rng, {"fused", "foreach"})}};
}

TEST(emit_recipes, a_torchtitan_job_config_reads_back_as_the_same_settings) {
  std::mt19937 rng(27);
  int checked = 0;
  const std::vector<std::string> keys = {"model",
                                         "framework",
                                         "tp",
                                         "pp",
                                         "devices",
                                         "zero",
                                         "batch",
                                         "grad_accum",
                                         "seq",
                                         "compile",
                                         "offload",
                                         "recompute",
                                         "selective_ac_option",
                                         "optimizer",
                                         "optimizer_impl",
                                         "optimizer_in_backward"};
  for (int i = 0; i < 300; ++i) checked += round_trip(random_torchtitan(rng), {"torchtitan"}, keys);
  EXPECT_GT(checked, 100);
}

// An Unsloth script (from_pretrained, get_peft_model, SFTConfig) read back by readers/unsloth.cpp.
TEST(emit_recipes, an_unsloth_script_reads_back_as_the_same_settings) {
  std::mt19937 rng(28);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string method = pick<std::string>(rng, {"full", "lora", "qlora"});
    settings s{{"mode", "train"},
               {"framework", "unsloth"},
               {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b", "mistral-7b-v0.1", "llama-3.2-1b"})},
               {"finetune", method},
               {"batch", std::to_string(1 + rng() % 8)},
               {"grad_accum", std::to_string(1 + rng() % 16)},
               {"seq", std::to_string(128 + rng() % 8192)},
               {"optimizer", pick<std::string>(rng, {"adamw", "adamw_8bit", "sgd"})},
               {"autocast", pick<std::string>(rng, {"bf16", "fp16"})}};
    const std::string checkpoints = pick<std::string>(rng, {"unsloth", "true", "false", "default"});
    if (checkpoints == "unsloth") s["activation_offload"] = "full";
    if (checkpoints == "true" || checkpoints == "false") s["activation_offload"] = "none";
    if (checkpoints == "false") s["recompute"] = "none";
    if (method == "lora") s["weights_dtype"] = pick<std::string>(rng, {"bf16", "int8", "fp16"});
    if (method != "full") {
      s["lora_rank"] = std::to_string(1 + rng() % 128);
      s["lora_dropout"] = pick<std::string>(rng, {"0", "0.05"});
      s["lora_targets"] = pick<std::string>(rng, {"q_proj,v_proj", "all-linear", "k_proj,o_proj,q_proj,v_proj"});
    }
    checked +=
        round_trip(s, {"unsloth"},
                   {"model", "framework", "finetune", "batch", "grad_accum", "seq", "optimizer", "autocast",
                    "recompute", "activation_offload", "weights_dtype", "lora_rank", "lora_dropout", "lora_targets"});
  }
  EXPECT_GT(checked, 100);
}

// A DeepSpeed run's two files: the config, then the torchrun / trl command that names it with --deepspeed.
TEST(emit_recipes, a_deepspeed_config_with_its_trl_command_reads_back_as_the_same_settings) {
  std::mt19937 rng(25);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    settings s = random_hf_recipe(rng, "deepspeed");
    s["devices"] = pick<std::string>(rng, {"1", "2", "8"});
    s["zero"] = pick<std::string>(rng, {"0", "1", "2", "3"});
    s["offload"] = pick<std::string>(rng, {"none", "optimizer", "optimizer+params"});
    // The JSON carries the ZeRO stage and offload the command leaves to it; the command the model, sequence,
    // devices and (fp32) weights the JSON names none of.
    checked += round_trip(s, {"deepspeed", "deepspeed-trl"},
                          {"framework", "devices", "zero", "offload", "model", "batch", "grad_accum", "seq", "finetune",
                           "lora_rank", "lora_targets", "weights_dtype", "attention", "recompute"},
                          {"zero", "offload", "model", "seq", "devices", "weights_dtype"});
  }
  EXPECT_GT(checked, 100);
}

// llm-memory's own line carries every setting: over the shared random settings (any mode, stack, model), the line
// read back resolves to every value, the same runtime or framework and the same total. Every fourth draw is made an
// inference run with runtime auto and a QLoRA method (auto picks by the nf4 base the method loads, whether the line
// states the weights or not).
TEST(emit_recipes, the_llm_memory_line_reads_back_as_every_setting) {
  std::mt19937_64 rng(26);
  int checked = 0, auto_qlora = 0;
  std::vector<std::string> every;
  for (const auto& def : setting_table()) every.emplace_back(def.key);
  for (int i = 0; i < 400; ++i) {
    settings s = llm_memory::testing::random_settings(rng);
    if (i % 4 == 0) {
      s["mode"] = "inference";
      s["runtime"] = "auto";
      s["finetune"] = "qlora";
    }
    const bool drawn = round_trip(s, {"generic"}, every);
    checked += drawn;
    auto_qlora += drawn && i % 4 == 0;
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(auto_qlora, 25);
}

// Inference with runtime auto and a QLoRA method serves the base in NF4, a bitsandbytes format: auto picks
// transformers (docs/methodology.md 5.1), as for weights_dtype nf4 typed, whatever weights_dtype the line or the
// preset says beside the method; the llm-memory line of that run reads back to it.
TEST(emit_recipes, runtime_auto_with_a_qlora_method_is_transformers_and_its_line_reads_back) {
  const settings typed{{"mode", "inference"}, {"runtime", "auto"}, {"model", "llama-3.1-8b"}, {"finetune", "qlora"}};
  const auto spec = resolve(typed);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec.value().runtime, runtime_kind::transformers);
  EXPECT_EQ(spec.value().values.weights_dtype, "nf4");
  settings stated = typed;
  stated.erase("finetune");
  stated["weights_dtype"] = "nf4";
  const auto as_nf4 = resolve(stated);
  ASSERT_TRUE(as_nf4.ok());
  EXPECT_EQ(as_nf4.value().runtime, runtime_kind::transformers);
  // A GGUF type beside the method: the method's NF4 base decides, not the type it replaces.
  settings gguf = typed;
  gguf["weights_dtype"] = "q4_k_m";
  const auto over_gguf = resolve(gguf);
  ASSERT_TRUE(over_gguf.ok());
  EXPECT_EQ(over_gguf.value().runtime, runtime_kind::transformers);
  EXPECT_TRUE(round_trip(typed, {"generic"}, {"mode", "runtime", "model", "finetune", "weights_dtype"}));
}

// What the recipes cannot say is named: Megatron's flags name no model, and no ZeRO stage past the distributed
// optimizer's; litgpt's config names no recomputation (its strategy decides).
TEST(emit_recipes, what_a_format_cannot_carry_is_listed) {
  const auto spec = resolve(settings{{"mode", "train"},
                                     {"framework", "megatron"},
                                     {"model", "llama-3.1-8b"},
                                     {"devices", "8"},
                                     {"tp", "2"},
                                     {"batch", "2"},
                                     {"grad_accum", "4"},
                                     {"zero", "2"}});
  ASSERT_TRUE(spec.ok());
  const auto out = emit(spec.value().values, "megatron");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.value().not_carried, (std::vector<std::string>{"model", "zero"}));
  // global batch = micro 2 x data-parallel (8 / (tp 2 x pp 1 x cp 1) = 4) x accumulation 4 = 32.
  EXPECT_NE(out.value().text.find("--global-batch-size 32 "), std::string::npos) << out.value().text;
  // Llama 3.1 8B's shape (config.json): 32 layers, 4096 wide, 32 heads in 8 groups, 14336 MLP, 128256 tokens.
  for (const std::string flag :
       {"--num-layers 32 ", "--hidden-size 4096 ", "--num-attention-heads 32 ", "--num-query-groups 8 ",
        "--ffn-hidden-size 14336 ", "--vocab-size 128256", "--swiglu ", "--untie-embeddings-and-output-weights "})
    EXPECT_NE(out.value().text.find(flag), std::string::npos) << flag << "\n" << out.value().text;
}

}  // namespace
