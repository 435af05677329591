// SPDX-License-Identifier: MIT
// Hostile input to the readers issue 33 added last (llm-memory's own line, the Unsloth script, axolotl and
// LLaMA-Factory YAML, torchtitan's TOML): unknown options and keys are listed as ignored by name, a bad value is an
// error naming its option, key or line, and huge, binary or deeply nested text is refused naming the line; never a
// crash, nothing read from what was refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "llm_memory/launch.hpp"
#include "llm_memory/paste.hpp"

namespace {

using namespace llm_memory;

bool ignored(const launch_read& r, const std::string& option) {
  return std::any_of(r.ignored.begin(), r.ignored.end(), [&](const launch_ignored& i) { return i.option == option; });
}

// The one error `r` holds, as "setting: message"; "" with none, "several" with more.
std::string only_error(const launch_read& r) {
  if (r.errors.size() != 1) return r.errors.empty() ? "" : "several";
  return r.errors[0].setting + ": " + r.errors[0].message;
}

TEST(readers_hostile, the_llm_memory_line) {
  // A missing value (the last option), a bad value and an unknown option: each named.
  const auto r = read_launch("llm-memory --mode train --frobnicate 3 --json --seq banana --batch");
  EXPECT_EQ(r.command, "llm-memory");
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].setting, "--seq");
  EXPECT_EQ(r.errors[1].setting, "--batch");
  EXPECT_EQ(r.errors[1].message, "missing value after --batch");
  EXPECT_TRUE(ignored(r, "--frobnicate"));
  EXPECT_TRUE(ignored(r, "--json"));
  EXPECT_FALSE(r.values.contains("seq"));
  EXPECT_EQ(r.values.at("mode"), "train");
  // A negative size is refused by the setting's own check, naming the option.
  EXPECT_EQ(read_launch("llm-memory --seq=-4").errors.at(0).setting, "--seq");
  // An unclosed quote is an error, not a crash.
  EXPECT_FALSE(read_launch("llm-memory --model 'llama").errors.empty());
}

TEST(readers_hostile, the_unsloth_script) {
  // Parentheses 100,000 deep and a keyword with a bad value: no crash, the bad value named by its keyword.
  const std::string deep = "from unsloth import FastLanguageModel\nFastLanguageModel.from_pretrained(" +
                           std::string(100000, '(') + "\nmax_seq_length = -7,\n";
  const auto r = read_launch(deep);
  EXPECT_EQ(r.command, "Unsloth script");
  EXPECT_FALSE(r.values.contains("seq"));
  const auto bad = read_launch(
      "model, tok = FastLanguageModel.from_pretrained(model_name = 'unsloth/Llama-3.2-1B', max_seq_length = -7, "
      "rope_scaling = None)\n");
  EXPECT_EQ(only_error(bad).rfind("max_seq_length", 0), 0u) << only_error(bad);
  EXPECT_FALSE(bad.values.contains("seq"));
  // A NUL byte in the box: refused before any reader, naming its line (the second).
  const pasted binary = read_pasted(std::string("FastLanguageModel.from_pretrained(\nx = '") + '\0' + "'\n");
  EXPECT_EQ(binary.launch.errors.at(0).setting, "line 2");
}

// A training YAML (axolotl's or LLaMA-Factory's) read as `command`: the unknown key `frobnicate` is listed, the bad
// value is the one error and names `bad_key`, and `setting` is not read from it.
void expect_hostile_yaml(const std::string& text, const std::string& command, const std::string& bad_key,
                         const std::string& setting) {
  const auto r = read_launch(text);
  EXPECT_EQ(r.command, command);
  EXPECT_TRUE(ignored(r, "frobnicate")) << command;
  EXPECT_EQ(only_error(r).rfind(bad_key, 0), 0u) << only_error(r);
  EXPECT_FALSE(r.values.contains(setting)) << command;
}

// axolotl's and LLaMA-Factory's YAML: an unknown key is listed, a bad value names its key, a nesting past the YAML
// reader's 32 levels names the line it reached.
TEST(readers_hostile, axolotl_and_llama_factory_yaml) {
  expect_hostile_yaml("base_model: meta-llama/Llama-3.2-1B\nadapter: lora\nfrobnicate: 3\nmicro_batch_size: many\n",
                      "axolotl config", "micro_batch_size", "batch");
  expect_hostile_yaml("model_name_or_path: Qwen/Qwen2.5-7B\nfinetuning_type: lora\nfrobnicate: 3\ncutoff_len: -1\n",
                      "LLaMA-Factory config", "cutoff_len", "seq");
  for (const std::string head : {"base_model: x\nadapter: lora\n", "model_name_or_path: x\nfinetuning_type: lora\n"}) {
    // 40 mappings, each a space deeper: line 34 (the two key lines, then 32 levels) is the first past the bound.
    std::string text = head + "a:\n";
    for (int depth = 1; depth < 40; ++depth) text += std::string(static_cast<std::size_t>(depth), ' ') + "k:\n";
    const auto nested = read_launch(text);
    ASSERT_EQ(nested.errors.size(), 1u) << head;
    EXPECT_EQ(nested.errors[0].setting.rfind("line ", 0), 0u) << nested.errors[0].setting;
    EXPECT_TRUE(nested.values.empty());
  }
}

TEST(readers_hostile, the_torchtitan_toml) {
  const auto r = read_launch("[training]\nlocal_batch_size = \"four\"\nfrobnicate = 3\n[frobnicate]\nx = 1\n");
  EXPECT_EQ(r.command, "torchtitan config");
  EXPECT_EQ(only_error(r).rfind("training.local_batch_size", 0), 0u) << only_error(r);
  EXPECT_TRUE(ignored(r, "training.frobnicate"));
  EXPECT_FALSE(r.values.contains("batch"));
  // A line over the reader's 16 KiB: refused naming it, nothing read.
  const auto huge = read_launch("[training]\nseq_len = 2048\nx = \"" + std::string(17 << 10, 'a') + "\"\n");
  EXPECT_EQ(huge.errors.at(0).setting, "line 3");
  EXPECT_TRUE(huge.values.empty());
}

}  // namespace
