// SPDX-License-Identifier: MIT
// Launch commands out (emit.hpp, docs/readers.md "Emit"): for random settings, the emitted command read back by
// the launch readers (launch.hpp) resolves to the same values of every setting the format carries; the ones it
// cannot carry are listed by name.
#include "llm_memory/emit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

template <class T>
const T& pick(std::mt19937& rng, const std::vector<T>& items) {
  return items[rng() % items.size()];
}

bool carried(const emitted& e, const std::string& key) {
  return std::find(e.not_carried.begin(), e.not_carried.end(), key) == e.not_carried.end();
}

// Settings a vLLM user sets, drawn at random (tp and pp among the degrees Llama 3.1 8B's 8 KV heads allow).
settings random_vllm(std::mt19937& rng) {
  const std::string tp = pick<std::string>(rng, {"1", "2", "4", "8"}), pp = pick<std::string>(rng, {"1", "2"});
  return {{"mode", "inference"},
          {"runtime", "vllm"},
          {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b", "mistral-7b-v0.1"})},
          {"seq", std::to_string(1 + rng() % 32768)},
          {"tp", tp},
          {"pp", pp},
          {"devices", std::to_string(std::stoi(tp) * std::stoi(pp))},
          {"gpu_memory_utilization", pick<std::string>(rng, {"0.5", "0.85", "0.9", "0.95"})},
          {"max_num_seqs", std::to_string(1 + rng() % 512)},
          {"max_num_batched_tokens", std::to_string(256 + rng() % 16384)},
          {"block_size", pick<std::string>(rng, {"16", "32"})},
          {"kv_dtype", pick<std::string>(rng, {"auto", "fp8", "bf16", "fp16"})},
          {"weights_dtype", pick<std::string>(rng, {"bf16", "fp16", "awq", "gptq", "fp8", "nf4", "int8"})},
          {"cuda_graph_memory", pick<std::string>(rng, {"0", "1GiB"})}};
}

settings random_sglang(std::mt19937& rng) {
  const std::string tp = pick<std::string>(rng, {"1", "2", "4"}), pp = pick<std::string>(rng, {"1", "2"});
  return {{"mode", "inference"},
          {"runtime", "sglang"},
          {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b"})},
          {"seq", std::to_string(1 + rng() % 32768)},
          {"tp", tp},
          {"pp", pp},
          {"devices", std::to_string(std::stoi(tp) * std::stoi(pp))},
          // 0 (SGLang's default for the device) is written as no option, which reads back as that default's value.
          {"mem_fraction_static", pick<std::string>(rng, {"0.8", "0.88", "0.9"})},
          {"max_num_batched_tokens", pick<std::string>(rng, {"0", "4096", "8192"})},
          {"block_size", pick<std::string>(rng, {"1", "16"})},
          {"kv_dtype", pick<std::string>(rng, {"auto", "fp8", "bf16", "int4"})},
          {"weights_dtype", pick<std::string>(rng, {"bf16", "fp16", "awq", "fp8", "int8", "q4_k_m"})}};
}

settings random_llamacpp(std::mt19937& rng) {
  return {{"mode", "inference"},
          {"runtime", "llamacpp"},
          {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b"})},
          {"seq", std::to_string(1 + rng() % 32768)},
          {"batch", std::to_string(1 + rng() % 8)},
          {"n_gpu_layers", std::to_string(rng() % 40)},
          {"n_batch", pick<std::string>(rng, {"512", "2048"})},
          {"n_ubatch", pick<std::string>(rng, {"256", "512"})},
          {"attention", pick<std::string>(rng, {"flash", "eager", "standard"})},
          {"cache_type_k", pick<std::string>(rng, {"f16", "q8_0", "q4_0"})},
          {"cache_type_v", pick<std::string>(rng, {"f16", "q8_0"})},
          {"weights_dtype", pick<std::string>(rng, {"q4_k_m", "q8_0", "fp16", "bf16", "iq4_xs", "awq"})}};
}

// Emits `typed` resolved, reads the text back, resolves that, and compares `keys` the format carried.
void round_trip(const settings& typed, std::string_view format, const std::vector<std::string>& keys, int& checked) {
  const auto spec = resolve(typed);
  if (!spec.ok()) return;  // a combination the runtime refuses (a quantized V cache without flash attention)
  const auto out = emit(spec.value().values, format);
  ASSERT_TRUE(out.ok());
  const launch_read read = read_launch(out.value().text);
  ASSERT_TRUE(read.errors.empty()) << out.value().text << read.errors.front().message;
  settings back = read.values;
  for (const auto& key : out.value().not_carried) back[key] = typed.at(key);  // given beside the command
  const auto again = resolve(back);
  ASSERT_TRUE(again.ok()) << out.value().text;
  const settings want = to_settings(spec.value().values), got = to_settings(again.value().values);
  EXPECT_EQ(estimate(again.value()).total_bytes, estimate(spec.value()).total_bytes) << out.value().text;
  for (const auto& key : keys) {
    if (!carried(out.value(), key)) continue;
    EXPECT_EQ(got.at(key), want.at(key)) << key << " from\n" << out.value().text;
  }
  ++checked;
}

TEST(emit, vllm_serve_reads_back_as_the_same_settings) {
  std::mt19937 rng(2);
  int checked = 0;
  const std::vector<std::string> keys = {"model",
                                         "seq",
                                         "tp",
                                         "pp",
                                         "devices",
                                         "gpu_memory_utilization",
                                         "max_num_seqs",
                                         "max_num_batched_tokens",
                                         "block_size",
                                         "kv_dtype",
                                         "weights_dtype",
                                         "cuda_graph_memory"};
  for (int i = 0; i < 300; ++i) round_trip(random_vllm(rng), "vllm", keys, checked);
  EXPECT_GT(checked, 200);
}

TEST(emit, sglang_launch_server_reads_back_as_the_same_settings) {
  std::mt19937 rng(4);
  int checked = 0;
  const std::vector<std::string> keys = {
      "model",      "seq",      "tp",           "pp", "devices", "mem_fraction_static", "max_num_batched_tokens",
      "block_size", "kv_dtype", "weights_dtype"};
  for (int i = 0; i < 300; ++i) round_trip(random_sglang(rng), "sglang", keys, checked);
  EXPECT_GT(checked, 200);
}

TEST(emit, llama_server_reads_back_as_the_same_settings) {
  std::mt19937 rng(3);
  int checked = 0;
  const std::vector<std::string> keys = {"model",    "seq",       "batch",        "n_gpu_layers", "n_batch",
                                         "n_ubatch", "attention", "cache_type_k", "cache_type_v", "weights_dtype"};
  for (int i = 0; i < 300; ++i) round_trip(random_llamacpp(rng), "llamacpp", keys, checked);
  EXPECT_GT(checked, 100);
}

settings random_ollama(std::mt19937& rng) {
  return {{"mode", "inference"},
          {"runtime", "ollama"},
          {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b"})},
          {"seq", std::to_string(1 + rng() % 32768)},
          {"batch", std::to_string(1 + rng() % 4)},
          {"n_gpu_layers", std::to_string(rng() % 40)},
          {"attention", pick<std::string>(rng, {"flash", "eager", "standard"})},
          {"kv_dtype", pick<std::string>(rng, {"auto", "fp16", "q8_0", "q4_0", "fp8"})},
          {"weights_dtype", pick<std::string>(rng, {"q4_k_m", "q8_0", "fp16", "awq"})}};
}

// The Modelfile reads back its FROM and PARAMETER lines; its comment line, run as `ollama serve`, the environment.
TEST(emit, an_ollama_modelfile_and_its_environment_read_back_as_the_same_settings) {
  std::mt19937 rng(5);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const settings typed = random_ollama(rng);
    const auto spec = resolve(typed);
    if (!spec.ok()) continue;  // q8_0 / q4_0 without flash attention
    const auto out = emit(spec.value().values, "ollama");
    ASSERT_TRUE(out.ok());
    const std::string& text = out.value().text;
    const launch_read modelfile = read_launch(text);
    const launch_read env = read_launch(text.substr(text.find("# OLLAMA_") + 2));
    ASSERT_TRUE(modelfile.errors.empty() && env.errors.empty()) << text;
    settings back = modelfile.values;
    for (const auto& [key, value] : env.values) back[key] = value;
    for (const auto& key : out.value().not_carried) back[key] = typed.at(key);
    const auto again = resolve(back);
    ASSERT_TRUE(again.ok()) << text;
    const settings want = to_settings(spec.value().values), got = to_settings(again.value().values);
    for (const std::string key : {"model", "weights_dtype", "seq", "n_gpu_layers", "batch", "attention", "kv_dtype"})
      if (carried(out.value(), key)) {
        EXPECT_EQ(got.at(key), want.at(key)) << key << " from\n" << text;
      }
    EXPECT_EQ(estimate(again.value()).total_bytes, estimate(spec.value()).total_bytes) << text;
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

TEST(emit, what_a_format_cannot_carry_is_listed_and_an_unknown_format_refused) {
  const auto spec = resolve(settings{{"mode", "inference"},
                                     {"runtime", "vllm"},
                                     {"model", "llama-3.1-8b"},
                                     {"kv_dtype", "fp16"},
                                     {"cuda_graph_memory", "1GiB"}});
  ASSERT_TRUE(spec.ok());
  const auto out = emit(spec.value().values, "vllm");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.value().not_carried, (std::vector<std::string>{"kv_dtype", "cuda_graph_memory"}));
  EXPECT_EQ(emit(spec.value().values, "tgi").errors().at(0).setting, "emit");
}

settings random_deepspeed(std::mt19937& rng) {
  return {{"mode", "train"},
          {"framework", "deepspeed"},
          {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b"})},
          {"seq", std::to_string(1 + rng() % 8192)},
          {"devices", pick<std::string>(rng, {"1", "2", "8"})},
          {"batch", std::to_string(1 + rng() % 16)},
          {"grad_accum", std::to_string(1 + rng() % 64)},
          {"zero", pick<std::string>(rng, {"0", "1", "2", "3"})},
          {"offload", pick<std::string>(rng, {"none", "optimizer", "optimizer+params"})},
          {"weights_dtype", pick<std::string>(rng, {"bf16", "fp16", "fp32"})}};
}

// A DeepSpeed config reads back (--from) as the micro-batch, accumulation, 16-bit engine, ZeRO stage and offload
// it was written from; the model, sequence and devices go beside it.
TEST(emit, a_deepspeed_config_reads_back_as_the_same_settings) {
  std::mt19937 rng(6);
  int checked = 0;
  const std::vector<std::string> keys = {"framework", "batch", "grad_accum", "zero", "offload", "weights_dtype"};
  for (int i = 0; i < 300; ++i) round_trip(random_deepspeed(rng), "deepspeed", keys, checked);
  EXPECT_GT(checked, 100);
}

TEST(emit, a_deepspeed_config_as_written) {
  const auto spec = resolve(settings{{"mode", "train"},
                                     {"framework", "deepspeed"},
                                     {"model", "llama-3.1-8b"},
                                     {"devices", "8"},
                                     {"batch", "4"},
                                     {"grad_accum", "8"},
                                     {"zero", "3"},
                                     {"offload", "optimizer+params"},
                                     {"weights_dtype", "bf16"}});
  ASSERT_TRUE(spec.ok());
  const auto out = emit(spec.value().values, "deepspeed");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(
      out.value().text,
      "{\n  \"train_micro_batch_size_per_gpu\": 4,\n  \"gradient_accumulation_steps\": 8,\n"
      "  \"bf16\": {\"enabled\": true},\n  \"zero_optimization\": {\n    \"stage\": 3,\n"
      "    \"offload_optimizer\": {\"device\": \"cpu\"},\n    \"offload_param\": {\"device\": \"cpu\"}\n  }\n}\n");
  EXPECT_EQ(out.value().not_carried, (std::vector<std::string>{"model", "seq", "devices"}));
}

// Which formats apply (emit_formats_for, the page's "Copy launch command"): by hand, the runtime's or framework's
// own formats the table names (vllm, sglang, llamacpp, ollama serving; deepspeed with its torchrun/trl command,
// fsdp -> accelerate, torchtune, hf -> trl, axolotl and llama-factory, litgpt, torchtitan, megatron, unsloth's script
// and generic's llm-memory line training), none for tgi, transformers or evaluation. Each format's text, read back,
// names the same runtime or framework: the table says which stack it is the words of, and its reader agrees.
TEST(emit, the_formats_that_apply_are_the_runs_own_and_read_back_to_it) {
  const auto formats_of = [](const settings& s) {
    const auto spec = resolve(s);
    EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.errors().front().message);
    std::vector<std::string> out;
    if (spec.ok())
      for (const auto& row : emit_formats_for(spec.value())) out.emplace_back(row.format);
    return out;
  };
  using formats = std::vector<std::string>;
  // Each stack of `stacks` under `mode` (`key`: runtime or framework): the formats that apply are `names`, and each
  // one's text reads back to that mode and stack.
  const auto check_stacks = [&formats_of](const std::string& mode, const std::string& key,
                                          const std::vector<std::pair<std::string, formats>>& stacks) {
    for (const auto& [stack, names] : stacks) {
      const settings s{{"mode", mode}, {key, stack}, {"model", "llama-3.1-8b"}};
      EXPECT_EQ(formats_of(s), names) << stack;
      const auto spec = resolve(s);
      if (!spec.ok()) continue;  // formats_of said why
      for (const auto& format : names) {
        const auto text = emit(spec.value().values, format);
        ASSERT_TRUE(text.ok()) << format;
        const auto back = read_launch(text.value().text).values;
        EXPECT_EQ(back.at("mode"), mode) << format;
        EXPECT_EQ(back.at(key), stack) << format << "\n" << text.value().text;
      }
    }
  };
  check_stacks("inference", "runtime",
               {{"vllm", {"vllm"}},
                {"sglang", {"sglang"}},
                {"llamacpp", {"llamacpp"}},
                {"ollama", {"ollama"}},
                {"tgi", {}},
                {"transformers", {}}});
  check_stacks("train", "framework",
               {{"deepspeed", {"deepspeed", "deepspeed-trl"}},
                {"fsdp", {"accelerate"}},
                {"torchtune", {"torchtune"}},
                {"hf", {"trl"}},
                {"axolotl", {"axolotl"}},
                {"llamafactory", {"llama-factory"}},
                {"litgpt", {"litgpt"}},
                {"megatron", {"megatron"}},
                {"torchtitan", {"torchtitan"}},
                {"generic", {"generic"}},
                {"unsloth", {"unsloth"}}});
  EXPECT_TRUE(formats_of({{"mode", "eval"}, {"framework", "hf"}, {"model", "llama-3.1-8b"}}).empty());
  // runtime auto: the runtime it chose (GGUF weights: llama.cpp; a QLoRA method's NF4 base: transformers, none).
  EXPECT_EQ(formats_of({{"mode", "inference"}, {"runtime", "auto"}, {"weights_dtype", "q4_k_m"}}), formats{"llamacpp"});
  EXPECT_EQ(formats_of({{"mode", "inference"}, {"runtime", "auto"}, {"finetune", "qlora"}}), formats{});
}

}  // namespace
