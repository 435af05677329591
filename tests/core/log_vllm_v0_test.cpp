// SPDX-License-Identifier: MIT
// vLLM's V0 engine's startup log (0.6 - 0.10 with VLLM_USE_V1=0; logs/vllm_log.cpp, docs/readers.md "Logs"): the
// lines are written here in the wording of V0's own format strings (worker/model_runner.py load_model,
// worker/worker.py determine_num_available_blocks, executor/gpu_executor.py / executor_base.py), with made-up
// figures: what is tested is what each line sets, derived by hand beside it.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/log.hpp"
#include "log_support.hpp"

namespace llm_memory::test {
namespace {

// 0.7.3: "a V0 LLM engine", the profiling summary over three lines, "# cuda blocks".
const std::string v0_7 =
    "INFO 02-10 10:00:00 llm_engine.py:234] Initializing a V0 LLM engine (v0.7.3) with config: "
    "model='meta-llama/Llama-3.1-8B-Instruct', speculative_config=None, dtype=torch.bfloat16, max_seq_len=8192, "
    "tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto\n"
    "INFO 02-10 10:00:10 model_runner.py:1115] Loading model weights took 14.9888 GB\n"
    "INFO 02-10 10:00:12 worker.py:267] Memory profiling takes 1.20 seconds\n"
    "INFO 02-10 10:00:12 worker.py:267] the current vLLM instance can use total_gpu_memory (79.19GiB) x "
    "gpu_memory_utilization (0.90) = 71.27GiB\n"
    "INFO 02-10 10:00:12 worker.py:267] model weights take 14.99GiB; non_torch_memory takes 0.30GiB; PyTorch "
    "activation peak memory takes 1.22GiB; the rest of the memory reserved for KV Cache is 54.76GiB.\n"
    "INFO 02-10 10:00:12 executor_base.py:110] # cuda blocks: 28037, # CPU blocks: 2048\n"
    "INFO 02-10 10:00:12 executor_base.py:115] Maximum concurrency for 8192 tokens per request: 54.76x\n";

// The engine line without "V1" is the V0 engine: vllm_version 0.6. The device's memory and the utilisation come from
// the profiling line; the KV capacity is 28,037 blocks x 16 tokens (V0's default block) = 448,592 tokens; the
// weights are the last figure printed (14.99 GiB), the KV memory 54.76 GiB.
TEST(log_vllm_v0, reads_a_v0_engine_log) {
  const log_read r = read_log(v0_7);
  EXPECT_EQ(r.format, "vllm");
  EXPECT_EQ(value_of(r, "vllm_version"), "0.6");
  EXPECT_EQ(value_of(r, "gpu_memory"), "79.19GiB");
  EXPECT_EQ(value_of(r, "gpu_memory_utilization"), "0.9");
  EXPECT_EQ(value_of(r, "seq"), "8192");
  expect_figure(r, "kv_tokens", 448592);
  expect_figure(r, "kv_memory", 54.76);
  expect_figure(r, "weights", 14.99);
  expect_figure(r, "max_concurrency", 54.76);
}

// 0.6.4: "an LLM engine", "# GPU blocks", the block size stated by the args line (args: Namespace(...)): 1000 blocks x
// 32 = 32,000 tokens; 0.6.4's one-line "Memory profiling results" gives the KV memory (kv_cache_size) and the device.
TEST(log_vllm_v0, reads_the_0_6_wording) {
  const std::string log =
      "INFO 10-20 10:00:00 llm_engine.py:237] Initializing an LLM engine (v0.6.4) with config: "
      "model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=4096, tensor_parallel_size=1\n"
      "INFO 10-20 10:00:01 api_server.py:585] args: Namespace(host=None, port=8000, "
      "model='meta-llama/Llama-3.1-8B-Instruct', max_model_len=4096, block_size=32, swap_space=4, "
      "gpu_memory_utilization=0.9, disable_log_requests=False)\n"
      "INFO 10-20 10:00:12 worker.py:232] Memory profiling results: total_gpu_memory=39.39GiB "
      "initial_memory_usage=15.49GiB peak_torch_memory=16.22GiB memory_usage_post_profile=15.56GiB "
      "non_torch_memory=0.06GiB kv_cache_size=18.94GiB gpu_memory_utilization=0.90\n"
      "INFO 10-20 10:00:12 gpu_executor.py:113] # GPU blocks: 1000, # CPU blocks: 2048\n";
  const log_read r = read_log(log);
  EXPECT_EQ(value_of(r, "vllm_version"), "0.6");
  EXPECT_EQ(value_of(r, "gpu_memory"), "39.39GiB");
  expect_figure(r, "kv_tokens", 32000);
  expect_figure(r, "kv_memory", 18.94);
}

// A published excerpt without its engine line (kubernetes-sigs/gateway-api-inference-extension PR #550: vLLM 0.8.1's
// V0 engine under --enable-lora, the lines as posted, inside the log viewer's box characters): V0's profiling
// summary and "# cuda blocks" alone identify a vLLM log. 7191 blocks x 16 = 115,056 tokens; the device, the
// utilisation, the weights and the KV memory come from worker.py's summary; no engine line, so no vllm_version.
TEST(log_vllm_v0, reads_an_excerpt_without_its_engine_line) {
  const std::string log =
      "\u2502 INFO 03-21 20:15:45 [worker.py:267] the current vLLM instance can use total_gpu_memory (79.19GiB) x "
      "gpu_memory_utilization (0.90) = 71.27GiB    \u2502\n"
      "\u2502 INFO 03-21 20:15:45 [worker.py:267] model weights take 12.55GiB; non_torch_memory takes 0.16GiB; PyTorch "
      "activation peak memory takes 2.38GiB; the rest of the memory reserved for KV Cache is 56.18GiB.    \u2502\n"
      "\u2502 INFO 03-21 20:15:46 [executor_base.py:111] # cuda blocks: 7191, # CPU blocks: 512    \u2502\n";
  const log_read r = read_log(log);
  EXPECT_EQ(r.format, "vllm");
  EXPECT_EQ(value_of(r, "gpu_memory"), "79.19GiB");
  EXPECT_EQ(value_of(r, "gpu_memory_utilization"), "0.9");
  EXPECT_EQ(value_of(r, "vllm_version"), "(unset)");
  ASSERT_NE(figure(r, "kv_tokens"), nullptr);
  EXPECT_DOUBLE_EQ(figure(r, "kv_tokens")->value, 115056);
  ASSERT_NE(figure(r, "kv_memory"), nullptr);
  EXPECT_DOUBLE_EQ(figure(r, "kv_memory")->value, 56.18);
  ASSERT_NE(figure(r, "weights"), nullptr);
  EXPECT_DOUBLE_EQ(figure(r, "weights")->value, 12.55);
}

// 0.8 - 0.10's default engine is V1 ("a V1 LLM engine"): read as 0.11, with a note.
TEST(log_vllm_v0, a_v1_engine_before_0_11_is_read_as_0_11) {
  const log_read r = read_log(
      "INFO 04-23 14:42:34 [core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: "
      "model='meta-llama/Llama-3.1-8B-Instruct', max_seq_len=8192\n"
      "INFO 04-23 14:42:40 [kv_cache_utils.py:634] GPU KV cache size: 400,000 tokens\n");
  EXPECT_EQ(value_of(r, "vllm_version"), "0.11");
}

}  // namespace
}  // namespace llm_memory::test
