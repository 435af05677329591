// SPDX-License-Identifier: MIT
// Every reader is fuzzed (issue 33): the launch, paste and log fuzz targets (tests/fuzz/*_fuzz.cpp) hand their
// input whole to read_launch, read_pasted and read_log, and libFuzzer starts from tests/fuzz/corpus/<target> (the
// paste target also from tests/cli/recipes, scripts/fuzz.sh). A
// reader no seed reaches is fuzzed only if libFuzzer happens upon its program name or keys; here each seed is read
// as its target reads it, and together they reach every reader of readers/table.cpp and every log format of
// logs/table.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "config_support.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/log.hpp"
#include "llm_memory/paste.hpp"

namespace {

using namespace llm_memory;
using llm_memory::test::file_text;

std::filesystem::path corpus(const char* target) {
  return std::filesystem::path(LLM_MEMORY_TESTS_DIR) / "fuzz" / "corpus" / target;
}

// The paste target's seed files: its own folder and the CLI's recipes.
std::vector<std::filesystem::path> paste_seeds() {
  std::vector<std::filesystem::path> seeds;
  for (const auto& folder : {corpus("paste"), std::filesystem::path(LLM_MEMORY_TESTS_DIR) / "cli" / "recipes"})
    for (const auto& entry : std::filesystem::directory_iterator(folder)) seeds.push_back(entry.path());
  return seeds;
}

// A command as the table names its row: `docker run IMAGE (the command it runs)` is the docker reader's.
std::string row_of(const std::string& command) { return command.starts_with("docker run ") ? "docker run" : command; }

TEST(fuzz_seeds, the_seeds_reach_every_reader_and_every_log_format) {
  std::set<std::string> commands, logs;
  for (const auto& entry : std::filesystem::directory_iterator(corpus("launch")))
    commands.insert(row_of(read_launch(file_text(entry.path())).command));
  for (const auto& seed : paste_seeds()) {
    const pasted read = read_pasted(file_text(seed));
    if (read.log)
      logs.insert(read.log->format);
    else
      commands.insert(row_of(read.launch.command));
  }
  for (const auto& entry : std::filesystem::directory_iterator(corpus("log")))
    logs.insert(read_log(file_text(entry.path())).format);
  // One row per reader of readers/table.cpp's `reader` enum (trl sft stands for the training commands' reader,
  // which torchrun, accelerate launch and python SCRIPT.py share), by hand.
  for (const std::string reader : {"vllm serve",
                                   "llama-server",
                                   "llama-cli",
                                   "python -m sglang.launch_server",
                                   "text-generation-launcher",
                                   "docker run",
                                   "ollama run",
                                   "Modelfile",
                                   "python pretrain_gpt.py",
                                   "llm-memory",
                                   "tune run",
                                   "trl sft",
                                   "torchtune config",
                                   "axolotl config",
                                   "LLaMA-Factory config",
                                   "accelerate config",
                                   "DeepSpeed config",
                                   "TrainingArguments",
                                   "litgpt config",
                                   "torchtitan config",
                                   "Unsloth script"})
    EXPECT_TRUE(commands.contains(reader)) << reader << " has no seed in tests/fuzz/corpus/launch or paste";
  // logs/table.cpp's formats, by hand.
  for (const std::string format : {"vllm", "sglang", "llamacpp", "tgi", "nvidia_smi", "torch_memory", "torch_stats",
                                   "torchtune", "litgpt", "unsloth"})
    EXPECT_TRUE(logs.contains(format)) << format << " has no seed in tests/fuzz/corpus/log or paste";
}

}  // namespace
