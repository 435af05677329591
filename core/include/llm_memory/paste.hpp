// SPDX-License-Identifier: MIT
// The page's one box, "Paste a command, config or log" (web/ui/paste-box.js): the text goes to the reader its
// lines show, a startup log to the log readers (logs/table.cpp tells the kinds apart), anything else to the
// launch command and recipe readers (readers/table.cpp: a program name, a Modelfile, a document's keys)
// (docs/readers.md, "The page's box").
#pragma once

#include <optional>
#include <string_view>

#include "llm_memory/launch.hpp"
#include "llm_memory/log.hpp"

namespace llm_memory {

/// What the box was given, read.
struct pasted {
  std::optional<log_read> log{};  ///< the text holds a log's lines: the log read (its errors name the line)
  launch_read launch{};           ///< otherwise: the command or recipe read; errors name the option or the line
};

/// Reads a pasted or dropped text (at most 16 MiB: a log's limit). Text no reader can take is refused naming the
/// line: a NUL byte (a binary file), or more than 1 MiB (a command's or recipe's limit) without a log's lines.
[[nodiscard]] pasted read_pasted(std::string_view text);

}  // namespace llm_memory
