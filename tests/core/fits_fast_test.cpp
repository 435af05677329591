// SPDX-License-Identifier: MIT
// The ranking's kept runs (fits.cpp, "runs kept across rankings"): a ranking that takes llama.cpp's and training's
// runs from other devices' rankings must answer, for every catalogue model, exactly as a ranking with nothing kept
// (each run resolved and estimated on the device itself), and each fitting row as the full estimate of its own
// settings. The devices differ in what the kept runs must not carry over: memory (12 GiB to 80 GB), backend (CUDA,
// Metal: vLLM refused; ROCm), the A100 and >= 70 GiB rules of vLLM's batch defaults (runtimes/vllm.cpp); the
// requests in task, host RAM (the -ngl and --n-cpu-moe searches), device count (tensor / layer split) and context.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/fits.hpp"

namespace {

using namespace llm_memory;

const std::vector<std::string> devices = {"rtx-3060-12gb", "rtx-4090", "m4-16gb", "a100-40gb", "mi300x", "h100-80gb"};

fits_result ranked(fits_request q, const std::string& gpu) {
  q.gpu = gpu;
  const auto r = fits(q);
  EXPECT_TRUE(r.ok()) << gpu;
  return r.ok() ? r.value() : fits_result{};
}

// Every field of every row, exactly (bytes, contexts and speeds as doubles compared with ==).
void expect_same(const fits_result& kept, const fits_result& fresh, const std::string& where) {
  EXPECT_EQ(kept.fitting, fresh.fitting) << where;
  ASSERT_EQ(kept.rows.size(), fresh.rows.size()) << where;
  for (std::size_t i = 0; i < kept.rows.size(); ++i) {
    const fits_row &a = kept.rows[i], &b = fresh.rows[i];
    const std::string at = where + " " + b.model;
    EXPECT_EQ(a.model, b.model) << at;
    EXPECT_EQ(a.fits, b.fits) << at;
    EXPECT_EQ(a.format, b.format) << at;
    EXPECT_EQ(a.runtime, b.runtime) << at;
    EXPECT_EQ(a.max_context, b.max_context) << at;
    EXPECT_EQ(a.gpu_layers, b.gpu_layers) << at;
    EXPECT_EQ(a.offloaded_share, b.offloaded_share) << at;
    EXPECT_EQ(a.n_cpu_moe, b.n_cpu_moe) << at;
    EXPECT_EQ(a.host_bytes, b.host_bytes) << at;
    EXPECT_EQ(a.total_bytes, b.total_bytes) << at;
    EXPECT_EQ(a.decode_tokens_per_s, b.decode_tokens_per_s) << at;
    EXPECT_EQ(a.delta, b.delta) << at;
  }
}

// A fitting row is the full estimate of its own settings: the same device total, and it fits.
void expect_full_estimates(const fits_result& r, const std::string& where) {
  for (const fits_row& row : r.rows) {
    if (!row.fits) continue;
    const auto e = estimate(row.delta);
    ASSERT_TRUE(e.ok()) << where << " " << row.model;
    EXPECT_EQ(e.value().total_bytes, row.total_bytes) << where << " " << row.model;
    EXPECT_TRUE(e.value().fits) << where << " " << row.model;
  }
}

// Each device ranked with nothing kept, then all of them one after another (each taking what the ones before kept),
// forwards and backwards: the same rows.
void expect_kept_runs_change_nothing(const fits_request& q, const std::string& name) {
  std::vector<fits_result> fresh;
  for (const std::string& gpu : devices) {
    forget_kept_runs();
    fresh.push_back(ranked(q, gpu));
    expect_full_estimates(fresh.back(), name + " " + gpu);
  }
  forget_kept_runs();
  for (std::size_t i = 0; i < devices.size(); ++i)
    expect_same(ranked(q, devices[i]), fresh[i], name + " after the devices before " + devices[i]);
  forget_kept_runs();
  for (std::size_t i = devices.size(); i-- > 0;)
    expect_same(ranked(q, devices[i]), fresh[i], name + " after the devices after " + devices[i]);
}

TEST(FitsKeptRuns, RunWithHostRamAnswersAsWithNothingKept) {
  fits_request q;
  q.ram_bytes = 64e9;  // one device with host RAM: the --n-cpu-moe and -ngl searches run
  expect_kept_runs_change_nothing(q, "run --ram 64GB");
}

TEST(FitsKeptRuns, TwoDevicesAndALongContextAnswerAsWithNothingKept) {
  fits_request q;
  q.devices = 2;
  q.seq = 32768;
  expect_kept_runs_change_nothing(q, "run --devices 2 --seq 32768");
}

TEST(FitsKeptRuns, TrainingAnswersAsWithNothingKept) {
  fits_request q;
  q.task = fits_task::qlora;
  expect_kept_runs_change_nothing(q, "qlora");
  q.task = fits_task::full;
  q.seq = 2048;
  expect_kept_runs_change_nothing(q, "full --seq 2048");
}

// A request that differs only in host RAM does not take the other's runs: the key holds every setting but the GPU.
TEST(FitsKeptRuns, AnotherHostRamIsAnotherRun) {
  fits_request q;
  q.ram_bytes = 64e9;
  forget_kept_runs();
  const fits_result fresh = ranked(q, "rtx-3060-12gb");
  q.ram_bytes = 8e9;
  forget_kept_runs();
  const fits_result small_fresh = ranked(q, "rtx-3060-12gb");
  q.ram_bytes = 64e9;
  forget_kept_runs();
  ranked(q, "rtx-3060-12gb");
  q.ram_bytes = 8e9;
  expect_same(ranked(q, "rtx-3060-12gb"), small_fresh, "8 GB after 64 GB");
  EXPECT_NE(fresh.fitting, small_fresh.fitting);  // 8 GB of RAM holds fewer offloaded models than 64 GB
}

}  // namespace
