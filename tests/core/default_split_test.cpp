// SPDX-License-Identifier: MIT
// Inference on several devices without a stated split (issue 36 item 2): one copy of the model across them all,
// as the runtime is launched on them (resolve.cpp default_split). Llama 3 8B has 32 query heads, 8 KV heads and 32
// layers, so for vLLM the largest tp up to 8 that divides both the devices and the heads is taken, and the
// devices it leaves become pipeline stages.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/advise.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;
using llm_memory::test::resolved;

settings serve(std::string devices, settings more = {}) {
  settings s{{"model", "meta-llama-3-8b"}, {"mode", "inference"}, {"gpu", "h100-80gb"}, {"devices", devices}};
  for (const auto& [key, value] : more) s.insert_or_assign(key, value);
  return s;
}

struct split {
  std::int64_t tp, pp, dp;
};

split split_of(const run_spec& r) { return {r.values.tp, r.values.pp, r.data_parallel}; }

void expect_split(const settings& s, split want) {
  const run_spec r = resolved(s);
  const split got = split_of(r);
  EXPECT_EQ(got.tp, want.tp);
  EXPECT_EQ(got.pp, want.pp);
  EXPECT_EQ(got.dp, want.dp);
}

TEST(DefaultSplit, VllmTakesEveryDeviceAsTensorParallel) {
  expect_split(serve("8"), {8, 1, 1});  // 8 divides 32 heads and 8 KV heads: vllm serve -tp 8
  expect_split(serve("2"), {2, 1, 1});
  expect_split(serve("1"), {1, 1, 1});  // one device: nothing to split
}

TEST(DefaultSplit, PipelineWhereTheHeadsDoNotDivide) {
  // 6 devices: tp 6, 5, 4 and 3 do not divide both 6 and the 32 heads; tp 2 does, and 6 / 2 = 3 stages.
  expect_split(serve("6"), {2, 3, 1});
  // 3 devices: no tp > 1 divides 3 and 32: three pipeline stages.
  expect_split(serve("3"), {1, 3, 1});
  // 16 devices: tp stays within a node of 8; 16 / 8 = 2 stages across nodes.
  expect_split(serve("16"), {8, 2, 1});
}

TEST(DefaultSplit, AStatedSplitIsKept) {
  expect_split(serve("8", {{"tp", "1"}}), {1, 1, 8});  // eight replicas, as asked
  expect_split(serve("8", {{"pp", "2"}}), {1, 2, 4});
  expect_split(serve("8", {{"tp", "2"}}), {2, 1, 4});
}

TEST(DefaultSplit, TrainingIsUnchanged) {
  settings s = serve("8");
  s.erase("mode");
  expect_split(s, {1, 1, 8});
}

TEST(DefaultSplit, LayerSplittingRuntimesTakePipelineStages) {
  // llama.cpp -sm layer and transformers device_map="auto": whole layers per device.
  expect_split(serve("4", {{"runtime", "llamacpp"}}), {1, 4, 1});
  expect_split(serve("4", {{"runtime", "transformers"}}), {1, 4, 1});
  // More devices than the 32 layers: no layer split fits, each device serves a replica.
  expect_split(serve("64", {{"runtime", "llamacpp"}}), {1, 1, 64});
}

TEST(DefaultSplit, TgiShardsWithoutPipeline) {
  expect_split(serve("8", {{"runtime", "tgi"}}), {8, 1, 1});
  // 6 devices: tp 2 divides 6 and the 8 KV heads; TGI has no pipeline stages, so 3 replicas of tp 2.
  expect_split(serve("6", {{"runtime", "tgi"}}), {2, 1, 3});
}

TEST(DefaultSplit, TheSameRunAsTheStatedSplit) {
  // The default is the split stated: the profile that reads tp (vLLM's non-torch memory, 0.73 GiB at tp > 1)
  // follows it, so the totals agree byte for byte.
  const auto by_default = estimate(serve("8"));
  const auto stated = estimate(serve("8", {{"tp", "8"}, {"pp", "1"}}));
  ASSERT_TRUE(by_default.ok() && stated.ok());
  EXPECT_EQ(by_default.value().total_bytes, stated.value().total_bytes);
  const auto one = estimate(serve("1"));
  ASSERT_TRUE(one.ok());
  EXPECT_LT(by_default.value().total_bytes, one.value().total_bytes);
}

TEST(DefaultSplit, VaryingTheDevicesMovesTheDefault) {
  // vary()'s fast path keeps the split; a default split follows the devices as resolving again would.
  const run_spec one = resolved(serve("1"));
  const auto eight = vary(one, {{"devices", "8"}});
  ASSERT_TRUE(eight.ok());
  EXPECT_EQ(eight.value().values.tp, 8);
  const run_spec stated = resolved(serve("1", {{"tp", "1"}}));
  const auto replicas = vary(stated, {{"devices", "8"}});
  ASSERT_TRUE(replicas.ok());
  EXPECT_EQ(replicas.value().values.tp, 1);
  EXPECT_EQ(replicas.value().data_parallel, 8);
}

TEST(DefaultSplit, TheKnobsSayTheSplitTheyMean) {
  // In inference the knob "2x devices, data-parallel" states the split it keeps (two replicas, tp 1), and no ZeRO
  // knob is offered (ZeRO shards training state); more devices with tensor parallelism is the tp knob's.
  const auto advice = advise(serve("1"));
  ASSERT_TRUE(advice.ok());
  bool replicas = false;
  for (const auto& knob : advice.value().knobs) {
    EXPECT_NE(knob.id, "add_devices_zero3");
    if (knob.id == "devices_x2")
      replicas = knob.delta.contains("tp") && knob.delta.at("tp") == "1" && knob.delta.contains("pp");
  }
  for (const auto& skipped : advice.value().skipped)
    if (skipped.name.starts_with("2x devices, data-parallel")) replicas = true;  // a replica saves nothing
  EXPECT_TRUE(replicas);
}

}  // namespace
