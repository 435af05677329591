// SPDX-License-Identifier: MIT
// The page's one box (paste.hpp): a log or, failing that, a launch command or recipe.
#include "llm_memory/paste.hpp"

#include <algorithm>
#include <string>

#include "logs/logs.hpp"

namespace llm_memory {

namespace {

// A command line, Modelfile or recipe is read up to 1 MiB (readers/tokenize.cpp, readers/table.cpp).
constexpr std::size_t max_command_bytes = std::size_t{1} << 20;

// The line (from 1) byte `at` of `text` is on.
std::size_t line_of(std::string_view text, std::size_t at) {
  const auto before = text.substr(0, at);
  return static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
}

// Text no reader takes: over a log's limit, or binary (a NUL byte), naming the line; nullopt otherwise.
std::optional<error> unreadable(std::string_view text) {
  if (text.size() > detail::max_log_bytes)
    return error{"paste", "larger than 16 MiB: give the start of a log, or the command or recipe itself"};
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    return error{"line " + std::to_string(line_of(text, nul)), "holds a NUL byte (byte " + std::to_string(nul + 1) +
                                                                   "): a binary file, not a command, recipe or log"};
  return std::nullopt;
}

}  // namespace

pasted read_pasted(std::string_view text) {
  pasted out;
  if (auto why = unreadable(text)) {
    out.launch.errors.push_back(*std::move(why));
    return out;
  }
  log_read log = read_log(text);
  if (!log.format.empty()) {
    out.log = std::move(log);
    return out;
  }
  if (text.size() > max_command_bytes) {
    out.launch.errors.push_back({"line " + std::to_string(line_of(text, max_command_bytes)),
                                 "goes past 1 MiB, more than a launch command or recipe holds, and no line is a "
                                 "startup log's"});
    return out;
  }
  out.launch = read_launch(text);
  return out;
}

}  // namespace llm_memory
