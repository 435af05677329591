// SPDX-License-Identifier: MIT
// Layering raw settings onto parsed values (private: the resolve stage's building blocks, settings.cpp's table).
#pragma once

#include <string_view>
#include <vector>

#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory::detail {

/// The table's defaults, parsed once.
[[nodiscard]] const setting_values& default_values();

/// Parses each raw value of `layer` onto its field of `values`; unknown keys and bad values are appended to
/// `errors`, each message followed by `origin` (" (from model preset)").
void apply_layer(const settings& layer, setting_values& values, std::vector<error>& errors, std::string_view origin);

}  // namespace llm_memory::detail
