// SPDX-License-Identifier: MIT
// Hugging Face config.json -> settings. Used by --config, the page's "paste config.json", and the presets.
#pragma once

#include <string_view>

#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// Maps a config.json text onto architecture settings (hidden_size, num_key_value_heads, ...).
/// Nested `text_config` (multimodal models) is read; unknown fields are ignored; a missing required
/// field or a malformed document is an error naming it (setting "config.json" or the key).
[[nodiscard]] result<settings> parse_config(std::string_view json_text);

}  // namespace llm_memory
