// SPDX-License-Identifier: MIT
// A bounded YAML subset (private): what training recipes are written in (torchtune, axolotl, LLaMA-Factory,
// accelerate, TRL configs), read into the core's JSON value. docs/readers.md ("YAML") lists what is read and
// what is refused; every error names the line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "json_value.hpp"
#include "llm_memory/result.hpp"

namespace llm_memory::detail {

/// The reader's bounds (docs/robustness.md, "Limits").
struct yaml_limits {
  std::size_t max_bytes = std::size_t{1} << 20;  ///< bytes in the whole text (1 MiB)
  std::size_t max_line = std::size_t{16} << 10;  ///< bytes in one line (16 KiB)
  std::size_t max_depth = 32;                    ///< collections nested in one another
  std::size_t max_items = 100000;                ///< scalars and collections in the document
};

/// `text` as a JSON value: block mappings and sequences, one-line (or bracket-continued) flow collections, plain,
/// single- and double-quoted scalars, `|` / `>` block scalars, comments. Scalars stay text ("16", "True");
/// `null`, `~` and an empty value are null. A `${...}` interpolation stays as written, with a note naming the
/// line. Refused with an error naming "line N": anchors, aliases, tags, directives, a second document, tabs in
/// indentation, control bytes, a duplicate key, and anything past `limits`.
[[nodiscard]] result<json> parse_yaml(std::string_view text, std::vector<std::string>& notes,
                                      const yaml_limits& limits = {});

}  // namespace llm_memory::detail
