// SPDX-License-Identifier: MIT
// The bounded TOML subset (toml.hpp): line by line, a table header opens an object under the root, a key line sets
// one value in it. Scalars stay text, as the YAML reader keeps them, so the recipe readers read both alike.
#include "readers/toml.hpp"

#include <string>

#include "text.hpp"

namespace llm_memory::detail {

namespace {

bool bare_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool bare_key(std::string_view key) {
  if (key.empty()) return false;
  for (const char c : key)
    if (!bare_key_char(c)) return false;
  return true;
}

struct parser {
  const toml_limits& limits;
  std::size_t line = 0;
  std::size_t items = 0;
  std::vector<error> errors{};

  error at(const std::string& message) const { return {"line " + std::to_string(line), message}; }

  // A quoted string from the start of `rest` (which starts with its quote); the text after it in `rest`.
  std::optional<std::string> quoted_string(std::string_view& rest) {
    const char quote = rest.front();
    if (rest.starts_with(std::string(3, quote))) {
      errors.push_back(at("multi-line strings are not read"));
      return std::nullopt;
    }
    std::string out;
    for (std::size_t i = 1; i < rest.size(); ++i) {
      const char c = rest[i];
      if (c == quote) {
        rest.remove_prefix(i + 1);
        return out;
      }
      if (c == '\\' && quote == '"' && i + 1 < rest.size()) {
        const char e = rest[++i];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;  // \" \\ and the rest as the character itself
        continue;
      }
      out += c;
    }
    errors.push_back(at("a string that does not close on its line"));
    return std::nullopt;
  }

  // A scalar: a quoted string, or the bare word up to `,` `]` `#` or a space (a number, true, false, a date).
  std::optional<json> scalar(std::string_view& rest) {
    if (++items > limits.max_items) {
      errors.push_back(at("more than " + std::to_string(limits.max_items) + " values"));
      return std::nullopt;
    }
    if (rest.starts_with('"') || rest.starts_with('\'')) {
      auto s = quoted_string(rest);
      if (!s) return std::nullopt;
      return json(*std::move(s));
    }
    if (rest.starts_with('{')) {
      errors.push_back(at("inline tables are not read"));
      return std::nullopt;
    }
    std::size_t end = 0;
    while (end < rest.size() && rest[end] != ',' && rest[end] != ']' && rest[end] != '#' && rest[end] != ' ') ++end;
    const std::string word(rest.substr(0, end));
    rest.remove_prefix(end);
    if (word.empty()) {
      errors.push_back(at("a key with no value"));
      return std::nullopt;
    }
    return json(word);
  }

  std::optional<json> value(std::string_view rest) {
    json out;
    if (rest.starts_with('[')) {
      out = json::array();
      rest = trim(rest.substr(1));
      while (!rest.starts_with(']')) {
        if (rest.empty() || rest.starts_with('#')) {
          errors.push_back(at("arrays over several lines are not read"));
          return std::nullopt;
        }
        if (rest.starts_with('[')) {
          errors.push_back(at("nested arrays are not read"));
          return std::nullopt;
        }
        auto item = scalar(rest);
        if (!item) return std::nullopt;
        out.push_back(*std::move(item));
        rest = trim(rest);
        if (rest.starts_with(',')) rest = trim(rest.substr(1));
      }
      rest = trim(rest.substr(1));
    } else {
      auto s = scalar(rest);
      if (!s) return std::nullopt;
      out = *std::move(s);
      rest = trim(rest);
    }
    if (!rest.empty() && !rest.starts_with('#')) {
      errors.push_back(at("text after the value: " + quoted(rest)));
      return std::nullopt;
    }
    return out;
  }

  // A `[a.b]` header: the table it names, created under the root (a name given twice is refused).
  json* table(json& root, std::string_view header) {
    if (header.starts_with("[[")) {
      errors.push_back(at("arrays of tables are not read"));
      return nullptr;
    }
    const auto close = header.find(']');
    const auto after = close == std::string_view::npos ? std::string_view() : trim(header.substr(close + 1));
    if (close == std::string_view::npos || (!after.empty() && !after.starts_with('#'))) {
      errors.push_back(at("a table header must be [name] alone on its line"));
      return nullptr;
    }
    const auto parts = split(trim(header.substr(1, close - 1)), '.');
    if (parts.size() > limits.max_depth) {
      errors.push_back(at("a table name of more than " + std::to_string(limits.max_depth) + " parts"));
      return nullptr;
    }
    json* at_table = &root;
    for (const auto part : parts) {
      const auto name = trim(part);
      if (!bare_key(name)) {
        errors.push_back(at("a table name of bare words (letters, digits, _ and -) is read, got " + quoted(header)));
        return nullptr;
      }
      json& next = (*at_table)[std::string(name)];
      if (next.is_null()) next = json::object();
      if (!next.is_object()) {
        errors.push_back(at(quoted(name) + " is a value, not a table"));
        return nullptr;
      }
      at_table = &next;
    }
    if (!at_table->empty()) {
      errors.push_back(at("table " + quoted(header.substr(0, close + 1)) + " given twice"));
      return nullptr;
    }
    return at_table;
  }
};

}  // namespace

bool is_toml(std::string_view text) {
  for (const auto raw : split(text.substr(0, std::min<std::size_t>(text.size(), 1 << 16)), '\n')) {
    const auto line = trim(raw);
    if (line.empty() || line.starts_with('#')) continue;
    if (!line.starts_with('[') || line.starts_with("[[")) return false;
    const auto close = line.find(']');
    if (close == std::string_view::npos || close < 2) return false;
    for (const char c : line.substr(1, close - 1))
      if (!bare_key_char(c) && c != '.') return false;
    const auto after = trim(line.substr(close + 1));
    return after.empty() || after.starts_with('#');
  }
  return false;
}

result<json> parse_toml(std::string_view text, const toml_limits& limits) {
  if (text.size() > limits.max_bytes)
    return error{"line 1", "the document is larger than " + std::to_string(limits.max_bytes >> 20) + " MiB"};
  parser p{limits};
  json root = json::object();
  json* current = &root;
  for (const auto raw : split(text, '\n')) {
    ++p.line;
    if (raw.size() > limits.max_line) return p.at("longer than " + std::to_string(limits.max_line >> 10) + " KiB");
    for (const char c : raw)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return p.at("a control byte");
    const auto line = trim(raw);
    if (line.empty() || line.starts_with('#')) continue;
    if (line.starts_with('[')) {
      current = p.table(root, line);
      if (current == nullptr) return p.errors.front();
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) return p.at("neither a [table] nor key = value: " + quoted(line));
    const auto key = trim(line.substr(0, eq));
    if (!bare_key(key)) return p.at("a bare key (letters, digits, _ and -) is read, got " + quoted(key));
    if (current->contains(key)) return p.at("key " + quoted(key) + " given twice");
    auto v = p.value(trim(line.substr(eq + 1)));
    if (!v) return p.errors.front();
    (*current)[std::string(key)] = *std::move(v);
  }
  return root;
}

}  // namespace llm_memory::detail
