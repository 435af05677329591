// SPDX-License-Identifier: MIT
// Small text helpers shared by the core's sources (private).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llm_memory::detail {

/// Shortest decimal text that reads back as the same double ("1.2", "7000000000", "4.5e+20").
[[nodiscard]] std::string format_number(double v);
/// Input text quoted for an error message, cut to a readable length.
[[nodiscard]] std::string quoted(std::string_view text);
[[nodiscard]] std::string_view trim(std::string_view s);
[[nodiscard]] std::string lower(std::string_view s);
/// Splits "a|b|c" or "a,b,c".
[[nodiscard]] std::vector<std::string_view> split(std::string_view s, char sep);

}  // namespace llm_memory::detail
