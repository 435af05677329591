// SPDX-License-Identifier: MIT
// The sweep: hand-derived coefficients, and differential tests of both kernels against estimate().
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "../random_settings.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/sweep.hpp"
#include "run_support.hpp"

using namespace llm_memory;

namespace {

// The textbook arithmetic (framework generic) unless a test names another framework.
run_spec resolved(settings s) {
  s.emplace("framework", "generic");
  return test::resolved(s);
}

lowered_estimate lowered(const settings& s) {
  auto r = lower(resolved(s));
  EXPECT_TRUE(r.ok());
  return r.value();
}

}  // namespace

// GPT layer of Korthikanti et al. 2022 (section 4.1, eq. 2): s b h (34 + 5 a s / h) bytes per layer with 16-bit
// activations, dropout and no recompute. Plus the embedding dropout mask (1 B x s b h) and the last stage's final
// norm and lm_head inputs (2 B + 2 B) x s b h; no vocabulary, so no logits; overhead none.
// h 64, L 2, a 4: bytes per sequence = s h (34 L + 1 + 4) + 5 a L s^2 = 4672 s + 40 s^2.
TEST(sweep, gpt_training_coefficients_match_korthikanti) {
  const auto low = lowered({{"hidden_size", "64"},
                            {"num_hidden_layers", "2"},
                            {"num_attention_heads", "4"},
                            {"vocab_size", "0"},
                            {"attention", "standard"},
                            {"overhead", "none"}});
  ASSERT_EQ(low.stages.size(), 1u);
  ASSERT_EQ(low.stages[0].pieces.size(), 1u);
  const seq_piece& p = low.stages[0].pieces[0];
  EXPECT_EQ(p.seq_first, 1);
  EXPECT_EQ(p.seq_last, 100000000);
  EXPECT_NEAR(p.c0, 0, 1e-6);
  EXPECT_NEAR(p.c1, 4672, 4672 * 1e-12);
  EXPECT_NEAR(p.c2, 40, 40 * 1e-12);
}

// Inference, flash attention (no scores), plain MLP, every layer sliding with window 100, no vocabulary.
// h 64, a 4, n_kv 4, head_dim 16, inner 4h = 256, L 2, 16-bit:
//   hidden states 2 x 2 B x s h = 256 s; largest transient = MLP 2 B x s x 2 x 256 = 1024 s
//   (q, k, v, o: 2 B x s x (2a + 2 n_kv) x 16 = 512 s is smaller);
//   KV cache 2 (K, V) x L x min(s, 100) x n_kv x head_dim x 2 B = 512 min(s, 100).
// So 1792 s up to s = 100, then 1280 s + 51200: the min(s, window) kink.
TEST(sweep, sliding_window_kink_is_a_piece_boundary) {
  // runtime=transformers: the whole prompt in one pass, as this textbook case was derived.
  const auto low = lowered({{"mode", "inference"},
                            {"runtime", "transformers"},
                            {"hidden_size", "64"},
                            {"num_hidden_layers", "2"},
                            {"num_attention_heads", "4"},
                            {"vocab_size", "0"},
                            {"attention", "flash"},
                            {"sliding_window", "100"},
                            {"overhead", "none"}});
  const auto& st = low.stages.at(0);
  EXPECT_NEAR(st.per_sequence(1), 1792, 1e-9);
  EXPECT_NEAR(st.per_sequence(50), 1792 * 50, 1e-9);
  EXPECT_NEAR(st.per_sequence(100), 179200, 1e-9);
  EXPECT_NEAR(st.per_sequence(101), 1280 * 101 + 51200, 1e-9);
  EXPECT_NEAR(st.per_sequence(1e6), 1280e6 + 51200, 1e-3);
}

// llama.cpp's cells (n_ctx padded to 256 per slot) make memory a step function of seq and batch: lower() marks
// the run pointwise, and every point of the grid is estimate() itself, bit for bit, for llamacpp and ollama, with
// partial offload too; the frontier is the largest batch estimate() fits (checked at b and b + 1).
TEST(sweep, llamacpp_points_are_the_scalar_estimate) {
  for (const char* runtime : {"llamacpp", "ollama"}) {
    for (const char* ngl : {"999", "20"}) {
      const auto spec = resolve({{"mode", "inference"},
                                 {"model", "llama-3.1-8b"},
                                 {"weights_dtype", "q4_k_m"},
                                 {"runtime", runtime},
                                 {"n_gpu_layers", ngl},
                                 {"gpu_memory", "8GiB"}});
      ASSERT_TRUE(spec.ok());
      const auto low = lower(spec.value());
      ASSERT_TRUE(low.ok()) << runtime;
      EXPECT_TRUE(low.value().pointwise);
      const std::vector<double> batch = {1, 2, 3, 7};
      const std::vector<double> seq = {1, 255, 256, 257, 4000, 32768};
      const sweep_grid g = sweep(low.value(), batch, seq);
      for (std::size_t i = 0; i < batch.size(); ++i)
        for (std::size_t j = 0; j < seq.size(); ++j) {
          const run_spec one = with_workload(spec.value(), static_cast<std::int64_t>(batch[i]),
                                             static_cast<std::int64_t>(seq[j]), spec.value().values.devices);
          EXPECT_EQ(g.total[i * seq.size() + j], estimate(one).total_bytes) << runtime << " b " << batch[i];
        }
      for (std::size_t j = 0; j < seq.size(); ++j) {
        const auto s = static_cast<std::int64_t>(seq[j]);
        const auto fits = [&](std::int64_t b) {
          return estimate(with_workload(spec.value(), b, s, 1)).total_bytes <= low.value().gpu_memory;
        };
        const std::int64_t mb = g.max_batch[j];
        if (mb > 0) {
          EXPECT_TRUE(fits(mb)) << runtime << " seq " << s;
        }
        if (mb < low.value().batch_limit) {
          EXPECT_FALSE(fits(mb + 1)) << runtime << " seq " << s << " mb " << mb;
        }
      }
    }
  }
}

// The step is visible: 600 and 700 tokens take the same 768 cells (ubatch 512 both), 800 takes 1024.
TEST(sweep, llamacpp_steps_every_256_tokens) {
  const auto spec = resolve({{"mode", "inference"}, {"model", "llama-3.1-8b"}, {"weights_dtype", "q4_k_m"}});
  ASSERT_TRUE(spec.ok());
  const auto low = lower(spec.value());
  ASSERT_TRUE(low.ok());
  const std::vector<double> batch = {1};
  const std::vector<double> seq = {600, 700, 800};
  const sweep_grid g = sweep(low.value(), batch, seq);
  EXPECT_EQ(g.total[0], g.total[1]);
  // 256 more cells x 32 layers x 8 KV heads x 128 x (K + V) x 2 B = 32 MiB more KV buffer; the compute buffer
  // is the logits phase (258.5 MiB) at both, so nothing else moves.
  EXPECT_EQ(g.total[2] - g.total[1], 32.0 * 1048576);
}

// The fragmentation reserve scales the growing part: 5 % on top of the 4672 s + 40 s^2 above.
TEST(sweep, fragmentation_scales_the_batch_terms) {
  const auto low = lowered({{"hidden_size", "64"},
                            {"num_hidden_layers", "2"},
                            {"num_attention_heads", "4"},
                            {"vocab_size", "0"},
                            {"attention", "standard"},
                            {"fragmentation", "5"}});
  EXPECT_NEAR(low.stages.at(0).per_sequence(1000), 1.05 * (4672e3 + 40e6), 1e-3);
}

namespace {

std::vector<double> random_axis(std::mt19937_64& rng, double lo, double hi) {
  const int n = std::uniform_int_distribution<int>(1, 11)(rng);  // 1 .. 11: ragged for 2 and 4 lanes
  std::vector<double> axis;
  for (int i = 0; i < n; ++i) {
    // Log-uniform integers, so short and long sequences and small and large batches all appear.
    const double x = std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
    axis.push_back(std::round(x));
  }
  return axis;
}

}  // namespace

// Both kernels give the same bits; both stay within the documented rounding bound of estimate() at every point;
// the frontier is exactly the largest micro-batch estimate() fits.
// The sanitiser build draws a fifth of the settings (property_cases): its estimates, one per phase of a step,
// are about twenty times slower.
constexpr int sweep_cases = llm_memory::testing::property_cases(2500);

TEST(sweep, kernels_agree_with_each_other_and_with_estimate) {
  std::mt19937_64 rng(20240612);
  int checked = 0, points = 0;
  for (int n = 0; n < sweep_cases; ++n) {
    const settings s = llm_memory::testing::random_settings(rng);
    const auto values = resolve(s);
    if (!values.ok()) continue;
    const auto low = lower(values.value());
    ASSERT_TRUE(low.ok()) << n;
    const lowered_estimate& l = low.value();
    // Pointwise runs (llama.cpp's cells, TGI's warmup: every point is estimate() itself, as
    // llamacpp_points_are_the_scalar_estimate checks); this test is about the lowered kernels.
    if (l.pointwise) continue;
    const auto batch = random_axis(rng, 1, 4096);
    const auto seq = random_axis(rng, 1, 262144);
    const sweep_grid scalar = sweep(l, batch, seq, kernel::scalar);
    const sweep_grid simd = sweep(l, batch, seq, kernel::simd);
    ASSERT_EQ(scalar.total.size(), batch.size() * seq.size());
    ASSERT_EQ(0, std::memcmp(scalar.total.data(), simd.total.data(), scalar.total.size() * sizeof(double))) << n;
    const run_spec& v = values.value();
    const auto total = [&](std::int64_t b, std::int64_t q) {
      return estimate(with_workload(v, b, q, v.values.devices)).total_bytes;
    };
    for (std::size_t i = 0; i < batch.size(); ++i) {
      for (std::size_t j = 0; j < seq.size(); ++j) {
        const double want = total(static_cast<std::int64_t>(batch[i]), static_cast<std::int64_t>(seq[j]));
        const double got = simd.total[i * seq.size() + j];
        const double slack = lowered_estimate::relative_tolerance * want;
        ASSERT_GE(want - got, -1 - slack) << "setting " << n << " b " << batch[i] << " s " << seq[j];
        ASSERT_LE(want - got, l.rounding_bound + slack) << "setting " << n << " b " << batch[i] << " s " << seq[j];
        ++points;
      }
    }
    // Frontier at the first seq: the largest b that fits, by estimate() itself.
    const std::int64_t mb = simd.max_batch[0];
    EXPECT_EQ(mb, scalar.max_batch[0]);
    auto fits = [&](std::int64_t b) { return total(b, static_cast<std::int64_t>(seq[0])) <= l.gpu_memory; };
    if (mb > 0) {
      EXPECT_TRUE(fits(mb)) << n;
    }
    if (mb < l.batch_limit) {
      EXPECT_FALSE(fits(mb + 1)) << n << " max_batch " << mb;
    }
    ++checked;
  }
  EXPECT_GT(checked, sweep_cases * 18 / 25);
  EXPECT_GT(points, sweep_cases * 8);
}

// A 1 x 1 grid, an empty axis, and grid widths 1 .. 9 around the lane counts.
TEST(sweep, degenerate_and_ragged_grids) {
  const auto l = lowered({{"model", ""}});
  const std::vector<double> one{1};
  EXPECT_EQ(sweep(l, one, one).total.size(), 1u);
  EXPECT_TRUE(sweep(l, {}, one).total.empty());
  std::vector<double> seq;
  for (int w = 1; w <= 9; ++w) {
    seq.push_back(256.0 * w);
    const std::vector<double> batch{1, 3, 8};
    const auto a = sweep(l, batch, seq, kernel::scalar), b = sweep(l, batch, seq, kernel::simd);
    EXPECT_EQ(a.total, b.total) << w;
  }
}

// evaluate() on hand-made columns: K = 1..4 stages, widths 1..9 (the AVX2 kernel's 4-wide vectors plus 0..3 tail
// columns, SIMD2's 2-wide plus 0..1), each stage winning somewhere, in a vector lane and in the tail. Column j's
// value does not depend on the width, so every width checks a prefix of one table. Stages, for j = 0..8:
//   0: 100 + b x 10 j     1: 150 + b x 5     2: 0 + b x (200 - 20 j)     3: 0 + b x (j odd ? 150 : 0)
// b = 1: stage 0 = 100 110 120 130 140 150 160 170 180, stage 1 = 155, stage 2 = 200 180 160 140 120 100 80 60 40,
//        stage 3 = 0 150 0 150 0 150 0 150 0 (never the largest);
// b = 3: stage 0 = 100 130 160 190 220 250 280 310 340, stage 1 = 165, stage 2 = 600 540 480 420 360 300 240 180 120,
//        stage 3 = 0 450 0 450 0 450 0 450 0.
// The expected rows are the max over the first K stages of those, column by column.
TEST(sweep, kernels_take_the_max_over_1_to_4_stages_at_every_width) {
  const std::vector<double> batch{1, 3};
  const double want[4][2][9] = {
      {{100, 110, 120, 130, 140, 150, 160, 170, 180}, {100, 130, 160, 190, 220, 250, 280, 310, 340}},  // K = 1
      {{155, 155, 155, 155, 155, 155, 160, 170, 180}, {165, 165, 165, 190, 220, 250, 280, 310, 340}},  // K = 2
      {{200, 180, 160, 155, 155, 155, 160, 170, 180}, {600, 540, 480, 420, 360, 300, 280, 310, 340}},  // K = 3
      {{200, 180, 160, 155, 155, 155, 160, 170, 180}, {600, 540, 480, 450, 360, 450, 280, 450, 340}},  // K = 4
  };
  const double fixed[4] = {100, 150, 0, 0};
  const auto slope = [](std::size_t st, std::size_t j) {
    const auto x = static_cast<double>(j);
    return st == 0 ? 10 * x : st == 1 ? 5.0 : st == 2 ? 200 - 20 * x : (j % 2 == 1 ? 150.0 : 0.0);
  };
  for (std::size_t stages = 1; stages <= 4; ++stages) {
    for (std::size_t width = 1; width <= 9; ++width) {
      sweep_columns c;
      c.seq_count = width;
      for (std::size_t st = 0; st < stages; ++st) {
        c.fixed.push_back(fixed[st]);
        for (std::size_t j = 0; j < width; ++j) c.slope.push_back(slope(st, j));
      }
      for (const kernel k : {kernel::scalar, kernel::simd}) {
        std::vector<double> out(batch.size() * width, -1);
        evaluate(c, batch, out, k);
        for (std::size_t i = 0; i < batch.size(); ++i)
          for (std::size_t j = 0; j < width; ++j)
            EXPECT_EQ(out[i * width + j], want[stages - 1][i][j])
                << "K " << stages << " width " << width << " b " << batch[i] << " column " << j
                << (k == kernel::simd ? " simd" : " scalar");
      }
    }
  }
}

// Brute force over b for a small model whose frontier is at a modest batch.
TEST(sweep, max_batch_equals_brute_force) {
  const settings s{{"framework", "generic"},     {"hidden_size", "256"},  {"num_hidden_layers", "4"},
                   {"num_attention_heads", "4"}, {"vocab_size", "32000"}, {"gpu_memory", "2GB"},
                   {"cuda_context", "0"}};
  const auto l = lowered(s);
  const std::vector<double> seq{64, 512, 1000, 4096};
  const auto mb = max_batch(l, seq);
  const run_spec v = resolved(s);
  for (std::size_t j = 0; j < seq.size(); ++j) {
    std::int64_t brute = 0;
    const auto q = static_cast<std::int64_t>(seq[j]);
    for (std::int64_t b = 1; b < 100000 && estimate(with_workload(v, b, q, 1)).total_bytes <= l.gpu_memory; ++b)
      brute = b;
    EXPECT_EQ(mb[j], brute) << seq[j];
  }
}

TEST(sweep, devices_by_zero_stage) {
  const std::vector<std::int64_t> devices{1, 8};
  const auto r = sweep_parallel({{"model", ""}, {"framework", "generic"}}, devices);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().size(), 8u);
  // ZeRO is a no-op on one device; over 8 devices each stage shards more (seed 1: ZeRO-3 divides state by N).
  EXPECT_EQ(r.value()[0], r.value()[3]);
  EXPECT_GT(r.value()[4], r.value()[5]);
  EXPECT_GT(r.value()[5], r.value()[6]);
  EXPECT_GT(r.value()[6], r.value()[7]);
  const auto bad = sweep_parallel({{"tp", "2"}}, std::vector<std::int64_t>{3});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors()[0].setting, "devices");
}

// Axis syntax: a:b doubles from a (1..256 = 2^0..2^8, 9 values); a:b:n is n evenly spaced integers,
// 1:10:4 = 1 + 9 i / 3 for i = 0..3 = 1, 4, 7, 10.
TEST(sweep, axis_syntax) {
  const auto pow2 = parse_axis("batch", "1:256");
  ASSERT_TRUE(pow2.ok());
  EXPECT_EQ(pow2.value(), (std::vector<double>{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(parse_axis("seq", "256:131072").value().size(), 10u);
  EXPECT_EQ(parse_axis("batch", "1:10:4").value(), (std::vector<double>{1, 4, 7, 10}));
  EXPECT_EQ(parse_axis("seq", "2048").value(), (std::vector<double>{2048}));
  for (const char* bad : {"0:4", "4:1", "1:2:3:4", "1:8:0", "a:b", "1:1e9"}) {
    const auto r = parse_axis("batch", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.errors()[0].setting, "batch") << bad;
  }
}

// Issue 20: a grid past 2^20 cells took 11-17 s to compute and print; the longer axis is named.
TEST(sweep, grid_size_is_bounded_naming_the_longer_axis) {
  EXPECT_FALSE(grid_size_error(1024, 1024).has_value());
  EXPECT_FALSE(grid_size_error(4096, 256).has_value());
  ASSERT_TRUE(grid_size_error(1025, 1024).has_value());
  EXPECT_EQ(grid_size_error(1025, 1024)->setting, "batch");
  EXPECT_EQ(grid_size_error(4096, 4096)->setting, "batch");
  EXPECT_EQ(grid_size_error(1024, 1025)->setting, "seq");
}
