// SPDX-License-Identifier: MIT
// Numeric limits (issue 9): huge but valid inputs give finite, exact results; beyond the table's ranges
// the error names the setting.
#include <gtest/gtest.h>

#include <cmath>

#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"

namespace {

using namespace llm_memory;

// The textbook arithmetic (framework generic): these tests check the bounds of the sum of every bucket.
estimate_result ok(settings s) {
  s.emplace("framework", "generic");
  auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value() : estimate_result{};
}

TEST(limits, ten_trillion_parameters) {
  // 1e13 x 2 B = 2e13 B of bf16 weights; gradients the same; optimizer 12 x 1e13 = 1.2e14 B.
  const auto r = ok({{"params", "10T"}});
  EXPECT_EQ(r.bytes("parameters"), 2e13);
  EXPECT_EQ(r.bytes("optimizer"), 1.2e14);
  EXPECT_TRUE(std::isfinite(r.total_bytes));
}

TEST(limits, ten_million_token_context) {
  // KV cache 2 x 32 layers x 1e7 tokens x 32 heads x 128 x 2 B = 5,242,880,000,000 B.
  const auto r = ok({{"model", "llama-2-7b"}, {"mode", "inference"}, {"seq", "10000000"}});
  EXPECT_EQ(r.bytes("kv_cache"), 5242880000000.0);
  // Training at 1e7 tokens: the s^2 scores reach ~1e17 B per layer, still finite.
  const auto t = ok({{"model", "llama-2-7b"}, {"seq", "10000000"}});
  EXPECT_TRUE(std::isfinite(t.total_bytes));
  EXPECT_GT(t.bytes("activations"), 1e17);
}

TEST(limits, hundred_thousand_devices) {
  // ZeRO-3 over 1e5 data-parallel devices: optimizer 84e9 / 1e5 = 840,000 B; gradients 14e9 / 1e5 = 140,000 B.
  const auto r = ok({{"params", "7e9"}, {"devices", "100000"}, {"zero", "3"}});
  EXPECT_EQ(r.bytes("optimizer"), 840000);
  EXPECT_EQ(r.bytes("gradients"), 140000);
}

TEST(limits, batch_of_a_million) {
  const auto r = ok({{"model", "meta-llama-3-8b"}, {"batch", "1000000"}, {"seq", "8192"}, {"attention", "eager"}});
  EXPECT_TRUE(std::isfinite(r.total_bytes));
  EXPECT_FALSE(to_json(r).empty());
}

// Found by fuzz_estimate: each within its range, batch 1e7 x grad_accum 1e6 x 1e6 devices = 1e19 sequences per
// step overflowed a 64-bit integer. Past 2^53 (9,007,199,254,740,992) the step is refused, naming grad_accum;
// just below it, it is exact: 1e7 x 1e6 x 900 = 9e15.
TEST(limits, sequences_per_step_stay_exact) {
  const auto r = estimate(settings{{"framework", "generic"}, {"batch", "10000000"}, {"grad_accum", "1000000"}, {"devices", "1000000"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "grad_accum");
  const auto near = ok({{"batch", "10000000"}, {"grad_accum", "1000000"}, {"devices", "900"}});
  EXPECT_EQ(near.effective_batch, 9000000000000000);
}

TEST(limits, beyond_the_ranges_the_setting_is_named) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"params", "1e16"}, {"seq", "1e9"}, {"devices", "2e6"}, {"batch", "1e8"}, {"hidden_size", "1e7"}}) {
    const auto r = estimate(settings{{key, value}});
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_EQ(r.errors()[0].setting, key);
  }
}

TEST(limits, architectures_beyond_2_pow_53_parameters_are_rejected) {
  const auto r = estimate(settings{{"framework", "generic"}, {"hidden_size", "1000000"}, {"num_hidden_layers", "100000"},
                                   {"num_attention_heads", "1000"}, {"intermediate_size", "10000000"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "hidden_size");
}

}  // namespace
