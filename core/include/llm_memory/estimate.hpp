// SPDX-License-Identifier: MIT
// The estimate: per-device bytes in buckets, each with its items and the formula behind them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/model.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/runtime.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// Bucket keys, in display order.
inline constexpr std::array<std::string_view, 6> bucket_keys = {"parameters",  "gradients", "optimizer",
                                                                "activations", "kv_cache",  "overhead"};

/// One line inside a bucket.
struct item {
  std::string name;     ///< e.g. "fp32 master weights"
  double bytes = 0;     ///< per device, whole bytes
  std::string formula;  ///< how it was computed, with the numbers used
};

/// One bucket of device memory.
struct bucket {
  std::string key;       ///< one of bucket_keys
  std::string label;     ///< display name
  double bytes = 0;      ///< per device: the sum of the items
  std::string includes;  ///< what the bucket covers
  std::string assumes;   ///< what it assumes (and what it leaves out)
  std::vector<item> items;
};

/// A phase of a training step (docs/methodology.md, "The peak over the phases of a step"). `sum` is framework
/// generic's sum of every bucket; `inference` an inference run.
enum class step_phase : std::uint8_t {
  sum,
  forward_end,
  backward_start,
  recompute,
  backward_end,
  optimizer_step,
  inference
};

/// The phase's name in the output.
[[nodiscard]] std::string_view phase_name(step_phase phase);

/// The peak as the frameworks measure it.
struct peak_memory {
  double allocated = 0;  ///< tensors alive at the peak: torch.cuda.max_memory_allocated() [bytes]
  double reserved = 0;   ///< allocated + the caching allocator's reserve: max_memory_reserved() [bytes]
  double device = 0;     ///< reserved + CUDA context and memory outside PyTorch: what nvidia-smi shows [bytes]
  std::string phase;     ///< the phase at the peak
  std::string printed;   ///< which of the three the framework's own log prints: allocated, reserved or device
};

/// Bytes allocated in one phase of the reported stage.
struct phase_bytes {
  std::string phase;     ///< its name
  double allocated = 0;  ///< tensors alive in it [bytes]
};

/// Result of estimate(): memory of the most-loaded device.
struct estimate_result {
  setting_values settings;           ///< every resolved setting
  model_spec model;                  ///< the architecture and its exact parameter count
  double params = 0;                 ///< total parameters (the `params` override when given)
  double trainable_params = 0;       ///< parameters that get gradients and optimizer state
  std::vector<bucket> buckets;       ///< in bucket_keys order; every bucket present (possibly 0 bytes)
  double total_bytes = 0;            ///< per device, sum of the buckets
  double gpu_memory_bytes = 0;       ///< capacity of one device
  double cpu_bytes = 0;              ///< host RAM for offloaded state (whole job's share per device)
  std::int64_t data_parallel = 1;    ///< devices / (tp x pp)
  std::int64_t effective_batch = 1;  ///< batch x grad_accum x data_parallel, sequences per step
  std::string stage;                 ///< which pipeline stage is reported ("only", "first", "last")
  bool fits = false;                 ///< total_bytes (peak.device) <= gpu_memory_bytes, and fits_in_ram
  bool fits_in_ram = true;           ///< cpu_bytes <= host_ram (true when host_ram is 0: not checked)
  peak_memory peak;                  ///< allocated, reserved and device at the peak; total_bytes = peak.device
  std::vector<phase_bytes> phases;   ///< every phase of the reported stage (one, `sum`, for framework generic)
  std::vector<std::string> notes;    ///< assumptions applied and settings that were ignored
  bool inference = false;            ///< an inference run: `runtime` holds the runtime's own report
  runtime_report runtime;            ///< the runtime's terms for this device (inference only)

  /// Bytes of one bucket by key (0 for an unknown key).
  [[nodiscard]] double bytes(std::string_view bucket_key) const;
};

/// Estimates a resolved run (never fails).
[[nodiscard]] estimate_result estimate(const run_spec& spec);

/// Every pipeline stage that can be the most loaded (one with pp = 1, else the first and the last), and with the
/// phase model every phase of each: estimate() reports the largest; the sweep (sweep.hpp) lowers each separately.
[[nodiscard]] std::vector<estimate_result> estimate_stages(const run_spec& spec);

/// 2^53 bytes (about 9 PB per device): every whole number up to it is an exact double, so JSON, JavaScript and
/// the table carry each byte count exactly. The settings' ranges alone allow far more (batch 10^7 x seq 10^8).
inline constexpr double max_exact_bytes = 9007199254740992.0;

/// An error when the total or the offloaded bytes of `r` pass max_exact_bytes, naming the setting that drives
/// the largest bucket: batch (or seq at batch 1) for activations and the KV cache, else params, num_experts (when
/// the experts a token does not use outweigh the rest) or hidden_size.
/// resolve() cannot know this before estimating; every front end refuses such an estimate.
[[nodiscard]] std::optional<error> beyond_exact_bytes(const estimate_result& r);

/// Resolves (resolve.hpp) then estimates; errors name the setting, beyond_exact_bytes included.
[[nodiscard]] result<estimate_result> estimate(const settings& explicit_values, const settings& config = {});

}  // namespace llm_memory
