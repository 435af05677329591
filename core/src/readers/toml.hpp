// SPDX-License-Identifier: MIT
// A bounded TOML subset (private): what torchtitan's job configs are written in (torchtitan/models/*/train_configs/
// *.toml), read into the core's JSON value. docs/readers.md ("TOML") lists what is read and what is refused; every
// error names the line.
#pragma once

#include <cstddef>
#include <string_view>

#include "json_value.hpp"
#include "llm_memory/result.hpp"

namespace llm_memory::detail {

/// The reader's bounds (docs/robustness.md, "Limits").
struct toml_limits {
  std::size_t max_bytes = std::size_t{1} << 20;  ///< bytes in the whole text (1 MiB)
  std::size_t max_line = std::size_t{16} << 10;  ///< bytes in one line (16 KiB)
  std::size_t max_depth = 8;                     ///< parts of a dotted table name
  std::size_t max_items = 100000;                ///< keys and array items in the document
};

/// `text` as a JSON object: `[table]` and `[a.b]` headers, `key = value` lines, basic ("...") and literal ('...')
/// one-line strings, numbers and true / false kept as text ("16", "true"), one-line arrays of those, `#` comments.
/// Refused with an error naming "line N": arrays of tables (`[[...]]`), inline tables, multi-line strings and
/// arrays, dotted or quoted keys, a key or table given twice, control bytes, and anything past `limits`.
[[nodiscard]] result<json> parse_toml(std::string_view text, const toml_limits& limits = {});

/// Whether `text` reads as a TOML job config: its first line that is neither blank nor a comment is a `[table]`
/// header.
[[nodiscard]] bool is_toml(std::string_view text);

}  // namespace llm_memory::detail
