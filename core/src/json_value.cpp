// SPDX-License-Identifier: MIT
// The core's JSON value: reading (strict RFC 8259, as nlohmann's lexer and parser accept it) and writing (as
// nlohmann's serialiser writes it, byte for byte). See json_value.hpp.
#include "json_value.hpp"

#include <nlohmann/detail/conversions/to_chars.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include "decimal.hpp"

namespace llm_memory::detail {
namespace {

// Nesting past this is refused rather than recursed into (the core's readers bound the depth of their
// documents far below it before parsing; json_limits.hpp).
constexpr int max_depth = 512;

// The length of the well-formed UTF-8 sequence starting at text[i] (1 to 4), or 0 when it is ill-formed; then
// `bad` is the length of its maximal well-formed prefix (at least 1), which is replaced or refused as one unit.
std::size_t utf8_length(std::string_view text, std::size_t i, std::size_t& bad) {
  const unsigned lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return 1;
  std::size_t need = 0;
  unsigned low = 0x80;
  unsigned high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;  // no UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    bad = 1;
    return 0;
  }
  for (std::size_t k = 1; k <= need; ++k) {
    const unsigned next = i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
    if (next < low || next > high) {
      bad = k;
      return 0;
    }
    low = 0x80;
    high = 0xBF;
  }
  return need + 1;
}

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// Duplicate keys, as nlohmann's DOM builder leaves them: the first one's place, the last one's value. Found in
// key order (sorted_members), so a large object (a checkpoint index's weight map) is not compared pairwise.
void merge_duplicate_keys(json& object) {
  auto& members = object.members();
  if (members.size() < 2) return;
  const auto sorted = sorted_members(object);
  std::vector<bool> dropped(members.size(), false);
  bool any = false;
  for (std::size_t run = 0; run < sorted.size();) {
    std::size_t last = run;
    while (last + 1 < sorted.size() && sorted[last + 1]->first == sorted[run]->first) ++last;
    if (last != run) {
      auto& first = members[static_cast<std::size_t>(sorted[run] - members.data())];
      first.second = sorted[last]->second;
      for (std::size_t k = run + 1; k <= last; ++k)
        dropped[static_cast<std::size_t>(sorted[k] - members.data())] = true;
      any = true;
    }
    run = last + 1;
  }
  if (!any) return;
  std::size_t kept = 0;
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (dropped[k]) continue;
    if (kept != k) members[kept] = std::move(members[k]);
    ++kept;
  }
  members.resize(kept);
}

}  // namespace

// The recursive-descent reader; the first error stops it and is kept with its byte offset.
class json_reader {
 public:
  json_reader(std::string_view text, const json_limits& limits) : text_(text), limits_(limits) {}

  json document() {
    skip_bom();
    json out = value(0);
    return finish() ? out : json(json::value_t::discarded);
  }

  // The members of the object `text_` holds, each handed to `take` as it is read (stream_json_members).
  bool members(const std::function<bool(std::string&&, json&&)>& take) {
    skip_bom();
    skip_space();
    if (pos_ == text_.size() || text_[pos_] != '{') return refuse("expected an object");
    ++pos_;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return finish();
    }
    for (;;) {
      std::string name;
      if (!key(name)) return false;
      member_ = std::move(name);
      values_ = 0;  // each member's value within the limits on its own
      json item = value(1);
      if (!error_.empty()) return false;
      if (!take(std::move(member_), std::move(item))) return true;
      member_.clear();  // moved from: its state is unspecified
      const after next = separator('}', "expected ',' or '}'");
      if (next != after::more) return next == after::closed && finish();
    }
  }

  [[nodiscard]] bool over_limit() const { return over_limit_; }
  [[nodiscard]] const std::string& member() const { return member_; }

  // "syntax error at line L, column C (byte B): what" for the first error (lines and columns count from 1);
  // "too wide at ..." when a limit stopped the read.
  [[nodiscard]] std::string why() const {
    const std::string_view before = text_.substr(0, error_at_);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t line_start = before.rfind('\n');
    const std::size_t column = error_at_ - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    return std::string(over_limit_ ? "too wide" : "syntax error") + " at line " + std::to_string(line) + ", column " +
           std::to_string(column) + " (byte " + std::to_string(error_at_) + "): " + error_;
  }

 private:
  json fail(const char* what) {
    if (error_.empty()) {
      error_ = what;
      error_at_ = pos_;
    }
    return json(json::value_t::discarded);
  }
  bool refuse(const char* what) {
    fail(what);
    return false;
  }
  // "`what` more than `limit` `unit`", e.g. "an array of more than 64 values".
  json fail_limit(const char* what, std::size_t limit, const char* unit) {
    if (error_.empty()) {
      error_ = std::string(what) + " more than " + std::to_string(limit) + unit;
      error_at_ = pos_;
      over_limit_ = true;
    }
    return json(json::value_t::discarded);
  }

  void skip_bom() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }
  // After the value: only white space may follow.
  bool finish() {
    skip_space();
    if (error_.empty() && pos_ != text_.size()) fail("unexpected text after the value");
    return error_.empty();
  }
  // A key and its ':', at pos_ (white space before it skipped).
  bool key(std::string& out) {
    skip_space();
    if (pos_ == text_.size() || text_[pos_] != '"') return refuse("expected a string key");
    if (!string(out)) return false;
    skip_space();
    if (pos_ == text_.size() || text_[pos_] != ':') return refuse("expected ':' after the key");
    ++pos_;
    return true;
  }

  // What follows a member or an element: ',' (another comes), the closing bracket, or an error (`what`).
  enum class after { more, closed, bad };
  after separator(char close, const char* what) {
    skip_space();
    if (pos_ < text_.size() && (text_[pos_] == ',' || text_[pos_] == close))
      return text_[pos_++] == ',' ? after::more : after::closed;
    fail(what);
    return after::bad;
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  json value(int depth) {
    skip_space();
    if (pos_ == text_.size()) return fail("unexpected end of input; expected a value");
    if (++values_ > limits_.values) return fail_limit("the text holds", limits_.values, " values");
    const char c = text_[pos_];
    if (c == '{' || c == '[') {
      if (depth >= max_depth) return fail("arrays and objects nested too deep");
      return c == '{' ? object(depth + 1) : array(depth + 1);
    }
    if (c == '"') {
      std::string s;
      return string(s) ? json(std::move(s)) : json(json::value_t::discarded);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    if (literal("true")) return true;
    if (literal("false")) return false;
    if (literal("null")) return nullptr;
    return fail("expected a value");
  }

  json object(int depth) {
    ++pos_;
    json out = json::object();
    auto& members = out.members();
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return out;
    }
    for (;;) {
      if (members.size() == limits_.object_members)
        return fail_limit("an object of", limits_.object_members, " members");
      std::string name;
      if (!key(name)) return json(json::value_t::discarded);
      json item = value(depth);
      if (!error_.empty()) return json(json::value_t::discarded);
      members.emplace_back(std::move(name), std::move(item));
      const after next = separator('}', "expected ',' or '}'");
      if (next == after::bad) return json(json::value_t::discarded);
      if (next == after::closed) {
        merge_duplicate_keys(out);
        return out;
      }
    }
  }

  json array(int depth) {
    ++pos_;
    json out = json::array();
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return out;
    }
    for (;;) {
      if (out.size() == limits_.array_values) return fail_limit("an array of", limits_.array_values, " values");
      json item = value(depth);
      if (!error_.empty()) return json(json::value_t::discarded);
      out.push_back(std::move(item));
      const after next = separator(']', "expected ',' or ']'");
      if (next == after::bad) return json(json::value_t::discarded);
      if (next == after::closed) return out;
    }
  }

  // Four hex digits after "\u" at pos_, or -1.
  long hex4() {
    if (text_.size() - pos_ < 4) return -1;
    long code = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char h = text_[pos_ + k];
      const int digit = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
      if (digit < 0) return -1;
      code = code * 16 + digit;
    }
    pos_ += 4;
    return code;
  }

  bool escape(std::string& out) {
    const char e = text_[pos_++];
    constexpr std::string_view from = "\"\\/bfnrt";
    constexpr std::string_view to = "\"\\/\b\f\n\r\t";
    if (const auto k = from.find(e); k != std::string_view::npos) {
      out += to[k];
      return true;
    }
    if (e != 'u') return refuse("invalid escape in a string");
    long code = hex4();
    if (code < 0) return refuse("\\u must be followed by four hex digits");
    if (code >= 0xDC00 && code <= 0xDFFF) return refuse("a low surrogate \\u escape without a high one");
    if (code >= 0xD800 && code <= 0xDBFF) {
      const long low = literal("\\u") ? hex4() : -1;
      if (low < 0xDC00 || low > 0xDFFF) return refuse("a high surrogate \\u escape without a low one");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, static_cast<std::uint32_t>(code));
    return true;
  }

  bool string(std::string& out) {
    ++pos_;
    for (;;) {
      if (pos_ == text_.size()) return refuse("unexpected end of input in a string");
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return refuse("a control character in a string (write it as an escape)");
      if (c == '\\') {
        ++pos_;
        if (pos_ == text_.size()) return refuse("unexpected end of input in a string");
        if (!escape(out)) return false;
        continue;
      }
      std::size_t bad = 0;
      const std::size_t n = utf8_length(text_, pos_, bad);
      if (n == 0) return refuse("ill-formed UTF-8 in a string");
      out.append(text_.substr(pos_, n));
      pos_ += n;
    }
  }

  std::size_t digits() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    return pos_ - start;
  }

  // JSON's number grammar; whole numbers in range as 64-bit integers (unsigned unless negative), the rest as
  // correctly rounded doubles; a double beyond the range is an error, as nlohmann's parser has it.
  json number() {
    const std::size_t start = pos_;
    const bool negative = text_[pos_] == '-';
    if (negative) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return fail("expected a digit");
    }
    bool whole = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      whole = false;
      if (digits() == 0) return fail("expected a digit after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      whole = false;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) return fail("expected a digit in the exponent");
    }
    const std::string_view token = text_.substr(start, pos_ - start);
    if (whole) {
      std::uint64_t magnitude = 0;
      bool fits = true;
      for (const char d : token.substr(negative ? 1 : 0)) {
        const auto digit = static_cast<std::uint64_t>(d - '0');
        if (magnitude > (UINT64_MAX - digit) / 10) fits = false;
        magnitude = magnitude * 10 + digit;
      }
      if (fits && !negative) return magnitude;
      if (fits && magnitude <= std::uint64_t{1} << 63) return static_cast<std::int64_t>(0 - magnitude);
    }
    double value = 0;
    (void)read_double(token, value);
    if (!std::isfinite(value)) {
      pos_ = start;
      return fail("number out of range");
    }
    return value;
  }

  std::string_view text_;
  json_limits limits_;
  std::size_t pos_ = 0;
  std::size_t values_ = 0;  // values read so far (of the document, or of the member being streamed)
  std::string member_;      // the key being streamed
  std::string error_;
  std::size_t error_at_ = 0;
  bool over_limit_ = false;
};

class json_writer {
 public:
  json_writer(std::string& out, int indent) : out_(out), indent_(indent) {}

  void value(const json& v, int level) {
    switch (v.type()) {
      case json::value_t::null: out_ += "null"; return;
      case json::value_t::boolean: out_ += std::get<bool>(v.value_) ? "true" : "false"; return;
      case json::value_t::number_integer: out_ += std::to_string(std::get<std::int64_t>(v.value_)); return;
      case json::value_t::number_unsigned: out_ += std::to_string(std::get<std::uint64_t>(v.value_)); return;
      case json::value_t::number_float: number(std::get<double>(v.value_)); return;
      case json::value_t::string: string(std::get<std::string>(v.value_)); return;
      case json::value_t::discarded: out_ += "<discarded>"; return;
      case json::value_t::object:
      case json::value_t::array: container(v, level); return;
    }
  }

 private:
  void number(double x) {
    if (!std::isfinite(x)) {
      out_ += "null";
      return;
    }
    std::array<char, 64> buffer{};
    const char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), x);
    out_.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
  }

  void string(std::string_view s) {
    out_ += '"';
    for (std::size_t i = 0; i < s.size();) {
      const auto c = static_cast<unsigned char>(s[i]);
      std::size_t bad = 0;
      const std::size_t n = c < 0x80 ? 1 : utf8_length(s, i, bad);
      if (n == 0) {
        out_ += "\xEF\xBF\xBD";
        i += bad;
        continue;
      }
      if (n > 1) {
        out_.append(s.substr(i, n));
      } else if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
      } else if (c >= 0x20) {
        out_ += static_cast<char>(c);
      } else {
        constexpr std::string_view named = "\b\t\n\f\r";
        constexpr std::string_view letters = "btnfr";
        out_ += '\\';
        if (const auto k = named.find(static_cast<char>(c)); k != std::string_view::npos) {
          out_ += letters[k];
        } else {
          constexpr std::string_view hex = "0123456789abcdef";
          out_ += "u00";
          out_ += hex[c >> 4];
          out_ += hex[c & 0xF];
        }
      }
      i += n;
    }
    out_ += '"';
  }

  void newline(int level) {
    if (indent_ < 0) return;
    out_ += '\n';
    out_.append(static_cast<std::size_t>(indent_) * static_cast<std::size_t>(level), ' ');
  }

  void container(const json& v, int level) {
    const bool object = v.is_object();
    const std::size_t n = v.size();
    out_ += object ? '{' : '[';
    if (n == 0) {
      out_ += object ? '}' : ']';
      return;
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (k > 0) out_ += ',';
      newline(level + 1);
      if (object) {
        string(v.members()[k].first);
        out_ += indent_ < 0 ? ":" : ": ";
      }
      value(object ? v.members()[k].second : v[k], level + 1);
    }
    newline(level);
    out_ += object ? '}' : ']';
  }

  std::string& out_;
  int indent_;
};

json::json(const json& other) = default;
json::json(json&& other) noexcept = default;
json& json::operator=(const json& other) = default;
json& json::operator=(json&& other) noexcept = default;
json::~json() = default;

json::json(value_t type) {
  switch (type) {
    case value_t::null: return;
    case value_t::object: value_.emplace<object_t>(); return;
    case value_t::array: value_.emplace<array_t>(); return;
    case value_t::string: value_.emplace<std::string>(); return;
    case value_t::boolean: value_.emplace<bool>(false); return;
    case value_t::number_integer: value_.emplace<std::int64_t>(0); return;
    case value_t::number_unsigned: value_.emplace<std::uint64_t>(0); return;
    case value_t::number_float: value_.emplace<double>(0); return;
    case value_t::discarded: value_.emplace<discarded_t>(); return;
  }
}

json::json(std::initializer_list<json> items) {
  const bool pairs = std::all_of(items.begin(), items.end(), [](const json& item) {
    return item.is_array() && item.size() == 2 && item[0].is_string();
  });
  if (pairs) {
    auto& members = value_.emplace<object_t>();
    members.reserve(items.size());
    for (const auto& item : items) (*this)[std::get<std::string>(item[0].value_)] = item[1];
  } else {
    value_.emplace<array_t>(items.begin(), items.end());
  }
}

json json::array(std::initializer_list<json> items) {
  json out;
  out.value_.emplace<array_t>(items.begin(), items.end());
  return out;
}

const json::object_t& json::members() const {
  static const object_t none;
  const auto* object = std::get_if<object_t>(&value_);
  return object != nullptr ? *object : none;
}

json::object_t& json::members() {
  if (is_null()) value_.emplace<object_t>();
  return std::get<object_t>(value_);
}

json& json::operator[](std::string_view key) {
  auto& all = members();
  for (auto& member : all)
    if (member.first == key) return member.second;
  return all.emplace_back(std::string(key), json()).second;
}

const json& json::operator[](std::string_view key) const {
  static const json missing;
  const auto it = find(key);
  return it == end() ? missing : *it;
}

json::const_iterator json::find(std::string_view key) const {
  const auto& all = members();
  for (std::size_t k = 0; k < all.size(); ++k)
    if (all[k].first == key) return {this, k};
  return end();
}

std::size_t json::size() const {
  if (const auto* object = std::get_if<object_t>(&value_)) return object->size();
  if (const auto* array = std::get_if<array_t>(&value_)) return array->size();
  return 0;
}

void json::push_back(json value) {
  if (is_null()) value_.emplace<array_t>();
  std::get<array_t>(value_).push_back(std::move(value));
}

std::string json::dump(int indent) const {
  std::string out;
  json_writer(out, indent).value(*this, 0);
  return out;
}

bool operator==(const json& a, const json& b) {
  using t = json::value_t;
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    if (a.type() == b.type()) return a.get<std::uint64_t>() == b.get<std::uint64_t>();
    // One signed, one unsigned: equal when the signed one is not negative and the bits agree.
    const json& s = a.type() == t::number_integer ? a : b;
    return s.get<std::int64_t>() >= 0 && a.get<std::uint64_t>() == b.get<std::uint64_t>();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case t::boolean: return a.get<bool>() == b.get<bool>();
    case t::string: return std::get<std::string>(a.value_) == std::get<std::string>(b.value_);
    case t::array: return std::get<json::array_t>(a.value_) == std::get<json::array_t>(b.value_);
    case t::object: return a.members() == b.members();
    case t::discarded: return false;
    default: return true;  // null
  }
}

json parse_json(std::string_view text, std::string* why, const json_limits& limits) {
  json_reader reader(text, limits);
  json out = reader.document();
  if (why != nullptr && out.is_discarded()) *why = reader.why();
  return out;
}

std::optional<json_stream_error> stream_json_members(std::string_view text, const json_limits& limits,
                                                     const std::function<bool(std::string&&, json&&)>& take) {
  json_reader reader(text, limits);
  if (reader.members(take)) return std::nullopt;
  return json_stream_error{reader.why(), reader.member(), reader.over_limit()};
}

std::vector<const json::object_t::value_type*> sorted_members(const json& object) {
  std::vector<const json::object_t::value_type*> out;
  out.reserve(object.members().size());
  for (const auto& m : object.members()) out.push_back(&m);
  // Equal keys (only a document being read has them) stay in their order.
  std::sort(out.begin(), out.end(),
            [](const auto* a, const auto* b) { return a->first < b->first || (a->first == b->first && a < b); });
  return out;
}

}  // namespace llm_memory::detail
