// SPDX-License-Identifier: MIT
// The log readers' shared parts: lines, numbers, Python reprs, the launch command behind the settings.
#include <cmath>
#include <string>

#include "decimal.hpp"
#include "logs/logs.hpp"
#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

std::vector<log_line> log_lines(std::string_view text, std::vector<std::string>& notes) {
  std::vector<log_line> lines;
  std::size_t number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.size() > max_log_line_bytes) {
      notes.push_back("line " + std::to_string(number) + " is longer than 64 KiB and was not read");
      continue;
    }
    lines.push_back({line, number});
  }
  return lines;
}

std::optional<std::string_view> after(std::string_view line, std::string_view marker) {
  const auto at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return line.substr(at + marker.size());
}

std::optional<double> leading_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  std::string digits;  // the commas of "157,936" taken out
  std::size_t i = 0;
  for (; i < text.size() && i < 64; ++i) {
    const char c = text[i];
    const bool grouping = c == ',' && i > 0 && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9' &&
                          text[i - 1] >= '0' && text[i - 1] <= '9';
    if (grouping) continue;
    if ((c < '0' || c > '9') && c != '.') break;
    digits += c;
  }
  double value = 0;
  if (digits.empty() || read_double(digits, value) == 0 || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> leading_size(std::string_view text, std::string_view unit) {
  const auto value = leading_number(text);
  if (!value) return std::nullopt;
  std::size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.' || text[i] == ',')) ++i;
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string_view word = text.substr(i, 3);
  const bool gib = word == "GiB" || word.starts_with("GB"), mib = word == "MiB" || word.starts_with("MB");
  if (gib) return unit == "GiB" ? *value : *value * 1024;
  if (mib) return unit == "MiB" ? *value : *value / 1024;
  return std::nullopt;
}

namespace {

// The end of the value starting at `i`: a quoted string, or text up to a comma at depth 0 (brackets nest).
std::size_t value_end(std::string_view text, std::size_t i) {
  int depth = 0;
  char quote = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return i;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return i;
}

std::string unquoted(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return std::string(s);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> python_pairs(std::string_view text, char sep) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t i = 0;
  while (i < text.size() && pairs.size() < 4096) {
    const std::size_t end = value_end(text, i);  // the whole `key sep value` item
    const std::string_view item = text.substr(i, end - i);
    if (const auto at = item.find(sep); at != std::string_view::npos)
      pairs.emplace_back(unquoted(item.substr(0, at)), unquoted(item.substr(at + 1)));
    if (end >= text.size() || text[end] != ',') break;  // a closing bracket ends the repr
    i = end + 1;
  }
  return pairs;
}

void log_command::add(const std::string& option, const std::string& value, std::size_t line) {
  args.push_back(value.empty() ? option : option + "=" + value);
  lines.emplace_back(option, line);
}

namespace {

// "line N --option": the line of the option's last use (a later one replaces an earlier one, as in a command).
std::string with_line(const log_command& cmd, const std::string& option) {
  for (auto it = cmd.lines.rbegin(); it != cmd.lines.rend(); ++it)
    if (it->first == option) return "line " + std::to_string(it->second) + " " + option;
  return option;
}

}  // namespace

void read_log_command(const log_command& cmd, log_read& out) {
  launch_read& s = out.settings;
  if (!read_command(command_line{{}, cmd.program, cmd.args}, s)) return;
  for (auto& r : s.read) r.option = with_line(cmd, r.option);
  for (auto& i : s.ignored) i.option = with_line(cmd, i.option);
  for (auto& e : s.errors) e.setting = with_line(cmd, e.setting);
}

void set_figure(log_read& out, log_figure f) {
  for (auto& old : out.figures)
    if (old.item == f.item) {
      old = std::move(f);
      return;
    }
  out.figures.push_back(std::move(f));
}

void set_peak_figure(log_read& out, log_figure f) {
  for (const auto& old : out.figures)
    if (old.item == f.item && old.value >= f.value) return;
  set_figure(out, std::move(f));
}

}  // namespace llm_memory::detail
