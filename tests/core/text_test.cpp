// SPDX-License-Identifier: MIT
// The core's text helpers (core/src/text.hpp) that reports and the CLI share.
#include "text.hpp"

#include <gtest/gtest.h>

namespace {

using llm_memory::detail::group_digits;

// Thousands grouped by commas from the right; a sign is never followed by a comma; a fraction is rounded as
// printf's %.0f rounds it (1234.6 -> 1235).
TEST(text, group_digits) {
  EXPECT_EQ(group_digits(0), "0");
  EXPECT_EQ(group_digits(999), "999");
  EXPECT_EQ(group_digits(4096), "4,096");
  EXPECT_EQ(group_digits(1000000), "1,000,000");
  EXPECT_EQ(group_digits(85520809984), "85,520,809,984");
  EXPECT_EQ(group_digits(-1234), "-1,234");
  EXPECT_EQ(group_digits(-123456), "-123,456");
  EXPECT_EQ(group_digits(1234.6), "1,235");
}

}  // namespace
