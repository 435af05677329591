// SPDX-License-Identifier: MIT
// What the model and estimate tests share: a run resolved or estimated (a test failure naming the first error when
// it does not), and one item of an estimate by its name.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"
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

/// The bytes of the first item named `name` in any bucket of the estimate; -1 when there is none.
inline double item(const estimate_result& e, const std::string& name) {
  for (const auto& b : e.buckets)
    for (const auto& i : b.items)
      if (i.name == name) return i.bytes;
  return -1;
}

}  // namespace llm_memory::test
