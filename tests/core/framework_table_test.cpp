// SPDX-License-Identifier: MIT
// The frameworks' table (core/src/frameworks/table.cpp): each row sits at its own framework_kind, and the solver's
// ZeRO stages start from plain data parallel (ZeRO 0), as docs/solve-and-advise.md ("Fewest devices") lists them.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "../../core/src/frameworks/framework_def.hpp"

namespace {

using namespace llm_memory;

constexpr std::array<framework_kind, 11> kinds = {
    framework_kind::generic,    framework_kind::hf,           framework_kind::deepspeed, framework_kind::fsdp,
    framework_kind::torchtune,  framework_kind::litgpt,       framework_kind::megatron,  framework_kind::unsloth,
    framework_kind::torchtitan, framework_kind::llamafactory, framework_kind::axolotl};

TEST(framework_table, each_row_is_its_own_kind) {
  for (const framework_kind k : kinds) EXPECT_EQ(detail::framework_of(k).kind, k);
}

TEST(framework_table, only_generic_sums_the_buckets) {
  // docs/methodology.md: every framework but generic takes the largest phase of a step.
  for (const framework_kind k : kinds) {
    const detail::framework_def& f = detail::framework_of(k);
    EXPECT_EQ(f.phased, k != framework_kind::generic);
    EXPECT_EQ(f.profile == nullptr, !f.phased);  // a profile is what a phased framework sets by default
    ASSERT_FALSE(f.zero_stages.empty());
    EXPECT_EQ(f.zero_stages.front(), 0);
  }
}

TEST(framework_table, stages_the_solver_tries) {
  // DeepSpeed's 0-3; FSDP's full sharding (ZeRO 3) or DDP; Megatron's distributed optimizer (ZeRO 1); Unsloth one
  // device.
  const auto stages = [](framework_kind k) {
    const auto s = detail::framework_of(k).zero_stages;
    return std::vector<std::int64_t>(s.begin(), s.end());
  };
  EXPECT_EQ(stages(framework_kind::deepspeed), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(stages(framework_kind::fsdp), (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(stages(framework_kind::megatron), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(stages(framework_kind::unsloth), (std::vector<std::int64_t>{0}));
  // torchtitan: fully_shard or one replica; LLaMA-Factory and axolotl: DeepSpeed's 0-3 through the Trainer.
  EXPECT_EQ(stages(framework_kind::torchtitan), (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(stages(framework_kind::llamafactory), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(stages(framework_kind::axolotl), (std::vector<std::int64_t>{0, 1, 2, 3}));
}

}  // namespace
