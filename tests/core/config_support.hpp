// SPDX-License-Identifier: MIT
// What the config.json tests share: a file's text, a config.json parsed into settings, and the parameter count it
// resolves to.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "llm_memory/config_json.hpp"
#include "llm_memory/resolve.hpp"

namespace llm_memory::test {

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// config.json's settings; a test failure (and no settings) when it does not parse.
inline settings parsed_config(std::string_view text) {
  auto r = parse_config(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors().front()));
  return r.ok() ? r.value() : settings{};
}

/// The exact parameter count a config.json resolves to, for inference: a quantised checkpoint (DeepSeek-V3 FP8,
/// gpt-oss MXFP4) cannot be fully trained as stored.
inline double config_params(std::string_view text) {
  auto r = resolve({{"mode", "inference"}}, parsed_config(text));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors().front()));
  return r.ok() ? r.value().model.params.total : 0;
}

}  // namespace llm_memory::test
