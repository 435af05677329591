// SPDX-License-Identifier: MIT
// Issue 36 item 1: the ways out on the user's own hardware and stack first. A property test over random settings of
// every runtime and framework (applying a way gives exactly the total it showed; it names no device the stack
// refuses and no setting the run does not read), and the order on fixed runs derived by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "../random_settings.hpp"
#include "llm_memory/advise.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/ways_out.hpp"

namespace {

using namespace llm_memory;

// The choices of a choice row of the settings table ("a|b|c").
std::vector<std::string> choices_of(std::string_view key) {
  std::vector<std::string> out;
  std::string all(find_setting(key)->choices);
  for (std::size_t start = 0, bar; start <= all.size(); start = bar + 1) {
    bar = all.find('|', start);
    if (bar == std::string::npos) bar = all.size();
    out.push_back(all.substr(start, bar - start));
  }
  return out;
}

// Whether one rule of the table's `applies` column holds for a resolved run: the tests of web/ui/applicability.js
// (RULE_TESTS), on the run's resolved settings and the runtime it uses.
bool rule_holds(std::string_view rule, const run_spec& r) {
  const settings v = to_settings(r.values);
  const std::string runtime(runtime_name(r.runtime));
  const std::string& weights = v.at("weights_dtype");
  const bool packed = weights == "gptq" || weights == "awq" || weights == "w4a16";
  const bool engine = runtime == "vllm" || runtime == "sglang" || runtime == "tgi";
  if (rule == "training") return v.at("mode") == "train";
  if (rule == "inference") return v.at("mode") == "inference";
  if (rule == "eval") return v.at("mode") == "eval";
  if (rule == "training_or_eval") return v.at("mode") != "inference";
  if (rule == "lora_or_qlora") return v.at("finetune") != "full";
  if (rule == "qlora") return v.at("finetune") == "qlora";
  if (rule == "full") return v.at("finetune") == "full";
  if (rule == "nf4") return v.at("finetune") == "qlora" || weights == "nf4";
  if (rule == "phased_framework") return v.at("framework") != "generic";
  if (rule == "vllm") return runtime == "vllm";
  if (rule == "vllm_or_tgi") return runtime == "vllm" || runtime == "tgi";
  if (rule == "tgi") return runtime == "tgi";
  if (rule == "sglang") return runtime == "sglang";
  if (rule == "engines") return engine;
  if (rule == "llamacpp") return runtime == "llamacpp" || runtime == "ollama";
  if (rule == "overhead_factor") return v.at("overhead") == "factor";
  if (rule == "tp_gt_1") return r.values.tp > 1;
  if (rule == "encoder_decoder") return v.at("architecture") == "encoder_decoder";
  if (rule == "int_packed") return packed;
  if (rule == "grouped_quant") return packed || weights == "fp8_block";
  ADD_FAILURE() << "a rule this test does not know: " << rule;
  return true;
}

// The rules of `key`'s row that do not hold for `r` ("" when it is read).
std::string unmet_rules(const std::string& key, const run_spec& r) {
  std::string unmet;
  std::string_view rest = find_setting(key)->applies;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view rule = rest.substr(0, comma);
    if (!rule_holds(rule, r)) unmet += std::string(unmet.empty() ? "" : ",") + std::string(rule);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return unmet;
}

// The ZeRO stages each framework offers (frameworks/<name>.cpp zero_stages; docs/solve-and-advise.md): FSDP-style
// sharding is all or nothing, Megatron's distributed optimizer is ZeRO-1, Unsloth trains on one device.
bool offers_stage(const std::string& framework, const std::string& zero) {
  if (framework == "fsdp" || framework == "torchtune" || framework == "torchtitan" || framework == "litgpt")
    return zero == "0" || zero == "3";
  if (framework == "megatron") return zero == "0" || zero == "1";
  if (framework == "unsloth") return zero == "0";
  return true;
}

// The CPU offloads each framework runs, from its own code (docs/methodology.md, "Frameworks"): DeepSpeed and the
// front ends that run its configs (hf, llamafactory, axolotl) offload the optimizer state from ZeRO 1
// (offload_optimizer "Valid for ZeRO stage 1, 2, 3") and the parameters at 3; FSDP-style sharding (fsdp, torchtune's
// fsdp_cpu_offload, torchtitan's enable_cpu_offload) moves parameters, gradients and optimizer together at 3;
// Megatron-Core's --optimizer-cpu-offload the optimizer at any stage; litgpt (cpu_offload=False in its script) and
// Unsloth none; generic, the textbook, both.
bool runs_offload(const std::string& framework, const std::string& offload, std::int64_t zero) {
  if (offload == "none") return true;
  const bool deepspeed_like =
      framework == "hf" || framework == "deepspeed" || framework == "llamafactory" || framework == "axolotl";
  const bool fsdp_like = framework == "fsdp" || framework == "torchtune" || framework == "torchtitan";
  if (offload == "optimizer") return framework == "generic" || framework == "megatron" || (deepspeed_like && zero >= 1);
  return zero == 3 && (framework == "generic" || deepspeed_like || fsdp_like);  // optimizer+params
}

// A change that moves the offload or the ZeRO stage gives a run whose offload the framework runs at that stage (a
// user's own offload that their framework lacks, kept as it is, is theirs: the change did not bring it).
void expect_offload_runs(const settings& s, const run_spec& before, const settings& delta, const std::string& what) {
  if (!before.train() || (!delta.contains("offload") && !delta.contains("zero"))) return;
  settings after_settings = s;
  for (const auto& [key, value] : delta) after_settings[key] = value;
  const auto after = resolve(after_settings);
  if (!after.ok()) return;
  const setting_values& v = after.value().values;
  if (v.offload == before.values.offload && v.zero == before.values.zero) return;
  const setting_values& was = before.values;
  if (v.offload == was.offload && !runs_offload(was.framework, was.offload, was.zero)) return;
  EXPECT_TRUE(runs_offload(v.framework, v.offload, v.zero))
      << what << ": " << v.framework << " offload " << v.offload << " at ZeRO " << v.zero;
}

// The user's settings with a way applied as a front end applies it: its delta merged, its cleared keys dropped.
settings applied(settings s, const way_out& w) {
  for (const auto& [key, value] : w.delta) s[key] = value;
  for (const auto& key : w.cleared) s.erase(key);
  return s;
}

// Checks every way of `s`'s answers; returns how many ways it checked.
int check_ways(const settings& s) {
  const auto answers = answer(s);
  if (!answers.ok()) return 0;
  const run_spec spec = resolve(s).value();
  int checked = 0;
  // (c) No knob, combination or solver answer offers an offload the framework lacks (frameworks/<name>.cpp offloads).
  for (const knob_advice& k : answers.value().advice.knobs) expect_offload_runs(s, spec, k.delta, "knob " + k.name);
  expect_offload_runs(s, spec, answers.value().advice.cheapest.delta, "the cheapest combination");
  expect_offload_runs(s, spec, answers.value().solve.min_devices.delta, "the solver's fewest devices");
  // (d) Evaluation runs under the engine's ZeRO stage (it shards the weights at 3): the device search keeps it.
  if (spec.eval() && answers.value().solve.min_devices.delta.contains("zero")) {
    EXPECT_EQ(answers.value().solve.min_devices.delta.at("zero"), std::to_string(spec.values.zero));
  }
  std::string group = "own";
  for (const way_out& w : answers.value().ways_out.ways) {
    SCOPED_TRACE(w.way + ": " + w.text);
    // The groups in order: own, more, other.
    EXPECT_TRUE(w.group == "own" || w.group == "more" || w.group == "other") << w.group;
    EXPECT_GE(w.group == "own" ? 0 : w.group == "more" ? 1 : 2, group == "own" ? 0 : group == "more" ? 1 : 2);
    group = w.group;
    // (a) Applying the delta through resolve and estimating gives the total and the verdict it showed.
    const auto run = resolve(applied(s, w));
    if (!run.ok()) {
      ADD_FAILURE() << "the way does not resolve: " << to_string(run.errors().front());
      continue;
    }
    const estimate_result r = estimate(run.value());
    EXPECT_EQ(r.total_bytes, w.total_bytes);
    EXPECT_EQ(r.fits, w.fits);
    // (b) Every setting it names is read by the run it gives (the `applies` column), a ZeRO stage is one the
    // framework offers, and a device is one the stack runs on: resolve() refuses a runtime's unsupported device
    // (above); a training framework keeps the user's device's stack.
    for (const auto& [key, value] : w.delta) EXPECT_EQ(unmet_rules(key, run.value()), "") << key << " " << value;
    if (w.delta.contains("zero") && spec.train()) {
      EXPECT_TRUE(offers_stage(spec.values.framework, w.delta.at("zero"))) << spec.values.framework;
    }
    expect_offload_runs(s, spec, w.delta, "way " + w.text);
    if (w.delta.contains("gpu") && spec.train()) {
      const gpu_preset* own = find_gpu(spec.values.gpu);
      EXPECT_EQ(find_gpu(w.delta.at("gpu"))->backend, own != nullptr ? own->backend : device_backend::cuda);
    }
    // The group says what it changes: own keeps the device and never adds one; more adds the same device.
    const auto devices = static_cast<std::int64_t>(run.value().values.devices);
    if (w.group == "own") {
      EXPECT_TRUE(devices <= spec.values.devices && !w.delta.contains("gpu"));
    }
    if (w.group == "more") {
      EXPECT_TRUE(devices > spec.values.devices && !w.delta.contains("gpu"));
    }
    if (w.group == "other") {
      EXPECT_TRUE(w.delta.contains("gpu"));
    }
    ++checked;
  }
  return checked;
}

// Random settings over every runtime (inference) and every framework (training and evaluation), seeded; most do
// not fit (a GPU preset drawn from the catalogue, often a small one).
TEST(ways_out_property, applying_a_way_gives_its_total_and_names_only_what_the_stack_reads) {
  std::mt19937_64 rng(36);
  const auto runtimes = choices_of("runtime");
  const auto frameworks = choices_of("framework");
  const auto gpus = gpu_presets();
  int runs = 0, ways = 0;
  for (int n = 0; n < llm_memory::testing::property_cases(400); ++n) {
    settings s = llm_memory::testing::random_settings(rng);
    // Even runs infer; odd runs train, every fourth of them evaluates (mode eval: a framework's forward pass).
    s["mode"] = n % 2 == 0 ? "inference" : n % 4 == 3 ? "eval" : "train";
    if (n % 2 == 0)
      s["runtime"] = runtimes[static_cast<std::size_t>(n / 2) % runtimes.size()];
    else
      s["framework"] = frameworks[static_cast<std::size_t>(n / 2) % frameworks.size()];
    if (rng() % 3 != 0) s["gpu"] = gpus[rng() % gpus.size()].id;
    SCOPED_TRACE(n);
    const int checked = check_ways(s);
    runs += checked > 0 ? 1 : 0;
    ways += checked;
  }
  EXPECT_GE(runs, llm_memory::testing::property_cases(40));
  EXPECT_GE(ways, llm_memory::testing::property_cases(100));
}

// The seed's 7B (ways_out_test.cpp: 2 + 2 + 12 B of state per parameter, activations 30,643,585,024 B at seq 2048,
// batch 1) on 8 devices of 80e9 B at ZeRO 0: each holds 142,643,585,024 B. The first way is a split of the same 8
// devices: tensor parallel 1 first (framework generic searches tp: 1, 2, 4, 8), ZeRO 0 (its own) then 1: ZeRO-1
// shards the 12 B of optimizer state over 8: 7e9 x (2 + 2 + 12 / 8) = 38.5e9 B, + 30,643,585,024 =
// 69,143,585,024 B, which fits. The solver's fewest devices (2 with tp 2) is fewer than the user's 8: not listed.
TEST(ways_out_property, own_devices_split_before_anything_else) {
  const settings s = {{"framework", "generic"},
                      {"params", "7e9"},
                      {"hidden_size", "4096"},
                      {"num_hidden_layers", "32"},
                      {"num_attention_heads", "32"},
                      {"mode", "train"},
                      {"seq", "2048"},
                      {"batch", "1"},
                      {"gpu_memory", "80GB"},
                      {"overhead", "none"},
                      {"attention", "standard"},
                      {"dropout", "on"},
                      {"norm", "layernorm"},
                      {"mlp", "plain"},
                      {"recompute", "none"},
                      {"vocab_size", "0"},
                      {"devices", "8"}};
  const auto a = answer(s);
  ASSERT_TRUE(a.ok());
  const auto& ways = a.value().ways_out.ways;
  ASSERT_FALSE(ways.empty());
  EXPECT_EQ(ways[0].way, "split");
  EXPECT_EQ(ways[0].group, "own");
  EXPECT_EQ(ways[0].text, "your 8 × device as data parallel 8, ZeRO-1");
  EXPECT_EQ(ways[0].delta, (settings{{"zero", "1"}}));  // tp and pp stay 1: not in the delta
  EXPECT_EQ(ways[0].total_bytes, 69143585024.0);
  EXPECT_TRUE(std::none_of(ways.begin(), ways.end(), [](const way_out& w) { return w.way == "devices"; }));
}

// torchtune shards fully or not at all (its row offers ZeRO 0 and 3): on 2 devices the ZeRO knob goes 0 -> 3, and
// no way names stage 1 or 2.
TEST(ways_out_property, zero_stages_are_the_frameworks) {
  const auto a = answer({{"model", "meta-llama-3-8b"},
                         {"framework", "torchtune"},
                         {"mode", "train"},
                         {"devices", "2"},
                         {"gpu", "rtx-4090"}});
  ASSERT_TRUE(a.ok());
  const auto& knobs = a.value().advice.knobs;
  const auto zero = std::find_if(knobs.begin(), knobs.end(), [](const knob_advice& k) { return k.id == "zero"; });
  ASSERT_NE(zero, knobs.end());
  EXPECT_EQ(zero->delta, (settings{{"zero", "3"}}));
  EXPECT_EQ(zero->name, "ZeRO stage 0 -> 3");
  for (const way_out& w : a.value().ways_out.ways)
    if (w.delta.contains("zero")) {
      EXPECT_TRUE(w.delta.at("zero") == "0" || w.delta.at("zero") == "3") << w.text;
    }
}

// The offload knobs are the framework's (docs/methodology.md, "CPU offload"): DeepSpeed offloads the optimizer from
// ZeRO 1 (offload_optimizer "Valid for ZeRO stage 1, 2, 3"), so at ZeRO 0 its knob raises the stage with it;
// Megatron-Core's --optimizer-cpu-offload needs no stage; FSDP's CPUOffloadPolicy moves parameters, gradients and
// optimizer together, so at ZeRO-3 it offers the parameters' offload and never the optimizer's alone; litgpt
// (cpu_offload=False in its script) and Unsloth offer none.
TEST(ways_out_property, offload_knobs_are_the_frameworks) {
  const auto offload_knobs = [](const std::string& framework, const std::string& zero, const std::string& devices) {
    const auto a = advise({{"model", "meta-llama-3-8b"},
                           {"framework", framework},
                           {"mode", "train"},
                           {"finetune", "full"},
                           {"zero", zero},
                           {"devices", devices},
                           {"gpu", "rtx-4090"}});
    EXPECT_TRUE(a.ok()) << framework;
    std::vector<knob_advice> out;
    if (!a.ok()) return out;
    for (const knob_advice& k : a.value().knobs)
      if (k.delta.contains("offload")) out.push_back(k);
    for (const skipped_knob& k : a.value().skipped)
      EXPECT_EQ(k.name.find("offload"), std::string::npos) << framework << ": " << k.name;
    return out;
  };
  const auto deepspeed = offload_knobs("deepspeed", "0", "1");
  ASSERT_EQ(deepspeed.size(), 1U);
  EXPECT_EQ(deepspeed[0].delta, (settings{{"offload", "optimizer"}, {"zero", "1"}}));
  EXPECT_EQ(deepspeed[0].name, "offload optimizer state to CPU (ZeRO 0 -> 1)");
  const auto megatron = offload_knobs("megatron", "0", "1");
  ASSERT_EQ(megatron.size(), 1U);
  EXPECT_EQ(megatron[0].delta, (settings{{"offload", "optimizer"}}));
  const auto fsdp = offload_knobs("fsdp", "3", "2");
  ASSERT_EQ(fsdp.size(), 1U);
  EXPECT_EQ(fsdp[0].delta, (settings{{"offload", "optimizer+params"}}));
  EXPECT_TRUE(offload_knobs("fsdp", "0", "1").empty());
  EXPECT_TRUE(offload_knobs("torchtitan", "0", "1").empty());
  EXPECT_TRUE(offload_knobs("litgpt", "3", "2").empty());
  EXPECT_TRUE(offload_knobs("unsloth", "0", "1").empty());
  // A run that states one anyway is estimated as stated, and the estimate says the framework does not run it.
  const auto stated = resolve({{"model", "meta-llama-3-8b"},
                               {"framework", "fsdp"},
                               {"mode", "train"},
                               {"zero", "3"},
                               {"devices", "2"},
                               {"offload", "optimizer"}});
  ASSERT_TRUE(stated.ok());
  const auto notes = estimate(stated.value()).notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "offload optimizer: framework fsdp does not run it at ZeRO 3 (docs/methodology.md, \"CPU "
                      "offload\"); estimated as stated"),
            notes.end());
}

// llama.cpp on one 4e9 B device: the 8B's Q4_K_M weights, about 8.03e9 x 4.9 bits / 8 = 4.9e9 B, do not fit, so
// whole layers leave for host RAM before a second device is asked for (its own --fit, solve.cpp offload_answer):
// the first way is on the user's one device, with -ngl below the 33 layers + output; the KV knob, if listed, is
// llama.cpp's own cache type (q8_0), never the engines' fp8.
TEST(ways_out_property, llamacpp_offloads_layers_first_on_its_own_device) {
  const auto a = answer({{"model", "meta-llama-3-8b"},
                         {"runtime", "llamacpp"},
                         {"mode", "inference"},
                         {"weights_dtype", "q4_k_m"},
                         {"gpu_memory", "4GB"},
                         {"seq", "8192"}});
  ASSERT_TRUE(a.ok());
  const auto& ways = a.value().ways_out.ways;
  ASSERT_FALSE(ways.empty());
  EXPECT_EQ(ways[0].way, "devices");
  EXPECT_EQ(ways[0].group, "own");
  ASSERT_TRUE(ways[0].delta.contains("n_gpu_layers"));
  EXPECT_LT(std::stoll(ways[0].delta.at("n_gpu_layers")), 33);
  EXPECT_EQ(ways[0].delta.at("devices"), "1");
  for (const knob_advice& k : a.value().advice.knobs)
    if (k.delta.contains("kv_dtype")) {
      EXPECT_TRUE(k.delta.at("kv_dtype").rfind("q", 0) == 0) << k.name;
    }
}

// vLLM with 8 × H100 as 8 replicas of a 70B: 70.6e9 x 2 B = 141e9 B of bf16 weights exceed one device, so the first
// way splits the user's 8 devices with tensor parallelism (no pipeline: tp fits first within the node), and the
// list never proposes fewer devices than the 8 the user has.
TEST(ways_out_property, inference_splits_the_users_devices) {
  const auto a = answer({{"model", "llama-3.1-70b"},
                         {"runtime", "vllm"},
                         {"mode", "inference"},
                         {"devices", "8"},
                         {"tp", "1"},
                         {"pp", "1"},
                         {"gpu", "h100-80gb"}});
  ASSERT_TRUE(a.ok());
  const auto& ways = a.value().ways_out.ways;
  ASSERT_FALSE(ways.empty());
  EXPECT_EQ(ways[0].way, "split");
  EXPECT_EQ(ways[0].group, "own");
  EXPECT_EQ(ways[0].delta.at("pp"), "1");
  EXPECT_NE(ways[0].delta.at("tp"), "1");
  EXPECT_EQ(ways[0].text.rfind("your 8 × NVIDIA H100", 0), 0U) << ways[0].text;
  for (const way_out& w : ways)
    if (w.delta.contains("devices")) {
      EXPECT_GE(std::stoll(w.delta.at("devices")), 8) << w.text;
    }
}

// The knob table's formats are the stack's own (docs/solve-and-advise.md, "Ways out"): llama.cpp loads GGUF
// conversions (Q8_0 weights, -ctk/-ctv q8_0 with -fa on); vLLM runs FP8 checkpoints on a device with FP8 tensor
// cores (the H100: fp8_tflops 1,979 in gpus.json) and int8 where there are none (the A100: Ampere), AWQ one step
// below 8 bits, and an fp8 KV cache; transformers takes bitsandbytes' int8.
TEST(ways_out_property, formats_are_the_runtimes_own) {
  const auto delta_of = [](settings s, const std::string& id) {
    s.insert({{"model", "meta-llama-3-8b"}, {"mode", "inference"}});
    const auto a = advise(s);
    EXPECT_TRUE(a.ok());
    if (!a.ok()) return settings{};
    for (const knob_advice& k : a.value().knobs)
      if (k.id == id) return k.delta;
    return settings{};
  };
  // llama.cpp's own default is Q4_K_M already (runtimes/llamacpp.cpp): from a 16-bit GGUF the 8-bit step is Q8_0.
  EXPECT_EQ(delta_of({{"runtime", "llamacpp"}, {"attention", "standard"}, {"weights_dtype", "bf16"}}, "weights_8bit"),
            (settings{{"weights_dtype", "q8_0"}}));
  EXPECT_EQ(delta_of({{"runtime", "llamacpp"}, {"attention", "standard"}}, "weights_8bit"), settings{});
  EXPECT_EQ(delta_of({{"runtime", "llamacpp"}, {"attention", "standard"}}, "kv_8bit"),
            (settings{{"attention", "flash"}, {"kv_dtype", "q8_0"}}));
  EXPECT_EQ(delta_of({{"runtime", "llamacpp"}, {"weights_dtype", "q8_0"}}, "weights_4bit"),
            (settings{{"weights_dtype", "q4_k_m"}}));
  EXPECT_EQ(delta_of({{"runtime", "vllm"}, {"gpu", "h100-80gb"}}, "weights_8bit"),
            (settings{{"weights_dtype", "fp8"}}));
  EXPECT_EQ(delta_of({{"runtime", "vllm"}, {"gpu", "a100-80gb"}}, "weights_8bit"),
            (settings{{"weights_dtype", "int8"}}));
  EXPECT_EQ(delta_of({{"runtime", "vllm"}, {"gpu", "h100-80gb"}, {"weights_dtype", "fp8"}}, "weights_4bit"),
            (settings{{"weights_dtype", "awq"}}));
  EXPECT_EQ(delta_of({{"runtime", "vllm"}}, "kv_8bit"), (settings{{"kv_dtype", "fp8"}}));
  EXPECT_EQ(delta_of({{"runtime", "transformers"}}, "weights_8bit"), (settings{{"weights_dtype", "int8"}}));
}

}  // namespace
