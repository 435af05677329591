// SPDX-License-Identifier: MIT
// A layer of settings parsed once and applied as values (private: a model preset's fields, which the ranking's
// resolves layer on every run of the model: fast_lookups.cpp parses them once per preset).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory::detail {

/// One row's parsed value, in the member of its field's type (setting_values); the others stay unset. Not a
/// std::variant: its copies and destruction dispatch through function tables, which the page's split would keep
/// in its first part (scripts/split-wasm.mjs).
struct layer_value {
  double number = 0;         ///< a double field's value (its unit: the row's)
  std::int64_t integer = 0;  ///< an integer field's value (its unit: the row's)
  bool flag = false;         ///< a flag's value
  std::string text;          ///< a choice's or a text's value
};

/// One row a parsed layer sets.
struct layer_entry {
  std::size_t row = 0;  ///< the row's index in the settings table
  layer_value value;    ///< the value parsed from the layer's text, of the row's field type
};

/// A layer parsed as apply_layer parses it: the rows whose values fit, in the layer's (key) order, and the
/// problems of the others, without an origin.
struct parsed_layer {
  std::vector<layer_entry> entries;  ///< the rows set and their values
  std::vector<error> errors;         ///< unknown keys and values that do not fit their row
};

/// Parses `layer` once; applying the result equals apply_layer(layer, ...) on any values.
[[nodiscard]] parsed_layer parse_layer(const settings& layer);

/// Sets each of `layer`'s rows on `values` and appends its errors to `errors`, each message followed by `origin`.
void apply_layer(const parsed_layer& layer, setting_values& values, std::vector<error>& errors,
                 std::string_view origin);

}  // namespace llm_memory::detail
