// SPDX-License-Identifier: MIT
// The bounded TOML reader (readers/toml.hpp) and the torchtitan job config read through it (readers/torchtitan.cpp,
// docs/readers.md "torchtitan config"): what is read, what is refused by line, hostile input.
#include "readers/toml.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "llm_memory/launch.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::ignored;
using test::noted;
using test::value_of;

std::string recipe(const std::string& name) {
  std::ifstream file(std::string(LLM_MEMORY_TESTS_DIR) + "/cli/recipes/" + name, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string refusal(std::string_view text) {
  const auto doc = detail::parse_toml(text);
  return doc.ok() ? "(read)" : doc.errors().front().setting + ": " + doc.errors().front().message;
}

TEST(toml, tables_keys_strings_numbers_and_arrays) {
  const auto doc = detail::parse_toml(
      "# a comment\n[a]\nx = 1  # trailing\ns = \"q\\\"x\"\nl = 'lit'\n[b.c]\nlist = [\"u\", 2, true]\nf = 3e-4\n");
  ASSERT_TRUE(doc.ok()) << doc.errors().front().message;
  const auto& d = doc.value();
  EXPECT_EQ(d["a"]["x"].get<std::string>(), "1");
  EXPECT_EQ(d["a"]["s"].get<std::string>(), "q\"x");
  EXPECT_EQ(d["a"]["l"].get<std::string>(), "lit");
  EXPECT_EQ(d["b"]["c"]["list"].size(), 3u);
  EXPECT_EQ(d["b"]["c"]["f"].get<std::string>(), "3e-4");
  EXPECT_TRUE(detail::is_toml("\n# x\n[job]\n"));
  EXPECT_FALSE(detail::is_toml("model:\n  x: 1\n"));
  EXPECT_FALSE(detail::is_toml("[[x]]\n"));
  EXPECT_FALSE(detail::is_toml("vllm serve x\n"));
}

TEST(toml, what_is_not_read_is_refused_naming_the_line) {
  EXPECT_EQ(refusal("[a]\n[[b]]\n"), "line 2: arrays of tables are not read");
  EXPECT_EQ(refusal("[a]\nx = {y = 1}\n"), "line 2: inline tables are not read");
  EXPECT_EQ(refusal("[a]\nx = \"\"\"\n"), "line 2: multi-line strings are not read");
  EXPECT_EQ(refusal("[a]\nx = [1,\n 2]\n"), "line 2: arrays over several lines are not read");
  EXPECT_EQ(refusal("[a]\nx = 1\nx = 2\n"), "line 3: key \"x\" given twice");
  EXPECT_EQ(refusal("[a]\nx = 1\n[a]\ny = 2\n"), "line 3: table \"[a]\" given twice");
  EXPECT_EQ(refusal("[a]\nx.y = 1\n"), "line 2: a bare key (letters, digits, _ and -) is read, got \"x.y\"");
  EXPECT_EQ(refusal("[a]\nx = \"open\n"), "line 2: a string that does not close on its line");
  EXPECT_EQ(refusal("[a]\nx = 1 2\n"), "line 2: text after the value: \"2\"");
  EXPECT_EQ(refusal("[a]\nx\n"), "line 2: neither a [table] nor key = value: \"x\"");
  EXPECT_EQ(refusal("[a]\nx = \x01\n"), "line 2: a control byte");
  EXPECT_EQ(refusal("[a.b.c.d.e.f.g.h.i]\n"), "line 1: a table name of more than 8 parts");
  EXPECT_EQ(refusal("[a]\nx = " + std::string(17 << 10, '1') + "\n"), "line 2: longer than 16 KiB");
  EXPECT_EQ(refusal(std::string((1 << 20) + 1, '#')), "line 1: the document is larger than 1 MiB");
  // As a pasted document: the error names its line; a TOML file with no JobConfig table is named as not read.
  EXPECT_EQ(read_launch("[training]\nseq_len = {}\n").errors.at(0).setting, "line 2");
  EXPECT_EQ(read_launch("[tool.poetry]\nname = \"x\"\n").errors.at(0).setting, "document");
}

// torchtitan's shipped Llama 3 8B config (tests/cli/recipes/README.md): flavor 8B of llama3 is Llama 3.1 8B's shape
// (models/llama3/__init__.py); batch_size 1 (the name before local_batch_size), seq_len 8192, compile false,
// selective op-level checkpointing, AdamW; data_parallel_shard_degree -1 leaves the device count to NGPU (a note).
TEST(torchtitan, the_shipped_llama3_8b_config) {
  const auto r = read_launch(recipe("torchtitan-llama3_8b.toml"));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().setting << ": " << r.errors.front().message;
  EXPECT_EQ(r.command, "torchtitan config");
  EXPECT_EQ(value_of(r, "mode"), "train");
  EXPECT_EQ(value_of(r, "framework"), "torchtitan");
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "batch"), "1");
  EXPECT_EQ(value_of(r, "seq"), "8192");
  EXPECT_EQ(value_of(r, "compile"), "off");
  EXPECT_EQ(value_of(r, "recompute"), "selective");
  EXPECT_EQ(value_of(r, "selective_ac_option"), "op");
  EXPECT_EQ(value_of(r, "optimizer"), "adamw");
  EXPECT_EQ(value_of(r, "tp"), "1");
  EXPECT_EQ(value_of(r, "devices"), "(unset)");
  EXPECT_TRUE(noted(r, "give --devices"));
  EXPECT_TRUE(ignored(r, "checkpoint"));
  EXPECT_TRUE(ignored(r, "model.tokenizer_path"));
  // The same file with the shard degree stated: devices 8 x tp 2 = 16, FSDP (zero 3); global 64 = local 1 x dp 8
  // x accumulation 8.
  std::string text = recipe("torchtitan-llama3_8b.toml");
  text.replace(text.find("data_parallel_shard_degree = -1"), 31, "data_parallel_shard_degree = 8");
  text.replace(text.find("tensor_parallel_degree = 1"), 26, "tensor_parallel_degree = 2");
  text.replace(text.find("batch_size = 1"), 14, "batch_size = 1\nglobal_batch_size = 64");
  const auto sharded = read_launch(text);
  ASSERT_TRUE(sharded.errors.empty()) << sharded.errors.front().message;
  EXPECT_EQ(value_of(sharded, "devices"), "16");
  EXPECT_EQ(value_of(sharded, "zero"), "3");
  EXPECT_EQ(value_of(sharded, "grad_accum"), "8");
}

}  // namespace
