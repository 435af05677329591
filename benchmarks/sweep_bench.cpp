// SPDX-License-Identifier: MIT
// Points per second of the sweep kernel: scalar, SIMD (vector extensions), and hand-written AVX2 intrinsics
// (the "measure which is faster" check), each over a grid of n x n points and K stages; plus the lowering and a
// whole 1024 x 1024 sweep. scripts/bench.sh runs this and benchmarks/sweep_bench.mjs and prints the ratios
// (docs/performance.md).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "llm_memory/sweep.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using namespace llm_memory;

// Llama-2-7B-shaped training step (the default architecture), the grid the page draws.
const lowered_estimate& lowered() {
  static const lowered_estimate l = lower(resolve({}).value()).value();
  return l;
}

std::vector<double> seq_axis(std::size_t n) {
  std::vector<double> seq;
  for (std::size_t j = 0; j < n; ++j)
    seq.push_back(std::round(256 + (131072.0 - 256) * static_cast<double>(j) /
                                       static_cast<double>(std::max<std::size_t>(1, n - 1))));
  return seq;
}

std::vector<double> batch_axis(std::size_t n) {
  std::vector<double> batch;
  for (std::size_t i = 0; i < n; ++i) batch.push_back(static_cast<double>(i + 1));
  return batch;
}

// The grid's columns with the first K stages of the lowering (a training step has 4: its phases), so that every
// kernel is timed on the same work: K slope loads, 2K flops, K - 1 compares and one 8-byte store per point.
sweep_columns columns_of(std::size_t n, std::size_t stages) {
  sweep_columns c = columns(lowered(), seq_axis(n));
  c.fixed.resize(stages);
  c.slope.resize(stages * n);
  return c;
}

void counters(benchmark::State& state, std::size_t n, const std::string& label) {
  state.SetItemsProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * n * n));
  state.SetBytesProcessed(
      static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * n * n * sizeof(double)));
  state.SetLabel(label);
}

void run(benchmark::State& state, kernel k) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto batch = batch_axis(n);
  const sweep_columns c = columns_of(n, static_cast<std::size_t>(state.range(1)));
  std::vector<double> out(n * n);
  for (auto _ : state) {
    evaluate(c, batch, out, k);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  counters(state, n, k == kernel::simd ? std::string(simd_isa()) : "scalar");
}

void scalar(benchmark::State& state) { run(state, kernel::scalar); }
void simd(benchmark::State& state) { run(state, kernel::simd); }

#if defined(__x86_64__)
// The same kernel with AVX2 intrinsics, for comparison with the vector-extension code in sweep.cpp: per 4 columns,
// every stage's fixed + b x slope, the max in a register (_mm256_max_pd(t, best) is t > best ? t : best), one store.
__attribute__((target("avx2"))) void avx2_rows(const sweep_columns& c, const std::vector<double>& batch, double* out) {
  const std::size_t n = c.seq_count, stages = c.fixed.size(), whole = n - n % 4;
  const double* const fixed = c.fixed.data();
  const double* const slope = c.slope.data();
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const __m256d b = _mm256_set1_pd(batch[i]);
    double* const row = out + i * n;
    for (std::size_t j = 0; j < whole; j += 4) {
      __m256d best = _mm256_add_pd(_mm256_set1_pd(fixed[0]), _mm256_mul_pd(b, _mm256_loadu_pd(slope + j)));
      for (std::size_t st = 1; st < stages; ++st) {
        const __m256d t =
            _mm256_add_pd(_mm256_set1_pd(fixed[st]), _mm256_mul_pd(b, _mm256_loadu_pd(slope + st * n + j)));
        best = _mm256_max_pd(t, best);
      }
      _mm256_storeu_pd(row + j, best);
    }
    for (std::size_t j = whole; j < n; ++j) {
      double best = fixed[0] + batch[i] * slope[j];
      for (std::size_t st = 1; st < stages; ++st) {
        const double t = fixed[st] + batch[i] * slope[st * n + j];
        best = t > best ? t : best;
      }
      row[j] = best;
    }
  }
}

void intrinsics(benchmark::State& state) {
  if (simd_isa() != "avx2") {
    state.SkipWithError("no AVX2");
    return;
  }
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto batch = batch_axis(n);
  const sweep_columns c = columns_of(n, static_cast<std::size_t>(state.range(1)));
  std::vector<double> out(n * n);
  for (auto _ : state) {
    avx2_rows(c, batch, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  counters(state, n, "avx2 intrinsics");
}
BENCHMARK(intrinsics)->ArgsProduct({{64, 256, 1024}, {1, 2, 3, 4}});
#endif

// Lowering: the estimate() probes that read off the coefficients (once per input change).
void lowering(benchmark::State& state) {
  const run_spec v = resolve({}).value();
  for (auto _ : state) benchmark::DoNotOptimize(lower(v));
}

// Everything the page does per input change for a 1024 x 1024 grid: lower, columns, kernel, frontier.
void whole_sweep_1024(benchmark::State& state) {
  const run_spec v = resolve({}).value();
  const auto batch = batch_axis(1024), seq = seq_axis(1024);
  for (auto _ : state) benchmark::DoNotOptimize(sweep(lower(v).value(), batch, seq));
}

}  // namespace

// Arguments: n (grid n x n), K (stages).
BENCHMARK(scalar)->ArgsProduct({{64, 256, 1024}, {1, 2, 3, 4}});
BENCHMARK(simd)->ArgsProduct({{64, 256, 1024}, {1, 2, 3, 4}});
BENCHMARK(lowering)->Unit(benchmark::kMillisecond);
BENCHMARK(whole_sweep_1024)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
