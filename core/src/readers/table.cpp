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

// A Modelfile is read line by line; as large a text as a command line.
constexpr std::size_t max_modelfile_bytes = std::size_t{1} << 20;

// The readers, by row (a switch, not function pointers: see option_row).
enum class reader { vllm, llama_server, llama_cli, sglang, tgi, docker, ollama, modelfile };

struct reader_row {
  std::string_view command;  ///< program [subcommand | -m module], as the table matches it
  reader read = reader::vllm;
};

constexpr std::array<reader_row, 11> readers{{
    {"vllm serve", reader::vllm},
    {"python -m vllm.entrypoints.openai.api_server", reader::vllm},
    {"llama-server", reader::llama_server},
    {"llama-cli", reader::llama_cli},
    {"python -m sglang.launch_server", reader::sglang},
    {"text-generation-launcher", reader::tgi},
    {"docker run", reader::docker},
    {"podman run", reader::docker},
    {"ollama serve", reader::ollama},
    {"ollama run", reader::ollama},
    {"Modelfile", reader::modelfile},  // read whole by read_modelfile(): not a command line
}};

void run(reader r, const detail::command_line& cmd, launch_read& out) {
  switch (r) {
    case reader::vllm: return detail::read_vllm_serve(cmd, out);
    case reader::llama_server: return detail::read_llama_server(cmd, out);
    case reader::llama_cli: return detail::read_llama_cli(cmd, out);
    case reader::sglang: return detail::read_sglang(cmd, out);
    case reader::tgi: return detail::read_tgi(cmd, out);
    case reader::docker: return detail::read_docker(cmd, out);
    case reader::ollama: return detail::read_ollama(cmd, out);
    case reader::modelfile: return;
  }
}

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

}  // namespace

namespace detail {

bool read_command(command_line cmd, launch_read& out) {
  const auto* row = find_reader(cmd);
  if (row == nullptr || row->read == reader::modelfile) return false;
  out.command = row->command;
  run(row->read, cmd, out);
  return true;
}

}  // namespace detail

namespace {

std::string known_commands() {
  std::string out;
  for (const auto& row : readers) out += (out.empty() ? "" : ", ") + std::string(row.command);
  return out;
}

// Names and messages hold words of the input: their control bytes are escaped, so a one-line error stays one line.
launch_read shown(launch_read out) {
  for (auto& e : out.errors) e = {detail::escape_controls(e.setting), detail::escape_controls(e.message)};
  for (auto& r : out.read) r.option = detail::escape_controls(r.option);
  for (auto& i : out.ignored) i.option = detail::escape_controls(i.option);
  for (auto& n : out.notes) n = detail::escape_controls(n);
  return out;
}

launch_read read_text(std::string_view text) {
  launch_read out;
  if (text.size() <= max_modelfile_bytes && detail::is_modelfile(text)) {
    out.command = "Modelfile";
    detail::read_modelfile(text, out);
    return out;
  }
  auto words = detail::split_words(text, out.notes);
  if (!words.ok()) {
    out.errors = words.errors();
    return out;
  }
  auto cmd = detail::to_command(std::move(words).value());
  const std::string program = cmd.program.empty() ? std::string(text.substr(0, 200)) : cmd.program;
  if (!detail::read_command(std::move(cmd), out))
    out.errors.push_back(
        {"command", detail::quoted(program) + " is not a launch command llm-memory reads (" + known_commands() + ")"});
  return out;
}

}  // namespace

launch_read read_launch(std::string_view text) { return shown(read_text(text)); }

}  // namespace llm_memory
