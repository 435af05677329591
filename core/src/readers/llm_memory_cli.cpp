// SPDX-License-Identifier: MIT
// llm-memory's own command line (`llm-memory --key value ...`, what `--emit generic` writes): each `--key value`
// or `--key=value` that names a setting is that setting; the CLI's other options (--json, --emit, --from FILE,
// ...) and words that are no option are listed as ignored. As cli/main.cpp parses it. docs/readers.md.
#include <string>

#include "llm_memory/settings.hpp"
#include "readers/readers.hpp"

namespace llm_memory::detail {

namespace {

// The CLI's options that take no value (cli/main.cpp parse_args).
bool is_cli_flag(std::string_view option) {
  for (const std::string_view flag : {"--json", "--solve", "--advise", "--ways-out", "--gpus", "--as-record", "--help",
                                      "-h", "--version", "--list-models", "--list-gpus", "--schema"})
    if (option == flag) return true;
  return false;
}

}  // namespace

void read_llm_memory_cli(const command_line& cmd, launch_read& out) {
  const auto& args = cmd.args;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (is_cli_flag(word) || word.starts_with("--help=")) {
      ignore(out, word, "a CLI option, not a setting");
      continue;
    }
    if (!word.starts_with("--") || word.size() == 2) {
      ignore(out, word, "not an option: settings are given as --key value");
      continue;
    }
    const auto eq = word.find('=');
    const std::string key(word.substr(2, eq == std::string_view::npos ? std::string_view::npos : eq - 2));
    const bool inline_value = eq != std::string_view::npos;
    if (!inline_value && i + 1 >= args.size()) {
      out.errors.push_back({std::string(word), "missing value after " + std::string(word)});
      continue;
    }
    const std::string value = inline_value ? std::string(word.substr(eq + 1)) : args[++i];
    if (find_setting(key) == nullptr)
      ignore(out, "--" + key, "a CLI option or an unknown setting: no memory setting is read from it");
    else
      set_setting(out, "--" + key, key, value);
  }
}

}  // namespace llm_memory::detail
