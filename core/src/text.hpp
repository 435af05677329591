// SPDX-License-Identifier: MIT
// Small text helpers shared by the core's sources (private).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llm_memory::detail {

/// Shortest decimal text that reads back as the same double ("1.2", "7000000000", "4.5e+20").
[[nodiscard]] std::string format_number(double v);
/// A whole number with its thousands grouped by commas ("4,096", "-1,234"), rounded as printf's %.0f rounds.
[[nodiscard]] std::string group_digits(double v);
/// Input text quoted for an error message, cut to a readable length; `"` and `\` escaped, then
/// escape_controls().
[[nodiscard]] std::string quoted(std::string_view text);
/// The text with every byte a terminal could act on written as `\xNN`: C0 controls (newline and ESC
/// included), DEL, the C1 controls U+0080..U+009F (0xC2 0x80..0x9F) and bytes that are not valid UTF-8
/// (a lone 0x9B is CSI to a Latin-1 terminal). Valid UTF-8 text otherwise passes unchanged; idempotent.
[[nodiscard]] std::string escape_controls(std::string_view text);
[[nodiscard]] std::string_view trim(std::string_view s);
[[nodiscard]] std::string lower(std::string_view s);
/// lower(a) == lower(b), without making either.
[[nodiscard]] bool same_ignoring_case(std::string_view a, std::string_view b);
/// Splits "a|b|c" or "a,b,c".
[[nodiscard]] std::vector<std::string_view> split(std::string_view s, char sep);
/// A comma-separated list of whole numbers from 0 to `max` ("4, 5,11"; empty: none), sorted, each once; nullopt
/// when an entry is not such a number (the caller's error names its setting).
[[nodiscard]] std::optional<std::vector<std::int64_t>> parse_index_list(std::string_view s, std::int64_t max);

}  // namespace llm_memory::detail
