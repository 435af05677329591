// SPDX-License-Identifier: MIT
// Training configs out (private; emit.cpp dispatches to it): accelerate FSDP, torchtune overrides, TRL flags.
#pragma once

#include <optional>
#include <string_view>

#include "llm_memory/emit.hpp"

namespace llm_memory::detail {

/// The config for `values` in `format` (accelerate, torchtune or trl), text without its final newline; nullopt
/// for another format.
[[nodiscard]] std::optional<emitted> emit_training(const setting_values& values, std::string_view format);

}  // namespace llm_memory::detail
