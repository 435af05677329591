// SPDX-License-Identifier: MIT
// `llm-memory --emit FORMAT [--json] [--KEY VALUE ...]`: the launch command for the resolved settings (core:
// llm_memory/emit.hpp; docs/readers.md, "Emit").
#pragma once

#include <string>

#include "llm_memory/resolve.hpp"

namespace llm_memory::cli {

/// The formats --emit writes, as its help lists them: emit.hpp's emit_formats ("vllm, sglang, ... or deepspeed").
[[nodiscard]] std::string emit_format_list();

/// Prints the command in `format` (one of emit_formats) and the settings it cannot carry: with `json`, one JSON
/// object {"format", "text", "not_carried"} (as the page's emitLaunch answers); else the text, then a `#` comment
/// line that --from reads past, or for a JSON config (which has no comments) the same line on standard error.
/// Returns the exit status (2 naming emit on an unknown format).
int emit_output(const std::string& format, const run_spec& spec, bool json);

}  // namespace llm_memory::cli
