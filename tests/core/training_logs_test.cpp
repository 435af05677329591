// SPDX-License-Identifier: MIT
// The TGI, torch.cuda.memory_stats(), torchtune, litgpt and Unsloth logs (log.hpp, docs/readers.md "Logs"):
// published logs (tests/cli/log/README.md names each source) and lines in the printed format of each tool's code,
// read into the settings they state and the figures they printed, set beside the estimate item by item.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/log.hpp"
#include "log_support.hpp"

namespace {

using namespace llm_memory;
using test::expect_figure;
using test::figure;
using test::fixture;
using test::read_by;
using test::row_of;
using test::value_of;

bool ignored(const log_read& r, const std::string& part) {
  for (const auto& i : r.settings.ignored)
    if (i.option.find(part) != std::string::npos) return true;
  return false;
}

bool noted(const log_read& r, const std::string& part) {
  for (const auto& n : r.settings.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

settings with(settings s, const settings& more) {
  for (const auto& [k, v] : more) s[k] = v;
  return s;
}

// TGI 2.2.0, Meta-Llama-3.1-8B-Instruct, one A10G (a user's guide, search-index file 22190908935): the pretty
// Args, the launcher's defaults and the router's pool.
TEST(log_tgi, reads_the_args_the_defaults_and_the_pool_of_a_published_log) {
  const log_read r = read_log(fixture("tgi-2.2.0-llama-3.1-8b-a10g.log"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "tgi");
  // model_id (line 3) names the llama-3.1-8b preset; every Args field is read at the line Args opens on (2).
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(read_by(r, "model"), "line 2 --model-id");
  // The image's tag (line 1), 2.2.0, is in the 1.4.1-2.3 warmup (95 % of what it leaves free).
  EXPECT_EQ(value_of(r, "tgi_version"), "1.4.1");
  EXPECT_EQ(value_of(r, "gpu_memory_utilization"), "1.0");  // cuda_memory_fraction: 1.0
  // max_total_tokens and max_batch_prefill_tokens are None in the Args; lines 57 and 58 give the defaults.
  EXPECT_EQ(value_of(r, "seq"), "4096");
  EXPECT_EQ(read_by(r, "seq"), "line 57 --max-total-tokens");
  EXPECT_EQ(value_of(r, "max_num_batched_tokens"), "4145");
  EXPECT_TRUE(ignored(r, "--max-input-tokens"));  // line 56's default: the prompt's cap, no memory
  const auto* pool = figure(r, "kv_tokens");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->value, 19056);
  EXPECT_EQ(pool->line, 73u);
  EXPECT_EQ(pool->unit, "tokens");
}

TEST(log_tgi, the_pool_is_set_beside_the_estimates_kv_capacity) {
  const log_read r = read_log(fixture("tgi-2.2.0-llama-3.1-8b-a10g.log"));
  // The GPU is not in the log: an A10G's 23028 MiB (the same guide's nvidia-smi) beside it.
  const auto est = estimate(with(r.settings.values, {{"gpu_memory", "23028MiB"}}));
  ASSERT_TRUE(est.ok()) << est.errors().front().message;
  const reconciliation rec = reconcile(r, est.value());
  const auto* tokens = row_of(rec, "kv_tokens");
  ASSERT_TRUE(tokens != nullptr && tokens->ours);
  EXPECT_EQ(tokens->quantity, "runtime:kv_capacity_tokens");
  EXPECT_EQ(*tokens->ours, est.value().runtime.kv_capacity_tokens);
  EXPECT_DOUBLE_EQ(tokens->difference(), *tokens->ours - 19056);  // signed: ours minus the log's
  EXPECT_EQ(rec.largest, "kv_tokens");
}

// TGI 1.0.1, Llama-2-13b-chat, 4 shards: the one-line Args of
// https://github.com/huggingface/text-generation-inference/issues/832 (2023-08-22).
TEST(log_tgi, reads_the_one_line_args_of_1x) {
  const log_read r = read_log(fixture("tgi-1.0.1-llama-2-13b.log"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(value_of(r, "model"), "llama-2-13b");
  EXPECT_EQ(value_of(r, "tp"), "4");  // num_shard: Some(4)
  EXPECT_EQ(value_of(r, "devices"), "4");
  EXPECT_EQ(value_of(r, "seq"), "8192");  // max_total_tokens: 8192
  EXPECT_EQ(value_of(r, "max_num_batched_tokens"), "4096");
  EXPECT_TRUE(ignored(r, "--max-batch-total-tokens"));  // 16000: stated, but the warmup's pool is what is modelled
  EXPECT_TRUE(r.figures.empty());
  EXPECT_TRUE(noted(r, "no memory figure"));
}

// The Debug form of an enum (launcher/src/main.rs Quantization::BitsandbytesNf4, KVCacheDtype::Fp8e4m3fn) split
// over lines as `{:#?}` prints it, and the server's "KV-cache blocks: N, size: S" (flash_causal_lm.py warmup).
TEST(log_tgi, pretty_enums_and_the_servers_block_line) {
  const log_read r = read_log(
      "2024-09-03T04:36:57Z  INFO text_generation_launcher: Args {\n"
      "    quantize: Some(\n        BitsandbytesNf4,\n    ),\n"
      "    kv_cache_dtype: Some(\n        Fp8e4m3fn,\n    ),\n}\n"
      "2024-09-03T04:40:18Z  INFO text_generation_launcher: KV-cache blocks: 1191, size: 16\n");
  EXPECT_EQ(value_of(r, "weights_dtype"), "nf4");
  EXPECT_EQ(value_of(r, "kv_dtype"), "fp8");
  expect_figure(r, "kv_tokens", 1191 * 16);  // blocks x tokens per block
}

// torch.cuda.memory_stats() printed (torch/cuda/memory.py: flat keys in bytes). No published print of the whole
// dict was found: these lines are the repr Python gives (OrderedDict pairs; a pprint'd dict over lines).
TEST(log_torch_stats, reads_the_peaks_in_bytes_as_gib_and_keeps_the_largest) {
  const log_read r = read_log(
      "OrderedDict([('active_bytes.all.peak', 17179869184), ('allocated_bytes.all.peak', 17179869184), "
      "('num_alloc_retries', 0), ('reserved_bytes.all.peak', 19327352832)])\n"
      "{'allocated_bytes.all.peak': 8589934592,\n 'reserved_bytes.all.peak': 21474836480}\n");
  EXPECT_EQ(r.format, "torch_stats");
  const auto* allocated = figure(r, "peak_allocated");
  const auto* reserved = figure(r, "peak_reserved");
  ASSERT_TRUE(allocated != nullptr && reserved != nullptr);
  EXPECT_EQ(allocated->value, 16);  // 17179869184 B / 2^30 (the later 8 GiB is smaller)
  EXPECT_EQ(allocated->line, 1u);
  EXPECT_EQ(reserved->value, 20);  // 21474836480 B / 2^30 on line 3 passes line 1's 18
  EXPECT_EQ(reserved->line, 3u);
  EXPECT_EQ(reserved->unit, "GiB");
}

// torchtune, Llama 3 8B LoRA on 4 GPUs (FSDP): the memory stats after model init (a user's run log, search-index
// file 44916538522, 2025-01-17; one rank's block). The recipe resets the peaks after it: its allocation is the
// weights as loaded, set beside the parameters bucket; its reserved figure is not a step's peak and is left out.
TEST(log_torchtune, reads_the_allocation_after_model_init_as_the_weights) {
  const log_read r = read_log(fixture("torchtune-llama3-8b-lora-4gpu.log"));
  EXPECT_EQ(r.format, "torchtune");
  const auto* weights = figure(r, "weights");
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->value, 4.98);
  EXPECT_EQ(weights->line, 4u);
  EXPECT_EQ(weights->unit, "GiB");
  EXPECT_EQ(figure(r, "peak_allocated"), nullptr);
  EXPECT_EQ(figure(r, "peak_reserved"), nullptr);
  EXPECT_TRUE(noted(r, "no resolved config"));
  EXPECT_EQ(value_of(r, "zero"), "3");  // line 1: "FSDP is enabled" (the distributed recipe shards the model)
  const settings typed{
      {"mode", "train"}, {"framework", "torchtune"}, {"model", "llama-3.1-8b"}, {"finetune", "lora"}, {"devices", "4"}};
  const auto est = estimate(with(r.settings.values, typed));
  ASSERT_TRUE(est.ok());
  const reconciliation compared = reconcile(r, est.value());
  const auto* row = row_of(compared, "weights");
  ASSERT_TRUE(row != nullptr && row->ours);
  EXPECT_EQ(row->quantity, "parameters");
  EXPECT_DOUBLE_EQ(*row->ours, est.value().bytes("parameters") / 1073741824.0);
}

// The metric logger's per-step peaks (https://github.com/meta-pytorch/torchtune/pull/2406, two of its steps) and
// an old recipe's "GB" (torchtune before v0.2 divided by 1e9).
TEST(log_torchtune, the_largest_step_peak_wins_and_gb_stays_decimal) {
  const log_read steps = read_log(
      "Step 1 | loss:2.4555773735046387 lr:2e-05 tokens_per_second_per_gpu:46.73149108886719 "
      "peak_memory_active:47.32469987869263 peak_memory_alloc:52.001708984375 peak_memory_reserved:52.001708984375 \n"
      "Step 2 | loss:1.4622046947479248 lr:2e-05 tokens_per_second_per_gpu:45.71133041381836 "
      "peak_memory_active:47.32469987869263 peak_memory_alloc:53.99104309082031 "
      "peak_memory_reserved:53.99104309082031 \n");
  const auto* allocated = figure(steps, "peak_allocated");
  ASSERT_NE(allocated, nullptr);
  EXPECT_EQ(allocated->value, 53.99104309082031);
  EXPECT_EQ(allocated->line, 2u);
  const log_read old = read_log("Memory Stats after model init::\nGPU peak memory allocation: 13.96 GB\n");
  ASSERT_NE(figure(old, "weights"), nullptr);
  EXPECT_EQ(figure(old, "weights")->unit, "GB");
}

// The resolved config a recipe logs first (torchtune/config/_utils.py log_config), read by the recipe reader.
TEST(log_torchtune, reads_the_resolved_config_as_a_recipe) {
  const log_read r = read_log(
      "INFO:torchtune.utils._logging:Running LoRAFinetuneRecipeSingleDevice with resolved config:\n"
      "\n"
      "batch_size: 2\n"
      "gradient_accumulation_steps: 8\n"
      "model:\n"
      "  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n"
      "  lora_rank: 8\n"
      "tokenizer:\n"
      "  max_seq_len: 2048\n"
      "\n"
      "INFO:torchtune.utils._logging:Memory stats after model init:\n"
      "\tGPU peak memory allocation: 15.06 GiB\n"
      "1|10|Loss: 1.02 peak_memory_alloc:16.50 peak_memory_reserved:18.25\n");
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "framework"), "torchtune");
  EXPECT_EQ(value_of(r, "finetune"), "lora");
  EXPECT_EQ(value_of(r, "batch"), "2");
  EXPECT_EQ(value_of(r, "grad_accum"), "8");
  EXPECT_EQ(value_of(r, "seq"), "2048");
  EXPECT_TRUE(noted(r, "resolved config after line 1"));
  // Beside the estimate for those settings: ours is the allocator's peak, in GiB (2^30 B).
  const auto est = estimate(r.settings.values);
  ASSERT_TRUE(est.ok()) << est.errors().front().message;
  const reconciliation compared = reconcile(r, est.value());
  const auto* row = row_of(compared, "peak_allocated");
  ASSERT_TRUE(row != nullptr && row->ours);
  EXPECT_EQ(row->quantity, "peak.allocated");
  EXPECT_DOUBLE_EQ(*row->ours, est.value().peak.allocated / 1073741824.0);
  EXPECT_DOUBLE_EQ(row->difference(), *row->ours - 16.50);
}

// litgpt's finetune/lora.py prints its arguments with pprint(locals()) and "Memory used: %.02f GB" of
// max_memory_allocated() / 1e9 (Lightning-AI/litgpt v0.5). These lines are in that format; no published log of
// the current script with both was found.
TEST(log_litgpt, reads_the_hyperparameters_and_the_decimal_gb_peak) {
  const log_read r = read_log(
      "{'checkpoint_dir': PosixPath('checkpoints/meta-llama/Meta-Llama-3.1-8B'),\n"
      " 'devices': 1,\n"
      " 'lora_r': 32,\n"
      " 'precision': 'bf16-true',\n"
      " 'quantize': 'bnb.nf4',\n"
      " 'train': TrainArgs(save_interval=200, log_interval=1, global_batch_size=8, micro_batch_size=2, "
      "max_seq_length=512)}\n"
      "Training time: 1234.56s\n"
      "Memory used: 9.87 GB\n");
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "litgpt");
  EXPECT_EQ(value_of(r, "model"), "llama-3.1-8b");
  EXPECT_EQ(value_of(r, "framework"), "litgpt");
  EXPECT_EQ(value_of(r, "finetune"), "qlora");  // LoRA over bnb.nf4
  EXPECT_EQ(value_of(r, "batch"), "2");
  EXPECT_EQ(value_of(r, "grad_accum"), "4");  // 8 // 1 device // 2 per micro-batch
  EXPECT_EQ(value_of(r, "seq"), "512");
  const auto* peak = figure(r, "peak_allocated");
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->value, 9.87);
  EXPECT_EQ(peak->unit, "GB");
  const auto est = estimate(r.settings.values);
  ASSERT_TRUE(est.ok()) << est.errors().front().message;
  const reconciliation compared = reconcile(r, est.value());
  const auto* row = row_of(compared, "peak_allocated");
  ASSERT_TRUE(row != nullptr && row->ours);
  EXPECT_DOUBLE_EQ(*row->ours, est.value().peak.allocated / 1e9);  // decimal GB, as litgpt divides
}

// An Unsloth notebook's output (tests/cli/log/README.md): the trainer banner's batch 2 and accumulation 4 (line 15),
// the notebook's "Max memory = 39.394 GB." (line 11: total_memory / 1024^3, so GiB), and its closing
// "Peak reserved memory = 6.576 GB." (line 24: max_memory_reserved() / 1024^3, GiB though printed "GB"); the
// "... for training = 0.828 GB." line after it is the peak less what was reserved before training, not a peak.
// "5.748 GB of memory reserved." (line 12, the cell before trainer.train(): max_memory_reserved() / 1024^3 with the
// model and its adapters loaded) is set beside the estimate's parameters.
TEST(log_unsloth, reads_the_banner_and_the_notebooks_peak_reserved_as_gib) {
  const log_read r = read_log(fixture("unsloth-llama-3-8b-a100-40gb.log"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "unsloth");
  EXPECT_EQ(value_of(r, "mode"), "train");
  EXPECT_EQ(value_of(r, "framework"), "unsloth");
  EXPECT_EQ(value_of(r, "batch"), "2");
  EXPECT_EQ(read_by(r, "batch"), "line 15 Batch size per device");
  EXPECT_EQ(value_of(r, "grad_accum"), "4");  // "Gradient Accumulation steps" (before 2025's lower-case "a")
  EXPECT_EQ(value_of(r, "gpu_memory"), "39.394GiB");
  EXPECT_EQ(read_by(r, "gpu_memory"), "line 11 Max memory");
  EXPECT_TRUE(ignored(r, "Num GPUs"));
  const auto* peak = figure(r, "peak_reserved");
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->value, 6.576);
  EXPECT_EQ(peak->unit, "GiB");
  EXPECT_EQ(peak->line, 24u);
  const auto* loaded = figure(r, "weights");
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->value, 5.748);
  EXPECT_EQ(loaded->unit, "GiB");
  EXPECT_EQ(loaded->line, 12u);
  EXPECT_EQ(r.figures.size(), 2u);
  // Beside the estimate for its settings and a model the log does not name (the 8B in 4 bits, as the 5.748 GiB
  // reserved before training shows): the reserved peak in GiB.
  settings s = r.settings.values;
  s["model"] = "llama-3.1-8b";
  s["finetune"] = "qlora";
  const auto est = estimate(s);
  ASSERT_TRUE(est.ok()) << est.errors().front().message;
  const reconciliation compared = reconcile(r, est.value());
  const auto* row = row_of(compared, "peak_reserved");
  ASSERT_TRUE(row != nullptr && row->ours);
  EXPECT_EQ(row->quantity, "peak.reserved");
  EXPECT_DOUBLE_EQ(*row->ours, est.value().peak.reserved / (1024.0 * 1024 * 1024));
  const auto* weights = row_of(compared, "weights");
  ASSERT_TRUE(weights != nullptr && weights->ours);
  EXPECT_EQ(weights->quantity, "parameters");
  EXPECT_DOUBLE_EQ(*weights->ours, est.value().bytes("parameters") / (1024.0 * 1024 * 1024));
}

// The current banner (unsloth_zoo compiler.py): "Num GPUs used", lower-case "accumulation", grouped digits.
TEST(log_unsloth, reads_the_current_banner_and_notes_a_log_without_it) {
  const log_read r = read_log(
      "==((====))==  Unsloth - 2x faster free finetuning | Num GPUs used = 1\n"
      "   \\\\   /|    Num examples = 939,343 | Num Epochs = 2 | Total steps = 14,676\n"
      "O^O/ \\_/ \\    Batch size per device = 2 | Gradient accumulation steps = 64\n"
      "Peak reserved memory = 12.5 GB.\n"
      "Peak reserved memory = 3.25 GB.\n");
  EXPECT_EQ(value_of(r, "batch"), "2");
  EXPECT_EQ(value_of(r, "grad_accum"), "64");
  expect_figure(r, "peak_reserved", 12.5);  // the larger of two runs' cells: the peak
  const log_read bare = read_log("Peak reserved memory = 7 GB.\nPeak reserved memory for training = 1 GB.\n");
  EXPECT_EQ(bare.format, "unsloth");
  EXPECT_TRUE(noted(bare, "no Unsloth training banner"));
  EXPECT_TRUE(bare.settings.values.find("batch") == bare.settings.values.end());
}

TEST(log_training, hostile_lines_are_notes_or_errors_never_crashes) {
  // A config block that is not YAML, a dict that never closes, numbers that are not numbers.
  const log_read bad_config = read_log("x with resolved config:\nmodel: [\n peak_memory_alloc:abc\n");
  EXPECT_TRUE(noted(bad_config, "is not YAML"));
  const log_read open_dict =
      read_log("{'checkpoint_dir': PosixPath('x'), 'train': TrainArgs(\nMemory used: 1e999 GB\n");
  EXPECT_EQ(open_dict.format, "litgpt");
  const log_read huge = read_log(
      "('allocated_bytes.all.peak', 99999999999999999999999999999999999999)\n"
      "'reserved_bytes.all.peak': -5\n");
  for (const auto& f : huge.figures) EXPECT_TRUE(std::isfinite(f.value) && f.value >= 0);
}

}  // namespace
