// SPDX-License-Identifier: MIT
// The core's JSON reader and writer (core/src/json_value.hpp). They replaced nlohmann-json in the core, so
// nlohmann is the reference here: random documents are written by both and must be the same bytes, random
// texts (valid, truncated, with bytes changed) must be accepted or refused by both alike. The hand-written
// cases pin what RFC 8259 and Unicode (the U+FFFD replacement of maximal ill-formed subparts) prescribe.
#include "../../core/src/json_value.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace {

using llm_memory::detail::json;
using llm_memory::detail::parse_json;
using reference = nlohmann::ordered_json;

std::string reference_dump(const reference& j, int indent) {
  return j.dump(indent, ' ', false, reference::error_handler_t::replace);
}

// Text of random bytes, mostly printable, with control characters, valid multi-byte UTF-8 and ill-formed bytes.
std::string random_text(std::mt19937_64& rng) {
  static const char* const pieces[] = {"a",
                                       "Z",
                                       " ",
                                       "\"",
                                       "\\",
                                       "/",
                                       "\x01",
                                       "\n",
                                       "\t",
                                       "\x1f",
                                       "\x7f",
                                       "\xC3\xA9",
                                       "\xE2\x82\xAC",
                                       "\xF0\x9F\x98\x80",
                                       "\xC3",
                                       "\xE0\x80",
                                       "\xED\xA0\x80",
                                       "\xF4\x90\x80\x80",
                                       "\xFF",
                                       "\x80",
                                       "\xE2\x82",
                                       "\xF0\x9F\x98",
                                       "key"};
  std::string out;
  const auto n = rng() % 6;
  for (std::size_t k = 0; k < n; ++k) out += pieces[rng() % std::size(pieces)];
  return out;
}

double random_double(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return static_cast<double>(static_cast<std::int64_t>(rng() % 2000001) - 1000000);  // whole: "12.0"
    case 1: return static_cast<double>(rng() % 1000000) / 1024.0;
    case 2: {  // any finite bit pattern, subnormals included
      double x = NAN;
      do {
        const std::uint64_t bits = rng();
        std::memcpy(&x, &bits, sizeof x);
      } while (!std::isfinite(x));
      return x;
    }
    default: return rng() % 2 ? INFINITY : NAN;  // written as null by both
  }
}

// One random value built twice, as the core's json and as nlohmann's.
void random_value(std::mt19937_64& rng, int depth, json& mine, reference& theirs) {
  const auto kind = rng() % (depth > 4 ? 7 : 9);
  switch (kind) {
    case 0:
      mine = nullptr;
      theirs = nullptr;
      return;
    case 1: {
      const bool b = rng() % 2;
      mine = b;
      theirs = b;
      return;
    }
    case 2: {
      const auto v = static_cast<std::int64_t>(rng());
      mine = v;
      theirs = v;
      return;
    }
    case 3: {
      const std::uint64_t v = rng() % 3 ? rng() % 100000 : rng();
      mine = v;
      theirs = v;
      return;
    }
    case 4:
    case 5: {
      const double v = random_double(rng);
      mine = v;
      theirs = v;
      return;
    }
    case 6: {
      const std::string s = random_text(rng);
      mine = s;
      theirs = s;
      return;
    }
    case 7: {
      mine = json::array();
      theirs = reference::array();
      for (auto n = rng() % 4; n > 0; --n) {
        json m;
        reference t;
        random_value(rng, depth + 1, m, t);
        mine.push_back(m);
        theirs.push_back(t);
      }
      return;
    }
    default: {
      mine = json::object();
      theirs = reference::object();
      for (auto n = rng() % 4; n > 0; --n) {
        const std::string key = random_text(rng);
        json m;
        reference t;
        random_value(rng, depth + 1, m, t);
        mine[key] = m;
        theirs[key] = t;
      }
      return;
    }
  }
}

TEST(json_value, writes_what_nlohmann_writes) {
  std::mt19937_64 rng(20261205);
  for (int n = 0; n < 3000; ++n) {
    json mine;
    reference theirs;
    random_value(rng, 0, mine, theirs);
    for (const int indent : {-1, 0, 2, 4}) ASSERT_EQ(mine.dump(indent), reference_dump(theirs, indent)) << n;
  }
}

// Texts that are JSON, and the same texts cut short or with one byte changed.
TEST(json_value, reads_what_nlohmann_reads) {
  std::mt19937_64 rng(7);
  static const char replacements[] = {'{', '}', '[', ']', ',',  ':', '"', '\\', '-', '0',    '1',    '.',
                                      'e', 'E', '+', ' ', '\n', 'u', 'n', 't',  'f', '\x01', '\x80', '\xEF'};
  int accepted = 0;
  int refused = 0;
  for (int n = 0; n < 3000; ++n) {
    json mine;
    reference theirs;
    random_value(rng, 0, mine, theirs);
    std::string text = reference_dump(theirs, static_cast<int>(rng() % 3) - 1);
    if (n % 3 == 1 && !text.empty()) text.resize(rng() % text.size());
    if (n % 3 == 2 && !text.empty()) text[rng() % text.size()] = replacements[rng() % std::size(replacements)];
    const reference expected = reference::parse(text, nullptr, false);
    const json got = parse_json(text);
    ASSERT_EQ(got.is_discarded(), expected.is_discarded()) << text;
    if (expected.is_discarded()) {
      ++refused;
      continue;
    }
    ++accepted;
    ASSERT_EQ(got.dump(), reference_dump(expected, -1)) << text;
  }
  // Both branches ran many times, so neither comparison is vacuous.
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(refused, 500);
}

// Objects whose keys repeat: a written object never has such keys, so the texts are put together here.
TEST(json_value, repeated_keys_read_as_nlohmann_reads_them) {
  std::mt19937_64 rng(11);
  for (int n = 0; n < 500; ++n) {
    std::string text = "{";
    for (auto members = 1 + rng() % 6; members > 0; --members) {
      const char key[] = {'"', static_cast<char>('a' + rng() % 3), '"', ':', static_cast<char>('0' + rng() % 10), 0};
      text += key;
      if (members > 1) text += ",";
    }
    text += "}";
    ASSERT_EQ(parse_json(text).dump(), reference_dump(reference::parse(text, nullptr, false), -1)) << text;
  }
}

TEST(json_value, numbers_keep_their_kind) {
  // RFC 8259 section 6: no leading zeros, a digit on both sides of the point, an exponent with digits.
  for (const char* bad : {"01", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "1e400", "-1e400"})
    EXPECT_TRUE(parse_json(bad).is_discarded()) << bad;
  EXPECT_TRUE(parse_json("18446744073709551615").is_number_unsigned());
  EXPECT_EQ(parse_json("18446744073709551615").get<std::uint64_t>(), UINT64_MAX);
  // One past 2^64 - 1 no longer fits 64 bits: a double, 2^64 exactly.
  EXPECT_TRUE(parse_json("18446744073709551616").is_number_float());
  EXPECT_EQ(parse_json("18446744073709551616").get<double>(), 18446744073709551616.0);
  EXPECT_EQ(parse_json("-9223372036854775808").get<std::int64_t>(), INT64_MIN);
  EXPECT_TRUE(parse_json("-9223372036854775809").is_number_float());
  EXPECT_EQ(parse_json("-0").dump(), "0");
  // A whole double keeps its point; the shortest text that reads back the same double.
  EXPECT_EQ(parse_json("1E2").dump(), "100.0");
  EXPECT_EQ(parse_json("0.1").dump(), "0.1");
  EXPECT_EQ(json(1e21).dump(), "1e+21");
  EXPECT_EQ(json(NAN).dump(), "null");
  EXPECT_EQ(json(1), json(1.0));
  EXPECT_EQ(json(std::uint64_t{3}), json(3));
  EXPECT_NE(json(-1), json(UINT64_MAX));
  EXPECT_NE(json("1"), json(1));
}

TEST(json_value, strings_escape_and_replace) {
  // Control characters are escaped (\b \t \n \f \r by name, the rest as \u00xx); DEL and UTF-8 pass through.
  EXPECT_EQ(json(std::string("a\"\\\b\t\n\f\r\x01\x1f\x7f\xC3\xA9", 13)).dump(),
            "\"a\\\"\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\x7f\xC3\xA9\"");
  // Each maximal ill-formed subpart becomes one U+FFFD (EF BF BD): a cut-off two-byte sequence; E0 followed by
  // a byte below A0 (two parts: E0, then the lone 80); a UTF-16 surrogate encoded (ED A0 80: three parts).
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(json("a\xC3").dump(), "\"a" + fffd + "\"");
  EXPECT_EQ(json("\xE0\x80z").dump(), "\"" + fffd + fffd + "z\"");
  EXPECT_EQ(json("\xED\xA0\x80").dump(), "\"" + fffd + fffd + fffd + "\"");
  EXPECT_EQ(json("\xF0\x9F\x98").dump(), "\"" + fffd + "\"");
  // Reading: escapes decode to UTF-8 (U+1F600 from its surrogate pair is F0 9F 98 80); lone surrogates,
  // raw control characters and ill-formed UTF-8 are refused.
  EXPECT_EQ(parse_json(R"("\u00e9\ud83d\ude00\/")").get<std::string>(), "\xC3\xA9\xF0\x9F\x98\x80/");
  for (const char* bad : {R"("\ud83d")", R"("\ude00")", R"("\ud83dx")", R"("\u12")", R"("\x")", "\"\x01\"", "\"\xC3\"",
                          "\"\xED\xA0\x80\"", "\"abc"})
    EXPECT_TRUE(parse_json(bad).is_discarded()) << bad;
}

TEST(json_value, objects_keep_order_and_the_last_duplicate) {
  // nlohmann's DOM builder assigns a repeated key in place: the first one's position, the last one's value.
  EXPECT_EQ(parse_json(R"({"b": 1, "a": 2, "b": 3, "c": 4, "b": 5})").dump(), R"({"b":5,"a":2,"c":4})");
  json built = {{"z", 1}, {"a", json::array({1, "x"})}};
  built["m"] = json::object();
  EXPECT_EQ(built.dump(2), "{\n  \"z\": 1,\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"m\": {}\n}");
  EXPECT_TRUE(built["appended"].is_null());  // not const: a missing key is appended, as null
  const json& read_only = built;
  EXPECT_TRUE(read_only["nothing"].is_null());  // const: nothing appended
  EXPECT_EQ(read_only.size(), 4u);
}

TEST(json_value, errors_say_where) {
  std::string why;
  // Byte 9 is the 't' of "tru": line 2 starts at byte 2, so it is column 8.
  EXPECT_TRUE(parse_json("{\n  \"a\": tru\n}", &why).is_discarded());
  EXPECT_EQ(why, "syntax error at line 2, column 8 (byte 9): expected a value");
  EXPECT_TRUE(parse_json("[1, 2] x", &why).is_discarded());
  EXPECT_EQ(why, "syntax error at line 1, column 8 (byte 7): unexpected text after the value");
  EXPECT_TRUE(parse_json("", &why).is_discarded());
  EXPECT_EQ(why, "syntax error at line 1, column 1 (byte 0): unexpected end of input; expected a value");
  // A NUL byte is refused wherever it is. (nlohmann's lexer takes it for the end of the input and reads
  // "1\n\0x" as 1; found by tests/fuzz/json_fuzz.cpp.)
  EXPECT_TRUE(parse_json(std::string("1\n\0x", 4), &why).is_discarded());
  EXPECT_EQ(why, "syntax error at line 2, column 1 (byte 2): unexpected text after the value");
  EXPECT_TRUE(parse_json(std::string("[1]\0", 4)).is_discarded());
  // A UTF-8 byte-order mark is skipped, as nlohmann's lexer skips it.
  EXPECT_EQ(parse_json("\xEF\xBB\xBF{\"a\": true}").dump(), R"({"a":true})");
  // Nesting is bounded instead of recursed into without end: 512 levels read, 513 refused.
  EXPECT_FALSE(parse_json(std::string(512, '[') + std::string(512, ']')).is_discarded());
  EXPECT_TRUE(parse_json(std::string(513, '[') + std::string(513, ']'), &why).is_discarded());
  EXPECT_EQ(why, "syntax error at line 1, column 513 (byte 512): arrays and objects nested too deep");
}

}  // namespace

// Width is bounded as the text is read (issue 37): each limit lets its count through and refuses one more, at the
// byte where the extra value or member starts.
TEST(json_value, width_is_bounded) {
  const llm_memory::detail::json_limits narrow{3, 2, 6};
  std::string why;
  EXPECT_EQ(parse_json("[1,2,3]", &why, narrow).size(), 3u);
  // "[1,2,3," is 7 bytes: the fourth value starts at byte 7, column 8.
  EXPECT_TRUE(parse_json("[1,2,3,4]", &why, narrow).is_discarded());
  EXPECT_EQ(why, "too wide at line 1, column 8 (byte 7): an array of more than 3 values");
  EXPECT_EQ(parse_json(R"({"a":1,"b":2})", &why, narrow).size(), 2u);
  // {"a":1,"b":2, is 13 bytes: the third key starts at byte 13.
  EXPECT_TRUE(parse_json(R"({"a":1,"b":2,"c":3})", &why, narrow).is_discarded());
  EXPECT_EQ(why, "too wide at line 1, column 14 (byte 13): an object of more than 2 members");
  // Values in all: [[1,2],[3]] is 1 + (1 + 2) + (1 + 1) = 6; [[1,2],[3,4]] is 7, the 7th (4) at byte 10.
  EXPECT_FALSE(parse_json("[[1,2],[3]]", &why, narrow).is_discarded());
  EXPECT_TRUE(parse_json("[[1,2],[3,4]]", &why, narrow).is_discarded());
  EXPECT_EQ(why, "too wide at line 1, column 11 (byte 10): the text holds more than 6 values");
  // The defaults: 2^20 values in an array read, one more refused.
  std::string wide = "[0";
  for (std::size_t k = 1; k < (std::size_t{1} << 20); ++k) wide += ",0";
  EXPECT_EQ(parse_json(wide + "]").size(), std::size_t{1} << 20);
  EXPECT_TRUE(parse_json(wide + ",0]", &why).is_discarded());
  EXPECT_NE(why.find("an array of more than 1048576 values"), std::string::npos) << why;
}

// One storage per kind: a value is a variant of the largest alternative (a std::string: 32 bytes in libstdc++, 12
// in wasm32's libc++) and its index, padded to the 8-byte alignment of a double: 40 bytes natively, 24 in wasm;
// the old value held all nine kinds at once (~110 bytes).
TEST(json_value, a_value_holds_one_kind) {
  constexpr std::size_t storage = (sizeof(std::string) + alignof(double) - 1) / alignof(double) * alignof(double);
  EXPECT_LE(sizeof(json), storage + 8);
}

// Members one at a time, in the text's order, duplicates included; `take` stops the read without an error.
TEST(json_value, streams_an_object_member_by_member) {
  using llm_memory::detail::stream_json_members;
  std::vector<std::string> seen;
  const auto take_all = [&](std::string&& key, json&& value) {
    seen.push_back(key + "=" + value.dump());
    return true;
  };
  EXPECT_FALSE(stream_json_members(R"({"a": 1, "b": [2], "a": 3})", {}, take_all).has_value());
  EXPECT_EQ(seen, (std::vector<std::string>{"a=1", "b=[2]", "a=3"}));
  seen.clear();
  const auto take_one = [&](std::string&& key, json&&) {
    seen.push_back(key);
    return false;
  };
  EXPECT_FALSE(stream_json_members(R"({"a": 1, "b": [2]})", {}, take_one).has_value());
  EXPECT_EQ(seen, (std::vector<std::string>{"a"}));
  // values counts per member: [1] is 2 values, [1,2] is 3; its third value, 2, is at byte 8 of {"a":[1,2]}.
  const llm_memory::detail::json_limits two{8, 8, 2};
  EXPECT_FALSE(stream_json_members(R"({"a":[1],"b":[2]})", two, take_all).has_value());
  const auto wide = stream_json_members(R"({"a":[1,2]})", two, take_all);
  ASSERT_TRUE(wide.has_value());
  EXPECT_TRUE(wide->over_limit);
  EXPECT_EQ(wide->member, "a");
  EXPECT_EQ(wide->why, "too wide at line 1, column 9 (byte 8): the text holds more than 2 values");
  // A syntax error after a member was taken names no member.
  const auto bad = stream_json_members(R"({"a": 1,})", {}, take_all);
  ASSERT_TRUE(bad.has_value());
  EXPECT_FALSE(bad->over_limit);
  EXPECT_EQ(bad->member, "");
  EXPECT_EQ(bad->why, "syntax error at line 1, column 9 (byte 8): expected a string key");
  EXPECT_TRUE(stream_json_members("[1]", {}, take_all).has_value());
}
