// SPDX-License-Identifier: MIT
// `llm-memory --emit FORMAT [--KEY VALUE ...]`: the launch command for the resolved settings (core:
// llm_memory/emit.hpp; docs/readers.md, "Emit").
#pragma once

#include <string>

#include "llm_memory/resolve.hpp"

namespace llm_memory::cli {

/// Prints the command in `format` (vllm, sglang, llamacpp, ollama) and, as a comment line that --from reads past,
/// the settings it cannot carry; returns the exit status (2 naming --emit on an unknown format).
int emit_output(const std::string& format, const run_spec& spec);

}  // namespace llm_memory::cli
