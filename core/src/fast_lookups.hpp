// SPDX-License-Identifier: MIT
// Faster ways to the same answers, for the ranking (private). The ranking (fits()) resolves each catalogue preset
// hundreds of times: each resolve looks up its model, its device and every key of its layers, and layers the
// preset's settings from their text. From the first ranking on, find_setting, find_gpu and resolve's model
// preset go through these: sorted indexes and each preset's settings parsed once (docs/performance.md, issue 34).
// Reached only through a pointer that fits() sets, so that none of their code is in the page's first part
// (scripts/split-wasm.mjs INLINED_MAKERS); before, the look-ups scan their tables and resolve parses the text.
#pragma once

#include <string_view>
#include <vector>

#include "llm_memory/presets.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"
#include "settings_layer.hpp"

namespace llm_memory::detail {

/// A model preset with its two layers parsed.
struct parsed_preset {
  const model_preset* preset = nullptr;  ///< the catalogue's preset (valid until add_models)
  parsed_layer fields;                   ///< model_preset::fields parsed
  parsed_layer shipped;                  ///< model_preset::shipped parsed
};

/// The look-ups, each giving what the scan it replaces gives.
struct fast_lookups {
  /// find_setting(key)
  const setting_def* (*setting)(std::string_view key);
  /// find_gpu(id)
  const gpu_preset* (*gpu)(std::string_view id);
  /// The preset lookup_model(text) finds, with its layers parsed; null where lookup_model gives an error.
  const parsed_preset* (*preset)(std::string_view text);
  /// Layers `preset`'s fields, or with `shipped` its shipped format, as apply_layer does their text.
  void (*layer)(const parsed_preset& preset, bool shipped, setting_values& values, std::vector<error>& errors,
                std::string_view origin);
};

/// Null until install_fast_lookups(). Volatile: else LTO, seeing one value ever stored, calls its functions
/// directly where it is read, which puts them back in the page's first part.
extern const fast_lookups* volatile installed_fast_lookups;

/// Sets installed_fast_lookups (fits() calls it) and returns them.
const fast_lookups& install_fast_lookups();

/// A count add_models raises: the presets a parsed_preset points to are valid while it is unchanged.
[[nodiscard]] std::size_t catalogue_generation();

}  // namespace llm_memory::detail
