// SPDX-License-Identifier: MIT
// The launch readers' table: each command's name (its program, with the subcommand or module that selects it)
// -> its reader. read_launch() splits the text, names the command and runs its row.
#include <algorithm>
#include <array>
#include <string>

#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory {

namespace {

using reader = void (*)(const detail::command_line&, launch_read&);

struct reader_row {
  std::string_view command;  ///< program [subcommand | -m module], as the table matches it
  reader read = nullptr;
};

constexpr std::array<reader_row, 4> readers{{
    {"vllm serve", detail::read_vllm_serve},
    {"python -m vllm.entrypoints.openai.api_server", detail::read_vllm_serve},
    {"llama-server", detail::read_llama_server},
    {"llama-cli", detail::read_llama_cli},
}};

// The row of a program name ("vllm serve", "llama-server"), or nullptr (a plain loop: Emscripten's libc++ has no
// std::ranges::find).
const reader_row* row_of(std::string_view command) {
  for (const reader_row& row : readers)
    if (row.command == command) return &row;
  return nullptr;
}

// `python3.11 -m module` reads as `python -m module`; the words that select the command leave the arguments.
const reader_row* find_reader(detail::command_line& cmd) {
  if (cmd.program.starts_with("python") && cmd.args.size() >= 2 && cmd.args[0] == "-m") {
    cmd.program = "python -m " + cmd.args[1];
    cmd.args.erase(cmd.args.begin(), cmd.args.begin() + 2);
  }
  if (!cmd.args.empty()) {
    const std::string with_sub = cmd.program + " " + cmd.args[0];
    if (const auto* row = row_of(with_sub); row != nullptr) {
      cmd.args.erase(cmd.args.begin());
      return row;
    }
  }
  return row_of(cmd.program);
}

std::string known_commands() {
  std::string out;
  for (const auto& row : readers) out += (out.empty() ? "" : ", ") + std::string(row.command);
  return out;
}

}  // namespace

launch_read read_launch(std::string_view text) {
  launch_read out;
  auto words = detail::split_words(text, out.notes);
  if (!words.ok()) {
    out.errors = words.errors();
    return out;
  }
  auto cmd = detail::to_command(std::move(words).value());
  const auto* row = find_reader(cmd);
  if (row == nullptr) {
    out.errors.push_back({"command", detail::quoted(cmd.program.empty() ? text : cmd.program) +
                                         " is not a launch command llm-memory reads (" + known_commands() + ")"});
    return out;
  }
  out.command = row->command;
  row->read(cmd, out);
  return out;
}

}  // namespace llm_memory
