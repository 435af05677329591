// SPDX-License-Identifier: MIT
// What the tests share: a run resolved or estimated (a test failure naming the first error when it does not), one
// phase of a run, one item of an estimate by its name; and what a launch command or recipe read set, ignored and
// noted.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/resolve.hpp"

namespace llm_memory::test {

inline run_spec resolved(const settings& s, const settings& config = {}) {
  auto r = resolve(s, config);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors().front()));
  return r.ok() ? r.value() : run_spec{};
}

inline estimate_result estimated(const settings& s) {
  auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors().front()));
  return r.ok() ? r.value() : estimate_result{};
}

/// One phase of a run (its first pipeline stage's), by name; a test failure when there is none.
inline estimate_result phase(const settings& s, const std::string& name) {
  for (auto& r : estimate_stages(resolved(s)))
    if (r.peak.phase == name) return r;
  ADD_FAILURE() << "no phase " << name;
  return {};
}

/// The bytes of the item `name` in the bucket `bucket_key`; a test failure and -1 when there is none.
inline double item(const estimate_result& r, const std::string& bucket_key, const std::string& name) {
  for (const auto& b : r.buckets)
    if (b.key == bucket_key)
      for (const auto& i : b.items)
        if (i.name == name) return i.bytes;
  ADD_FAILURE() << "no item " << bucket_key << ":" << name;
  return -1;
}

/// The bytes of the first item named `name` in any bucket of the estimate; -1 when there is none.
inline double item(const estimate_result& e, const std::string& name) {
  for (const auto& b : e.buckets)
    for (const auto& i : b.items)
      if (i.name == name) return i.bytes;
  return -1;
}

/// The text a read set for `key`; "(unset)" when it set none.
inline std::string value_of(const launch_read& r, const std::string& key) {
  const auto it = r.values.find(key);
  return it == r.values.end() ? "(unset)" : it->second;
}

/// Whether the read listed `option` as ignored.
inline bool ignored(const launch_read& r, const std::string& option) {
  return std::any_of(r.ignored.begin(), r.ignored.end(), [&](const launch_ignored& i) { return i.option == option; });
}

/// The option (or key) that set `setting`; "(none)" when none did.
inline std::string read_by(const launch_read& r, const std::string& setting) {
  const auto it =
      std::find_if(r.read.begin(), r.read.end(), [&](const launch_option& o) { return o.setting == setting; });
  return it == r.read.end() ? "(none)" : it->option;
}

/// Whether a note of the read contains `part`.
inline bool noted(const launch_read& r, const std::string& part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace llm_memory::test
