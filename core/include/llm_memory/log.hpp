// SPDX-License-Identifier: MIT
// Startup logs in: a runtime's log (vLLM, SGLang, llama.cpp / Ollama), nvidia-smi output or
// torch.cuda.memory_summary() read into the settings it states and the figures it measured, then put side by
// side with the estimate for those settings (docs/readers.md, "Logs").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// One figure the log printed.
struct log_figure {
  std::string item{};    ///< what it measures: weights, host_weights, kv_memory, kv_tokens, max_concurrency,
                         ///< cuda_graphs, compute_buffer, host_compute_buffer; device_used (nvidia-smi),
                         ///< peak_allocated, peak_reserved (memory_summary(), memory_stats(), torchtune, litgpt)
  std::string label{};   ///< as the log names it ("Available KV cache memory", "CUDA0 KV buffer size")
  double value = 0;      ///< as printed, in `unit`
  std::string unit{};    ///< GiB, MiB, GB (10^9 B: litgpt), tokens or x (requests)
  std::size_t line = 0;  ///< the line it was read from, from 1
};

/// What a startup log says: the settings it states (as a launch command's reader gives them, each option named
/// "line N --option") and the figures it measured.
struct log_read {
  std::string format{};    ///< "vllm", "sglang", "llamacpp", "tgi", "nvidia_smi", "torch_memory", "torch_stats",
                           ///< "torchtune" or "litgpt"
  launch_read settings{};  ///< the settings and what was read, ignored, noted; errors name the line
  std::vector<log_figure> figures{};  ///< in item order, one per item (the last printed wins; of peaks, the largest)
};

/// Reads a startup log (at most 16 MiB, lines of at most 64 KiB; longer lines are skipped with a note). Never
/// fails as a whole: problems are in `settings.errors`, each naming the line.
[[nodiscard]] log_read read_log(std::string_view text);

/// One item of the log set beside the estimate.
struct reconcile_row {
  log_figure logged{};           ///< the log's figure
  std::optional<double> ours{};  ///< the estimate's figure in the log's unit; none when it models no such term
  std::string quantity{};        ///< where ours comes from, as tests/validation/published.json names it
  [[nodiscard]] double difference() const { return ours ? *ours - logged.value : 0; }  ///< ours - logged [unit]
};

/// The log and the estimate, item by item.
struct reconciliation {
  std::vector<reconcile_row> rows{};  ///< in the log's item order
  std::string largest{};              ///< the item whose relative difference is largest ("" when none compared)
};

/// Puts the log's figures beside the estimate `r` made with the log's settings.
[[nodiscard]] reconciliation reconcile(const log_read& log, const estimate_result& r);

/// {"format", "from": launch_to_json's object, "rows": [{item, label, line, unit, log, ours, difference}],
/// "largest"}.
[[nodiscard]] std::string reconciliation_to_json(const log_read& log, const reconciliation& rec, int indent = 2);

/// The rows compared, in the shape of tests/validation/published.json's rows (no tolerance: a row to check
/// before it is kept), with `settings` as the estimate used them and `source` naming the log.
[[nodiscard]] std::string validation_records(const log_read& log, const reconciliation& rec, const settings& used,
                                             std::string_view source, int indent = 2);

}  // namespace llm_memory
