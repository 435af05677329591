// SPDX-License-Identifier: MIT
// --advise and --solve under mode = eval: one forward pass, so no optimizer, gradient, adapter or ZeRO knob
// (advise.cpp pass_of), and a device search that keeps the run's ZeRO stage (frameworks/table.cpp
// searched_zero_stages).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "llm_memory/advise.hpp"
#include "llm_memory/solve.hpp"

namespace llm_memory::test {
namespace {

// Every knob the advice considered: the ids of those re-estimated, the names of those skipped.
std::vector<std::string> ids_of(const settings& s) {
  const auto a = advise(s);
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : to_string(a.errors().front()));
  std::vector<std::string> ids;
  if (!a.ok()) return ids;
  for (const auto& k : a.value().knobs) ids.push_back(k.id);
  for (const auto& k : a.value().skipped) ids.push_back(k.name);
  return ids;
}

// Whether any considered knob's id or name contains `part`.
bool considered(const std::vector<std::string>& ids, const std::string& part) {
  return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return id.find(part) != std::string::npos; });
}

const settings eval_run{{"mode", "eval"},       {"model", "llama-3.1-8b"}, {"seq", "4096"},     {"batch", "8"},
                        {"attention", "eager"}, {"recompute", "none"},     {"framework", "hf"}, {"gpu", "h100-80gb"}};

// The forward-pass knobs stay (half_seq, flash: eager attention stores its scores), the training ones go.
TEST(eval_advise, offers_forward_pass_knobs_only) {
  const std::vector<std::string> ids = ids_of(eval_run);
  EXPECT_TRUE(considered(ids, "half_seq"));
  EXPECT_TRUE(considered(ids, "flash"));  // considered, though eval's forward saves nothing by it (skipped)
  // Ids of re-estimated knobs, names of skipped ones ("recompute none -> full", "AdamW -> 8-bit AdamW", ...).
  for (const char* training : {"recompute", "lora", "LoRA", "optimizer", "AdamW", "one_moment", "Lion", "adafactor",
                               "Adafactor", "fused_ce", "cross-entropy", "offload", "zero", "ZeRO"})
    EXPECT_FALSE(considered(ids, training)) << training;
  // The same run as a training step offers them (the filter is eval's alone).
  settings train = eval_run;
  train["mode"] = "train";
  EXPECT_TRUE(considered(ids_of(train), "optimizer_8bit"));
}

// Halving the batch under eval changes the batch alone (no optimizer step whose effective batch grad_accum keeps).
TEST(eval_advise, half_batch_leaves_grad_accum) {
  const auto a = advise(eval_run);
  ASSERT_TRUE(a.ok());
  const auto it = std::find_if(a.value().knobs.begin(), a.value().knobs.end(),
                               [](const knob_advice& k) { return k.id == "half_batch"; });
  ASSERT_NE(it, a.value().knobs.end());
  EXPECT_EQ(it->delta, (settings{{"batch", "4"}}));
  EXPECT_EQ(it->name, "batch 8 -> 4");
}

// With eval_grad the forward keeps its graph for the gradients: recomputation applies again.
TEST(eval_advise, eval_grad_offers_recomputation) {
  settings s = eval_run;
  s["eval_grad"] = "on";
  const std::vector<std::string> ids = ids_of(s);
  EXPECT_TRUE(considered(ids, "recompute"));
  EXPECT_FALSE(considered(ids, "AdamW"));
}

// Evaluation scores the model as loaded: a 16-bit base gets no quantised format, and no KV-cache knob (a runtime's).
TEST(eval_advise, offers_no_format_or_kv_cache) {
  settings s = eval_run;
  s["weights_dtype"] = "bf16";
  const std::vector<std::string> ids = ids_of(s);
  for (const char* serving : {"weights_8bit", "weights_4bit", "kv_8bit", "kv_4bit", "sequence_parallel"})
    EXPECT_FALSE(considered(ids, serving)) << serving;
}

// The device search under eval moves the devices and tp, never the ZeRO stage: the stage is the engine's the
// evaluation runs under (the settings table reads it there: training_or_eval), so the search keeps it. Llama 3.1 70B
// (70.6e9 parameters, 141 GB in bf16) does not fit one 80 GB H100; framework generic searches ZeRO 0-3 and tp 1-8 in
// training, where ZeRO-3 would shard the weights over data-parallel devices. Under eval the answer keeps ZeRO 0: its
// delta names no stage but the run's own.
TEST(eval_advise, solver_keeps_the_zero_stage) {
  const settings s{{"mode", "eval"},
                   {"model", "llama-3.1-70b"},
                   {"framework", "generic"},
                   {"weights_dtype", "bf16"},
                   {"seq", "2048"},
                   {"gpu", "h100-80gb"},
                   {"zero", "0"}};
  const auto solved = solve(s);
  ASSERT_TRUE(solved.ok());
  const solve_answer& fewest = solved.value().min_devices;
  ASSERT_TRUE(fewest.found) << fewest.message;
  EXPECT_TRUE(!fewest.delta.contains("zero") || fewest.delta.at("zero") == "0") << fewest.message;
  EXPECT_NE(fewest.message.find("ZeRO 0"), std::string::npos) << fewest.message;
  EXPECT_GT(fewest.value, 1);
  // At the run's ZeRO 3 the search keeps stage 3: the weights shard over the data-parallel devices it adds.
  settings z3 = s;
  z3["zero"] = "3";
  const auto sharded = solve(z3);
  ASSERT_TRUE(sharded.ok());
  const solve_answer& fewest3 = sharded.value().min_devices;
  ASSERT_TRUE(fewest3.found) << fewest3.message;
  EXPECT_TRUE(!fewest3.delta.contains("zero") || fewest3.delta.at("zero") == "3") << fewest3.message;
  EXPECT_NE(fewest3.message.find("ZeRO 3"), std::string::npos) << fewest3.message;
}

}  // namespace
}  // namespace llm_memory::test
