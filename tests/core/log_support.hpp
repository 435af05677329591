// SPDX-License-Identifier: MIT
// What the log tests share: a fixture log's text, and what a read log set, measured and noted.
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "llm_memory/log.hpp"

namespace llm_memory::test {

/// The text of tests/cli/log/`name`, byte for byte.
inline std::string fixture(const std::string& name) {
  std::ifstream file(std::string(LLM_MEMORY_TESTS_DIR) + "/cli/log/" + name, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// The text a log set for `key`; "(unset)" when it set none.
inline std::string value_of(const log_read& r, const std::string& key) {
  const auto it = r.settings.values.find(key);
  return it == r.settings.values.end() ? "(unset)" : it->second;
}

/// The line option that set `setting`; "(none)" when none did.
inline std::string read_by(const log_read& r, const std::string& setting) {
  for (const auto& o : r.settings.read)
    if (o.setting == setting) return o.option;
  return "(none)";
}

/// The log's figure for `item`; null when it printed none.
inline const log_figure* figure(const log_read& r, const std::string& item) {
  for (const auto& f : r.figures)
    if (f.item == item) return &f;
  return nullptr;
}

/// Expects the log's figure for `item` to print `value` (in the figure's own unit); a failure, not a crash, when it
/// printed none. The caller goes on after that failure: wrap the call in ASSERT_NO_FATAL_FAILURE before reading
/// the figure's other fields.
inline void expect_figure(const log_read& r, const std::string& item, double value) {
  const log_figure* f = figure(r, item);
  ASSERT_NE(f, nullptr) << "the log printed no " << item;
  EXPECT_DOUBLE_EQ(f->value, value) << item;
}

/// The comparison's row for `item`; null when there is none.
inline const reconcile_row* row_of(const reconciliation& rec, const std::string& item) {
  for (const auto& row : rec.rows)
    if (row.logged.item == item) return &row;
  return nullptr;
}

/// Whether a note of the read contains `part`.
inline bool noted(const log_read& r, const std::string& part) {
  return std::any_of(r.settings.notes.begin(), r.settings.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace llm_memory::test
