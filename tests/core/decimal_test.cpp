// SPDX-License-Identifier: MIT
// detail::read_double, the core's correctly rounded replacement for strtod (core/src/decimal.hpp).
#include "../../core/src/decimal.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace {

using llm_memory::detail::read_double;

double read(const std::string& text) {
  double v = -1;
  EXPECT_EQ(read_double(text, v), text.size()) << text;
  return v;
}

double from_bits(std::uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// The compiler's own conversion of each literal is the expected value.
TEST(decimal, reads_like_the_compiler) {
  EXPECT_EQ(read("0"), 0.0);
  EXPECT_EQ(read("4096"), 4096.0);
  EXPECT_EQ(read("0.1"), 0.1);
  EXPECT_EQ(read(".5"), 0.5);
  EXPECT_EQ(read("5."), 5.0);
  EXPECT_EQ(read("+2.5e3"), 2500.0);
  EXPECT_EQ(read("-1e-5"), -1e-5);
  EXPECT_EQ(read("1E+22"), 1e22);
  EXPECT_EQ(read("1e23"), 1e23);  // not exact: the first power of ten beyond the fast path
  EXPECT_EQ(read("8.589973e9"), 8.589973e9);
  EXPECT_EQ(read("123456789012345678901234567890"), 123456789012345678901234567890.0);
  EXPECT_EQ(read("0.000000000000000000000000000123456789"), 0.000000000000000000000000000123456789);
  EXPECT_EQ(read("1.7976931348623157e308"), std::numeric_limits<double>::max());
  EXPECT_EQ(read("2.2250738585072014e-308"), std::numeric_limits<double>::min());
  EXPECT_EQ(read("2.2250738585072011e-308"), 2.2250738585072011e-308);  // subnormal just below the normal range
  EXPECT_EQ(read("4.9406564584124654e-324"), std::numeric_limits<double>::denorm_min());
  EXPECT_TRUE(std::signbit(read("-0.0")));
}

TEST(decimal, rounds_ties_to_even_and_breaks_them_with_later_digits) {
  // 2^53 + 1 lies halfway between 2^53 and 2^53 + 2; the even significand is 2^53.
  EXPECT_EQ(read("9007199254740993"), 9007199254740992.0);
  EXPECT_EQ(read("9007199254740993.0000000000000000000001"), 9007199254740994.0);
  EXPECT_EQ(read("9007199254740995"), 9007199254740996.0);
  // A nonzero digit past the 780 kept still decides the tie.
  EXPECT_EQ(read("9007199254740993" + std::string(800, '0') + "1e-801"), 9007199254740994.0);
  EXPECT_EQ(read("9007199254740993." + std::string(800, '0') + "1"), 9007199254740994.0);
  EXPECT_EQ(read("9007199254740993." + std::string(800, '0')), 9007199254740992.0);
}

TEST(decimal, saturates_beyond_the_double_range) {
  EXPECT_EQ(read("1.7976931348623159e308"), HUGE_VAL);  // past max + half an ulp
  EXPECT_EQ(read("1e400"), HUGE_VAL);
  EXPECT_EQ(read("-1e400"), -HUGE_VAL);
  EXPECT_EQ(read("1e-400"), 0.0);
  // Half the smallest subnormal is 2.4703282292062327208...e-324: below it 0, above it the smallest subnormal.
  EXPECT_EQ(read("2.4703282292062327e-324"), 0.0);
  EXPECT_EQ(read("2.4703282292062328e-324"), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(read("1e99999999999999999999"), HUGE_VAL);
}

TEST(decimal, reads_only_a_number_prefix) {
  double v = 7;
  EXPECT_EQ(read_double("", v), 0u);
  EXPECT_EQ(v, 0.0);
  EXPECT_EQ(read_double(".", v), 0u);
  EXPECT_EQ(read_double("-", v), 0u);
  EXPECT_EQ(read_double("e5", v), 0u);
  EXPECT_EQ(read_double(" 1", v), 0u);
  EXPECT_EQ(read_double("inf", v), 0u);
  EXPECT_EQ(read_double("1e", v), 1u);
  EXPECT_EQ(v, 1.0);
  EXPECT_EQ(read_double("1e+", v), 1u);
  EXPECT_EQ(read_double("2.5.1", v), 3u);
  EXPECT_EQ(v, 2.5);
  EXPECT_EQ(read_double("0x10", v), 1u);
  EXPECT_EQ(read_double("3GiB", v), 1u);
  EXPECT_EQ(v, 3.0);
}

// Shortest-digit and full-precision texts of random doubles read back exactly; natively they also agree with
// the C library's strtod.
TEST(decimal, random_doubles_round_trip) {
  std::mt19937_64 rng(20261203);
  char buf[64];
  for (int i = 0; i < 20000; ++i) {
    const double x = from_bits(rng() & 0x7fffffffffffffffu);
    if (!std::isfinite(x)) continue;
    std::snprintf(buf, sizeof buf, "%.17g", x);
    ASSERT_EQ(read(buf), x) << buf;
    std::snprintf(buf, sizeof buf, "%.*e", static_cast<int>(rng() % 17), x);
    ASSERT_EQ(read(buf), std::strtod(buf, nullptr)) << buf;
  }
}

// Whether printf writes the long double 1 + 2^-53 (the midpoint between 1 and the next double) exactly: not
// where long double is double, nor with Emscripten's printf, which formats long doubles as doubles.
bool printf_holds_midpoints() {
  if constexpr (std::numeric_limits<long double>::digits < 54) {
    return false;
  } else {
    char buf[80];
    std::snprintf(buf, sizeof buf, "%.53Le", 1.0L + std::ldexp(1.0L, -53));
    return std::string(buf) == "1.00000000000000011102230246251565404236316680908203125e+00";
  }
}

// The exact midpoint between two neighbouring doubles rounds to the one with the even significand; one more
// digit above it rounds up.
TEST(decimal, random_midpoints_round_to_even) {
  if (!printf_holds_midpoints()) {
    GTEST_SKIP() << "printf cannot write a midpoint exactly here";
  } else {
    std::mt19937_64 rng(7);
    std::string text(1200, '\0');
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t bits = rng() % 0x7fefffffffffffffu;  // finite, below the largest double
      const double lo = from_bits(bits);
      const double hi = from_bits(bits + 1);
      const long double mid = (static_cast<long double>(lo) + static_cast<long double>(hi)) / 2;
      const int n = std::snprintf(text.data(), text.size(), "%.1100Le", mid);
      ASSERT_GT(n, 0);
      std::string exact(text.data(), static_cast<std::size_t>(n));
      const double even = (bits & 1) ? hi : lo;
      ASSERT_EQ(read(exact), even) << exact.substr(0, 40);
      const auto e_at = exact.find('e');
      ASSERT_EQ(read(exact.substr(0, e_at) + "1" + exact.substr(e_at)), hi) << exact.substr(0, 40);
    }
  }
}

}  // namespace
