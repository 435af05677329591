// SPDX-License-Identifier: MIT
#include "text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "decimal.hpp"
#include "formula_texts.hpp"
#include "llm_memory/result.hpp"

namespace llm_memory::detail {

namespace {
thread_local bool texts_on = true;  // formula_texts_off turns it off
}  // namespace

bool formula_texts_on() { return texts_on; }

formula_texts_off::formula_texts_off() : was_on_(texts_on) { texts_on = false; }

formula_texts_off::~formula_texts_off() { texts_on = was_on_; }

std::string format_number(double v) {
  if (!texts_on) return {};
  if (!std::isfinite(v)) return v != v ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[40];
  if (v == std::floor(v) && std::fabs(v) < 1e16) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int precision : {15, 16, 17}) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    double back = 0;
    if (read_double(buf, back) && back == v) break;
  }
  return buf;
}

std::string group_digits(double v) {
  if (!texts_on) return {};
  char buf[320];  // DBL_MAX has 309 digits before the point, a sign and the terminator
  std::snprintf(buf, sizeof buf, "%.0f", v);
  const std::string_view digits(buf);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0 && digits[i - 1] != '-') out += ',';
    out += digits[i];
  }
  return out;
}

namespace {

void append_hex(std::string& out, unsigned char u) {
  char esc[8];
  std::snprintf(esc, sizeof esc, "\\x%02x", u);
  out += esc;
}

// Length of the valid UTF-8 sequence at the start of s (RFC 3629: no overlongs, no surrogates, at most
// U+10FFFF), or 0 when it is not one.
std::size_t utf8_length(std::string_view s) {
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b = at(0);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf)
    n = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (s.size() < n || at(1) < lo || at(1) > hi) return 0;
  for (std::size_t i = 2; i < n; ++i)
    if (at(i) < 0x80 || at(i) > 0xbf) return 0;
  return n;
}

}  // namespace

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto u = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_length(text.substr(i));
    const bool c1 = u == 0xc2 && n == 2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
    const bool control = n == 0 || u < 0x20 || u == 0x7f || c1;
    const std::size_t step = std::max<std::size_t>(n, 1);
    for (std::size_t k = 0; k < step; ++k) {
      if (control)
        append_hex(out, static_cast<unsigned char>(text[i + k]));
      else
        out += text[i + k];
    }
    i += step;
  }
  return out;
}

std::string quoted(std::string_view text) {
  constexpr std::size_t max_shown = 40;
  std::string inner;
  for (char c : text.substr(0, max_shown)) {
    if (c == '"' || c == '\\') inner += '\\';
    inner += c;
  }
  std::string out = "\"";  // built in steps: g++ 12 warns falsely (-Wrestrict) on "\"" + std::string&&
  out += escape_controls(inner);
  out += text.size() > max_shown ? "...\"" : "\"";
  return out;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

namespace {
char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower_ascii(c);
  return out;
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower_ascii(a[i]) != lower_ascii(b[i])) return false;
  return true;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto pos = s.find(sep, start);
    parts.push_back(trim(s.substr(start, pos == std::string_view::npos ? pos : pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

std::optional<std::vector<std::int64_t>> parse_index_list(std::string_view s, std::int64_t max) {
  std::vector<std::int64_t> out;
  if (trim(s).empty()) return out;
  for (const std::string_view part : split(s, ',')) {
    if (part.empty() || part.size() > 18 || part.find_first_not_of("0123456789") != std::string_view::npos)
      return std::nullopt;
    std::int64_t v = 0;
    for (const char c : part) v = v * 10 + (c - '0');
    if (v > max) return std::nullopt;
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace llm_memory::detail

namespace llm_memory {

std::string to_string(const error& e) { return detail::escape_controls(e.setting + ": " + e.message); }

}  // namespace llm_memory
