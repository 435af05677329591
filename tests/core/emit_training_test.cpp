// SPDX-License-Identifier: MIT
// Training configs out (emit.hpp, docs/readers.md "Emit"): for random settings, the accelerate FSDP config, the
// `tune run` overrides and the `trl sft` flags, read back by their readers, resolve to the same values of every
// setting the format carries; the ones it cannot carry are listed by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "llm_memory/emit.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

template <class T>
const T& pick(std::mt19937& rng, const std::vector<T>& items) {
  return items[rng() % items.size()];
}

constexpr const char* all_linear_modules = "down_proj,gate_proj,k_proj,o_proj,q_proj,up_proj,v_proj";

bool carried(const emitted& e, const std::string& key) {
  return std::find(e.not_carried.begin(), e.not_carried.end(), key) == e.not_carried.end();
}

// Emits `typed` resolved, reads it back, gives the settings it did not carry beside it (as the user would), and
// compares `keys`; returns whether the run resolved (a refused combination is skipped).
bool round_trip(const settings& typed, std::string_view format, const std::vector<std::string>& keys) {
  const auto spec = resolve(typed);
  if (!spec.ok()) return false;
  const auto out = emit(spec.value().values, format);
  EXPECT_TRUE(out.ok());
  if (!out.ok()) return false;
  const launch_read read = read_launch(out.value().text);
  EXPECT_TRUE(read.errors.empty()) << out.value().text << read.errors.front().setting << ": "
                                   << read.errors.front().message;
  const settings want = to_settings(spec.value().values);
  settings back = read.values;
  for (const auto& key : out.value().not_carried) back[key] = want.at(key);
  const auto again = resolve(back);
  EXPECT_TRUE(again.ok()) << out.value().text << (again.ok() ? "" : again.errors().front().message);
  if (!again.ok()) return false;
  settings got = to_settings(again.value().values);
  // torchtune names its modules one by one: PEFT's all-linear comes back as the seven projections it stands for.
  if (want.at("lora_targets") == "all-linear" && got.at("lora_targets") == all_linear_modules)
    got["lora_targets"] = "all-linear";
  for (const auto& key : keys)
    if (carried(out.value(), key)) {
      EXPECT_EQ(got.at(key), want.at(key)) << key << " from\n" << out.value().text;
    }
  EXPECT_EQ(estimate(again.value()).total_bytes, estimate(spec.value()).total_bytes) << out.value().text;
  return true;
}

settings random_fsdp(std::mt19937& rng) {
  return {{"mode", "train"},
          {"framework", "fsdp"},
          {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b", "llama-3.2-1b"})},
          {"devices", pick<std::string>(rng, {"1", "2", "4", "8"})},
          {"zero", pick<std::string>(rng, {"0", "1", "2", "3"})},
          {"offload", pick<std::string>(rng, {"none", "optimizer", "optimizer+params"})},
          {"recompute", pick<std::string>(rng, {"none", "selective", "full"})},
          {"autocast", pick<std::string>(rng, {"off", "bf16", "fp16"})},
          {"batch", std::to_string(1 + rng() % 8)},
          {"seq", std::to_string(128 + rng() % 4096)}};
}

TEST(emit_training, accelerate_fsdp_config_reads_back_as_the_same_settings) {
  std::mt19937 rng(11);
  int checked = 0;
  for (int i = 0; i < 300; ++i)
    checked += round_trip(random_fsdp(rng), "accelerate",
                          {"framework", "devices", "zero", "offload", "recompute", "autocast"});
  EXPECT_GT(checked, 150);
}

settings random_torchtune(std::mt19937& rng) {
  const std::string method = pick<std::string>(rng, {"full", "lora", "qlora"});
  settings s{{"mode", "train"},
             {"framework", "torchtune"},
             {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b", "llama-3.2-1b"})},
             {"finetune", method},
             {"devices", pick<std::string>(rng, {"1", "1", "2", "4"})},
             {"batch", std::to_string(1 + rng() % 8)},
             {"grad_accum", std::to_string(1 + rng() % 16)},
             {"seq", std::to_string(128 + rng() % 8192)},
             {"recompute", pick<std::string>(rng, {"none", "selective", "full"})},
             {"compile", pick<std::string>(rng, {"auto", "on", "off"})},
             {"optimizer", pick<std::string>(rng, {"adamw", "adamw_8bit", "sgd", "lion"})},
             {"optimizer_impl", pick<std::string>(rng, {"fused", "foreach", "paged"})},
             {"optimizer_in_backward", pick<std::string>(rng, {"on", "off"})},
             {"loss_impl", pick<std::string>(rng, {"torchtune_chunked", "hf"})},
             {"weights_dtype", pick<std::string>(rng, {"bf16", "fp32", "fp16"})}};
  if (method != "full") {
    s["lora_rank"] = std::to_string(1 + rng() % 128);
    s["lora_dropout"] = pick<std::string>(rng, {"0", "0.05", "0.1"});
    s["lora_targets"] = pick<std::string>(rng, {"q_proj,v_proj", "all-linear", "k_proj,o_proj,q_proj,v_proj",
                                                "down_proj,gate_proj,q_proj,up_proj,v_proj", "q_proj,up_proj"});
  }
  return s;
}

TEST(emit_training, torchtune_overrides_read_back_as_the_same_settings) {
  std::mt19937 rng(12);
  int checked = 0;
  const std::vector<std::string> keys = {"model",
                                         "finetune",
                                         "devices",
                                         "batch",
                                         "grad_accum",
                                         "seq",
                                         "recompute",
                                         "compile",
                                         "optimizer",
                                         "optimizer_impl",
                                         "optimizer_in_backward",
                                         "loss_impl",
                                         "weights_dtype",
                                         "lora_rank",
                                         "lora_dropout",
                                         "lora_targets",
                                         "activation_offload"};
  for (int i = 0; i < 300; ++i) checked += round_trip(random_torchtune(rng), "torchtune", keys);
  EXPECT_GT(checked, 100);
}

settings random_trl(std::mt19937& rng) {
  const std::string method = pick<std::string>(rng, {"full", "lora", "qlora"});
  settings s{{"mode", "train"},
             {"framework", "hf"},
             {"model", pick<std::string>(rng, {"llama-3.1-8b", "qwen2.5-7b", "mistral-7b-v0.1"})},
             {"finetune", method},
             {"batch", std::to_string(1 + rng() % 8)},
             {"grad_accum", std::to_string(1 + rng() % 16)},
             {"seq", std::to_string(128 + rng() % 8192)},
             {"recompute", pick<std::string>(rng, {"none", "selective", "full"})},
             {"autocast", pick<std::string>(rng, {"off", "bf16", "fp16"})},
             {"optimizer", pick<std::string>(rng, {"adamw", "adamw_8bit", "sgd", "lion"})},
             {"optimizer_impl", pick<std::string>(rng, {"fused", "foreach", "paged"})},
             {"fused_ce", pick<std::string>(rng, {"on", "off"})},
             {"weights_dtype", pick<std::string>(rng, {"bf16", "fp16", "fp32", "int8"})}};
  if (method == "qlora") s["weights_dtype"] = "nf4";
  if (method != "full") {
    s["lora_rank"] = std::to_string(1 + rng() % 128);
    s["lora_dropout"] = pick<std::string>(rng, {"0", "0.05"});
    s["lora_targets"] = pick<std::string>(rng, {"q_proj,v_proj", "all-linear", "q_proj,k_proj,v_proj,o_proj"});
  }
  return s;
}

TEST(emit_training, trl_sft_flags_read_back_as_the_same_settings) {
  std::mt19937 rng(13);
  int checked = 0;
  const std::vector<std::string> keys = {"model",     "finetune",     "batch",       "grad_accum", "seq",
                                         "recompute", "autocast",     "optimizer",   "fused_ce",   "weights_dtype",
                                         "lora_rank", "lora_dropout", "lora_targets"};
  for (int i = 0; i < 300; ++i) checked += round_trip(random_trl(rng), "trl", keys);
  EXPECT_GT(checked, 100);
}

// What a format cannot say is named: accelerate's config names no model, batch or sequence (the script's
// arguments); FSDP has no ZeRO-1 and no optimizer-only offload.
TEST(emit_training, what_a_format_cannot_carry_is_listed) {
  const auto spec = resolve(settings{{"mode", "train"},
                                     {"framework", "fsdp"},
                                     {"model", "llama-3.1-8b"},
                                     {"devices", "4"},
                                     {"zero", "1"},
                                     {"offload", "optimizer"}});
  ASSERT_TRUE(spec.ok());
  const auto out = emit(spec.value().values, "accelerate");
  ASSERT_TRUE(out.ok());
  for (const std::string key : {"model", "seq", "batch", "zero", "offload"})
    EXPECT_FALSE(carried(out.value(), key)) << key;
  EXPECT_NE(out.value().text.find("num_processes: 4\n"), std::string::npos);
}

}  // namespace
