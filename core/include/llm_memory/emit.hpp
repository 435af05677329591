// SPDX-License-Identifier: MIT
// Launch commands out: the command a user would run for the current settings, in a runtime's own words (the
// inverse of launch.hpp's readers; docs/readers.md, "Emit"). Reading the text back with read_launch() gives the
// settings it carries; the ones its format cannot carry are listed by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// A command written for a runtime.
struct emitted {
  std::string text{};                      ///< the command, one option per line (a Modelfile, a JSON config: its lines)
  std::vector<std::string> not_carried{};  ///< settings the format has no option for (or not for this value)
};

/// The formats emit() writes, as `--emit` names them.
inline constexpr std::string_view emit_formats = "vllm|sglang|llamacpp|ollama|deepspeed|accelerate|torchtune|trl";

/// The command for `values` (resolved settings) in `format` (one of emit_formats); an error names "emit".
[[nodiscard]] result<emitted> emit(const setting_values& values, std::string_view format);

}  // namespace llm_memory
