// SPDX-License-Identifier: MIT
// The page's one box (paste.hpp, docs/readers.md "The page's box"): each text goes to the reader its lines show,
// and text no reader takes is refused naming the line, never a crash.
#include "llm_memory/paste.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace llm_memory;

std::string fixture(const std::string& path) {
  std::ifstream file(std::string(LLM_MEMORY_TESTS_DIR) + "/cli/" + path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(paste, a_log_goes_to_the_log_readers) {
  const pasted vllm = read_pasted(fixture("log/vllm-0.15.1-llama-3.1-8b.log"));
  ASSERT_TRUE(vllm.log.has_value());
  EXPECT_EQ(vllm.log->format, "vllm");
  const pasted llamacpp = read_pasted(fixture("log/llamacpp-llama-3-8b-q4_k_m.log"));
  ASSERT_TRUE(llamacpp.log.has_value());
  EXPECT_EQ(llamacpp.log->format, "llamacpp");
}

TEST(paste, a_command_or_recipe_goes_to_the_launch_readers) {
  const std::pair<const char*, const char*> cases[] = {
      {"launch/vllm-serve.sh", "vllm serve"},
      {"launch/llama-server.sh", "llama-server"},
      {"recipes/torchtune-llama3_1-8B_lora_single_device.yaml", "torchtune config"},
      {"recipes/axolotl-llama-3-lora-8b.yml", "axolotl config"},
      {"recipes/ds_z3_config.json", "DeepSpeed config"},
  };
  for (const auto& [file, command] : cases) {
    const pasted p = read_pasted(fixture(file));
    EXPECT_FALSE(p.log.has_value()) << file;
    EXPECT_EQ(p.launch.command, command) << file;
    EXPECT_TRUE(p.launch.errors.empty()) << file << ": " << p.launch.errors.front().message;
  }
}

TEST(paste, a_binary_file_is_refused_naming_the_line_of_its_first_nul) {
  // "ab\ncd\ne", a NUL, "f": the NUL is byte 8 (from 1), on line 3 (two line ends before it).
  const pasted p = read_pasted(std::string("ab\ncd\ne\0f", 9));
  ASSERT_EQ(p.launch.errors.size(), 1u);
  EXPECT_EQ(p.launch.errors[0].setting, "line 3");
  EXPECT_EQ(p.launch.errors[0].message, "holds a NUL byte (byte 8): a binary file, not a command, recipe or log");
}

TEST(paste, text_over_a_commands_limit_without_a_logs_lines_is_refused_naming_the_line) {
  // 5 MiB of "x y\n" (4 bytes a line): byte 1,048,576 (0-based, the first past 1 MiB) starts line
  // 1,048,576 / 4 + 1 = 262,145.
  std::string text;
  for (int i = 0; i < 5 * 262144; ++i) text += "x y\n";
  const pasted p = read_pasted(text);
  ASSERT_EQ(p.launch.errors.size(), 1u);
  EXPECT_EQ(p.launch.errors[0].setting, "line 262145");
  // The same lines after a vLLM log are a log's: read up to its 16 MiB limit.
  const pasted log = read_pasted(fixture("log/vllm-0.15.1-llama-3.1-8b.log") + text);
  ASSERT_TRUE(log.log.has_value());
  EXPECT_TRUE(log.log->settings.errors.empty());
  // Past 16 MiB nothing is read.
  const pasted huge = read_pasted(std::string((std::size_t{16} << 20) + 1, 'x'));
  ASSERT_EQ(huge.launch.errors.size(), 1u);
  EXPECT_EQ(huge.launch.errors[0].setting, "paste");
}

TEST(paste, deeply_nested_yaml_is_refused_naming_the_line) {
  // 40 mappings, each one indented a space deeper than the last: the YAML reader stops past 32 levels
  // (readers/yaml.hpp's max_depth); the error names the line it reached, not a crash.
  std::string text;
  for (int depth = 0; depth < 40; ++depth) text += std::string(static_cast<std::size_t>(depth), ' ') + "k:\n";
  text += std::string(40, ' ') + "v: 1\n";
  const pasted p = read_pasted(text);
  EXPECT_FALSE(p.log.has_value());
  ASSERT_EQ(p.launch.errors.size(), 1u);
  EXPECT_EQ(p.launch.errors[0].setting.rfind("line ", 0), 0u) << p.launch.errors[0].setting;
  EXPECT_NE(p.launch.errors[0].message.find("32 levels deep"), std::string::npos) << p.launch.errors[0].message;
}

}  // namespace
