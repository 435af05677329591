// SPDX-License-Identifier: MIT
// The launch readers' tokenizer: the subset of POSIX shell word splitting a pasted command uses (quotes,
// backslashes, `\`-newline continuations, `#` comments); `$VAR` expands only to a variable a line of assignments
// before the command set, and otherwise stays as written.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

constexpr std::size_t max_command_bytes = std::size_t{1} << 20;

bool name_char(char c, bool first) {
  return c == '_' || std::isalpha(static_cast<unsigned char>(c)) != 0 ||
         (!first && std::isdigit(static_cast<unsigned char>(c)) != 0);
}

// `NAME=value`: a shell variable assignment.
bool is_assignment(std::string_view word) {
  const auto eq = word.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  for (std::size_t i = 0; i < eq; ++i)
    if (!name_char(word[i], i == 0)) return false;
  return true;
}

// The words of one command, split as the text is walked.
struct splitter {
  std::string_view text;             ///< the whole input
  std::size_t at = 0;                ///< next byte to read [bytes from the start]
  std::vector<std::string> words{};  ///< the words closed so far
  std::string word{};                ///< the word being read
  bool in_word = false;              ///< a word is open (`''` is an empty word)
  /// Variables set by lines of assignments alone before the command (`model=...` on its own line, as TGI's and
  /// vLLM's docs write them), expanded where `$NAME` or `${NAME}` appears outside single quotes.
  std::map<std::string, std::string, std::less<>> vars{};
  std::size_t expanded = 0;  ///< bytes of variables' values expanded so far [bytes]

  // At a `$`: a known variable's value, else the text as written.
  void dollar() {
    const bool braced = at + 1 < text.size() && text[at + 1] == '{';
    std::size_t end = at + (braced ? 2 : 1);
    const std::size_t start = end;
    while (end < text.size() && name_char(text[end], end == start)) ++end;
    const std::string_view name = text.substr(start, end - start);
    const bool closed = !braced || (end < text.size() && text[end] == '}');
    const auto var = vars.find(name);
    // Expansions stop at 1 MiB in all: `a=$a$a` lines would otherwise double a value per line.
    if (name.empty() || !closed || var == vars.end() || expanded + var->second.size() > max_command_bytes) {
      word += text[at++];
      return;
    }
    word += var->second;
    expanded += var->second.size();
    at = end + (braced ? 1 : 0);
  }

  // A command of assignments alone (`model=x`, `export volume=$PWD/data`) sets variables instead.
  bool took_assignments() {
    const std::size_t first = !words.empty() && words[0] == "export" ? 1 : 0;
    if (words.size() <= first ||
        !std::all_of(words.begin() + static_cast<std::ptrdiff_t>(first), words.end(), is_assignment))
      return false;
    for (std::size_t i = first; i < words.size(); ++i) {
      const auto eq = words[i].find('=');
      vars.insert_or_assign(words[i].substr(0, eq), words[i].substr(eq + 1));
    }
    words.clear();
    return true;
  }

  void end_word() {
    if (in_word) words.push_back(std::move(word));
    word.clear();
    in_word = false;
  }

  // Inside '...': everything literal up to the closing quote.
  bool single_quoted() {
    const auto close = text.find('\'', at);
    if (close == std::string_view::npos) return false;
    word.append(text.substr(at, close - at));
    at = close + 1;
    return true;
  }

  // Inside "...": a backslash escapes only $ ` " \ and the newline (which it removes).
  bool double_quoted() {
    for (; at < text.size(); ++at) {
      const char c = text[at];
      if (c == '"') {
        ++at;
        return true;
      }
      if (c == '$') {
        dollar();
        --at;  // the loop steps past the last byte read
        continue;
      }
      if (c == '\\' && at + 1 < text.size() &&
          std::string_view("$`\"\\\n").find(text[at + 1]) != std::string_view::npos) {
        if (text[++at] != '\n') word += text[at];
        continue;
      }
      word += c;
    }
    return false;
  }
};

// Whether `rest` holds nothing but blank lines and `#` comments.
bool only_comments(std::string_view rest) {
  for (const auto line : split(rest, '\n'))
    if (const auto t = trim(line); !t.empty() && t[0] != '#') return false;
  return true;
}

error unbalanced(char quote, std::size_t at) {
  return {"command", std::string("unbalanced ") + quote + " quote opened at byte " + std::to_string(at + 1)};
}

}  // namespace

result<std::vector<std::string>> split_words(std::string_view text, std::vector<std::string>& notes) {
  if (text.size() > max_command_bytes) return error{"command", "longer than 1 MiB"};
  if (text.find('\0') != std::string_view::npos) return error{"command", "holds a NUL byte: not a command line"};
  splitter s{.text = text};
  while (s.at < text.size()) {
    const char c = text[s.at];
    if (c == '\\' && s.at + 1 < text.size()) {
      if (text[s.at + 1] != '\n' && text[s.at + 1] != '\r') s.word += text[s.at + 1], s.in_word = true;
      const bool crlf = text[s.at + 1] == '\r' && s.at + 2 < text.size() && text[s.at + 2] == '\n';
      s.at += crlf ? 3U : 2U;
    } else if (c == '\'' || c == '"') {
      const std::size_t open = s.at++;
      s.in_word = true;
      if (!(c == '\'' ? s.single_quoted() : s.double_quoted())) return unbalanced(c, open);
    } else if (c == '#' && !s.in_word) {
      s.at = std::min(text.find('\n', s.at), text.size());
    } else if (c == '\n' || c == ';' || c == '|' || c == '&') {
      s.end_word();
      ++s.at;
      // A command ends here: the first one with words (other than assignments alone) is the one read.
      if (!s.words.empty() && !s.took_assignments()) {
        if (!only_comments(text.substr(s.at)))
          notes.emplace_back("only the first command is read; the text after it is not");
        break;
      }
    } else if (c == '$') {
      s.dollar();
      s.in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      s.end_word();
      ++s.at;
    } else {
      s.word += c;
      s.in_word = true;
      ++s.at;
    }
  }
  s.end_word();
  if (s.words.empty()) return error{"command", "is empty: paste a launch command (vllm serve ..., llama-server ...)"};
  return std::move(s.words);
}

command_line to_command(std::vector<std::string> words) {
  command_line cmd;
  std::size_t i = 0;
  if (i < words.size() && (words[i] == "env" || words[i] == "$")) ++i;
  for (; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    const auto name = std::string_view(words[i]).substr(0, eq);
    const bool assignment = eq != std::string::npos && !name.empty() &&
                            std::isdigit(static_cast<unsigned char>(name[0])) == 0 &&
                            name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
                                std::string_view::npos;
    if (!assignment) break;
    cmd.env.emplace_back(std::string(name), words[i].substr(eq + 1));
  }
  if (i < words.size()) {
    const auto& program = words[i];
    cmd.program = program.substr(program.find_last_of('/') == std::string::npos ? 0 : program.find_last_of('/') + 1);
    cmd.args.assign(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
  }
  return cmd;
}

}  // namespace llm_memory::detail
