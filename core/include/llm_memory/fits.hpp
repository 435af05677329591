// SPDX-License-Identifier: MIT
// "What runs on my machine": every catalogue model answered on one device (or several of it) for one task, each
// with the best format that fits, its runtime, the longest context at that format, the share left in host memory
// and the speed that memory bandwidth allows (an upper bound). Each model is resolved once per runtime, its
// further formats varied in the weights alone and the context search in seq alone (vary()'s fast paths); runs are
// kept across rankings (fits()). See docs/methodology.md, "What runs on my machine" and "Speed bound", and
// docs/performance.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// What the machine is asked to do with each model.
enum class fits_task : std::uint8_t {
  run,    ///< inference: vLLM for bf16 / FP8 / AWQ, llama.cpp for GGUF
  lora,   ///< LoRA on a bf16 base (Hugging Face Trainer + PEFT)
  qlora,  ///< QLoRA on an NF4 base
  full,   ///< full fine-tuning, AdamW
};

/// How the rows are ordered (fitting rows always first).
enum class fits_sort : std::uint8_t {
  size,     ///< most parameters first
  context,  ///< longest context first
  speed,    ///< highest decode bound first
};

/// Which models a ranking keeps by their experts.
enum class fits_moe : std::uint8_t { any, only, none };

/// The machine, the task and the filters.
struct fits_request {
  std::string gpu;                   ///< GPU preset id or alias, e.g. "rtx-4090"
  std::int64_t devices = 1;          ///< devices of that GPU [devices]
  double ram_bytes = 0;              ///< host RAM for offloaded layers; 0: no layer is offloaded [bytes]
  fits_task task = fits_task::run;   ///< what runs
  std::int64_t seq = 8192;           ///< the context (training: the sequence) each answer must hold [tokens]
  std::string family;                ///< keep models whose id or name contains it (any case); "" keeps all
  double min_params = 0;             ///< keep models with at least this many parameters [parameters]
  double max_params = 0;             ///< keep models with at most this many; 0: no limit [parameters]
  fits_moe moe = fits_moe::any;      ///< keep MoE models only, dense only, or both
  fits_sort sort = fits_sort::size;  ///< the order of the fitting rows
};

/// The speed memory allows, an upper bound: every byte a step reads, read once at the peak bandwidth.
struct speed_bound {
  double device_bytes_per_token = 0;  ///< weights (active share) + one sequence's KV read on the devices [bytes]
  double host_bytes_per_token = 0;    ///< offloaded layers read in host memory per token [bytes]
  double decode_tokens_per_s = 0;     ///< one sequence [tokens/s]
  double batch_tokens_per_s = 0;      ///< all `batch` sequences of the run decoding together [tokens/s]
  double prefill_tokens_per_s = 0;    ///< dense FLOPs / (2 x active parameters); 0: no FLOPs figure [tokens/s]
  std::string formula;                ///< the figures used
};

/// Host memory bandwidth assumed for offloaded layers: dual-channel DDR5-6000, 2 x 8 B x 6e9 [bytes/s].
inline constexpr double host_bandwidth_bytes_per_s = 96e9;

/// The speed bound of an estimated inference run on `gpu` (nothing for training or a device without a bandwidth).
[[nodiscard]] std::optional<speed_bound> speed_of(const estimate_result& r, const gpu_preset& gpu);

/// One model's answer.
struct fits_row {
  std::string model;               ///< preset id
  std::string name;                ///< display name
  double params = 0;               ///< total parameters [parameters]
  double active_params = 0;        ///< parameters a token uses (MoE: fewer than params) [parameters]
  bool moe = false;                ///< routed experts
  bool fits = false;               ///< some format fits at the requested seq
  std::string format;              ///< weights_dtype of the best format that fits (training: the base's)
  std::string runtime;             ///< runtime (inference) or framework (training)
  std::int64_t max_context = 0;    ///< longest context (training: sequence) at that format, to 256 tokens [tokens]
  std::int64_t gpu_layers = 0;     ///< layers on the GPU (llama.cpp -ngl); num_hidden_layers when none offloaded
  double offloaded_share = 0;      ///< layers left in host memory / layers [fraction]
  std::int64_t n_cpu_moe = 0;      ///< layers whose routed experts stay in host RAM (llama.cpp --n-cpu-moe) [layers]
  double host_bytes = 0;           ///< host RAM the run uses [bytes]
  double total_bytes = 0;          ///< per-device memory at seq [bytes]
  double decode_tokens_per_s = 0;  ///< speed bound of one sequence at seq; 0 for training [tokens/s]
  settings delta;                  ///< the settings that open the full estimate of this answer
};

/// The ranking.
struct fits_result {
  std::string gpu;             ///< the preset's display name
  double memory_bytes = 0;     ///< memory of one device [bytes]
  std::int64_t devices = 1;    ///< devices [devices]
  std::int64_t fitting = 0;    ///< rows that fit [rows]
  std::vector<fits_row> rows;  ///< every model the filters keep, fitting first, in the requested order
};

/// The request read from text keys: gpu, devices, ram ("64GB"), task (run|lora|qlora|full), seq, family,
/// min_params / max_params ("8B"), moe (any|only|none), sort (size|context|speed); each error names its key. The
/// CLI's `fits` flags (dashes read as underscores) and the wasm binding's JSON object both come through here.
[[nodiscard]] result<fits_request> fits_request_from(const settings& keys);

/// Ranks every model preset on the machine; errors name "gpu", "devices", "seq" or "ram". Runs that read the device
/// only through its backend and the fit (llama.cpp, training) are kept across rankings without the device, vLLM's
/// per device (fits.cpp), so ranking a second machine resolves only what the device changes.
[[nodiscard]] result<fits_result> fits(const fits_request& request);

/// Forgets the runs fits() keeps (the next ranking resolves every run again): for the tests and benchmarks that
/// compare a first ranking with a later one.
void forget_kept_runs();

}  // namespace llm_memory
