// SPDX-License-Identifier: MIT
// Launch commands in: a runtime's command line (`vllm serve ...`, `llama-server ...`) read into settings, with
// every option it held listed by name as read, ignored or not mappable (docs/readers.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// One option the command set and the setting it became.
struct launch_option {
  std::string option{};     ///< as the command spells it ("--max-model-len", "-c", "model" for a positional)
  std::string setting{};    ///< settings key it sets ("seq")
  std::string value{};      ///< the setting's text ("32768")
  std::string file{};       ///< the file it was read from, when several are combined ("" for one)
  bool overridden = false;  ///< a later file set the same setting (combine_launches)
};

/// One option the command set that moves no setting.
struct launch_ignored {
  std::string option{};  ///< as the command spells it ("--port")
  std::string why{};     ///< why it changes no estimate, or why it could not be mapped
  std::string file{};    ///< the file it was read from, when several are combined ("" for one)
};

/// What a launch command says, in settings.
struct launch_read {
  std::string command{};                  ///< the command as the table names it ("vllm serve", "llama-server")
  settings values{};                      ///< settings keys -> text, to layer under explicit values
  std::vector<launch_option> read{};      ///< every option mapped, in command order
  std::vector<launch_ignored> ignored{};  ///< every option seen and not mapped, in command order
  std::vector<std::string> notes{};       ///< what the reader assumed or could not decide (an ambiguous model name)
  std::vector<error> errors{};            ///< bad input, each naming the option (or "command")
};

/// Reads one launch command (shell text: quotes, backslash-newline continuations, `VAR=value` before the
/// program). Never fails as a whole: problems are in `errors`, each naming the option.
[[nodiscard]] launch_read read_launch(std::string_view text);

/// One file's read, with the name it is shown under.
struct launch_file {
  std::string name{};  ///< the file's name as given ("ds.json", "-")
  launch_read read{};  ///< what read_launch() made of it
};

/// Several files' reads as one (`--from a.yaml --from ds.json`): a later file's setting replaces an earlier
/// one's, whose entry stays, marked overridden; every entry names its file, notes start with it, and `command`
/// lists each file with its format. One file: its read unchanged.
[[nodiscard]] launch_read combine_launches(const std::vector<launch_file>& files);

}  // namespace llm_memory
