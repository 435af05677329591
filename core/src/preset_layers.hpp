// SPDX-License-Identifier: MIT
// A catalogue preset with its settings parsed once (private: presets.cpp keeps them beside the preset, resolve.cpp
// layers them on every run of the model instead of parsing the preset's text each time).
#pragma once

#include <string_view>

#include "llm_memory/presets.hpp"
#include "llm_memory/result.hpp"
#include "settings_layer.hpp"

namespace llm_memory::detail {

/// A preset's two layers, parsed when the preset is mapped from its entry.
struct preset_layers {
  parsed_layer fields;   ///< model_preset::fields parsed
  parsed_layer shipped;  ///< model_preset::shipped parsed
};

/// A preset as lookup_model finds it, with its parsed layers (both owned by the catalogue; valid until add_models).
struct preset_with_layers {
  const model_preset* preset = nullptr;   ///< the preset
  const preset_layers* layers = nullptr;  ///< its fields and shipped format parsed
};

/// lookup_model's answer, with the preset's layers parsed once per preset.
[[nodiscard]] result<preset_with_layers> lookup_model_layers(std::string_view text);

}  // namespace llm_memory::detail
