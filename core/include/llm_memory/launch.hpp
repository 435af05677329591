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
  std::string option{};   ///< as the command spells it ("--max-model-len", "-c", "model" for a positional)
  std::string setting{};  ///< settings key it sets ("seq")
  std::string value{};    ///< the setting's text ("32768")
};

/// One option the command set that moves no setting.
struct launch_ignored {
  std::string option{};  ///< as the command spells it ("--port")
  std::string why{};     ///< why it changes no estimate, or why it could not be mapped
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

}  // namespace llm_memory
