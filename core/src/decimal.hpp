// SPDX-License-Identifier: MIT
// Decimal text to double, correctly rounded (private to the core). It replaces strtod: the
// WebAssembly module then needs no libc strtod, whose 128-bit long double arithmetic is emulated in software
// and costs about 5 KB of the gzip budget (docs/performance.md); both builds read every number with this code.
#pragma once

#include <cstddef>
#include <string_view>

namespace llm_memory::detail {

/// Reads the longest prefix of `text` of the form [+-]digits[.digits][(e|E)[+-]digits] (a digit on at least
/// one side of the point) into `out`, rounded to nearest, ties to even, exactly as a correct strtod; values
/// beyond the double range become +-inf, values below half the smallest subnormal +-0. Returns the number of
/// characters read, 0 (and `out` = 0) when `text` does not start with a number. No inf, nan, hex or spaces.
[[nodiscard]] std::size_t read_double(std::string_view text, double& out);

}  // namespace llm_memory::detail
