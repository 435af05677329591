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

#include "formula_texts.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/fits.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/resolve.hpp"
#include "text.hpp"

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

// A fitting row is the full estimate of its own settings (the ranking estimates without formula texts:
// formula_texts.hpp): the same device total, host bytes and speed bound, and it fits.
void expect_full_estimates(const fits_result& r, const std::string& where) {
  for (const fits_row& row : r.rows) {
    if (!row.fits) continue;
    const auto e = estimate(row.delta);
    ASSERT_TRUE(e.ok()) << where << " " << row.model;
    EXPECT_EQ(e.value().total_bytes, row.total_bytes) << where << " " << row.model;
    EXPECT_EQ(e.value().cpu_bytes, row.host_bytes) << where << " " << row.model;
    EXPECT_TRUE(e.value().fits) << where << " " << row.model;
    const gpu_preset* gpu = find_gpu(row.delta.at("gpu"));
    ASSERT_NE(gpu, nullptr) << where;
    const auto speed = speed_of(e.value(), *gpu);
    EXPECT_EQ(speed ? speed->decode_tokens_per_s : 0, row.decode_tokens_per_s) << where << " " << row.model;
    EXPECT_FALSE(e.value().buckets[0].items.empty() || e.value().buckets[0].items[0].formula.empty())
        << "the full estimate after a ranking writes its texts: " << where << " " << row.model;
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

// The estimate the ranking makes (estimate_totals: no formula texts) has every number of the full estimate, for
// every catalogue model on the ranking's runtimes and offload settings: llama.cpp with layers and experts on the
// host, vLLM's KV budget, QLoRA training. Its texts are empty, and the full estimate after it has its texts again.
TEST(FitsTotals, TheEstimateWithoutTextsHasEveryNumberOfTheFullOne) {
  const std::vector<settings> runs = {
      {{"mode", "inference"},
       {"runtime", "llamacpp"},
       {"weights_dtype", "q4_k_m"},
       {"n_gpu_layers", "7"},
       {"host_ram", "64000000000"}},
      {{"mode", "inference"}, {"runtime", "llamacpp"}, {"weights_dtype", "q6_k"}, {"n_cpu_moe", "5"}, {"seq", "32768"}},
      {{"mode", "inference"}, {"runtime", "vllm"}, {"gpu", "h100-80gb"}, {"tp", "2"}, {"devices", "2"}},
      {{"mode", "train"}, {"finetune", "qlora"}, {"recompute", "full"}, {"seq", "2048"}},
  };
  std::vector<int> compared(runs.size(), 0);
  for (const model_preset& m : model_presets()) {
    for (std::size_t run = 0; run < runs.size(); ++run) {
      settings s = runs[run];
      s.emplace("model", m.id);
      s.emplace("gpu", "rtx-4090");
      const auto spec = resolve(s);
      if (!spec.ok()) continue;  // a run the model cannot take (an encoder on a runtime)
      const estimate_result full = estimate(spec.value());
      const std::string model_at = m.id + " " + (s.contains("runtime") ? s.at("runtime") : "train");
      ++compared[run];
      // With the run's settings and model (the rows' estimates), and without them (the searches' probes).
      for (const bool with_run : {true, false}) {
        const estimate_result totals = detail::estimate_totals(spec.value(), with_run);
        const std::string at = model_at + (with_run ? "" : " without the run");
        EXPECT_EQ(totals.settings.seq, with_run ? full.settings.seq : setting_values{}.seq) << at;
        EXPECT_EQ(totals.model.params.loaded(), with_run ? full.model.params.loaded() : 0) << at;
        EXPECT_EQ(totals.inference, full.inference) << at;
        EXPECT_EQ(totals.total_bytes, full.total_bytes) << at;
        EXPECT_EQ(totals.cpu_bytes, full.cpu_bytes) << at;
        EXPECT_EQ(totals.fits, full.fits) << at;
        EXPECT_EQ(totals.fits_in_ram, full.fits_in_ram) << at;
        EXPECT_EQ(totals.peak.allocated, full.peak.allocated) << at;
        EXPECT_EQ(totals.peak.reserved, full.peak.reserved) << at;
        EXPECT_EQ(totals.peak.phase, full.peak.phase) << at;
        ASSERT_EQ(totals.buckets.size(), full.buckets.size()) << at;
        for (std::size_t b = 0; b < full.buckets.size(); ++b) {
          EXPECT_EQ(totals.buckets[b].bytes, full.buckets[b].bytes) << at << " " << full.buckets[b].key;
          ASSERT_EQ(totals.buckets[b].items.size(), full.buckets[b].items.size()) << at;
          for (std::size_t i = 0; i < full.buckets[b].items.size(); ++i) {
            EXPECT_EQ(totals.buckets[b].items[i].bytes, full.buckets[b].items[i].bytes) << at;
            EXPECT_EQ(totals.buckets[b].items[i].formula, "") << at;
          }
        }
        ASSERT_EQ(totals.phases.size(), full.phases.size()) << at;
        for (std::size_t i = 0; i < full.phases.size(); ++i)
          EXPECT_EQ(totals.phases[i].allocated, full.phases[i].allocated) << at;
        const runtime_report &a = totals.runtime, &b = full.runtime;
        EXPECT_EQ(a.budget, b.budget) << at;
        EXPECT_EQ(a.kv_available, b.kv_available) << at;
        EXPECT_EQ(a.kv_capacity_tokens, b.kv_capacity_tokens) << at;
        EXPECT_EQ(a.max_concurrency, b.max_concurrency) << at;
        EXPECT_EQ(a.max_context, b.max_context) << at;
        EXPECT_EQ(a.has_buffers, b.has_buffers) << at;
        EXPECT_EQ(a.model_buffer, b.model_buffer) << at;
        EXPECT_EQ(a.host_buffer, b.host_buffer) << at;
        EXPECT_EQ(a.kv_buffer, b.kv_buffer) << at;
        EXPECT_EQ(a.compute_buffer, b.compute_buffer) << at;
        EXPECT_EQ(a.host_compute_buffer, b.host_compute_buffer) << at;
        EXPECT_EQ(a.kv_cells, b.kv_cells) << at;
        EXPECT_TRUE(totals.notes.empty()) << at;
      }
      EXPECT_FALSE(full.buckets[0].items.empty() || full.buckets[0].items[0].formula.empty()) << model_at;
    }
  }
  // Each run for most of the catalogue (the models vLLM cannot split over tp 2 skipped).
  for (std::size_t run = 0; run < runs.size(); ++run) EXPECT_GT(compared[run], 200) << run;
  EXPECT_TRUE(detail::formula_texts_on());
  EXPECT_FALSE(detail::group_digits(4096).empty());
}

}  // namespace
