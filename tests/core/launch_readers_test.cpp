// SPDX-License-Identifier: MIT
// The SGLang, TGI (launcher and docker run), Ollama (environment, `ollama run`, Modelfile) readers and llama.cpp's
// placement options (docs/readers.md), on published command lines (each with its source). The expectations are the
// commands' own numbers, mapped by the rules of docs/readers.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "llm_memory/launch.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;
using test::noted;
using test::value_of;

std::string why_ignored(const launch_read& r, const std::string& option) {
  const auto it =
      std::find_if(r.ignored.begin(), r.ignored.end(), [&](const launch_ignored& i) { return i.option == option; });
  return it == r.ignored.end() ? "(not ignored)" : it->why;
}

}  // namespace

// SGLang's docs (docs/backend/server_arguments.md, "Common launch commands"): `--tp 2` is argparse's prefix of
// --tp-size.
TEST(LaunchSglang, DocsTensorParallel) {
  const auto r = read_launch("python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --tp 2");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(r.command, "python -m sglang.launch_server");
  EXPECT_EQ(value_of(r, "runtime"), "sglang");
  EXPECT_EQ(value_of(r, "model"), "meta-llama-3-8b");
  EXPECT_EQ(value_of(r, "tp"), "2");
  EXPECT_EQ(value_of(r, "devices"), "2");
}

// A published SGLang run script (github.com/benenzhu/sglang_P, run_server.sh): DeepSeek-R1 on 8 GPUs with an fp8
// KV cache, 131072-token prefill chunks and 0.8 of the memory static.
TEST(LaunchSglang, PublishedDeepSeekScript) {
  const auto r = read_launch(
      "python -m sglang.launch_server --model /A/nvme4n1p1/DeepSeek-R1-0528 --cuda-graph-max-bs=8 --tp 8  "
      "--chunked-prefill-size=131072 --num-continuous-decode-steps=4 --max-prefill-tokens=131072 --kv-cache-dtype "
      "fp8_e4m3 --attention-backend aiter --disable-radix-cache --mem-fraction-static=0.8 --load-format dummy");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(value_of(r, "tp"), "8");
  EXPECT_EQ(value_of(r, "devices"), "8");
  EXPECT_EQ(value_of(r, "max_num_batched_tokens"), "131072");
  EXPECT_EQ(value_of(r, "mem_fraction_static"), "0.8");
  EXPECT_EQ(value_of(r, "kv_dtype"), "fp8");  // fp8_e4m3 is one byte, as fp8
  EXPECT_NE(why_ignored(r, "--max-prefill-tokens"), "(not ignored)");
  EXPECT_NE(why_ignored(r, "--num-continuous-decode-steps"), "(not ignored)");  // an option no row names
}

// SGLang's docs ("--mem-fraction-static", "--chunked-prefill-size -1" turns chunking off; context length).
TEST(LaunchSglang, ContextAndNoChunking) {
  const auto r = read_launch(
      "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --context-length 32768 "
      "--chunked-prefill-size -1 --max-running-requests 64 --quantization fp8");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(value_of(r, "model"), "qwen2.5-7b");
  EXPECT_EQ(value_of(r, "seq"), "32768");
  EXPECT_EQ(value_of(r, "max_num_batched_tokens"), "0");
  EXPECT_EQ(value_of(r, "weights_dtype"), "fp8");
  EXPECT_NE(why_ignored(r, "--max-running-requests").find("mem_fraction_static"), std::string::npos);
}

// theneuralbase.com's TGI lesson "Sharded weights across GPUs": TGI 2.0 over 4 shards.
TEST(LaunchTgi, DockerRunSharded) {
  const auto r = read_launch(
      "docker run \\\n--gpus all \\\n-p 8080:80 \\\n-e CUDA_VISIBLE_DEVICES=0,1,2,3 \\\n"
      "ghcr.io/huggingface/text-generation-inference:2.0 \\\n--model-id meta-llama/Llama-3.1-70B-Instruct \\\n"
      "--num-shard 4 \\\n--max-input-length 2048 \\\n--max-total-tokens 4096");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(r.command, "docker run ghcr.io/huggingface/text-generation-inference (text-generation-launcher)");
  EXPECT_EQ(value_of(r, "runtime"), "tgi");
  EXPECT_EQ(value_of(r, "tgi_version"), "1.4.1");  // 2.0 is in the 1.4.1 - 2.3 group
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-70b");
  EXPECT_EQ(value_of(r, "tp"), "4");
  EXPECT_EQ(value_of(r, "devices"), "4");
  EXPECT_EQ(value_of(r, "seq"), "4096");
  EXPECT_NE(why_ignored(r, "--max-input-length"), "(not ignored)");
  EXPECT_NE(why_ignored(r, "CUDA_VISIBLE_DEVICES"), "(not ignored)");
  EXPECT_NE(why_ignored(r, "--gpus"), "(not ignored)");
}

// TGI's README quick tour: variables on their own lines, then the command that uses them.
TEST(LaunchTgi, ReadmeVariablesExpand) {
  const auto r = read_launch(
      "model=meta-llama/Llama-3.1-8B-Instruct\nvolume=$PWD/data\n\n"
      "docker run --gpus all --shm-size 1g -p 8080:80 -v $volume:/data \\\n"
      "    ghcr.io/huggingface/text-generation-inference:3.3.5 --model-id $model --quantize bitsandbytes-nf4");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "tgi_version"), "3.3");
  EXPECT_EQ(value_of(r, "weights_dtype"), "nf4");
  EXPECT_FALSE(noted(r, "only the first command"));
}

// The launcher itself with its environment (clap `env`) and flags; the command line wins over MAX_TOTAL_TOKENS.
TEST(LaunchTgi, LauncherWithEnvironment) {
  const auto r = read_launch(
      "MAX_TOTAL_TOKENS=2048 CUDA_MEMORY_FRACTION=0.9 text-generation-launcher --model-id mistralai/Mistral-7B-v0.1 "
      "--max-total-tokens 8192 --max-batch-prefill-tokens 8242 --dtype bfloat16 --kv-cache-dtype fp8_e5m2");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(value_of(r, "seq"), "8192");
  EXPECT_EQ(value_of(r, "gpu_memory_utilization"), "0.9");
  EXPECT_EQ(value_of(r, "max_num_batched_tokens"), "8242");
  EXPECT_EQ(value_of(r, "weights_dtype"), "bf16");
  EXPECT_EQ(value_of(r, "kv_dtype"), "fp8");
}

TEST(LaunchTgi, ImageTagsAndUnknownImages) {
  EXPECT_EQ(value_of(read_launch("docker run ghcr.io/huggingface/text-generation-inference:3.2.1 --model-id "
                                 "mistralai/Mistral-7B-v0.1"),
                     "tgi_version"),
            "3.1");
  const auto latest = read_launch(
      "docker run ghcr.io/huggingface/text-generation-inference:latest --model-id mistralai/Mistral-7B-v0.1");
  EXPECT_EQ(value_of(latest, "tgi_version"), "(unset)");
  EXPECT_TRUE(noted(latest, "latest"));
  const auto other = read_launch("docker run --rm -it ubuntu:22.04 bash");
  ASSERT_EQ(other.errors.size(), 1U);
  EXPECT_EQ(other.errors[0].setting, "command");
  EXPECT_EQ(read_launch("docker run -d").errors.at(0).message, "docker run names no image");
}

// SGLang's docker instructions (docs/start/install.md): the image followed by its own launch command.
TEST(LaunchDocker, ImageWithItsCommand) {
  const auto r = read_launch(
      "docker run --gpus all --shm-size 32g -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface "
      "--env \"HF_TOKEN=<secret>\" --ipc=host lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path "
      "meta-llama/Llama-3.1-8B-Instruct --host 0.0.0.0 --port 30000");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(r.command, "docker run lmsysorg/sglang (python -m sglang.launch_server)");
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "runtime"), "sglang");
  // The token's name is listed, never its value.
  EXPECT_NE(why_ignored(r, "HF_TOKEN"), "(not ignored)");
  for (const auto& i : r.ignored) EXPECT_EQ(i.option.find("secret"), std::string::npos);
}

// Ollama's FAQ ("How can I enable flash attention?", "How can I set the quantization type for the K/V cache?",
// "How do I configure Ollama server?"): the server's environment.
TEST(LaunchOllama, ServeEnvironment) {
  const auto r = read_launch(
      "OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_NUM_PARALLEL=2 "
      "OLLAMA_HOST=0.0.0.0 ollama serve");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(value_of(r, "runtime"), "ollama");
  EXPECT_EQ(value_of(r, "attention"), "flash");
  EXPECT_EQ(value_of(r, "kv_dtype"), "q8_0");
  EXPECT_EQ(value_of(r, "seq"), "8192");  // each slot holds the whole context
  EXPECT_EQ(value_of(r, "batch"), "2");
  EXPECT_NE(why_ignored(r, "OLLAMA_HOST"), "(not ignored)");
}

TEST(LaunchOllama, QuantizedCacheNeedsFlashAttention) {
  const auto r = read_launch("OLLAMA_FLASH_ATTENTION=0 OLLAMA_KV_CACHE_TYPE=q4_0 ollama serve");
  EXPECT_EQ(value_of(r, "kv_dtype"), "(unset)");
  EXPECT_NE(why_ignored(r, "OLLAMA_KV_CACHE_TYPE").find("f16"), std::string::npos);
}

// Ollama's README ("ollama run llama3.2") and library tags.
TEST(LaunchOllama, RunModelNames) {
  const auto tagged = read_launch("ollama run llama3.1:8b-instruct-q8_0");
  EXPECT_EQ(value_of(tagged, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(tagged, "weights_dtype"), "q8_0");
  const auto plain = read_launch("ollama run qwen2.5:7b --verbose");
  EXPECT_EQ(value_of(plain, "model"), "qwen2.5-7b");
  EXPECT_EQ(value_of(plain, "weights_dtype"), "q4_k_m");  // the library's default, with a note
  EXPECT_TRUE(noted(plain, "Q4_K_M"));
  const auto untagged = read_launch("ollama run llama3.1");
  EXPECT_EQ(value_of(untagged, "model"), "(unset)");  // no size: a note, not a guess
  const auto hub = read_launch("ollama run hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M");
  EXPECT_EQ(value_of(hub, "model"), "llama-3.2-1b");
  EXPECT_EQ(value_of(hub, "weights_dtype"), "q4_k_m");
}

// Ollama's docs/modelfile.md: FROM, PARAMETER num_ctx, a multi-line TEMPLATE, and sampling parameters.
TEST(LaunchOllama, Modelfile) {
  const auto r = read_launch(
      "# a Modelfile\nFROM llama3.2:3b\nPARAMETER temperature 1\nPARAMETER num_ctx 4096\nPARAMETER num_gpu 20\n"
      "TEMPLATE \"\"\"{{ if .System }}<|start_header_id|>system\nPARAMETER num_ctx 1\n\"\"\"\n"
      "SYSTEM You are Mario from Super Mario Bros.\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(r.command, "Modelfile");
  EXPECT_EQ(value_of(r, "model"), "llama-3.2-3b");
  EXPECT_EQ(value_of(r, "seq"), "4096");  // the line inside the template is not read
  EXPECT_EQ(value_of(r, "n_gpu_layers"), "20");
  EXPECT_NE(why_ignored(r, "line 3: PARAMETER temperature"), "(not ignored)");
  EXPECT_NE(why_ignored(r, "line 9: SYSTEM"), "(not ignored)");
}

TEST(LaunchOllama, ModelfileErrorsNameTheLine) {
  const auto r = read_launch("FROM ./model-Q4_K_M.gguf\nPARAMETER num_ctx lots\nPARAMETER\n");
  ASSERT_EQ(r.errors.size(), 2U);
  EXPECT_EQ(r.errors[0].setting, "line 2: PARAMETER num_ctx");
  EXPECT_EQ(r.errors[1].setting, "line 3: PARAMETER");
  EXPECT_EQ(value_of(r, "weights_dtype"), "q4_k_m");
}

// llama.cpp's placement options are named, not mapped (docs/readers.md).
TEST(LaunchLlamaCpp, PlacementAndFitAreNamed) {
  const auto r = read_launch(
      "llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf -ngl 99 -ts 3,1 -ot \"blk\\.(1[0-9])\\.ffn_.*_exps\\.=CPU\" "
      "--fit off -c 16384");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_NE(why_ignored(r, "-ts"), "(not ignored)");
  EXPECT_NE(why_ignored(r, "-ot"), "(not ignored)");
  EXPECT_NE(why_ignored(r, "--fit"), "(not ignored)");
  EXPECT_EQ(value_of(r, "seq"), "16384");
}

// kv_dtype's runtime names pass through the readers: llama.cpp's -ctk is its own setting, Ollama's type is kv_dtype.
TEST(LaunchKvTypes, EachRuntimesNames) {
  EXPECT_EQ(value_of(read_launch("vllm serve mistralai/Mistral-7B-v0.1 --kv-cache-dtype fp8_e5m2"), "kv_dtype"), "fp8");
  EXPECT_EQ(value_of(read_launch("OLLAMA_KV_CACHE_TYPE=F16 ollama serve"), "kv_dtype"), "f16");
  const auto bad = read_launch("OLLAMA_KV_CACHE_TYPE=q3_k ollama serve");
  ASSERT_EQ(bad.errors.size(), 1U);
  EXPECT_EQ(bad.errors[0].setting, "OLLAMA_KV_CACHE_TYPE");
}
