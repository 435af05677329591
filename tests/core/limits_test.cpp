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
  // Training at 1e7 tokens with the textbook attention (framework generic: scores materialised): the s^2 scores
  // alone, 32 heads x 1e14 x 2 B = 6.4e15 B per layer, pass 2^53 in total: refused, naming seq (the micro-batch
  // is already 1). Flash attention keeps no scores: accepted.
  const auto t = estimate(settings{{"model", "llama-2-7b"}, {"seq", "10000000"}, {"framework", "generic"}});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.errors()[0].setting, "seq");
  EXPECT_NE(t.errors()[0].message.find("2^53"), std::string::npos);
  const auto flash =
      ok({{"model", "llama-2-7b"}, {"seq", "10000000"}, {"framework", "generic"}, {"attention", "flash"}});
  EXPECT_LT(flash.total_bytes, 9007199254740992.0);
}

TEST(limits, hundred_thousand_devices) {
  // ZeRO-3 over 1e5 data-parallel devices: optimizer 84e9 / 1e5 = 840,000 B; gradients 14e9 / 1e5 = 140,000 B.
  const auto r = ok({{"params", "7e9"}, {"devices", "100000"}, {"zero", "3"}});
  EXPECT_EQ(r.bytes("optimizer"), 840000);
  EXPECT_EQ(r.bytes("gradients"), 140000);
}

TEST(limits, batch_of_a_million) {
  const auto r = ok({{"model", "meta-llama-3-8b"}, {"batch", "1000000"}, {"seq", "16"}, {"attention", "eager"}});
  EXPECT_TRUE(std::isfinite(r.total_bytes));
  EXPECT_FALSE(to_json(r).empty());
  // At seq 8192 the activations pass 2^53 bytes: refused, naming the micro-batch.
  const auto big = estimate(settings{{"model", "meta-llama-3-8b"}, {"batch", "1000000"}, {"seq", "8192"}});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.errors()[0].setting, "batch");
}

// Found by fuzz_estimate: each within its range, batch 1e7 x grad_accum 1e6 x 1e6 devices = 1e19 sequences per
// step overflowed a 64-bit integer. Past 2^53 (9,007,199,254,740,992) the step is refused, naming grad_accum;
// just below it, it is exact: 1e7 x 1e6 x 900 = 9e15.
TEST(limits, sequences_per_step_stay_exact) {
  const auto r = estimate(
      settings{{"framework", "generic"}, {"batch", "10000000"}, {"grad_accum", "1000000"}, {"devices", "1000000"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "grad_accum");
  // A one-token, one-layer model, so that 10^7 sequences of activations stay far below 2^53 bytes.
  const auto near = ok({{"batch", "10000000"},
                        {"grad_accum", "1000000"},
                        {"devices", "900"},
                        {"seq", "1"},
                        {"hidden_size", "64"},
                        {"num_attention_heads", "1"},
                        {"num_hidden_layers", "1"}});
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
  const auto r = estimate(settings{{"framework", "generic"},
                                   {"hidden_size", "1000000"},
                                   {"num_hidden_layers", "100000"},
                                   {"num_attention_heads", "1000"},
                                   {"intermediate_size", "10000000"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "hidden_size");
}

TEST(limits, a_hundred_thousand_experts_are_refused_naming_num_experts) {
  // Issue 37: 1e5 routed experts of at least 2 x 4096 x 65536 = 536,870,912 parameters each (up and down), in 32
  // layers, are 1.7e15 parameters, 16 B each with mixed-precision AdamW: 2.7e16 B > 2^53. All but top-2 experts
  // are unused per token, so the refusal names num_experts, not hidden_size.
  const auto r = estimate(settings{{"framework", "generic"},
                                   {"hidden_size", "4096"},
                                   {"num_hidden_layers", "32"},
                                   {"num_attention_heads", "32"},
                                   {"intermediate_size", "65536"},
                                   {"num_experts", "100000"},
                                   {"num_experts_per_tok", "2"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "num_experts");
}

// Issue 20: every byte count an estimate reports is an exact integer, so the ranges' products are bounded at
// 2^53 = 9,007,199,254,740,992 B (about 9 PB per device) and past it the estimate is refused, naming the setting.
// Inference, fp32, overhead none, flash attention, h 64, plain MLP of inner 256, one query and one K/V head of
// 64, 10^5 layers, seq 10^6, the params override 10^9: per token the residual and normalised hidden states
// 2 x 4 B x 64 = 512 B, the MLP workspace (up and activated outputs) 2 x 256 x 4 B = 2,048 B, the KV cache
// 2 x 10^5 x 64 x 4 B = 51,200,000 B: 51,202,560 B a token, plus 4 x 10^9 B of weights.
// runtime=transformers: the cache as allocated for the whole context (a vLLM profile would size its own pool).
settings kv_edge(std::string batch) {
  return {{"mode", "inference"},        {"runtime", "transformers"},
          {"weights_dtype", "fp32"},    {"overhead", "none"},
          {"attention", "flash"},       {"params", "1e9"},
          {"hidden_size", "64"},        {"intermediate_size", "256"},
          {"num_attention_heads", "1"}, {"num_hidden_layers", "100000"},
          {"seq", "1000000"},           {"batch", std::move(batch)}};
}

TEST(limits, largest_accepted_byte_counts_are_exact) {
  // Batch 175: 1.75e8 tokens x 51,202,560 B + 4e9 B = 8,960,452,000,000,000 B, below 2^53.
  const auto r = ok(kv_edge("175"));
  EXPECT_EQ(r.bytes("kv_cache"), 8960000000000000.0);
  EXPECT_EQ(r.total_bytes, 8960452000000000.0);
  EXPECT_NE(to_json(r).find("8960452000000000"), std::string::npos);  // an integer in JSON, not 8.96e+15
  // The largest params with its bytes alone: 10^15 fp32 weights for inference, 4e15 B.
  const auto p = ok({{"params", "1e15"},
                     {"mode", "inference"},
                     {"runtime", "transformers"},
                     {"weights_dtype", "fp32"},
                     {"seq", "1"}});
  EXPECT_EQ(p.bytes("parameters"), 4e15);
  EXPECT_NE(to_json(p).find("4000000000000000"), std::string::npos);
}

TEST(limits, one_step_past_2_pow_53_bytes_is_refused_naming_the_setting) {
  // Batch 176: 1.76e8 x 51,202,560 + 4e9 = 9,011,654,560,000,000 B > 2^53.
  const auto r = estimate(kv_edge("176"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "batch");
  EXPECT_NE(r.errors()[0].message.find("9011654560000000"), std::string::npos);
  // Training 10^15 fp32 parameters with AdamW: 4 + 4 + 8 = 16 B each, 1.6e16 B: refused, naming params.
  const auto p = estimate(settings{{"params", "1e15"}, {"weights_dtype", "fp32"}, {"seq", "1"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.errors()[0].setting, "params");
}

}  // namespace
