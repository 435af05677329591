// SPDX-License-Identifier: MIT
// Launch commands in (launch.hpp, docs/readers.md): published command lines read into settings, each option
// listed as read or ignored, and bad input as an error naming the option. The expectations are the commands'
// own numbers, mapped by the rules of docs/readers.md.
#include "llm_memory/launch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::ignored;
using test::noted;
using test::read_by;
using test::value_of;

// vLLM's `vllm serve` CLI page (docs.vllm.ai, "Configure memory and context length").
TEST(Launch, VllmServeMemoryAndContext) {
  const auto r = read_launch(
      "vllm serve mistralai/Mistral-7B-v0.1 \\\n  --gpu-memory-utilization 0.95 \\\n  --max-model-len 8192\n");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(r.command, "vllm serve");
  EXPECT_EQ(value_of(r, "model"), "mistral-7b-v0.1");
  EXPECT_EQ(value_of(r, "runtime"), "vllm");
  EXPECT_EQ(value_of(r, "mode"), "inference");
  EXPECT_EQ(value_of(r, "gpu_memory_utilization"), "0.95");
  EXPECT_EQ(value_of(r, "seq"), "8192");
  EXPECT_EQ(read_by(r, "seq"), "--max-model-len");
  EXPECT_EQ(read_by(r, "model"), "model");  // the positional argument
  EXPECT_TRUE(r.ignored.empty());
}

// The same page: "Specify tensor parallelism" and "Serve with quantization".
TEST(Launch, VllmServeTensorParallelAndAwq) {
  const auto tp = read_launch("vllm serve meta-llama/Llama-2-70b-hf \\\n  --tensor-parallel-size 4");
  EXPECT_EQ(value_of(tp, "model"), "llama-2-70b");
  EXPECT_EQ(value_of(tp, "tp"), "4");
  EXPECT_EQ(value_of(tp, "devices"), "4");  // one engine: tp 4 x pp 1
  const auto awq = read_launch("vllm serve TheBloke/Llama-2-13B-AWQ \\\n  --quantization awq");
  EXPECT_EQ(value_of(awq, "weights_dtype"), "awq");
  // "llama-2-13b-awq" is no preset's name: a note, no guess.
  EXPECT_EQ(value_of(awq, "model"), "(unset)");
  EXPECT_TRUE(noted(awq, "Llama-2-13B-AWQ"));
}

// The same page: prefix caching is listed as ignored, by name.
TEST(Launch, VllmPrefixCachingIgnored) {
  const auto r = read_launch("vllm serve meta-llama/Llama-2-7b-hf \\\n  --enable-prefix-caching");
  EXPECT_EQ(value_of(r, "model"), "llama-2-7b");
  EXPECT_TRUE(ignored(r, "--enable-prefix-caching"));
}

// The OpenAI server module with an env assignment, --dtype, fp8 KV and -pp (a published script:
// JihyunLee1/panic_demo src/run_model_server.sh, with -pp 2 and --enforce-eager added).
TEST(Launch, VllmModuleFormWithEnv) {
  const auto r = read_launch(
      "CUDA_VISIBLE_DEVICES=0,1,2,3 python3 -m vllm.entrypoints.openai.api_server \\\n"
      "    --model Qwen/Qwen2.5-7B-Instruct --served-model-name pacer --host 0.0.0.0 --port 8001 \\\n"
      "    --dtype float16 --tensor-parallel-size 2 -pp 2 --max-model-len 512 --kv-cache-dtype fp8_e5m2 "
      "--enforce-eager");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(r.command, "python -m vllm.entrypoints.openai.api_server");
  EXPECT_EQ(value_of(r, "model"), "qwen2.5-7b");
  EXPECT_EQ(value_of(r, "weights_dtype"), "fp16");
  EXPECT_EQ(value_of(r, "tp"), "2");
  EXPECT_EQ(value_of(r, "pp"), "2");
  EXPECT_EQ(value_of(r, "devices"), "4");  // 2 x 2
  EXPECT_EQ(value_of(r, "seq"), "512");
  EXPECT_EQ(value_of(r, "kv_dtype"), "fp8");
  EXPECT_EQ(value_of(r, "cuda_graph_memory"), "0");
  for (const auto* o : {"--served-model-name", "--host", "--port"}) EXPECT_TRUE(ignored(r, o)) << o;
}

// A command posted on the Hub (lukealonso/MiniMax-M2.7-NVFP4, discussion 10): env lines, a human-readable
// --max-model-len (130k = 130,000), an underscore spelling and a KV dtype with no kv_dtype choice.
TEST(Launch, VllmHubPostedCommand) {
  const auto r = read_launch(
      "CUDA_VISIBLE_DEVICES=0,1 \\\nSAFETENSORS_FAST_GPU=1 \\\nvllm serve lukealonso/MiniMax-M2.7-NVFP4 \\\n"
      "  --port 23333 \\\n  --trust-remote-code \\\n  --tensor-parallel-size 2 \\\n  --enable_expert_parallel \\\n"
      "  --gpu-memory-utilization 0.95 \\\n  --max-num-seqs 8 \\\n  --kv-cache-dtype turboquant_k8v4 \\\n"
      "  --max-model-len 130k");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(value_of(r, "seq"), "130000");
  EXPECT_EQ(value_of(r, "max_num_seqs"), "8");
  EXPECT_EQ(value_of(r, "tp"), "2");
  EXPECT_EQ(value_of(r, "kv_dtype"), "(unset)");
  EXPECT_TRUE(ignored(r, "--kv-cache-dtype"));
  EXPECT_TRUE(ignored(r, "--enable-expert-parallel"));  // read as vLLM's parser reads it
  EXPECT_TRUE(noted(r, "MiniMax-M2.7-NVFP4"));
}

// --max-model-len 32K is binary (32 x 1024); --quantization names the weights over --dtype, in either order.
TEST(Launch, VllmBinarySuffixAndQuantizationOverDtype) {
  const auto r = read_launch("vllm serve Qwen/Qwen2.5-7B-Instruct --dtype bfloat16 -q fp8 --max-model-len 32K");
  EXPECT_EQ(value_of(r, "seq"), "32768");
  EXPECT_EQ(value_of(r, "weights_dtype"), "fp8");
  EXPECT_TRUE(ignored(r, "--dtype"));
  const auto after = read_launch("vllm serve Qwen/Qwen2.5-7B-Instruct -q awq --dtype half");
  EXPECT_EQ(value_of(after, "weights_dtype"), "awq");
  EXPECT_TRUE(ignored(after, "--dtype"));
}

// llama.cpp's README quick start: a Hub repo of GGUF files (llama.cpp picks Q4_K_M in it; no type named).
TEST(Launch, LlamaServerHubRepo) {
  const auto r = read_launch("llama-server -hf ggml-org/gemma-3-1b-it-GGUF");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(value_of(r, "model"), "gemma-3-1b-pt");  // gemma-3-1b-it is that preset's alias
  EXPECT_EQ(value_of(r, "runtime"), "llamacpp");
  EXPECT_EQ(value_of(r, "weights_dtype"), "(unset)");
  EXPECT_TRUE(noted(r, "names no GGUF type"));
}

// The example line: -c over -np slots, -ngl 99, a bare -fa, q8_0 K and V caches, and the GGUF file name
// as preset and weights format.
TEST(Launch, LlamaServerSlotsSplitTheContext) {
  const auto r = read_launch(
      "./llama-server -m models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -c 32768 -ngl 99 -fa -np 4 "
      "-ctk q8_0 -ctv q8_0 --port 8080");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "weights_dtype"), "q4_k_m");
  EXPECT_EQ(value_of(r, "batch"), "4");
  EXPECT_EQ(value_of(r, "seq"), "8192");  // 32768 / 4 slots
  EXPECT_EQ(value_of(r, "n_gpu_layers"), "99");
  EXPECT_EQ(value_of(r, "attention"), "flash");
  EXPECT_EQ(value_of(r, "cache_type_k"), "q8_0");
  EXPECT_EQ(value_of(r, "cache_type_v"), "q8_0");
  EXPECT_TRUE(ignored(r, "--port"));

  // The same estimate as the settings typed by hand.
  const auto from = resolve(r.values);
  const auto hand = resolve({{"model", "llama-3.1-8b"},
                             {"mode", "inference"},
                             {"runtime", "llamacpp"},
                             {"weights_dtype", "q4_k_m"},
                             {"seq", "8192"},
                             {"batch", "4"},
                             {"n_gpu_layers", "99"},
                             {"attention", "flash"},
                             {"cache_type_k", "q8_0"},
                             {"cache_type_v", "q8_0"}});
  ASSERT_TRUE(from.ok());
  ASSERT_TRUE(hand.ok());
  EXPECT_EQ(estimate(from.value()).total_bytes, estimate(hand.value()).total_bytes);
}

// A published script (charlescva/interactive-llama llama-server-local.sh): a lower-case type suffix, -t, --alias,
// --jinja, an unknown option with its value, and a comment line after the command.
TEST(Launch, LlamaServerPublishedScript) {
  const auto r = read_launch("cd ~/src/llama.cpp/build/bin\n");  // a script's first line is another command
  EXPECT_FALSE(r.errors.empty());
  const auto s = read_launch(
      "./llama-server \\\n  -m ~/Downloads/qwen2.5-coder-7b-instruct-q5_k_m.gguf \\\n  --alias qwen2.5-coder-7b \\\n"
      "  -ngl 29 \\\n  -c 4096 \\\n  -t 8 \\\n  --host 127.0.0.1 \\\n  --port 8080 \\\n  --jinja \\\n"
      "  --chat-template-file /home/x/agentic-chat-template.jinja\n  # optionally: --api-key mylocalkey\n");
  ASSERT_TRUE(s.errors.empty());
  EXPECT_EQ(value_of(s, "weights_dtype"), "q5_k_m");
  EXPECT_EQ(value_of(s, "n_gpu_layers"), "29");
  EXPECT_EQ(value_of(s, "seq"), "4096");                         // no -np: one slot
  EXPECT_EQ(value_of(s, "model"), "qwen2.5-coder-7b-instruct");  // the preset of that id
  for (const auto* o : {"--alias", "-t", "--host", "--port", "--jinja", "--chat-template-file"})
    EXPECT_TRUE(ignored(s, o)) << o;
  EXPECT_FALSE(noted(s, "only the first command"));  // the comment line is no command
}

// A published one-liner (lum7671/Scripts run_llvm_coder.zsh): -fa before another option, -ctx-size 0 (the
// model's own context), the type in the repo's name, and `&` ending the command.
TEST(Launch, LlamaServerRepoNamedForItsType) {
  const auto r = read_launch(
      "llama-server \\\n    -hf ggml-org/Qwen2.5-Coder-3B-Q8_0-GGUF \\\n    --port 8012 -ngl 99 -fa -ub 1024 -b 1024 "
      "-dt 0.1 \\\n    --ctx-size 0 --cache-reuse 256 &\n");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(value_of(r, "weights_dtype"), "q8_0");
  EXPECT_EQ(value_of(r, "attention"), "flash");
  EXPECT_EQ(value_of(r, "n_ubatch"), "1024");
  EXPECT_EQ(value_of(r, "n_batch"), "1024");
  EXPECT_EQ(value_of(r, "seq"), "(unset)");
  EXPECT_TRUE(ignored(r, "--ctx-size"));
  EXPECT_TRUE(ignored(r, "-dt"));
}

// -fa takes on|off|auto in current llama.cpp (a bare flag before); -ngl all; the environment variables llama.cpp reads,
// with the command line winning; llama-cli has no slots.
TEST(Launch, LlamaValuesEnvAndCli) {
  const auto r = read_launch(
      "LLAMA_ARG_CTX_SIZE=4096 LLAMA_ARG_N_PARALLEL=2 llama-server -m x-Q4_0.gguf -fa off "
      "-ngl all --ctx-size=16384");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(value_of(r, "attention"), "eager");
  EXPECT_EQ(value_of(r, "n_gpu_layers"), "999");
  EXPECT_EQ(value_of(r, "batch"), "2");
  EXPECT_EQ(value_of(r, "seq"), "8192");  // 16384 (the command line's) / 2
  EXPECT_EQ(value_of(r, "weights_dtype"), "q4_0");
  const auto exponent = read_launch("llama-server -c 8e3 -np 3");  // seq's parser reads 8e3 as 8000
  EXPECT_EQ(value_of(exponent, "seq"), "2666");                    // 8000 / 3, rounded down
  const auto cli = read_launch("llama-cli -m model.gguf -c 4096 -np 3");
  EXPECT_EQ(value_of(cli, "batch"), "(unset)");
  EXPECT_EQ(value_of(cli, "seq"), "4096");
  EXPECT_TRUE(ignored(cli, "-np"));
}

// A name several presets could be is a note, not a guess.
TEST(Launch, AmbiguousNameIsANote) {
  const auto r = read_launch("llama-server -m mistral-7b-Q4_K_M.gguf");
  EXPECT_EQ(value_of(r, "model"), "(unset)");
  EXPECT_TRUE(noted(r, "could be mistral-7b-instruct-v0.2, mistral-7b-instruct-v0.3, mistral-7b-v0.1"));
  EXPECT_EQ(value_of(r, "weights_dtype"), "q4_k_m");
}

// Bad input: an error naming the option (or "command"), never a crash.
TEST(Launch, BadInputNamesTheOption) {
  const auto first = [](std::string_view text) {
    const auto r = read_launch(text);
    return r.errors.empty() ? std::string("(none)") : r.errors.front().setting + ": " + r.errors.front().message;
  };
  EXPECT_EQ(first(""), "command: is empty: paste a launch command (vllm serve ..., llama-server ...)");
  EXPECT_EQ(first("  # only a comment\n"),
            "command: is empty: paste a launch command (vllm serve ..., llama-server ...)");
  EXPECT_EQ(first("vllm serve 'x"), "command: unbalanced ' quote opened at byte 12");
  EXPECT_EQ(first("vllm serve \"x"), "command: unbalanced \" quote opened at byte 12");
  EXPECT_EQ(first("llama-server -c"), "-c: needs a value after it");
  EXPECT_EQ(first("llama-server -c abc"), "-c: seq: must be an integer from 1 to 100000000, got \"abc\"");
  EXPECT_EQ(first("llama-server -ctk q3_k"),
            "-ctk: cache_type_k: must be one of f16|bf16|f32|q8_0|q5_1|q5_0|q4_1|q4_0|iq4_nl, got \"q3_k\"");
  EXPECT_EQ(first("vllm serve m --gpu-memory-utilization 1.5"),
            "--gpu-memory-utilization: gpu_memory_utilization: must be a number from 0.01 to 1, got \"1.5\"");
  EXPECT_EQ(first("vllm serve m --max-model-len 1.2.3k"),
            "--max-model-len: seq: must be an integer from 1 to 100000000, got \"1.2.3k\"");
  EXPECT_EQ(first("vllm serve m --max-model-len .k"),
            "--max-model-len: seq: must be an integer from 1 to 100000000, got \".k\"");
  EXPECT_EQ(first("vllm serve m -tp 1024 -pp 1024"),
            "tp x pp: devices: must be an integer from 1 to 1000000, got \"1048576\"");
  EXPECT_EQ(first("llama-server -fa maybe"), "(none)");  // not a -fa value: an argument, listed as ignored
  EXPECT_EQ(first("kubectl run vllm --image=vllm/vllm-openai"),
            "command: \"kubectl\" is not a launch command llm-memory reads (vllm serve, python -m "
            "vllm.entrypoints.openai.api_server, llama-server, llama-cli, python -m sglang.launch_server, "
            "text-generation-launcher, docker run, podman run, ollama serve, ollama run, Modelfile, "
            "python pretrain_gpt.py, llm-memory, tune run, trl sft, python SCRIPT.py, torchrun, accelerate launch)");
  EXPECT_EQ(first(std::string("vllm serve\0x", 12)), "command: holds a NUL byte: not a command line");
  EXPECT_EQ(first(std::string((1 << 20) + 1, 'a')), "command: longer than 1 MiB");
}

// Random text over the characters the tokenizer and the walkers act on: never a crash, and every problem names
// what it is about.
TEST(Launch, RandomTextNeverCrashes) {
  constexpr std::string_view alphabet =
      "ab -=\\'\"\n#;&|0k.Kvllm serve llama-server -c -np -fa -m x.gguf -tp --max-model-len ";
  std::mt19937 rng(33);
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const auto length = rng() % 80;
    for (std::uint32_t j = 0; j < length; ++j) text += alphabet[rng() % alphabet.size()];
    if (i % 3 == 0) text = (i % 2 == 0 ? "vllm serve " : "llama-server ") + text;
    const auto r = read_launch(text);
    for (const auto& e : r.errors) EXPECT_FALSE(e.setting.empty() || e.message.empty()) << text;
  }
}

// Quotes, escapes and continuations as a shell reads them.
TEST(Launch, ShellWords) {
  const auto r = read_launch(
      "vllm serve \"meta-llama/Llama-3.1-8B-Instruct\" --max-model-len='4096' \\\r\n"
      "  --served-model-name my\\ model --port \"80\"\"80\"");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "seq"), "4096");
  EXPECT_EQ(r.ignored.size(), 2U);
}

}  // namespace
