// SPDX-License-Identifier: MIT
// Hugging Face config.json -> settings. Used by --config, the page's "paste config.json", and the presets.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// The most bytes of JSON read from a file or the page (config.json, --batch-json): a config.json is a few KB;
/// the bound stops `--config /dev/zero` and keeps a pasted file's copy small.
inline constexpr std::size_t max_json_bytes = std::size_t{16} << 20;
/// The deepest nesting of arrays and objects accepted (real configs nest 3 or 4 deep): nlohmann's dump(),
/// copy and comparison recurse once per level, so a deeper value could exhaust the stack.
inline constexpr std::size_t max_json_depth = 64;

/// Checks a JSON text's size and nesting before any parser sees it, in one linear pass without recursion
/// (brackets counted outside strings). An error names `what` ("config.json", "batch-json") and says where:
/// the top-level field or entry and the byte offset. nullopt when the text is within both bounds.
[[nodiscard]] std::optional<error> check_json_text(std::string_view text, std::string_view what);

/// Maps a config.json text onto architecture settings (hidden_size, num_key_value_heads, ...).
/// Nested `text_config` (multimodal models) is read; unknown fields are ignored; a missing required
/// field or a malformed document is an error naming it (setting "config.json" or the key); so is a text that
/// check_json_text() refuses.
[[nodiscard]] result<settings> parse_config(std::string_view json_text);

}  // namespace llm_memory
