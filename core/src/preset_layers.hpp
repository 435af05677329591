// SPDX-License-Identifier: MIT
// A catalogue preset with its settings parsed once (private: presets.cpp keeps a slot for them beside the preset;
// once the ranking turned parsed layering on, resolve.cpp fills it on the preset's first run and layers the parsed
// values on every run instead of parsing the preset's text each time).
#pragma once

#include <string_view>
#include <vector>

#include "llm_memory/presets.hpp"
#include "llm_memory/result.hpp"
#include "settings_layer.hpp"

namespace llm_memory::detail {

/// A preset's two layers parsed (on its first run with parsed layering on).
struct preset_layers {
  parsed_layer fields;   ///< model_preset::fields parsed
  parsed_layer shipped;  ///< model_preset::shipped parsed
  bool parsed = false;   ///< whether `fields` and `shipped` hold them yet
};

/// A preset as lookup_model finds it, with its parsed layers' slot (both owned by the catalogue; valid until
/// add_models).
struct preset_with_layers {
  const model_preset* preset = nullptr;  ///< the preset
  preset_layers* layers = nullptr;       ///< its fields and shipped format parsed, once `parsed`
};

/// Layers one of a preset's layers (its `fields`, or with `shipped` its shipped format) onto `values`.
using preset_layering = void (*)(const preset_with_layers& preset, bool shipped, setting_values& values,
                                 std::vector<error>& errors, std::string_view origin);

/// How resolve layers a preset: null (the start), from the layer's text; fits() sets it to the parsed layers, a
/// function only the ranking makes, so that their code stays out of the page's first part (scripts/split-wasm.mjs
/// INLINED_MAKERS) while the ranking, which resolves each preset hundreds of times, parses each layer once.
extern preset_layering parsed_layering;

/// lookup_model's answer, with the preset's layers parsed once per preset.
[[nodiscard]] result<preset_with_layers> lookup_model_layers(std::string_view text);

}  // namespace llm_memory::detail
