// SPDX-License-Identifier: MIT
// The CLI's error lines and its usage exit status, shared by its commands.
#pragma once

#include <fmt/core.h>

#include <cstdio>
#include <vector>

#include "llm_memory/result.hpp"

namespace llm_memory::cli {

/// The exit status of invalid input (one line per problem on stderr).
inline constexpr int exit_usage = 2;

/// Every error line goes through here: to_string() escapes control characters, so one problem is one line and a
/// hostile key, value or file name cannot drive the terminal.
inline void print_error(const error& e) { fmt::print(stderr, "{}\n", to_string(e)); }

inline void print_errors(const std::vector<error>& errors) {
  for (const auto& e : errors) print_error(e);
}

}  // namespace llm_memory::cli
