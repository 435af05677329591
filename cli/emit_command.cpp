// SPDX-License-Identifier: MIT
// The --emit command (emit_command.hpp).
#include "emit_command.hpp"

#include <fmt/core.h>

#include "errors.hpp"
#include "llm_memory/emit.hpp"

namespace llm_memory::cli {

int emit_output(const std::string& format, const run_spec& spec) {
  const auto out = emit(spec.values, format);
  if (!out.ok()) {
    print_errors(out.errors());
    return exit_usage;
  }
  fmt::print("{}", out.value().text);
  std::string missing;
  for (const auto& key : out.value().not_carried) missing += (missing.empty() ? "" : ", ") + key;
  if (!missing.empty()) fmt::print("# not carried by this command: {}\n", missing);
  return 0;
}

}  // namespace llm_memory::cli
