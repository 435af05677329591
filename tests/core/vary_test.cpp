// SPDX-License-Identifier: MIT
// The one way to vary a run (vary(), resolve.hpp): it keeps what the run was resolved from (the GGUF file
// included), re-resolves where the run's profile reads a moved axis (profile_axes.cpp), and so the searches'
// answers, applied as settings, give the searches' own totals.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <random>
#include <string>

#include "../random_settings.hpp"
#include "llm_memory/advise.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/gpu_fit.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/solve.hpp"
#include "llm_memory/sweep.hpp"

namespace {

using namespace llm_memory;

std::string text_of(const settings& s) {
  std::string out;
  for (const auto& [key, value] : s) out += " --" + key + " " + value;
  return out;
}

settings with(settings s, const settings& changes) {
  for (const auto& [key, value] : changes) s.insert_or_assign(key, value);
  return s;
}

// ---- the GGUF file is part of the run ---------------------------------------------------------------------------

// The two-block file of llamacpp_test.cpp, as placed: token_embd F16 [64, 3] = 384 B (host), blk.0 Q4_0 2,304 B,
// blk.1 Q8_0 4,352 B, output_norm F32 256 B + output Q8_0 204 B. On the GPU with every layer offloaded:
// 2,304 + 4,352 + 256 + 204 = 7,116 B, whatever the sequence (the q4_k_m mix rule would give other bytes).
std::shared_ptr<const gguf_placement> two_block_file() {
  gguf_placement p;
  p.add("token_embd.weight", 384);
  p.add("blk.0.attn_q.weight", 2304);
  p.add("blk.1.attn_q.weight", 4352);
  p.add("output_norm.weight", 256);
  p.add("output.weight", 204);
  return std::make_shared<const gguf_placement>(p);
}

constexpr double file_on_gpu = 2304 + 4352 + 256 + 204;

// The file's header as config.json settings (llama.embedding_length 64, block_count 2, head_count 4 / 2 KV,
// feed_forward_length 128, 3 tokens; 8,640 elements).
const settings gguf_config = {{"hidden_size", "64"},
                              {"num_hidden_layers", "2"},
                              {"num_attention_heads", "4"},
                              {"num_key_value_heads", "2"},
                              {"intermediate_size", "128"},
                              {"vocab_size", "3"},
                              {"params", "8640"}};
const settings gguf_run = {{"mode", "inference"}, {"runtime", "llamacpp"}, {"weights_dtype", "q4_k_m"}, {"seq", "256"}};

run_spec resolved_gguf(const settings& s = gguf_run) {
  auto r = resolve(s, gguf_config, two_block_file());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value() : run_spec{};
}

TEST(vary, keeps_the_gguf_file_on_both_paths) {
  const run_spec base = resolved_gguf();
  ASSERT_NE(base.gguf(), nullptr);
  EXPECT_EQ(estimate(base).bytes("parameters"), file_on_gpu);
  // seq: the fast path (llama.cpp's profile reads nothing); cache_type_k: resolved again from the inputs.
  for (const settings& changes :
       {settings{{"seq", "128"}}, settings{{"cache_type_k", "q8_0"}, {"attention", "flash"}}}) {
    const auto r = vary(base, changes);
    ASSERT_TRUE(r.ok()) << to_string(r.errors()[0]);
    EXPECT_EQ(r.value().gguf(), base.gguf());
    EXPECT_EQ(estimate(r.value()).bytes("parameters"), file_on_gpu);
    // The changes are recorded: varying again starts from them.
    for (const auto& [key, value] : changes) EXPECT_EQ(r.value().inputs->explicit_values.at(key), value);
  }
}

// advise moved "half the sequence" through the bf16-mix rule (7,116 -> 8,510 B): the weights never move for a knob
// that does not touch them.
TEST(vary, advise_keeps_the_files_bytes) {
  const advice_result a = advise(resolved_gguf());
  bool saw_half_seq = false;
  for (const auto& k : a.knobs) {
    const bool touches_weights = k.delta.contains("weights_dtype") || k.delta.contains("tp") ||
                                 k.delta.contains("pp") || k.delta.contains("n_gpu_layers");
    if (touches_weights) continue;
    saw_half_seq = saw_half_seq || k.id == "half_seq";
    for (const auto& c : k.changes) EXPECT_NE(c.bucket, "parameters") << k.id;
  }
  EXPECT_TRUE(saw_half_seq);
}

// --gpus rows differed from --gpu by the same bytes: each row is the run with gpu = the preset, the file kept.
TEST(vary, gpu_fit_keeps_the_files_bytes) {
  const gpu_fit_result fit = gpu_fit(resolved_gguf());
  ASSERT_FALSE(fit.rows.empty());
  for (const auto& row : fit.rows) {
    const auto on_gpu = resolve(with(gguf_run, {{"gpu", row.id}}), gguf_config, two_block_file());
    if (!on_gpu.ok()) {  // a device llama.cpp does not run on (Gaudi): the row says why
      EXPECT_FALSE(row.needed.message.empty()) << row.id;
      continue;
    }
    const estimate_result e = estimate(on_gpu.value());
    EXPECT_EQ(e.bytes("parameters"), file_on_gpu) << row.id;
    EXPECT_EQ(row.total_bytes, e.total_bytes) << row.id;
  }
}

// ---- a profile that reads a moved axis ------------------------------------------------------------------------

// TGI 1.4.1 - 2.3: max_batch_prefill_tokens = max_input_tokens + 50 = (seq - 1) + 50 (runtime_profile.cpp). A run
// varied to another seq must carry that seq's value, or the solver answers for a prefill of the old seq.
const settings tgi_141 = {{"mode", "inference"},        {"runtime", "tgi"}, {"tgi_version", "1.4.1"},
                          {"model", "meta-llama-3-8b"}, {"gpu", "l4"},      {"seq", "4096"}};

TEST(vary, tgi_141_prefill_tokens_follow_seq) {
  const auto base = resolve(tgi_141);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(base.value().values.max_num_batched_tokens, 4096 - 1 + 50);
  const auto moved = vary(base.value(), {{"seq", "38332"}});
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved.value().values.max_num_batched_tokens, 38332 - 1 + 50);
  // TGI 3.3 reads no axis: max_batch_prefill_tokens stays 4096 (the fast path).
  const auto v33 = resolve(with(tgi_141, {{"tgi_version", "3.3"}}));
  ASSERT_TRUE(v33.ok());
  EXPECT_EQ(vary(v33.value(), {{"seq", "38332"}}).value().values.max_num_batched_tokens, 4096);
}

// The solver's longest context, applied, is the run the solver estimated: its prefill is q - 1 + 50 tokens, its
// total the answer's, it fits, and one token more does not.
TEST(vary, tgi_141_solver_answer_is_the_applied_run) {
  const auto base = resolve(tgi_141);
  ASSERT_TRUE(base.ok());
  const solve_result solved = solve(base.value());
  ASSERT_TRUE(solved.max_seq.found);
  const std::int64_t q = solved.max_seq.value;
  const auto applied = resolve(with(tgi_141, solved.max_seq.delta));
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(applied.value().values.max_num_batched_tokens, q - 1 + 50);
  const estimate_result at_q = estimate(applied.value());
  EXPECT_EQ(at_q.total_bytes, solved.max_seq.total_bytes);
  EXPECT_TRUE(at_q.fits);
  const auto one_more = estimate(with(tgi_141, {{"seq", std::to_string(q + 1)}}));
  ASSERT_TRUE(one_more.ok());
  EXPECT_FALSE(one_more.value().fits);
  // The sweep at (1, q) and (1, q + 1): the same totals, and the frontier 1 then 0.
  sweep_request request{tgi_141, {}};
  request.batch = "1";
  request.seq = std::to_string(q) + ":" + std::to_string(q + 1) + ":2";
  const auto run = run_sweep(request);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run.value().grid.total[0], at_q.total_bytes);
  EXPECT_EQ(run.value().grid.total[1], one_more.value().total_bytes);
  EXPECT_EQ(run.value().grid.max_batch, (std::vector<std::int64_t>{1, 0}));
}

// torchtune's full fine-tune on one device runs full_finetune_single_device (8-bit paged AdamW); from two devices
// the distributed recipe (the table's AdamW). Moving 1 -> 2 devices re-resolves; 2 -> 4 reads the same profile.
TEST(vary, torchtune_recipe_follows_the_device_count) {
  const auto one = resolve({{"framework", "torchtune"}, {"finetune", "full"}, {"devices", "1"}});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one.value().optimizer, optimizer_kind::adamw_8bit);
  const auto two = vary(one.value(), {{"devices", "2"}});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two.value().optimizer, optimizer_kind::adamw);
  const auto four = vary(two.value(), {{"devices", "4"}});
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(four.value().optimizer, optimizer_kind::adamw);
  EXPECT_EQ(four.value().data_parallel, 4);
}

// The fast path refuses what resolve() refuses, naming the setting: 6 devices are no multiple of tp 4.
TEST(vary, fast_path_checks_as_resolve_does) {
  const auto base = resolve({{"tp", "4"}, {"devices", "4"}});
  ASSERT_TRUE(base.ok());
  const auto r = vary(base.value(), {{"devices", "6"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "devices");
  EXPECT_FALSE(vary(base.value(), {{"batch", "0"}}).ok());
}

// ---- the property: every search's answer is the run it names --------------------------------------------------

// Random settings over every framework (training) and every runtime (inference, TGI's releases in turn).
settings random_case(std::mt19937_64& rng, int i) {
  static constexpr std::array<const char*, 8> frameworks = {"generic",   "hf",     "deepspeed", "fsdp",
                                                            "torchtune", "litgpt", "megatron",  "unsloth"};
  static constexpr std::array<const char*, 7> runtimes = {"auto", "transformers", "vllm",  "sglang",
                                                          "tgi",  "llamacpp",     "ollama"};
  static constexpr std::array<const char*, 6> tgi_versions = {"3.3", "3.1", "3.0", "2.4", "1.4.1", "1.0"};
  settings s = llm_memory::testing::random_settings(rng);
  const auto k = static_cast<std::size_t>(i / 2);
  if (i % 2 == 0) {
    s["mode"] = "train";
    s["framework"] = frameworks[k % frameworks.size()];
  } else {
    s["mode"] = "inference";
    s["runtime"] = runtimes[k % runtimes.size()];
    s["tgi_version"] = tgi_versions[(k / runtimes.size()) % tgi_versions.size()];
  }
  return s;
}

// An answer's delta applied to the settings and resolved in full gives the answer's total and fits.
void expect_applied(const settings& s, const solve_answer& a) {
  if (!a.found) return;
  const auto applied = estimate(with(s, a.delta));
  ASSERT_TRUE(applied.ok()) << a.key << ": " << to_string(applied.errors()[0]);
  EXPECT_EQ(applied.value().total_bytes, a.total_bytes) << a.key;
  EXPECT_TRUE(applied.value().fits) << a.key;
}

// Every cell is estimate() of the settings at (batch, seq), within the sweep's bound: exact when pointwise, else
// in [-1, rounding_bound] plus the relative tolerance (docs/sweep.md). The frontier is exact.
void expect_sweep_is_the_estimate(const settings& s) {
  sweep_request request{s, {}};
  request.batch = "1:8:3";
  request.seq = "100:5000:3";
  const auto run = run_sweep(request);
  if (!run.ok()) return;  // a lowering refused names seq; the sweep's own tests cover it
  const lowered_estimate& low = run.value().lowered;
  const sweep_grid& g = run.value().grid;
  auto at = [&](double b, double q) {
    return estimate(with(s, {{"batch", std::to_string(static_cast<std::int64_t>(b))},
                             {"seq", std::to_string(static_cast<std::int64_t>(q))}}));
  };
  for (std::size_t j = 0; j < g.seq.size(); ++j) {
    for (std::size_t i = 0; i < g.batch.size(); ++i) {
      const auto e = at(g.batch[i], g.seq[j]);
      if (!e.ok()) continue;  // past 2^53 bytes: a cell then only says "far over"
      const double diff = e.value().total_bytes - g.total[i * g.seq.size() + j];
      const double slack = lowered_estimate::relative_tolerance * e.value().total_bytes;
      EXPECT_GE(diff, -1 - slack) << "batch " << g.batch[i] << " seq " << g.seq[j];
      EXPECT_LE(diff, low.rounding_bound + slack) << "batch " << g.batch[i] << " seq " << g.seq[j];
    }
    const std::int64_t mb = g.max_batch[j];
    if (mb > 0) {
      const auto e = at(static_cast<double>(mb), g.seq[j]);
      EXPECT_TRUE(e.ok() && e.value().fits) << "seq " << g.seq[j] << " max_batch " << mb;
    }
  }
}

// Ollama's num_ctx from the VRAM of all devices (server/routes.go: 4096 below 23 GiB, 32768 below 47 GiB, else
// 262144; at most the trained context): one L4 (24,152,899,584 B = 22.49 GiB) gives 4096, two (44.99 GiB) 32768,
// within Llama 3.1's 131,072. Moving the device count re-resolves the context.
TEST(vary, ollama_context_follows_the_devices) {
  const auto one = resolve({{"mode", "inference"}, {"runtime", "ollama"}, {"model", "llama-3.1-8b"}, {"gpu", "l4"}});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one.value().values.seq, 4096);
  const auto two = vary(one.value(), {{"devices", "2"}, {"pp", "2"}});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two.value().values.seq, 32768);
  const auto two_dp = vary(one.value(), {{"devices", "2"}});  // the fast path's case: only devices moves
  ASSERT_TRUE(two_dp.ok());
  EXPECT_EQ(two_dp.value().values.seq, 32768);
}

// Context parallelism: resolve() takes only device counts that tp x pp x cp divide and seqs that cp divides, so the
// answers are multiples of cp and apply. Before, Llama 3.1 8B at seq 8192 on H100s with cp 4 found no device count
// (the dp >= 2 run was resolved at 2 devices, which cp 4 refuses), and at seq 2048 on L4s with cp 2 answered 17.
TEST(vary, context_parallel_answers_apply) {
  const std::array<settings, 3> cases = {
      settings{{"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}, {"seq", "8192"}, {"cp", "2"}, {"devices", "2"}},
      settings{{"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}, {"seq", "8192"}, {"cp", "4"}, {"devices", "4"}},
      settings{{"model", "llama-3.1-8b"}, {"gpu", "l4"}, {"seq", "2048"}, {"cp", "2"}, {"devices", "2"}}};
  for (const settings& s : cases) {
    SCOPED_TRACE(text_of(s));
    const auto spec = resolve(s);
    ASSERT_TRUE(spec.ok()) << to_string(spec.errors()[0]);
    const solve_result solved = solve(spec.value());
    const std::int64_t cp = spec.value().values.cp;
    ASSERT_TRUE(solved.min_devices.found);
    EXPECT_EQ(solved.min_devices.value % cp, 0);
    expect_applied(s, solved.min_devices);
    if (solved.max_seq.found) {
      EXPECT_EQ(solved.max_seq.value % cp, 0);
    }
    expect_applied(s, solved.max_seq);
  }
}

// The fast path is resolving again: over random settings and random moves of batch, seq and devices, vary() and a
// full resolve of the changed settings agree on the refusal and, bucket by bucket, on the estimate. A profile that
// starts reading an axis without declaring it in profile_axes.cpp fails here.
TEST(vary, is_resolving_again) {
  std::mt19937_64 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int compared = 0;
  for (int i = 0; i < llm_memory::testing::property_cases(1200); ++i) {
    settings s = random_case(rng, i);
    if (pick(0, 1)) s.erase("seq");   // Ollama's context then comes from its profile (by the VRAM: 24 GB L4s)
    if (pick(0, 1)) s.erase("zero");  // FSDP's and Megatron's sharding then come from theirs
    if (pick(0, 1)) s["gpu"] = "l4";
    if (pick(0, 1)) s["devices"] = std::to_string(std::stoll(s.at("tp")) * std::stoll(s.at("pp")));  // one replica
    const auto spec = resolve(s);
    if (!spec.ok()) continue;
    const std::int64_t mp = spec.value().model_parallel;
    settings changes;
    if (pick(0, 1)) changes["batch"] = std::to_string(pick(1, 64));
    if (pick(0, 1)) changes["seq"] = std::to_string(pick(1, 40000));
    if (pick(0, 1)) changes["devices"] = std::to_string(mp * pick(1, 4) + (pick(0, 5) == 0 ? 1 : 0));
    SCOPED_TRACE(text_of(s) + " then" + text_of(changes));
    const auto varied = vary(spec.value(), changes);
    const auto full = resolve(with(s, changes));
    ASSERT_EQ(varied.ok(), full.ok());
    if (!full.ok()) {
      EXPECT_EQ(varied.errors()[0].setting, full.errors()[0].setting);
      continue;
    }
    const estimate_result a = estimate(varied.value()), b = estimate(full.value());
    ASSERT_EQ(a.buckets.size(), b.buckets.size());
    for (std::size_t k = 0; k < a.buckets.size(); ++k) EXPECT_EQ(a.buckets[k].bytes, b.buckets[k].bytes) << k;
    EXPECT_EQ(a.total_bytes, b.total_bytes);
    ++compared;
  }
  EXPECT_GE(compared, llm_memory::testing::property_cases(600));
}

TEST(vary, solver_and_sweep_answers_are_the_applied_runs) {
  std::mt19937_64 rng(31);
  int checked = 0;
  for (int i = 0; i < llm_memory::testing::property_cases(300); ++i) {
    const settings s = random_case(rng, i);
    const auto spec = resolve(s);
    if (!spec.ok() || !estimate(s).ok()) continue;
    ++checked;
    SCOPED_TRACE(text_of(s));
    const solve_result solved = solve(spec.value());
    expect_applied(s, solved.max_batch);
    expect_applied(s, solved.max_seq);
    expect_applied(s, solved.min_devices);
    if (i % 3 == 0) expect_sweep_is_the_estimate(s);
  }
  EXPECT_GE(checked, llm_memory::testing::property_cases(150));
}

}  // namespace
