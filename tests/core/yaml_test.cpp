// SPDX-License-Identifier: MIT
// The bounded YAML subset reader (core/src/readers/yaml.hpp, docs/readers.md "YAML"): what recipes are written
// in is read, what is not read is refused naming the line, and the limits hold on hostile input.
#include "readers/yaml.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using llm_memory::detail::json;
using llm_memory::detail::parse_yaml;
using llm_memory::detail::yaml_limits;

json read(const std::string& text) {
  std::vector<std::string> notes;
  auto r = parse_yaml(text, notes);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.errors().front().setting + ": " + r.errors().front().message);
  return r.ok() ? r.value() : json();
}

std::string refused(const std::string& text, const yaml_limits& limits = {}) {
  std::vector<std::string> notes;
  auto r = parse_yaml(text, notes, limits);
  return r.ok() ? "(read)" : r.errors().front().setting + ": " + r.errors().front().message;
}

TEST(Yaml, BlockMappingsAndSequencesNest) {
  const auto doc = read(
      "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b  # a comment\n  lora_rank: 8\n"
      "datasets:\n  - path: a/b\n    type: alpaca\n  - plain\nlist:\n- x\n- y\nempty:\nlast: 1\n");
  EXPECT_EQ(doc["model"]["_component_"].get<std::string>(), "torchtune.models.llama3_1.lora_llama3_1_8b");
  EXPECT_EQ(doc["model"]["lora_rank"].get<std::string>(), "8");  // scalars stay text
  ASSERT_EQ(doc["datasets"].size(), 2U);
  EXPECT_EQ(doc["datasets"][0]["type"].get<std::string>(), "alpaca");
  EXPECT_EQ(doc["datasets"][1].get<std::string>(), "plain");
  ASSERT_EQ(doc["list"].size(), 2U);  // a sequence at its key's own indentation
  EXPECT_EQ(doc["list"][1].get<std::string>(), "y");
  EXPECT_TRUE(doc["empty"].is_null());
  EXPECT_EQ(doc["last"].get<std::string>(), "1");
}

TEST(Yaml, FlowCollectionsQuotesAndContinuedLines) {
  const auto doc = read(
      "mods: ['q_proj', \"v_proj\", output_proj]\nmap: {a: 1, b: [2, 3], c: }\n"
      "files: [\n  one.safetensors,\n  two.safetensors\n]\nq: 'it''s # not a comment'\n"
      "d: \"tab\\tand \\u00e9\"\nfolded: a plain\n  value on two lines\nurl: http://x/y#frag\n");
  ASSERT_EQ(doc["mods"].size(), 3U);
  EXPECT_EQ(doc["mods"][1].get<std::string>(), "v_proj");
  EXPECT_EQ(doc["map"]["b"][1].get<std::string>(), "3");
  EXPECT_TRUE(doc["map"]["c"].is_null());
  ASSERT_EQ(doc["files"].size(), 2U);
  EXPECT_EQ(doc["files"][1].get<std::string>(), "two.safetensors");
  EXPECT_EQ(doc["q"].get<std::string>(), "it's # not a comment");
  EXPECT_EQ(doc["d"].get<std::string>(), "tab\tand \xc3\xa9");
  EXPECT_EQ(doc["folded"].get<std::string>(), "a plain value on two lines");
  EXPECT_EQ(doc["url"].get<std::string>(), "http://x/y#frag");  // '#' without a blank before it is text
}

TEST(Yaml, BlockScalarsAndInterpolationNotes) {
  std::vector<std::string> notes;
  const auto r = parse_yaml("template: |\n  line one\n  line two\nnext: ${output_dir}/logs\n", notes);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["template"].get<std::string>(), "line one\nline two\n");
  EXPECT_EQ(r.value()["next"].get<std::string>(), "${output_dir}/logs");
  ASSERT_EQ(notes.size(), 1U);
  EXPECT_EQ(notes[0].rfind("line 4: ", 0), 0U) << notes[0];
}

TEST(Yaml, WhatIsNotReadIsRefusedNamingTheLine) {
  EXPECT_EQ(refused("a: 1\nb: &anchor 2\n").rfind("line 2: anchors (&)", 0), 0U);
  EXPECT_EQ(refused("a: 1\nb: *alias\n").rfind("line 2: anchors", 0), 0U);
  EXPECT_EQ(refused("a: !!str 1\n").rfind("line 1: anchors", 0), 0U);
  EXPECT_EQ(refused("a: 1\n---\nb: 2\n").rfind("line 2: a second document", 0), 0U);
  EXPECT_EQ(refused("%YAML 1.2\na: 1\n").rfind("line 1: a directive", 0), 0U);
  EXPECT_EQ(refused("a:\n\tb: 1\n").rfind("line 2: a tab in the indentation", 0), 0U);
  EXPECT_EQ(refused("a: 1\na: 2\n").rfind("line 2: the key \"a\" is given twice", 0), 0U);
  EXPECT_EQ(refused("a: [1, 2\n").rfind("line 1: a [ or { opened here is never closed", 0), 0U);
  EXPECT_EQ(refused("a: 'open\n").rfind("line 1: a quote opened here is never closed", 0), 0U);
  EXPECT_EQ(refused("a: 1\n  b: 2\n").rfind("line 2: ", 0), 0U);
  EXPECT_EQ(refused("just words\nmore: 1\n").rfind("line 2: ", 0), 0U);
  EXPECT_EQ(refused("").rfind("line 1: the document is empty", 0), 0U);
}

TEST(Yaml, HostileInputStaysWithinTheLimits) {
  // Binary: a NUL byte on line 3.
  EXPECT_EQ(refused(std::string("a: 1\nb: 2\nc: \0\n", 15)),
            "line 3: a control byte 0x00 (binary input?): a recipe is text");
  // 1 MiB + 1 byte.
  EXPECT_EQ(refused(std::string((std::size_t{1} << 20) + 1, 'a')), "line 1: the text is larger than 1 MiB");
  // A line of 16 KiB + 1.
  EXPECT_EQ(refused("a: " + std::string(16 * 1024, 'x')), "line 1: is longer than 16384 bytes");
  // Nesting: 32 flow levels are read, 33 are refused; 10,000 block levels stop at the bound, never the stack.
  EXPECT_EQ(refused("a: " + std::string(31, '[') + std::string(31, ']') + "\n"), "(read)");
  EXPECT_EQ(refused("a: " + std::string(40, '[') + std::string(40, ']') + "\n").rfind("line 1: nests", 0), 0U);
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  EXPECT_NE(refused(deep).find("nests collections more than 32 levels deep"), std::string::npos) << refused(deep);
  // Items: each key with its value, each sequence or flow item counts once: a, b, c is one past a bound of 2.
  EXPECT_EQ(refused("a: 1\nb: 2\nc: 3\n", {.max_items = 2}), "line 3: more than 2 values in the document");
}

}  // namespace
