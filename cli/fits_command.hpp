// SPDX-License-Identifier: MIT
// The `fits` command: every model preset ranked on one machine (core: llm_memory/fits.hpp).
#pragma once

namespace llm_memory::cli {

/// Runs `llm-memory fits ...` (argv[1] is "fits"); returns the exit status (2 on a usage error).
[[nodiscard]] int run_fits(int argc, char** argv);

}  // namespace llm_memory::cli
