// SPDX-License-Identifier: MIT
// nvidia-smi output and torch.cuda.memory_summary() as logs (log.hpp, docs/readers.md "Logs"): hand-built in each
// tool's own format (tests/cli/log/README.md), read into the figure each prints and set beside the estimate's
// quantity: nvidia-smi <-> peak.device (reserved + CUDA context), memory_summary <-> peak.allocated / reserved.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/log.hpp"
#include "log_support.hpp"

namespace {

using namespace llm_memory;
using test::fixture;
using test::row_of;

bool noted(const log_read& r, const std::string& part) {
  for (const auto& n : r.settings.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// tests/core/frameworks_test.cpp's HF-4 run (Transformers + peft LoRA on Llama 3.1 8B, seq 2048), whose peaks
// that file derives by hand: allocated 29,554,647,040 B, reserved 36,260,814,848 B, device (reserved + the 0.5 GiB
// CUDA context) 36,797,685,760 B.
settings hf_lora() {
  return {{"model", "llama-3.1-8b"},         {"framework", "hf"},         {"finetune", "lora"}, {"lora_rank", "16"},
          {"lora_targets", "q_proj,v_proj"}, {"lora_dropout", "0"},       {"seq", "2048"},      {"batch", "1"},
          {"optimizer_impl", "foreach"},     {"allocator_reserve", "0.5"}};
}

reconciliation beside_hf_lora(const log_read& log) {
  const auto r = estimate(hf_lora());
  EXPECT_TRUE(r.ok());
  return reconcile(log, r.value());
}

TEST(log_nvidia_smi, the_most_loaded_gpu_of_the_table_beside_the_device_peak) {
  const log_read r = read_log(fixture("nvidia-smi-2xh100.txt"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "nvidia_smi");
  EXPECT_EQ(r.settings.command, "nvidia-smi output");
  EXPECT_TRUE(r.settings.values.empty());  // nvidia-smi states no setting
  // Line 14: GPU 1 uses 71231MiB, more than GPU 0's 70411MiB (line 10); the process table is not read.
  ASSERT_EQ(r.figures.size(), 1u);
  EXPECT_EQ(r.figures[0].item, "device_used");
  EXPECT_EQ(r.figures[0].label, "GPU 1 memory used (nvidia-smi)");
  EXPECT_EQ(r.figures[0].value, 71231);
  EXPECT_EQ(r.figures[0].unit, "MiB");
  EXPECT_EQ(r.figures[0].line, 14u);
  EXPECT_TRUE(noted(r, "2 GPUs listed: GPU 1, the most loaded"));
  EXPECT_TRUE(noted(r, "GPU 1 holds 81559 MiB in all"));
  // Ours: 36,797,685,760 B / 2^20 = 35,093.0078125 MiB; difference 35,093.0078125 - 71,231 = -36,137.9921875.
  const reconciliation rec = beside_hf_lora(r);
  const auto* row = row_of(rec, "device_used");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->quantity, "peak.device");
  EXPECT_DOUBLE_EQ(*row->ours, 35093.0078125);
  EXPECT_DOUBLE_EQ(row->difference(), -36137.9921875);
  EXPECT_EQ(rec.largest, "device_used");
}

TEST(log_nvidia_smi, the_query_csv) {
  const log_read r = read_log(fixture("nvidia-smi-query.csv"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "nvidia_smi");
  // Line 2: "0, NVIDIA A100-SXM4-40GB, 38135 MiB, 40960 MiB" under the header's memory.used [MiB] column.
  ASSERT_EQ(r.figures.size(), 1u);
  EXPECT_EQ(r.figures[0].label, "GPU 0 memory used (nvidia-smi)");
  EXPECT_EQ(r.figures[0].value, 38135);
  EXPECT_EQ(r.figures[0].line, 2u);
  EXPECT_TRUE(noted(r, "GPU 0 holds 40960 MiB in all"));
  // Columns in another order, no total: still read by the header's names.
  const log_read swapped = read_log("memory.used [MiB], index\n1024 MiB, 3\n");
  ASSERT_EQ(swapped.figures.size(), 1u);
  EXPECT_EQ(swapped.figures[0].label, "GPU 3 memory used (nvidia-smi)");
  EXPECT_EQ(swapped.figures[0].value, 1024);
}

TEST(log_torch_memory, memory_summary_peaks_beside_allocated_and_reserved) {
  const log_read r = read_log(fixture("torch-memory-summary.txt"));
  ASSERT_TRUE(r.settings.errors.empty()) << r.settings.errors.front().message;
  EXPECT_EQ(r.format, "torch_memory");
  EXPECT_EQ(r.settings.command, "torch.cuda.memory_summary()");
  EXPECT_TRUE(r.settings.values.empty());
  // Peak Usage column: "Allocated memory" 15872 MiB (line 8: 15 GiB + 512 MiB + 12,345 B, rounded down), "GPU
  // reserved memory" 17024 MiB (line 20); the pools' rows and the Cur Usage column are not the figures.
  ASSERT_EQ(r.figures.size(), 2u);
  EXPECT_EQ(r.figures[0].item, "peak_allocated");
  EXPECT_EQ(r.figures[0].label, "Allocated memory, peak usage");
  EXPECT_EQ(r.figures[0].value, 15872);
  EXPECT_EQ(r.figures[0].line, 8u);
  EXPECT_EQ(r.figures[1].item, "peak_reserved");
  EXPECT_EQ(r.figures[1].value, 17024);
  EXPECT_EQ(r.figures[1].line, 20u);
  // Ours: 29,554,647,040 B = 28,185.5078125 MiB (+12,313.5078125); 36,260,814,848 B = 34,581.0078125 MiB
  // (+17,557.0078125). Relative: 12,313.5/15,872 = 0.776 < 17,557.0/17,024 = 1.031: reserved diverges most.
  const reconciliation rec = beside_hf_lora(r);
  const auto* allocated = row_of(rec, "peak_allocated");
  const auto* reserved = row_of(rec, "peak_reserved");
  ASSERT_NE(allocated, nullptr);
  ASSERT_NE(reserved, nullptr);
  EXPECT_EQ(allocated->quantity, "peak.allocated");
  EXPECT_DOUBLE_EQ(*allocated->ours, 28185.5078125);
  EXPECT_DOUBLE_EQ(allocated->difference(), 12313.5078125);
  EXPECT_EQ(reserved->quantity, "peak.reserved");
  EXPECT_DOUBLE_EQ(*reserved->ours, 34581.0078125);
  EXPECT_EQ(rec.largest, "peak_reserved");
  // As records: the published.json quantities, and no runtime (a training run's row has none).
  const std::string records = validation_records(r, rec, hf_lora(), "summary.txt");
  EXPECT_NE(records.find("\"peak.allocated\""), std::string::npos);
  EXPECT_NE(records.find("\"published\": 15872"), std::string::npos);
  EXPECT_EQ(records.find("\"runtime\""), std::string::npos);
}

TEST(log_torch_memory, every_unit_of_the_summary) {
  // memory_summary prints B below 768 KiB, then KiB, MiB, GiB as the row's value passes 768 of the unit.
  const auto peak = [](const std::string& cell) {
    const log_read r = read_log("| Allocated memory      |      0 B   | " + cell + " |      0 B   |      0 B   |\n");
    return r.figures.empty() ? -1.0 : r.figures[0].value;
  };
  EXPECT_DOUBLE_EQ(peak("524288 B  "), 0.5);      // 2^19 B = 0.5 MiB
  EXPECT_DOUBLE_EQ(peak("  1536 KiB"), 1.5);      // 1536 / 1024
  EXPECT_DOUBLE_EQ(peak("   800 GiB"), 819200);   // 800 x 1024
  EXPECT_DOUBLE_EQ(peak("     2 TiB"), 2097152);  // 2 x 1024^2
  EXPECT_EQ(peak("  many MiB"), -1.0);            // no number: no figure
  EXPECT_EQ(peak("    12 bytes"), -1.0);          // no unit of the summary's
}

TEST(log_gpu_readers, hostile_tables_are_notes_or_nothing_never_a_crash) {
  // A Memory-Usage cell without numbers, a CSV row shorter than its header, a huge number.
  const log_read smi = read_log("| NVIDIA-SMI 550 | Memory-Usage |\n|  xMiB / yMiB |\nmemory.used [MiB]\n,\n");
  EXPECT_TRUE(smi.settings.errors.empty());
  EXPECT_TRUE(smi.figures.empty());
  const log_read big = read_log("|   0  GPU |\n| N/A | 1e400MiB / 2MiB | NVIDIA-SMI |\n");
  for (const auto& f : big.figures) EXPECT_TRUE(f.value >= 0 && f.value < 1e300);
}

}  // namespace
