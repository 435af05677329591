// SPDX-License-Identifier: MIT
// The sweep: total memory over a micro-batch x sequence grid (and its fit frontier), and over devices x ZeRO.
//
// lower() turns a resolved estimate into the coefficients of total memory as a function of (batch b, seq s):
//   stage total(b, s) = fixed + b * (c0 + c1 s + c2 s^2)      on each piece seq_first <= s <= seq_last,
// the reported total being the largest stage (pipeline parallelism has a first and a last stage).
// The coefficients are read off estimate() itself (no formula is duplicated); see docs/sweep.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// Bytes per sequence of the batch as a quadratic in s, valid for seq_first <= s <= seq_last.
struct seq_piece {
  std::int64_t seq_first = 1;  ///< tokens, inclusive
  std::int64_t seq_last = 1;   ///< tokens, inclusive
  double c0 = 0;               ///< bytes per sequence
  double c1 = 0;               ///< bytes per sequence per token
  double c2 = 0;               ///< bytes per sequence per token^2
};

/// One pipeline stage: total(b, s) = fixed + b * per_sequence(s); overhead (fragmentation) included.
struct stage_lowering {
  std::string stage;              ///< "only", "first" or "last" (as in estimate_result::stage)
  double fixed = 0;               ///< bytes at batch 0: everything that does not scale with the batch
  std::vector<seq_piece> pieces;  ///< in order, covering 1 .. the seq setting's maximum
  /// Bytes per sequence of the batch at `seq` tokens.
  [[nodiscard]] double per_sequence(double seq) const;
};

/// A resolved estimate lowered to its (batch, seq) coefficients.
struct lowered_estimate {
  run_spec spec;                       ///< the run it was lowered from (batch and seq are the axes)
  std::vector<stage_lowering> stages;  ///< one per stage of estimate_stages()
  double gpu_memory = 0;               ///< bytes of one device
  std::int64_t batch_limit = 1;        ///< largest micro-batch the settings table allows (sequences)
  /// Bytes: estimate().total_bytes - total(b, s) lies in [-1, rounding_bound] (plus relative_tolerance x total)
  /// because estimate() rounds every item up to whole bytes and the sweep does not.
  double rounding_bound = 0;
  /// llama.cpp / Ollama: memory steps with the padded KV cells (256) and the per-slot context, so it is not
  /// lowered: `stages` is empty and every point is estimate() itself (total() calls it).
  bool pointwise = false;
  /// Relative error of the double-precision coefficients, well above what was measured (unitless).
  static constexpr double relative_tolerance = 1e-12;
  /// Total bytes per device at micro-batch `batch` and `seq` tokens (the largest stage).
  [[nodiscard]] double total(double batch, double seq) const;
};

/// Lowers a resolved run; fails (naming "seq") only if memory is not piecewise quadratic in seq. llama.cpp,
/// Ollama and TGI runs come back `pointwise`.
[[nodiscard]] result<lowered_estimate> lower(const run_spec& spec);

/// The kernel's input for one seq axis: per stage, the fixed bytes and the bytes per sequence of each column.
struct sweep_columns {
  std::vector<double> fixed;  ///< bytes, one per stage
  std::vector<double> slope;  ///< bytes per sequence, [stage][seq column], row-major
  std::size_t seq_count = 0;  ///< columns
};

[[nodiscard]] sweep_columns columns(const lowered_estimate& lowered, std::span<const double> seq);

/// Kernel selection, for tests and benchmarks; both give bit-identical results.
enum class kernel {
  scalar,  ///< one double at a time
  simd,    ///< the widest vectors available: AVX2 (4 doubles) or SSE2 (2) natively, SIMD128 (2) in wasm
};

/// The instruction set kernel::simd uses on this machine: "avx2", "sse2", "wasm-simd128" or "none".
[[nodiscard]] std::string_view simd_isa();

/// Fills out[i * seq_count + j] with the total bytes at batch[i] and column j. out.size() must be
/// batch.size() x seq_count.
void evaluate(const sweep_columns& cols, std::span<const double> batch, std::span<double> out, kernel k);

/// Largest micro-batch (1 .. batch_limit) whose estimate() fits gpu_memory at each seq; 0 if none.
/// Exact: where the rounding bound leaves a doubt, estimate() itself decides.
[[nodiscard]] std::vector<std::int64_t> max_batch(const lowered_estimate& lowered, std::span<const double> seq);

/// A whole sweep: axes, totals and the frontier.
struct sweep_grid {
  std::vector<double> batch;            ///< sequences (micro-batch), one per row
  std::vector<double> seq;              ///< tokens, one per column
  std::vector<double> total;            ///< bytes per device, row-major [batch][seq]
  std::vector<std::int64_t> max_batch;  ///< sequences, one per column (0 = nothing fits)
};

[[nodiscard]] sweep_grid sweep(const lowered_estimate& lowered, std::span<const double> batch,
                               std::span<const double> seq, kernel k = kernel::simd);

/// One sweep as a front end asks for it (the CLI's `sweep` subcommand, the JS API's sweep()).
struct sweep_request {
  settings values;                      ///< raw settings; their batch and seq are ignored (the axes replace them)
  settings config;                      ///< the config.json layer under them
  std::string batch = "1:256";          ///< the batch axis, as parse_axis reads it [sequences]
  std::string seq = "256:131072";       ///< the seq axis, as parse_axis reads it [tokens]
  kernel kernel_choice = kernel::simd;  ///< which kernel evaluates the grid
  std::shared_ptr<const gguf_placement> gguf_file =
      nullptr;  ///< a GGUF file's tensors (--gguf), kept as resolve_inputs
};

/// A sweep's answer: the lowering it came from and the grid.
struct sweep_run {
  lowered_estimate lowered;  ///< the run's (batch, seq) coefficients
  sweep_grid grid;           ///< totals and the frontier
};

/// Parses the axes and resolves the settings (every error of both, naming the setting), lowers, sweeps.
[[nodiscard]] result<sweep_run> run_sweep(const sweep_request& request);

/// Most values one axis may have.
inline constexpr std::size_t max_axis_values = 4096;
/// Most cells a grid may have: 2^20 (1024 x 1024) computes and prints in about a second (docs/sweep.md); 4096 x
/// 4096 took 11 s as a table and 17 s as JSON.
inline constexpr std::size_t max_sweep_cells = std::size_t{1} << 20;

/// An error naming the longer axis (batch on a tie) when batch_values x seq_values passes max_sweep_cells.
[[nodiscard]] std::optional<error> grid_size_error(std::size_t batch_values, std::size_t seq_values);

/// An axis of the setting `key` (batch or seq) from text: "a" (one value), "a:b" (a, 2a, 4a, ... while <= b:
/// powers of two when a is one), or "a:b:n" (n integers evenly spaced from a to b, rounded, duplicates dropped).
/// Every value is checked against the setting's row; errors name the setting.
[[nodiscard]] result<std::vector<double>> parse_axis(std::string_view key, std::string_view text);

/// Total bytes per device for each device count x ZeRO stage 0..3, row-major [devices][zero];
/// errors name the setting (e.g. a device count that tp x pp does not divide).
[[nodiscard]] result<std::vector<double>> sweep_parallel(const settings& explicit_values,
                                                         std::span<const std::int64_t> devices);

}  // namespace llm_memory
