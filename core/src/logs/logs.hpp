// SPDX-License-Identifier: MIT
// The log readers' shared parts (private): lines with their numbers, numbers as the runtimes print them, Python
// reprs of argument dicts, and the launch command a log's settings are read through (readers/), so a log and the
// command that started it give the same settings.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm_memory/log.hpp"

namespace llm_memory::detail {

/// A log is read up to 16 MiB, each line up to 64 KiB (an SGLang ServerArgs line is about 10 KiB).
inline constexpr std::size_t max_log_bytes = std::size_t{16} << 20;
inline constexpr std::size_t max_log_line_bytes = std::size_t{64} << 10;

/// One line of the log.
struct log_line {
  std::string_view text{};  ///< without its line end
  std::size_t number = 0;   ///< from 1
};

/// The lines of `text` (LF or CR LF); a line over max_log_line_bytes is left out with a note naming it.
[[nodiscard]] std::vector<log_line> log_lines(std::string_view text, std::vector<std::string>& notes);

/// The text after the first `marker` in `line`, if any.
[[nodiscard]] std::optional<std::string_view> after(std::string_view line, std::string_view marker);

/// The number at the start of `text` after spaces, digits grouped with commas as vLLM prints token counts
/// ("157,936"); none when no digit starts it or it is not finite.
[[nodiscard]] std::optional<double> leading_number(std::string_view text);

/// A size as printed ("19.28 GiB", "8.23 GB", "64.00 MiB") in `unit` (GiB or MiB): GB and MB are read as GiB and
/// MiB, as vLLM (`/ float(2**30)`) and SGLang (`GB = 1 << 30`) divide; none when no size starts `text`.
[[nodiscard]] std::optional<double> leading_size(std::string_view text, std::string_view unit);

/// The pairs of a Python repr at depth 0: `'key': value, ...` (sep ':') or `key=value, ...` (sep '='); quotes
/// are taken off keys and string values, a nested list, dict or call is kept as its text. At most 4096 pairs.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> python_pairs(std::string_view text, char sep);

/// The launch command a log's settings are read through: its words, and the line each option came from.
struct log_command {
  std::string program{};                                     ///< "vllm", "python", "llama-server"
  std::vector<std::string> args{};                           ///< after the program ("serve", "--max-model-len", ...)
  std::vector<std::pair<std::string, std::size_t>> lines{};  ///< option as added -> its line

  /// `--option value` (a flag when `value` is empty) read from `line`.
  void add(const std::string& option, const std::string& value, std::size_t line);
};

/// Reads `cmd` with the launch command's reader into `out.settings`; every option read, ignored or refused is
/// named "line N --option" after the line it came from.
void read_log_command(const log_command& cmd, log_read& out);

/// Adds `f`, replacing an earlier figure of its item (a log of several starts: the last start's figure).
void set_figure(log_read& out, log_figure f);

/// Adds `f` unless an earlier figure of its item is larger (peaks printed per step or per stage: the run's peak).
void set_peak_figure(log_read& out, log_figure f);

/// The readers, one per kind of log (logs/<kind>_log.cpp).
void read_vllm_log(std::span<const log_line> lines, log_read& out);
void read_sglang_log(std::span<const log_line> lines, log_read& out);
void read_llamacpp_log(std::span<const log_line> lines, log_read& out);
void read_tgi_log(std::span<const log_line> lines, log_read& out);
void read_torch_stats_log(std::span<const log_line> lines, log_read& out);
void read_torchtune_log(std::span<const log_line> lines, log_read& out);
void read_litgpt_log(std::span<const log_line> lines, log_read& out);
void read_unsloth_log(std::span<const log_line> lines, log_read& out);
void read_nvidia_smi_log(std::span<const log_line> lines, log_read& out);
void read_torch_memory_log(std::span<const log_line> lines, log_read& out);

}  // namespace llm_memory::detail
