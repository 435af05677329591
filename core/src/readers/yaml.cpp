// SPDX-License-Identifier: MIT
// The bounded YAML subset reader (yaml.hpp). Two passes: the text into logical lines (comments cut, quoted
// scalars and flow collections continued over line breaks joined, block scalars gathered), then an indentation
// parser over them whose recursion is bounded by max_depth. Why not a library: docs/readers.md ("YAML").
#include "readers/yaml.hpp"

#include <optional>
#include <utility>

#include "text.hpp"

namespace llm_memory::detail {

namespace {

constexpr auto npos = std::string_view::npos;

/// One logical line: a physical line, or several joined where a quote or bracket stayed open.
struct yaml_line {
  std::size_t number = 0;              ///< line number (1-based) of its first physical line
  std::size_t indent = 0;              ///< spaces before its text
  std::string text{};                  ///< without indentation, comment, trailing blanks, block indicator
  std::optional<std::string> block{};  ///< a `|` or `>` block scalar's text, when the line ends with one
};

error at_line(std::size_t number, std::string message) {
  return {"line " + std::to_string(number), std::move(message)};
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::size_t indent_of(std::string_view line) { return std::min(line.find_first_not_of(' '), line.size()); }

// Quote and bracket state carried across the physical lines of one logical line.
struct scan_state {
  char quote = 0;        ///< '\'' or '"' while inside a quoted scalar
  int brackets = 0;      ///< [ and { opened by a flow collection and not closed
  bool escaped = false;  ///< the previous byte was a backslash inside double quotes
};

// Whether the quote or bracket at `i` starts a scalar or collection (after `key: `, `- `, `[`, `,` or at the
// start), so that the apostrophe of `it's` or the bracket of `a[0]` is text.
bool starts_value(std::string_view s, std::size_t i, const scan_state& st) {
  if (st.brackets > 0) return true;
  if (i > 0 && s[i - 1] != ' ' && s[i - 1] != '\t' && s[i - 1] != '[' && s[i - 1] != '{' && s[i - 1] != ',')
    return false;
  std::size_t j = i;
  while (j > 0 && (s[j - 1] == ' ' || s[j - 1] == '\t')) --j;
  return j == 0 || std::string_view(":[{,-?").find(s[j - 1]) != npos;
}

// Scans `s` on from `st`; returns where a comment starts (npos: none).
std::size_t scan(std::string_view s, scan_state& st) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (st.quote == '"') {
      if (st.escaped)
        st.escaped = false;
      else if (c == '\\')
        st.escaped = true;
      else if (c == '"')
        st.quote = 0;
    } else if (st.quote == '\'') {
      if (c == '\'' && i + 1 < s.size() && s[i + 1] == '\'')
        ++i;
      else if (c == '\'')
        st.quote = 0;
    } else if ((c == '"' || c == '\'') && starts_value(s, i, st)) {
      st.quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
      return i;
    } else if ((c == '[' || c == '{') && starts_value(s, i, st)) {
      ++st.brackets;
    } else if ((c == ']' || c == '}') && st.brackets > 0) {
      --st.brackets;
    }
  }
  return npos;
}

// The first byte that is a control character other than tab, CR and LF, with its line, or nullopt.
std::optional<error> control_byte(std::string_view text) {
  std::size_t line = 1;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') ++line;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      constexpr std::string_view hex = "0123456789abcdef";
      return at_line(
          line, std::string("a control byte 0x") + hex[c >> 4] + hex[c & 15] + " (binary input?): a recipe is text");
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> physical_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    auto end = text.find('\n', start);
    if (end == npos) end = text.size();
    auto line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// The `|`, `|-`, `>+` ... ending `text` after `key:` or `-`, or "".
std::string_view block_indicator(std::string_view text) {
  for (const std::string_view tok : {"|", "|-", "|+", ">", ">-", ">+"}) {
    if (!text.ends_with(tok)) continue;
    const auto before = trim_right(text.substr(0, text.size() - tok.size()));
    if (before.size() == text.size() - tok.size() && !before.empty()) continue;  // no blank before it
    if (before.empty() || before.ends_with(':') || before == "-") return tok;
  }
  return "";
}

// The block scalar after line `i` (lines indented past `indent`); `i` moves to its last line.
std::string block_text(const std::vector<std::string_view>& raw, std::size_t& i, std::size_t indent,
                       std::string_view indicator) {
  std::vector<std::string_view> taken;
  std::size_t last = i;
  for (std::size_t j = i + 1; j < raw.size(); ++j) {
    const bool blank = trim(raw[j]).empty();
    if (!blank && indent_of(raw[j]) <= indent) break;
    taken.push_back(raw[j]);
    if (!blank) last = j;
  }
  taken.resize(last - i);
  i = last;
  std::size_t inner = npos;
  for (const auto line : taken)
    if (!trim(line).empty()) inner = std::min(inner, indent_of(line));
  std::string out;
  const char joiner = indicator[0] == '|' ? '\n' : ' ';
  for (std::size_t k = 0; k < taken.size(); ++k)
    out += (k == 0 ? "" : std::string(1, joiner)) + std::string(taken[k].size() > inner ? taken[k].substr(inner) : "");
  if (!indicator.ends_with('-') && !out.empty()) out += '\n';
  return out;
}

// A logical line starting at raw[i] (already checked: not blank, not a comment); `i` moves to its last line.
result<yaml_line> logical_line(const std::vector<std::string_view>& raw, std::size_t& i, const yaml_limits& limits) {
  const std::size_t number = i + 1;
  const auto indent = indent_of(raw[i]);
  const auto content = raw[i].substr(indent);
  scan_state st;
  std::string text(trim_right(content.substr(0, std::min(scan(content, st), content.size()))));
  while (st.quote != 0 || st.brackets > 0) {
    if (++i >= raw.size())
      return at_line(number,
                     st.quote != 0 ? "a quote opened here is never closed" : "a [ or { opened here is never closed");
    if (raw[i].size() > limits.max_line)
      return at_line(i + 1, "is longer than " + std::to_string(limits.max_line) + " bytes");
    const auto next = trim(raw[i]);
    const bool escaped_break = st.quote == '"' && st.escaped;
    if (escaped_break) text.pop_back();
    st.escaped = false;
    text += (escaped_break || text.empty() ? "" : " ");
    text += trim_right(next.substr(0, std::min(scan(next, st), next.size())));
  }
  yaml_line out{number, indent, std::move(text), std::nullopt};
  if (const auto tok = block_indicator(out.text); !tok.empty()) {
    out.block = block_text(raw, i, indent, tok);
    out.text = std::string(trim_right(std::string_view(out.text).substr(0, out.text.size() - tok.size())));
  }
  return out;
}

// A document marker or directive, refused: one document, no directives.
std::optional<error> marker(std::string_view content, std::size_t number, bool first) {
  if (content.starts_with('%')) return at_line(number, "a directive (%YAML, %TAG) is not read");
  if (content == "---" && first) return std::nullopt;
  if (content == "---" || content.starts_with("--- ") || content == "...")
    return at_line(number, "a second document (---, ...) is not read: give one document per file");
  return std::nullopt;
}

result<std::vector<yaml_line>> logical_lines(std::string_view text, const yaml_limits& limits) {
  const auto raw = physical_lines(text);
  std::vector<yaml_line> lines;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i].size() > limits.max_line)
      return at_line(i + 1, "is longer than " + std::to_string(limits.max_line) + " bytes");
    const auto indent = indent_of(raw[i]);
    const auto content = trim(raw[i].substr(indent));
    if (content.empty() || content.starts_with('#')) continue;
    if (raw[i][indent] == '\t') return at_line(i + 1, "a tab in the indentation (YAML indents with spaces only)");
    if (const auto refused = marker(content, i + 1, lines.empty())) return *refused;
    if (content == "---") continue;
    auto line = logical_line(raw, i, limits);
    if (!line.ok()) return line.errors();
    lines.push_back(std::move(line).value());
  }
  return lines;
}

// The recursive part: a block node at the current line, its collections and their inline values.
class parser {
 public:
  parser(std::vector<yaml_line> lines, const yaml_limits& limits, std::vector<std::string>& notes)
      : lines_(std::move(lines)), limits_(limits), notes_(notes) {}

  result<json> document() {
    if (lines_.empty()) return at_line(1, "the document is empty");
    json out = node(0);
    if (!failed_ && at_ < lines_.size()) fail_at(lines_[at_].number, "is indented less than the line it belongs to");
    if (failed_) return *failed_;
    return out;
  }

 private:
  std::vector<yaml_line> lines_;
  const yaml_limits& limits_;
  std::vector<std::string>& notes_;
  std::size_t at_ = 0;             // the next line to read
  std::size_t line_ = 1;           // the line being read, for errors
  std::size_t items_ = 0;          // values read so far
  std::size_t noted_line_ = 0;     // the last line an interpolation note named
  std::optional<error> failed_{};  // the first error; everything after it returns at once

  void fail_at(std::size_t number, std::string message) {
    if (!failed_) failed_ = at_line(number, std::move(message));
  }
  json fail(std::string message) {
    fail_at(line_, std::move(message));
    return {};
  }
  bool counted() {
    if (++items_ <= limits_.max_items) return true;
    fail("more than " + std::to_string(limits_.max_items) + " values in the document");
    return false;
  }
  bool too_deep(std::size_t depth) {
    if (depth <= limits_.max_depth) return false;
    fail("nests collections more than " + std::to_string(limits_.max_depth) + " levels deep");
    return true;
  }

  static bool is_item(std::string_view text) { return text == "-" || text.starts_with("- "); }

  // Where `key: value`'s colon is (a quoted key's colon follows its closing quote), or npos.
  static std::size_t key_colon(std::string_view text) {
    if (text.empty() || text[0] == '[' || text[0] == '{') return npos;
    std::size_t from = 0;
    if (text[0] == '"' || text[0] == '\'') {
      scan_state st;
      st.quote = text[0];
      std::size_t i = 1;
      for (; i < text.size() && st.quote != 0; ++i) scan(text.substr(i, 1), st);
      from = i;
    }
    for (auto c = text.find(':', from); c != npos; c = text.find(':', c + 1))
      if (c + 1 == text.size() || text[c + 1] == ' ' || text[c + 1] == '\t') return c;
    return npos;
  }

  json node(std::size_t depth) {
    if (too_deep(depth)) return {};
    const auto& line = lines_[at_];
    line_ = line.number;
    if (is_item(line.text)) return sequence(line.indent, depth);
    if (key_colon(line.text) != npos) return mapping(line.indent, depth);
    ++at_;
    if (line.block) return json(*line.block);
    bool plain = false;
    return value(line.text, depth, plain);
  }

  json key_of(std::string_view text) {
    if (text.starts_with("? ") || text == "?") return fail("a complex key (?) is not read");
    if (text.starts_with('"') || text.starts_with('\'')) {
      std::size_t pos = 0;
      const auto key = quoted_scalar(text, pos);
      if (!failed_ && trim(text.substr(pos)).empty()) return json(key);
      return fail("text after the key's closing quote");
    }
    if (text.starts_with('&') || text.starts_with('*') || text.starts_with('!'))
      return fail("anchors (&), aliases (*) and tags (!) are not read: write the value out");
    if (text == "<<") return fail("a merge key (<<) is not read: write the values out");
    return json(std::string(text));
  }
  json mapping(std::size_t indent, std::size_t depth) {
    json obj = json::object();
    while (!failed_ && at_ < lines_.size() && lines_[at_].indent >= indent) {
      const auto& line = lines_[at_];
      line_ = line.number;
      if (line.indent > indent) return fail("is indented more than the keys before it");
      const auto colon = key_colon(line.text);
      if (colon == npos)
        return fail(is_item(line.text) ? "a sequence item (-) among the keys of a mapping" : "expected \"key: value\"");
      const json key = key_of(trim(std::string_view(line.text).substr(0, colon)));
      if (failed_ || !counted()) return {};
      const auto name = key.get<std::string>();
      if (obj.contains(name)) return fail("the key " + quoted(name) + " is given twice");
      obj[name] = entry_value(line, trim(std::string_view(line.text).substr(colon + 1)), indent, depth);
    }
    return obj;
  }

  // The value after `key:` or `- `: on the line, a block scalar, or the more indented lines below.
  json entry_value(const yaml_line& line, std::string_view rest, std::size_t indent, std::size_t depth) {
    ++at_;
    if (line.block) return json(*line.block);
    if (rest.empty()) {
      const bool below =
          at_ < lines_.size() && (lines_[at_].indent > indent ||
                                  (lines_[at_].indent == indent && is_item(lines_[at_].text) && !is_item(line.text)));
      return below ? node(depth + 1) : json();
    }
    bool plain = false;
    json v = value(rest, depth, plain);
    if (!plain) return v;
    std::string text = v.is_null() ? std::string(rest) : v.get<std::string>();
    bool folded = false;
    for (; !failed_ && at_ < lines_.size() && lines_[at_].indent > indent && key_colon(lines_[at_].text) == npos &&
           !is_item(lines_[at_].text);
         ++at_, folded = true)
      text += " " + lines_[at_].text;  // a plain scalar continued on more indented lines
    return folded ? json(std::move(text)) : v;
  }

  json sequence(std::size_t indent, std::size_t depth) {
    json arr = json::array();
    while (!failed_ && at_ < lines_.size() && lines_[at_].indent >= indent) {
      auto& line = lines_[at_];
      line_ = line.number;
      if (line.indent > indent) return fail("is indented more than the items before it");
      if (!is_item(line.text)) break;  // the key after a sequence written at its key's indentation
      if (!counted()) return {};
      const auto offset = line.text.size() == 1 ? 1 : line.text.find_first_not_of(' ', 1);
      const std::string_view rest = offset == npos ? "" : std::string_view(line.text).substr(offset);
      if (!rest.empty() && !line.block && (key_colon(rest) != npos || is_item(rest))) {
        line.indent += offset;  // `- key: v` / `- - v`: the rest is a node at its own column
        line.text = std::string(rest);
        arr.push_back(node(depth + 1));
      } else {
        arr.push_back(entry_value(line, rest, indent, depth));
      }
    }
    return arr;
  }

  // A value written on its line: a flow collection, a quoted or a plain scalar.
  json value(std::string_view text, std::size_t depth, bool& plain) {
    plain = false;
    const char c = text[0];
    if (c == '&' || c == '*' || c == '!')
      return fail("anchors (&), aliases (*) and tags (!) are not read: write the value out");
    if (c == '@' || c == '`' || c == '|' || c == '>') return fail(std::string("a value may not start with ") + c);
    std::size_t pos = 0;
    json out;
    if (c == '[' || c == '{') {
      out = flow(text, pos, depth + 1);
    } else if (c == '"' || c == '\'') {
      out = json(quoted_scalar(text, pos));
    } else {
      plain = true;
      return plain_scalar(text);
    }
    if (!failed_ && !trim(text.substr(pos)).empty()) return fail("text after the value's closing quote or bracket");
    return out;
  }

  json plain_scalar(std::string_view text) {
    text = trim(text);
    if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return {};
    if (text.find("${") != npos && noted_line_ != line_) {
      noted_line_ = line_;
      notes_.push_back("line " + std::to_string(line_) + ": " + quoted(text) +
                       " keeps its ${...} as written (interpolation is not resolved)");
    }
    return json(std::string(text));
  }

  static void skip_blanks(std::string_view text, std::size_t& pos) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  }

  json flow(std::string_view text, std::size_t& pos, std::size_t depth) {
    if (too_deep(depth)) return {};
    const bool is_map = text[pos++] == '{';
    const char close = is_map ? '}' : ']';
    json out = is_map ? json::object() : json::array();
    for (;;) {
      skip_blanks(text, pos);
      if (pos < text.size() && text[pos] == close) return ++pos, out;
      if (!counted()) return {};
      if (is_map) {
        const json key = flow_item(text, pos, depth, ":,}");
        skip_blanks(text, pos);
        if (failed_ || pos >= text.size() || text[pos] != ':' || !key.is_string())
          return fail("expected \"key: value\" in { }");
        ++pos;
        skip_blanks(text, pos);
        out[key.get<std::string>()] =
            pos < text.size() && (text[pos] == ',' || text[pos] == '}') ? json() : flow_item(text, pos, depth, ",}");
      } else {
        out.push_back(flow_item(text, pos, depth, ",]"));
      }
      skip_blanks(text, pos);
      if (failed_) return {};
      if (pos >= text.size()) return fail(std::string("a ") + (is_map ? "{" : "[") + " is never closed");
      if (text[pos] == ',') {
        ++pos;
      } else if (text[pos] != close) {
        return fail(std::string("expected , or ") + close + " in a flow collection");
      }
    }
  }

  json flow_item(std::string_view text, std::size_t& pos, std::size_t depth, std::string_view ends) {
    if (pos >= text.size()) return fail("a flow collection is never closed");
    const char c = text[pos];
    if (c == '[' || c == '{') return flow(text, pos, depth + 1);
    if (c == '"' || c == '\'') return json(quoted_scalar(text, pos));
    if (c == '&' || c == '*' || c == '!')
      return fail("anchors (&), aliases (*) and tags (!) are not read: write the value out");
    const auto end = std::min(text.find_first_of(ends, pos), text.size());
    const auto item = text.substr(pos, end - pos);
    pos = end;
    return plain_scalar(item);
  }

  // A quoted scalar starting at text[pos]; pos moves past its closing quote.
  std::string quoted_scalar(std::string_view text, std::size_t& pos) {
    const char q = text[pos++];
    std::string out;
    while (pos < text.size()) {
      const char c = text[pos++];
      if (c == q && q == '\'' && pos < text.size() && text[pos] == '\'') {
        out += '\'';
        ++pos;
      } else if (c == q) {
        return out;
      } else if (c == '\\' && q == '"') {
        if (!escape(text, pos, out)) return {};
      } else {
        out += c;
      }
    }
    fail("a quote is never closed");
    return {};
  }

  bool escape(std::string_view text, std::size_t& pos, std::string& out) {
    if (pos >= text.size()) return fail("a \\ ends the text"), false;
    const char c = text[pos++];
    if (const auto simple = simple_escape(c)) {
      out += *simple;
      return true;
    }
    if (c != 'x' && c != 'u') return fail(std::string("an unknown escape \\") + c + " in a double-quoted value"), false;
    const std::size_t digits = c == 'x' ? 2 : 4;
    unsigned code = 0;
    for (std::size_t k = 0; k < digits; ++k, ++pos) {
      const char h = pos < text.size() ? text[pos] : 'g';
      const auto d = std::string_view("0123456789abcdef").find(static_cast<char>(h | 0x20));
      if (d == npos) return fail("a \\x or \\u escape without its hex digits"), false;
      code = code * 16 + static_cast<unsigned>(d);
    }
    append_utf8(code, out);
    return true;
  }

  static std::optional<char> simple_escape(char c) {
    switch (c) {
      case '\\': return '\\';
      case '"': return '"';
      case '/': return '/';
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case '0': return '\0';
      case 'a': return '\a';
      case 'b': return '\b';
      case 'e': return '\x1b';
      case 'f': return '\f';
      case 'v': return '\v';
      default: return std::nullopt;
    }
  }

  static void append_utf8(unsigned code, std::string& out) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }
};

}  // namespace

result<json> parse_yaml(std::string_view text, std::vector<std::string>& notes, const yaml_limits& limits) {
  if (text.size() > limits.max_bytes)
    return error{"line 1", "the text is larger than " + std::to_string(limits.max_bytes >> 20) + " MiB"};
  if (text.starts_with("\xef\xbb\xbf")) text.remove_prefix(3);  // a UTF-8 byte-order mark
  if (const auto refused = control_byte(text)) return *refused;
  auto lines = logical_lines(text, limits);
  if (!lines.ok()) return lines.errors();
  parser p(std::move(lines).value(), limits, notes);
  return p.document();
}

}  // namespace llm_memory::detail
