// SPDX-License-Identifier: MIT
// `llm-memory --log FILE|- [--as-record] [--json] [--KEY VALUE ...]`: a runtime's startup log read into settings
// and figures, estimated, and its figures compared with the estimate's (core: llm_memory/log.hpp).
#pragma once

#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/log.hpp"
#include "llm_memory/resolve.hpp"

namespace llm_memory::cli {

/// The flags that shape --log's output.
struct log_flags {
  std::string path{};      ///< --log FILE, "-": standard input
  bool as_record = false;  ///< --as-record: the comparison as validation rows
  bool json = false;       ///< --json: the comparison and the estimate as one JSON object
};

/// --log FILE: the log's text read into settings and figures; a file that cannot be read is an error naming --log.
[[nodiscard]] log_read read_log_file(const std::string& path);

/// --log's output: the validation rows (--as-record), the comparison with the estimate as JSON, or the settings
/// read (beside the explicit `values`), the estimate's table and the comparison as text. Returns the exit status.
int log_output(const log_flags& flags, const settings& values, const log_read& log, const run_spec& spec,
               const estimate_result& r);

}  // namespace llm_memory::cli
