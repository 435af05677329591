// SPDX-License-Identifier: MIT
// Startup logs in (log.hpp, docs/readers.md "Logs"): published logs (tests/cli/log/README.md names each source) read
// into the settings they state and the figures they printed; the estimate from the log's settings equals the one
// from the same settings typed by hand; hostile input gets an error or a note naming the line, never a crash.
#include "llm_memory/log.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "llm_memory/estimate.hpp"
#include "log_support.hpp"

namespace {

using namespace llm_memory;
using test::expect_figure;
using test::figure;
using test::fixture;
using test::noted;
using test::read_by;
using test::row_of;
using test::value_of;

settings with(settings s, const settings& more) {
  for (const auto& [k, v] : more) s[k] = v;
  return s;
}

// vLLM v0.15.1, Llama 3.1 8B, A100-40GB, LLM class with enforce_eager (github.com/ilseokoh/vllm-gce README.md).
TEST(log_vllm, reads_settings_and_figures_of_a_published_log) {
  const log_read r = read_log(fixture("vllm-0.15.1-llama-3.1-8b.log"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "vllm");
  // The engine config (line 8): the model directory Meta-Llama-3.1-8B-Instruct names the llama-3.1-8b preset,
  // max_seq_len=131072, dtype=torch.bfloat16, kv_cache_dtype=auto, enforce_eager=True (no graphs), v0.15.1 is in
  // the 0.11-0.16 profile; line 4 holds the chunk.
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "seq"), "131072");
  EXPECT_EQ(read_by(r, "seq"), "line 8 --max-model-len");
  EXPECT_EQ(value_of(r, "weights_dtype"), "bf16");
  EXPECT_EQ(value_of(r, "kv_dtype"), "auto");
  EXPECT_EQ(value_of(r, "cuda_graph_memory"), "0");
  EXPECT_EQ(value_of(r, "vllm_version"), "0.11");
  EXPECT_EQ(value_of(r, "max_num_batched_tokens"), "8192");
  EXPECT_EQ(read_by(r, "max_num_batched_tokens"), "line 4 --max-num-batched-tokens");
  EXPECT_EQ(value_of(r, "runtime"), "vllm");
  // The figures as printed, lines 17-20.
  ASSERT_NO_FATAL_FAILURE(expect_figure(r, "weights", 14.99));
  EXPECT_EQ(figure(r, "weights")->line, 17u);
  ASSERT_NO_FATAL_FAILURE(expect_figure(r, "kv_memory", 19.28));
  EXPECT_EQ(figure(r, "kv_memory")->unit, "GiB");
  expect_figure(r, "kv_tokens", 157936);  // "157,936": the grouping commas read
  expect_figure(r, "max_concurrency", 1.20);
  EXPECT_EQ(figure(r, "cuda_graphs"), nullptr);  // eager: no capture line
}

TEST(log_vllm, the_logs_settings_estimate_as_the_same_settings_typed) {
  const log_read r = read_log(fixture("vllm-0.15.1-llama-3.1-8b.log"));
  // The GPU is not in the log: torch's total on an A100-40GB (tests/validation/published.json's row) beside it.
  const settings gpu{{"gpu_memory", "39.39GiB"}};
  const settings typed{{"mode", "inference"},
                       {"runtime", "vllm"},
                       {"model", "llama-3.1-8b"},
                       {"seq", "131072"},
                       {"max_num_batched_tokens", "8192"},
                       {"cuda_graph_memory", "0"},
                       {"vllm_version", "0.11"},
                       {"weights_dtype", "bf16"},
                       {"kv_dtype", "auto"},
                       {"tp", "1"},
                       {"pp", "1"},
                       {"devices", "1"},
                       {"gpu_memory", "39.39GiB"}};
  const auto from_log = estimate(with(r.settings.values, gpu));
  const auto by_hand = estimate(typed);
  ASSERT_TRUE(from_log.ok() && by_hand.ok());
  EXPECT_EQ(from_log.value().total_bytes, by_hand.value().total_bytes);
  EXPECT_EQ(from_log.value().runtime.kv_capacity_tokens, by_hand.value().runtime.kv_capacity_tokens);
  // Side by side: published.json holds this log's KV tokens to 1 % (the estimate is 0.95 % low there).
  const reconciliation rec = reconcile(r, from_log.value());
  const auto* tokens = row_of(rec, "kv_tokens");
  ASSERT_TRUE(tokens != nullptr && tokens->ours);
  EXPECT_EQ(tokens->quantity, "runtime:kv_capacity_tokens");
  EXPECT_NEAR(*tokens->ours, 157936, 0.01 * 157936);
  EXPECT_DOUBLE_EQ(tokens->difference(), *tokens->ours - 157936);
  EXPECT_FALSE(rec.largest.empty());
}

// llama-cpp-python (mid-2024 llama.cpp), Bllossom 8B (Llama-3-8B shapes) Q4_K_M, RTX 3070, n_ctx 512 (index file
// 47209433997; tests/validation/published.json's llama.cpp rows).
TEST(log_llamacpp, reads_settings_and_buffers_of_a_published_log) {
  const log_read r = read_log(fixture("llamacpp-llama-3-8b-q4_k_m.log"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "llamacpp");
  EXPECT_EQ(value_of(r, "weights_dtype"), "q4_k_m");  // the GGUF file's type suffix, line 1
  EXPECT_EQ(value_of(r, "model"), "(unset)");         // a fine-tune's name: no preset, a note
  EXPECT_EQ(value_of(r, "seq"), "512");               // n_ctx, one sequence
  EXPECT_EQ(read_by(r, "seq"), "line 57 --ctx-size");
  EXPECT_EQ(value_of(r, "n_batch"), "512");
  EXPECT_EQ(value_of(r, "n_ubatch"), "512");
  EXPECT_EQ(value_of(r, "n_gpu_layers"), "33");   // "offloaded 33/33 layers to GPU"
  EXPECT_EQ(value_of(r, "attention"), "eager");   // flash_attn = 0
  EXPECT_EQ(value_of(r, "cache_type_k"), "f16");  // "K (f16)", line 64
  // Buffers: CUDA0 (the first GPU) and the host's (CPU, CUDA_Host); the output buffer is not a figure.
  ASSERT_NO_FATAL_FAILURE(expect_figure(r, "weights", 4403.49));
  EXPECT_EQ(figure(r, "weights")->line, 55u);
  expect_figure(r, "host_weights", 281.81);
  expect_figure(r, "kv_memory", 64.00);
  expect_figure(r, "compute_buffer", 258.50);
  ASSERT_NO_FATAL_FAILURE(expect_figure(r, "host_compute_buffer", 9.01));
  EXPECT_EQ(figure(r, "host_compute_buffer")->unit, "MiB");
}

TEST(log_llamacpp, the_logs_settings_estimate_as_the_same_settings_typed) {
  const log_read r = read_log(fixture("llamacpp-llama-3-8b-q4_k_m.log"));
  const settings model{{"model", "meta-llama-3-8b"}};  // the fine-tune's shapes, given beside the log
  const settings typed{{"mode", "inference"},       {"runtime", "llamacpp"}, {"model", "meta-llama-3-8b"},
                       {"weights_dtype", "q4_k_m"}, {"seq", "512"},          {"n_batch", "512"},
                       {"n_ubatch", "512"},         {"n_gpu_layers", "33"},  {"attention", "eager"},
                       {"cache_type_k", "f16"},     {"cache_type_v", "f16"}};
  const auto from_log = estimate(with(r.settings.values, model));
  const auto by_hand = estimate(typed);
  ASSERT_TRUE(from_log.ok() && by_hand.ok());
  EXPECT_EQ(from_log.value().total_bytes, by_hand.value().total_bytes);
  // published.json holds the KV buffer exactly: 32 layers x 512 cells x 1024 x (2 + 2) B = 64 MiB.
  const reconciliation rec = reconcile(r, from_log.value());
  const auto* kv = row_of(rec, "kv_memory");
  ASSERT_TRUE(kv != nullptr && kv->ours);
  EXPECT_EQ(kv->quantity, "runtime:buffers.kv");
  EXPECT_NEAR(*kv->ours, 64.0, 1e-9);
  // The host weights: token_embd 128256 x 4096 in q4_K (144 B per 256) = 281.81 MiB, to the log's two decimals.
  EXPECT_NEAR(row_of(rec, "host_weights")->ours.value_or(0), 128256.0 * 4096 * 144 / 256 / 1048576, 1e-9);
  EXPECT_NEAR(row_of(rec, "host_weights")->difference(), 0, 0.005);
}

// Ollama 0.5 (llama.cpp runner), llama3.1 8B F16, OLLAMA_NUM_PARALLEL 4 (github.com/ollama/ollama/issues/8361):
// the weights stayed on the host although 33/33 layers were "offloaded" (the issue: a CPU-only runner).
TEST(log_llamacpp, an_ollama_runner_log_splits_the_context_over_its_slots) {
  const log_read r = read_log(fixture("ollama-llama3.1-8b-f16.log"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(value_of(r, "batch"), "4");   // n_seq_max
  EXPECT_EQ(value_of(r, "seq"), "2048");  // n_ctx 8192 / 4 slots = n_ctx_per_seq
  EXPECT_EQ(value_of(r, "n_batch"), "2048");
  expect_figure(r, "weights", 1.02);
  expect_figure(r, "host_weights", 15317.02);
  const auto est = estimate(with(r.settings.values, {{"model", "llama-3.1-8b"}, {"weights_dtype", "fp16"}}));
  ASSERT_TRUE(est.ok());
  // With 33 layers on the GPU the estimate puts ~15 GiB there: the log's 1.02 MiB is the item that diverges most.
  EXPECT_EQ(reconcile(r, est.value()).largest, "weights");
}

// SGLang's KV line as quoted in github.com/vllm-project/vllm/issues/21348 (Qwen3-235B-A22B-FP8, tp 4).
TEST(log_sglang, reads_the_kv_pool_line) {
  const log_read r = read_log(fixture("sglang-qwen3-235b-a22b-fp8.log"));
  ASSERT_TRUE(r.settings.errors.empty());
  EXPECT_EQ(r.format, "sglang");
  expect_figure(r, "kv_tokens", 367404);
  expect_figure(r, "kv_memory", 8.23 + 8.23);  // K size + V size, SGLang's GB = 2^30 B
  EXPECT_EQ(value_of(r, "runtime"), "sglang");
}

// A whole published SGLang 0.4.3.post4 start-up (tests/cli/log/README.md): QwQ-32B, tp 4 on 4 x L4, rank TP0's
// lines. Its settings come from the ServerArgs line (line 3) and the scheduler's context_len (line 14, context_length
// None); its figures from lines 9, 10, 13. The KV line agrees with the model's shape: K size 1.42 GiB = 46,611 tokens
// x 64 layers x 2 KV heads a rank (8 / tp 4) x 128 x 2 B = 1,527,349,248 B = 1.4224 GiB.
TEST(log_sglang, a_full_startup_log_gives_its_settings_and_every_figure) {
  const log_read r = read_log(fixture("sglang-0.4.3-qwq-32b-4xl4.log"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "sglang");
  EXPECT_EQ(value_of(r, "runtime"), "sglang");
  EXPECT_EQ(value_of(r, "model"), "qwq-32b");  // model_path='/home/model/Qwen/QwQ-32B'
  EXPECT_EQ(value_of(r, "tp"), "4");
  EXPECT_EQ(read_by(r, "tp"), "line 3 --tp-size");
  EXPECT_EQ(value_of(r, "devices"), "4");
  EXPECT_EQ(value_of(r, "mem_fraction_static"), "0.85");
  EXPECT_EQ(value_of(r, "max_num_batched_tokens"), "2048");  // chunked_prefill_size
  EXPECT_EQ(value_of(r, "seq"), "131072");
  EXPECT_EQ(read_by(r, "seq"), "line 14 --context-length");
  EXPECT_DOUBLE_EQ(figure(r, "weights")->value, 15.54);
  EXPECT_EQ(figure(r, "weights")->line, 9u);
  EXPECT_DOUBLE_EQ(figure(r, "kv_tokens")->value, 46611);
  EXPECT_EQ(figure(r, "kv_tokens")->line, 10u);  // the pool's line before the scheduler's repeat of it
  EXPECT_DOUBLE_EQ(figure(r, "kv_memory")->value, 1.42 + 1.42);
  EXPECT_DOUBLE_EQ(figure(r, "cuda_graphs")->value, 0.93);
  // Beside the estimate on the L4 the log's run had: every figure has ours.
  const auto est = estimate(with(r.settings.values, {{"gpu", "l4"}}));
  ASSERT_TRUE(est.ok()) << est.errors().front().message;
  const reconciliation compared = reconcile(r, est.value());
  for (const std::string item : {"weights", "kv_tokens", "kv_memory"}) {
    const auto* row = row_of(compared, item);
    ASSERT_TRUE(row != nullptr && row->ours) << item;
  }
  // Ours for the KV pool is the pool SGLang allocates, not the KV bucket of one 131,072-token request (8 GiB): our
  // token capacity + the padded page (page_size 1) x 65,536 B a token (64 layers x (K + V) x 2 KV heads a rank x 128
  // x 2 B), in GiB as the line prints it.
  const auto* kv = row_of(compared, "kv_memory");
  EXPECT_EQ(kv->quantity, "runtime:kv_pool");
  const double tokens = *row_of(compared, "kv_tokens")->ours;
  EXPECT_DOUBLE_EQ(*kv->ours, (tokens + 1) * 65536 / 1073741824.0);
  // Within 10 % of the log's 2.84 GiB: our token capacity is +7.8 % over the logged 46,611 (published.json's
  // kv_tokens row for this log), and the pool follows it.
  EXPECT_NEAR(*kv->ours, 2.84, 0.10 * 2.84);
}

TEST(log_sglang, reads_server_args_and_the_scheduler_line) {
  const log_read r = read_log(
      "[2026-02-26 16:30:34] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B-Instruct', "
      "tokenizer_path='x', dtype='auto', kv_cache_dtype='auto', mem_fraction_static=0.88, context_length=None, "
      "chunked_prefill_size=8192, page_size=1, tp_size=2, cuda_graph_bs=[1, 2, 4], json_model_override_args='{}')\n"
      "[2026-02-26 16:31:00 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=62.1 GB, "
      "mem usage=7.52 GB.\n"
      "[2026-02-26 16:31:02 TP0] max_total_num_tokens=400000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
      "max_running_requests=2048, context_len=131072, available_gpu_mem=8.1 GB\n"
      "[2026-02-26 16:31:09 TP0] Capture cuda graph end. Time elapsed: 5.1 s. mem usage=0.41 GB. avail mem=7.6 GB.\n");
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "tp"), "2");
  EXPECT_EQ(read_by(r, "tp"), "line 1 --tp-size");
  EXPECT_EQ(value_of(r, "mem_fraction_static"), "0.88");
  EXPECT_EQ(value_of(r, "seq"), "131072");  // context_length None: the scheduler's context_len, line 3
  EXPECT_EQ(read_by(r, "seq"), "line 3 --context-length");
  expect_figure(r, "weights", 7.52);
  expect_figure(r, "kv_tokens", 400000);
  expect_figure(r, "cuda_graphs", 0.41);
}

TEST(log_readers, bad_input_is_an_error_or_a_note_naming_the_line) {
  EXPECT_EQ(read_log("").settings.errors.at(0).setting, "log");
  EXPECT_EQ(read_log("hello\nworld\n").settings.errors.at(0).setting, "log");
  EXPECT_EQ(read_log(std::string("GPU KV cache size: 1\0 tokens", 28)).settings.errors.at(0).setting, "log");
  // A value the setting refuses names the line and the option it stands for.
  const log_read bad = read_log("INFO non-default args: {'max_model_len': 'abc', 'model': 'x'}\n");
  ASSERT_FALSE(bad.settings.errors.empty());
  EXPECT_EQ(bad.settings.errors.at(0).setting, "line 1 --max-model-len");
  // A figure without a number is no figure; a line over 64 KiB is a note.
  const log_read none = read_log("GPU KV cache size: many tokens\n" + std::string(70000, 'x') + "\n");
  EXPECT_EQ(figure(none, "kv_tokens"), nullptr);
  EXPECT_TRUE(noted(none, "line 2 is longer than 64 KiB"));
  EXPECT_TRUE(noted(none, "no memory figure"));
}

TEST(log_readers, random_bytes_and_mangled_logs_never_crash) {
  const std::string seeds[] = {fixture("vllm-0.15.1-llama-3.1-8b.log"), fixture("llamacpp-llama-3-8b-q4_k_m.log")};
  std::mt19937 rng(33);
  for (int i = 0; i < 200; ++i) {
    std::string text = seeds[i % 2];
    for (int k = 0; k < 20; ++k) text[rng() % text.size()] = static_cast<char>(rng() % 256);
    const log_read r = read_log(text);
    for (const auto& f : r.figures) EXPECT_TRUE(std::isfinite(f.value) && f.value >= 0);
    if (!r.settings.errors.empty()) continue;
    const auto est = estimate(r.settings.values);
    if (!est.ok()) continue;
    EXPECT_FALSE(reconciliation_to_json(r, reconcile(r, est.value())).empty());
  }
}

}  // namespace
