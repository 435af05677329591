// SPDX-License-Identifier: MIT
// The boundary searches solve and fits share (core/src/search.hpp): the boundary found, and the points probed (each
// probe is an estimate), derived by hand from galloping then bisection.
#include "search.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace {

using llm_memory::detail::first_fitting;
using llm_memory::detail::last_fitting;
using llm_memory::detail::last_fitting_from;

// Fits up to 37 in [1, 100] from the known-good 1: galloping probes 2, 4, 8, 16, 32 (fit) and 64 (does not); bisection
// between 32 and 64 probes 48 (no), 40 (no), 36 (yes), 38 (no), 37 (yes): 37, and 1 itself is never probed.
TEST(Search, LastFittingFromNeverProbesItsStart) {
  std::vector<std::int64_t> probes;
  const auto at = last_fitting_from(1, 100, [&](std::int64_t x) {
    probes.push_back(x);
    return x <= 37;
  });
  EXPECT_EQ(at, 37);
  EXPECT_EQ(probes, (std::vector<std::int64_t>{2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37}));
}

// Everything fits: from the known-good 3, galloping probes 6, then min(10, 12) = 10, the top.
TEST(Search, LastFittingFromReachesTheTop) {
  std::vector<std::int64_t> probes;
  const auto at = last_fitting_from(3, 10, [&](std::int64_t x) {
    probes.push_back(x);
    return true;
  });
  EXPECT_EQ(at, 10);
  EXPECT_EQ(probes, (std::vector<std::int64_t>{6, 10}));
}

// last_fitting checks its start first: nothing when it does not fit, else the same answer as last_fitting_from.
TEST(Search, LastFittingChecksItsStart) {
  EXPECT_EQ(last_fitting(5, 100, [](std::int64_t x) { return x <= 4; }), std::nullopt);
  EXPECT_EQ(last_fitting(5, 100, [](std::int64_t x) { return x <= 70; }), 70);
}

// Fits from 10 up in [2, 64]: 64 fits, 2 does not; galloping 4 (no), 8 (no), 16 (yes); bisection 12, 10, 9: 10.
TEST(Search, FirstFittingFindsTheBoundary) {
  std::vector<std::int64_t> probes;
  const auto at = first_fitting(2, 64, [&](std::int64_t x) {
    probes.push_back(x);
    return x >= 10;
  });
  EXPECT_EQ(at, 10);
  EXPECT_EQ(probes, (std::vector<std::int64_t>{64, 2, 4, 8, 16, 12, 10, 9}));
  EXPECT_EQ(first_fitting(2, 64, [](std::int64_t x) { return x >= 100; }), std::nullopt);
  EXPECT_EQ(first_fitting(2, 64, [](std::int64_t) { return true; }), 2);
}

}  // namespace
