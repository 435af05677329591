// SPDX-License-Identifier: MIT
// The nearest ways out (ways_out.hpp): which ways, in which order, with which text, from the solver's and the knob
// search's answers and the core's own two searches.
#include "llm_memory/ways_out.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "llm_memory/report.hpp"

namespace {

using namespace llm_memory;

// The seed's 7B full fine-tune (as solve_test.cpp's seed_7b) on one device of 80e9 B given by its memory (no GPU
// preset). Per device at ZeRO 0 (solve_test.cpp derives each term): fixed state (2 + 2 + 12) B x 7e9 = 112e9 B
// (the weights' state alone needs more than one device); activations at s 2048, b 1 = 30,643,585,024 B;
// total 142,643,585,024 B.
settings seed_7b() {
  return {{"framework", "generic"},      {"params", "7e9"},    {"hidden_size", "4096"},   {"num_hidden_layers", "32"},
          {"num_attention_heads", "32"}, {"mode", "train"},    {"seq", "2048"},           {"batch", "1"},
          {"gpu_memory", "80GB"},        {"overhead", "none"}, {"attention", "standard"}, {"dropout", "on"},
          {"norm", "layernorm"},         {"mlp", "plain"},     {"recompute", "none"},     {"vocab_size", "0"}};
}
constexpr double seed_total = 142643585024;
// Two devices with tensor parallel 2 at ZeRO 0 (solve_test.cpp, seed_7b_min_devices_tries_tensor_parallel):
// 56,004,259,840 B of state + 15,321,792,512 B of activations.
constexpr double seed_tp2_total = 71326052352;

run_spec spec_of(const settings& s) {
  auto r = resolve(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? std::move(r.value()) : run_spec{};
}

run_answers answers_of(const settings& s) {
  auto r = answer(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? std::move(r.value()) : run_answers{};
}

solve_answer found(std::int64_t value, settings delta, double total) {
  solve_answer a;
  a.found = true;
  a.value = value;
  a.total_bytes = total;
  a.delta = std::move(delta);
  return a;
}

knob_advice knob(const std::string& name, settings delta, bool fits, double saved = 10e9) {
  knob_advice k;
  k.name = name;
  k.delta = std::move(delta);
  k.total_bytes = 70e9;
  k.saved_bytes = saved;
  k.fits = fits;
  k.note = name + "'s note";
  return k;
}

// Answers of a run that does not fit, with a per-device total no GPU preset holds (1e18 B): no GPU way.
solve_result not_fitting() {
  solve_result r;
  r.total_bytes = 1e18;
  return r;
}

// The 7B's weights and optimizer state alone (112e9 B) exceed the 80e9 B device. On its one device no split is
// possible, so the own group is the knob search's (the LoRA-family and offload knobs fit: the ways' own test
// below); then more of the same device: the solver's fewest devices (2 with tensor parallel 2, ZeRO 0 as set, so
// not named); then another device: the smallest GPU preset it fits on as it is. The presets of at least
// 142,643,585,024 B, smallest first: H200 (PyTorch's 139.80 GiB = 150,108,897,280 B), H200 NVL (141 GiB marketed),
// Apple M2 Ultra 192 GB (Metal: not the stack of a device given by its memory alone, CUDA), GH200 144GB, B200,
// ...: the H200 fits on one device, and the total on it is the same (no framework reads the device's memory here).
TEST(ways_out, seed_7b_needs_two_devices_or_a_larger_gpu) {
  const auto a = answers_of(seed_7b());
  EXPECT_FALSE(a.ways_out.fits);
  ASSERT_GE(a.ways_out.ways.size(), 3U);
  const way_out& gpu = a.ways_out.ways.back();
  const way_out& devices = a.ways_out.ways[a.ways_out.ways.size() - 2];
  EXPECT_EQ(devices.way, "devices");
  EXPECT_EQ(devices.group, "more");
  EXPECT_EQ(devices.text, "2 × device with tensor parallel 2");
  EXPECT_EQ(devices.total_bytes, seed_tp2_total);
  EXPECT_TRUE(devices.fits);
  EXPECT_EQ(devices.delta, (settings{{"devices", "2"}, {"tp", "2"}}));  // ZeRO stays at 0: not in the delta
  EXPECT_EQ(gpu.way, "gpu");
  EXPECT_EQ(gpu.group, "other");
  EXPECT_EQ(gpu.text, "1 × NVIDIA H200 141GB SXM");
  EXPECT_EQ(gpu.total_bytes, seed_total);
  EXPECT_EQ(gpu.delta, (settings{{"gpu", "h200-141gb"}}));
  EXPECT_EQ(gpu.cleared, (std::vector<std::string>{"gpu_memory"}));
  // Batch 1 alone does not fit (112e9 B of state), so neither a shorter sequence nor a smaller micro-batch is a way
  // out; the own ways are knobs of the diagnosis, each changing a setting.
  for (std::size_t i = 0; i + 2 < a.ways_out.ways.size(); ++i) {
    const way_out& w = a.ways_out.ways[i];
    EXPECT_EQ(w.group, "own") << w.text;
    EXPECT_TRUE(w.way == "weights" || w.way == "knob" || w.way == "combination") << w.way;
    if (w.way != "combination") {
      EXPECT_TRUE(std::any_of(a.advice.knobs.begin(), a.advice.knobs.end(),
                              [&](const knob_advice& k) { return k.delta == w.delta && !k.adds_devices(); }));
    }
  }
}

// The order is the page's: the own group (knobs, weights, context, micro-batch), then more devices; a way that
// changes nothing is none, nor is a knob that saves nothing; the knobs that fit are listed cheapest in throughput
// first (equal tiers and totals here: the diagnosis' order), the weights format that fits before a larger saving
// that does not.
TEST(ways_out, composes_the_answers_in_order) {
  auto s = seed_7b();
  s["batch"] = "4";
  const run_spec spec = spec_of(s);
  solve_result solved = not_fitting();
  solved.min_devices = found(4, {{"devices", "4"}, {"tp", "4"}, {"pp", "1"}}, 50e9);
  solved.max_seq = found(1024, {{"seq", "1024"}}, 60e9);
  solved.max_batch = found(2, {{"batch", "2"}}, 65e9);
  advice_result advice;
  advice.knobs = {knob("lora", {{"finetune", "lora"}}, true),
                  knob("int8", {{"weights_dtype", "int8"}}, false),
                  knob("nf4", {{"weights_dtype", "nf4"}}, true),
                  knob("qlora", {{"finetune", "qlora"}, {"weights_dtype", "nf4"}}, true),
                  knob("zero 0", {{"zero", "0"}}, true),
                  knob("costs", {{"recompute", "full"}}, true, -1e9),
                  knob("2x devices", {{"devices", "2"}}, true)};
  const auto r = ways_out(spec, solved, advice);
  std::vector<std::string> kinds, groups;
  for (const auto& w : r.ways) kinds.push_back(w.way), groups.push_back(w.group);
  ASSERT_EQ(kinds, (std::vector<std::string>{"knob", "knob", "weights", "context", "batch", "devices"}));
  EXPECT_EQ(groups, (std::vector<std::string>{"own", "own", "own", "own", "own", "more"}));
  EXPECT_EQ(r.ways[0].text, "lora");
  EXPECT_EQ(r.ways[0].note, "lora's note");
  EXPECT_EQ(r.ways[1].text, "qlora");
  EXPECT_EQ(r.ways[2].text, "nf4") << "the format that fits before a larger saving that does not";
  EXPECT_EQ(r.ways[2].note, "");
  EXPECT_EQ(r.ways[3].text, "sequences of 1,024 tokens (from 2,048)");
  EXPECT_EQ(r.ways[4].text, "micro-batch 2 (from 4)");
  EXPECT_EQ(r.ways[5].text, "4 × device with tensor parallel 4");
  EXPECT_EQ(r.ways[5].total_bytes, 50e9);
  // Already on 4 devices with tp 4: the solver's answer changes nothing.
  s["devices"] = "4";
  s["tp"] = "4";
  const auto same = ways_out(spec_of(s), solved, advice);
  EXPECT_TRUE(std::none_of(same.ways.begin(), same.ways.end(), [](const way_out& w) { return w.way == "devices"; }));
}

// The Knobs tab's cheapest combination of two or more knobs on the same hardware is an own way, in its words,
// before the single knobs; one that adds devices is not (the solver's devices answer is that group's).
TEST(ways_out, cheapest_combination_in_the_knobs_words) {
  const run_spec spec = spec_of(seed_7b());
  advice_result advice;
  advice.cheapest.found = true;
  advice.cheapest.names = {"recompute none -> full", "AdamW -> 8-bit AdamW"};
  advice.cheapest.delta = {{"recompute", "full"}, {"optimizer", "adamw_8bit"}};
  advice.cheapest.total_bytes = 75e9;
  // The own group only: the solver found no device count here, so the ZeRO-3 search may add a "more" way.
  const auto own = [&] {
    std::vector<way_out> ways = ways_out(spec, not_fitting(), advice).ways;
    ways.erase(std::remove_if(ways.begin(), ways.end(), [](const way_out& w) { return w.group != "own"; }), ways.end());
    return ways;
  };
  const auto r = own();
  ASSERT_EQ(r.size(), 1U);
  EXPECT_EQ(r[0].way, "combination");
  EXPECT_EQ(r[0].text, "recompute none -> full + AdamW -> 8-bit AdamW");
  EXPECT_EQ(r[0].total_bytes, 75e9);
  EXPECT_EQ(r[0].delta, advice.cheapest.delta);
  advice.cheapest.same_hardware = false;
  EXPECT_TRUE(own().empty());
}

// Inference says "context"; a run that fits has no ways out, and nothing is searched.
TEST(ways_out, context_for_inference_and_none_when_it_fits) {
  auto s = seed_7b();
  s["mode"] = "inference";
  solve_result solved = not_fitting();
  solved.max_seq = found(1000, {{"seq", "1000"}}, 60e9);
  const auto r = ways_out(spec_of(s), solved, {});
  ASSERT_EQ(r.ways.size(), 1U);
  EXPECT_EQ(r.ways[0].text, "context of 1,000 tokens (from 2,048)");
  solved.fits = true;
  const auto fits = ways_out(spec_of(s), solved, {});
  EXPECT_TRUE(fits.fits);
  EXPECT_TRUE(fits.ways.empty());
}

// The JSON: {fits, ways: [{way, group, text, total, fits, delta, note}], solve, advice}; the key a way drops is null.
TEST(ways_out, json_shape) {
  const auto j = nlohmann::json::parse(ways_out_to_json(answers_of(seed_7b())));
  EXPECT_EQ(j["fits"], false);
  const nlohmann::json& ways = j["ways"];
  ASSERT_GE(ways.size(), 2U);
  EXPECT_EQ(ways[ways.size() - 2]["way"], "devices");
  EXPECT_EQ(ways[ways.size() - 2]["group"], "more");
  EXPECT_EQ(ways[ways.size() - 2]["total"], 71326052352);
  EXPECT_EQ(ways.back()["group"], "other");
  EXPECT_EQ(ways.back()["delta"], (nlohmann::json{{"gpu", "h200-141gb"}, {"gpu_memory", nullptr}}));
  EXPECT_EQ(j["solve"]["min_devices"]["value"], 2);
  EXPECT_TRUE(j["advice"]["knobs"].is_array());
  EXPECT_EQ(answer({{"batch", "0"}}).errors()[0].setting, "batch");
}

}  // namespace
