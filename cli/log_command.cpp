// SPDX-License-Identifier: MIT
// The --log command (log_command.hpp).
#include "log_command.hpp"

#include <fmt/core.h>

#include "input_files.hpp"
#include "llm_memory/report.hpp"
#include "print.hpp"
#include "print_log.hpp"

namespace llm_memory::cli {

log_read read_log_file(const std::string& path) {
  const auto text = read_input_file("log", path);
  if (!text.ok()) return log_read{.settings = {.errors = text.errors()}};
  return read_log(text.value());
}

int log_output(const log_flags& flags, const settings& values, const log_read& log, const run_spec& spec,
               const estimate_result& r) {
  const reconciliation rec = reconcile(log, r);
  const std::string source = flags.path == "-" ? "standard input" : flags.path;
  if (flags.as_record) {
    fmt::print("{}\n", validation_records(log, rec, values, source));
    return 0;
  }
  if (flags.json) {
    fmt::print("{{\"log\": {},\n\"estimate\": {}}}\n", reconciliation_to_json(log, rec), to_json(r));
    return 0;
  }
  print_from(source, log.settings, values);
  print_table(spec, r);
  print_reconciliation(log, rec);
  return 0;
}

}  // namespace llm_memory::cli
