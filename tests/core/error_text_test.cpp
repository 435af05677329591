// SPDX-License-Identifier: MIT
// The one-line form of an error (issue 20): control characters from keys, values and file names come out as
// \xNN, so an error is one line and cannot move the cursor, clear the screen or retitle the terminal.
#include <gtest/gtest.h>

#include "llm_memory/estimate.hpp"
#include "llm_memory/result.hpp"

namespace {

using namespace llm_memory;

TEST(error_text, control_characters_are_escaped) {
  EXPECT_EQ(to_string({"batch", "got \x1b[2J"}), "batch: got \\x1b[2J");
  EXPECT_EQ(to_string({"a\nb", "x\ty\rz\x7f"}), "a\\x0ab: x\\x09y\\x0dz\\x7f");
  // C1 controls: U+009B (CSI) as UTF-8, and a lone 0x9B byte (CSI to a Latin-1 terminal), which is not UTF-8.
  EXPECT_EQ(to_string({"k",
                       "\xc2\x9b"
                       "2J \x9b"
                       "2J"}),
            "k: \\xc2\\x9b2J \\x9b2J");
  // Overlong and truncated sequences are not UTF-8 either.
  EXPECT_EQ(to_string({"k", "\xc0\xaf \xe2\x82"}), "k: \\xc0\\xaf \\xe2\\x82");
}

TEST(error_text, printable_utf8_passes_and_escaping_is_idempotent) {
  const std::string text =
      "gr\xc3\xb6\xc3\x9f"
      "e \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0";  // ö ß € 😀 no-break space
  EXPECT_EQ(to_string({"k", text}), "k: " + text);
  const std::string once = to_string({"k", "\x1b]0;title\x07"});
  EXPECT_EQ(once, "k: \\x1b]0;title\\x07");
  EXPECT_EQ(to_string({"k", once.substr(3)}), once);
}

TEST(error_text, core_errors_quote_hostile_values_escaped) {
  const auto r = estimate({{"batch", "\x1b[2J"}, {"\x1b[31mkey", "1"}});
  ASSERT_FALSE(r.ok());
  for (const auto& e : r.errors()) EXPECT_EQ(to_string(e).find('\x1b'), std::string::npos) << to_string(e);
}

}  // namespace
