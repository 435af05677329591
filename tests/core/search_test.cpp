// SPDX-License-Identifier: MIT
// The boundary searches solve and fits share (core/src/search.hpp): the boundary found, and the points probed (each
// probe is an estimate), derived by hand from galloping then bisection.
#include "search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace {

using llm_memory::detail::boundary_along_line;
using llm_memory::detail::first_fitting;
using llm_memory::detail::last_fitting;
using llm_memory::detail::last_fitting_from;
using llm_memory::detail::line_end;
using llm_memory::detail::line_probe;

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

// A device total on a straight line, 100 + 10 x bytes, against 175 B of memory: x = 7 holds (170), 8 does not
// (180). From good 0 (100 B) and bad 20 (300 B) the line reaches 175 at 0 + (175 - 100) / (300 - 100) x 20 = 7.5:
// probe 7 (holds); then between 7 (170) and 20 (300) at 7 + floor(5 / 130 x 13) = 7 + 0, kept inside: 8 (does
// not). Two probes where galloping from 1 and bisecting took 1, 2, 4, 8, 6, 7.
TEST(Search, BoundaryAlongLineLandsOnAStraightLine) {
  std::vector<std::int64_t> probes;
  const auto at = [&](std::int64_t x) {
    probes.push_back(x);
    const double total = 100 + 10 * static_cast<double>(x);
    return line_probe{total <= 175, total};
  };
  EXPECT_EQ(boundary_along_line({0, 100}, {20, 300}, 175, at), 7);
  EXPECT_EQ(probes, (std::vector<std::int64_t>{7, 8}));
}

// The other direction (--n-cpu-moe: the total falls as x grows), 300 - 10 x against 175 B: 13 holds (170), 12 does
// not (180). From good 20 (100 B) towards bad 0 (300 B): 20 - floor(75 / 200 x 20) = 20 - 7 = 13 (holds), then
// 13 - max(1, floor(5 / 130 x 13)) = 12 (does not).
TEST(Search, BoundaryAlongLineSearchesDownwards) {
  std::vector<std::int64_t> probes;
  const auto at = [&](std::int64_t x) {
    probes.push_back(x);
    const double total = 300 - 10 * static_cast<double>(x);
    return line_probe{total <= 175, total};
  };
  EXPECT_EQ(boundary_along_line({20, 100}, {0, 300}, 175, at), 13);
  EXPECT_EQ(probes, (std::vector<std::int64_t>{13, 12}));
}

// Whatever the totals say (here a line that misleads: flat, then a jump), the answer is the predicate's boundary:
// for every boundary b in [1, 40], from good 1 and bad 41, the same as last_fitting_from, each position probed at
// most once and never an end.
TEST(Search, BoundaryAlongLineFindsEveryBoundaryAsBisectionDoes) {
  for (std::int64_t b = 1; b <= 40; ++b) {
    std::vector<std::int64_t> probes;
    const auto at = [&](std::int64_t x) {
      probes.push_back(x);
      return line_probe{x <= b, x < 30 ? 10.0 : 1000.0};
    };
    const std::int64_t expected = last_fitting_from(1, 40, [&](std::int64_t x) { return x <= b; });
    EXPECT_EQ(boundary_along_line({1, 10}, {41, 1000}, 500, at), expected) << b;
    EXPECT_EQ(expected, b);
    std::vector<std::int64_t> sorted = probes;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << b;
    for (const std::int64_t x : probes) {
      EXPECT_GT(x, 1) << b;
      EXPECT_LT(x, 41) << b;
    }
  }
}

// A missing total (a probe that did not resolve) makes the next probe the middle: between 0 and 10 without the bad
// end's total, 5.
TEST(Search, BoundaryAlongLineBisectsWithoutATotal) {
  std::vector<std::int64_t> probes;
  const auto at = [&](std::int64_t x) {
    probes.push_back(x);
    return line_probe{x <= 6, std::nullopt};
  };
  EXPECT_EQ(boundary_along_line({0, 1.0}, {10, std::nullopt}, 5, at), 6);
  EXPECT_EQ(probes, (std::vector<std::int64_t>{5, 7, 6}));
}

}  // namespace
