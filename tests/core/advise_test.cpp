// SPDX-License-Identifier: MIT
#include "llm_memory/advise.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "../random_settings.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"

namespace {

using namespace llm_memory;

// The case: the seed's 7B full fine-tune (mixed-precision AdamW) on one 80 GB GPU, with the default
// detailed overhead (1 GiB CUDA context + 5 % fragmentation reserve).
const settings seed_7b = {
    {"framework", "generic"},      {"params", "7e9"}, {"hidden_size", "4096"}, {"num_hidden_layers", "32"},
    {"num_attention_heads", "32"}, {"mode", "train"}, {"seq", "2048"},         {"batch", "1"},
    {"gpu_memory", "80GB"}};

advice_result advised(const settings& s) {
  const auto r = advise(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value() : advice_result{};
}

const knob_advice* find_knob(const advice_result& a, std::string_view id) {
  const auto it = std::find_if(a.knobs.begin(), a.knobs.end(), [&](const knob_advice& k) { return k.id == id; });
  return it == a.knobs.end() ? nullptr : &*it;
}

settings with(settings s, const settings& delta) {
  for (const auto& [key, value] : delta) s[key] = value;
  return s;
}

// Each knob's saving equals the total now minus the estimate re-run with its delta, exactly; its bucket
// changes are those of the re-run; the list is sorted by saving.
void expect_consistent(const settings& s, const advice_result& a) {
  const auto now = estimate(s);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(a.total_bytes, now.value().total_bytes);
  for (const auto& k : a.knobs) {
    const auto after = estimate(with(s, k.delta));
    ASSERT_TRUE(after.ok()) << k.name;
    EXPECT_EQ(k.total_bytes, after.value().total_bytes) << k.name;
    EXPECT_EQ(k.saved_bytes, now.value().total_bytes - after.value().total_bytes) << k.name;
    EXPECT_EQ(k.fits, after.value().fits) << k.name;
    double changed = 0, largest = 0;
    for (const auto& c : k.changes) {
      EXPECT_EQ(c.before, now.value().bytes(c.bucket)) << k.name << " " << c.bucket;
      EXPECT_EQ(c.after, after.value().bytes(c.bucket)) << k.name << " " << c.bucket;
      changed += c.saved();
      largest = std::max(largest, c.saved());
    }
    EXPECT_EQ(changed, k.saved_bytes) << k.name;  // buckets sum to the total (whole bytes, exact in doubles)
    if (largest > 0) {
      EXPECT_EQ(now.value().bytes(k.drains) - after.value().bytes(k.drains), largest) << k.name;
    }
    EXPECT_FALSE(k.delta.empty()) << k.name;
  }
  // Same-hardware knobs first (issue 17), each group by bytes saved.
  const auto rank = [](const knob_advice& k) { return k.delta.contains("devices") ? 1 : 0; };
  EXPECT_TRUE(std::is_sorted(a.knobs.begin(), a.knobs.end(), [&](const knob_advice& x, const knob_advice& y) {
    return rank(x) != rank(y) ? rank(x) < rank(y) : x.saved_bytes > y.saved_bytes;
  }));
}

TEST(advise, seed_7b_lists_optimizer_and_activation_knobs) {
  const auto a = advised(seed_7b);
  EXPECT_FALSE(a.fits);
  EXPECT_EQ(a.largest_bucket, "optimizer");  // 84e9 B of master weights + Adam moments
  expect_consistent(seed_7b, a);

  const auto* offload = find_knob(a, "offload_optimizer");
  ASSERT_NE(offload, nullptr);
  EXPECT_EQ(offload->drains, "optimizer");
  EXPECT_EQ(offload->delta, (settings{{"offload", "optimizer"}}));
  // Offload moves the whole optimizer bucket to CPU RAM: fp32 master + m + v = 12 B x 7e9 = 84e9 B. The
  // fragmentation reserve is 5 % of the allocated buckets, so it shrinks by 4.2e9 B with them (both reserves,
  // 5 % of 142,643,585,024 and of 58,643,585,024 B, end in .2 B and round up alike):
  // saved = 84e9 x 1.05 = 88.2e9 B.
  EXPECT_EQ(offload->saved_bytes, 88.2e9);
  EXPECT_EQ(offload->cpu_bytes, 84e9);
  EXPECT_TRUE(offload->fits);  // 150.85e9 - 88.2e9 = 62.65e9 <= 80e9

  // One device cannot shard: the ZeRO knob doubles the devices with ZeRO-3. The largest decrease is the
  // optimizer state, 84e9 -> 42e9 B.
  const auto* zero = find_knob(a, "add_devices_zero3");
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->drains, "optimizer");
  EXPECT_EQ(zero->delta, (settings{{"devices", "2"}, {"zero", "3"}}));
  EXPECT_EQ(find_knob(a, "zero"), nullptr);  // ZeRO +1 needs more than one data-parallel device

  // The knob goes as far as it goes: full recomputation (Korthikanti et al. 2022, table 2) keeps the layer
  // inputs 2 s b h L = 2 x 8,388,608 x 32 = 536,870,912 B and one layer s b h (34 + 5 a s / h) = 8,388,608 x 114
  // = 956,301,312 B instead of 32 layers (30,601,641,984 B): saves 29,108,469,760 B, x 1.05 with the reserve
  // (+ 1,455,423,488).
  const auto* recompute = find_knob(a, "recompute");
  ASSERT_NE(recompute, nullptr);
  EXPECT_EQ(recompute->drains, "activations");
  EXPECT_EQ(recompute->delta, (settings{{"recompute", "full"}}));
  EXPECT_EQ(recompute->saved_bytes, 29108469760.0 + 1455423488.0);

  // 8-bit AdamW: moments 2 x 4 B -> 2 x (1 + 4/256) B per parameter, the fp32 master copy stays:
  // optimizer 84e9 -> 28e9 + 14.21875e9 = 42.21875e9 B; saved 41.78125e9 B + 5 % reserve.
  const auto* adam8 = find_knob(a, "optimizer_8bit");
  ASSERT_NE(adam8, nullptr);
  EXPECT_EQ(adam8->drains, "optimizer");
  EXPECT_EQ(adam8->saved_bytes, 41.78125e9 + 2.0890625e9);

  // Knobs that cannot apply here are absent: no half micro-batch at batch 1, no KV knob in training.
  EXPECT_EQ(find_knob(a, "half_batch"), nullptr);
  EXPECT_EQ(find_knob(a, "kv_8bit"), nullptr);
  // vocab_size 0: no logits, so fused cross-entropy changes nothing and is reported as skipped.
  EXPECT_TRUE(std::any_of(a.skipped.begin(), a.skipped.end(),
                          [](const skipped_knob& k) { return k.reason == "changes no bucket"; }));
}

TEST(advise, zero_steps_up_over_data_parallel_devices) {
  auto s = seed_7b;
  s["devices"] = "8";
  s["zero"] = "1";
  const auto a = advised(s);
  expect_consistent(s, a);
  const auto* zero = find_knob(a, "zero");
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->delta, (settings{{"zero", "2"}}));
  // ZeRO-2 shards the 14e9 B of bf16 gradients over 8: 14e9 - 1.75e9 = 12.25e9 B from the gradients bucket.
  EXPECT_EQ(zero->drains, "gradients");
  double gradients_saved = 0;
  for (const auto& c : zero->changes)
    if (c.bucket == "gradients") gradients_saved = c.saved();
  EXPECT_EQ(gradients_saved, 12.25e9);
}

// One moment instead of two: mixed-precision AdamW keeps master + m + v = 12 B per parameter (84e9 B for the
// seed's 7B), Lion (or SGD with momentum) master + one fp32 moment = 8 B (56e9 B): 28e9 B saved, + 5 % reserve.
// Two pipeline stages over two devices halve the layers per device (the seed's 32 layers -> 16 per stage).
TEST(advise, one_moment_optimizer_and_pipeline_stages) {
  const auto a = advised(seed_7b);
  expect_consistent(seed_7b, a);
  const auto* lion = find_knob(a, "one_moment");
  ASSERT_NE(lion, nullptr);
  EXPECT_EQ(lion->delta, (settings{{"optimizer", "lion"}}));
  EXPECT_EQ(lion->drains, "optimizer");
  EXPECT_EQ(lion->saved_bytes, 28e9 * 1.05);
  const auto* pp = find_knob(a, "pp_x2");
  ASSERT_NE(pp, nullptr);
  EXPECT_EQ(pp->delta, (settings{{"pp", "2"}, {"devices", "2"}}));
  // The stage with the most holds half of the 7e9 parameters (14e9 -> 7e9 B in bf16) plus the final norm
  // (4096 x 2 B), and 16 of the 32 layers' activations: 16 x 956,301,312 B (sbh(34 + 5as/h), one micro-batch).
  // The busiest stage is the last (it keeps the final norm and lm_head inputs), so the embedding dropout mask
  // (1 B x sbh = 8,388,608 B) leaves the count with the first stage.
  for (const auto& c : pp->changes) {
    if (c.bucket == "parameters") {
      EXPECT_NEAR(c.after, 7e9, 2 * 4096);
    }
    if (c.bucket == "activations") {
      EXPECT_EQ(c.before - c.after, 16 * 956301312.0 + 8388608.0);
    }
  }
  // No third stage when every layer already has its own stage.
  auto one_layer_each = seed_7b;
  one_layer_each["pp"] = "32";
  one_layer_each["devices"] = "32";
  EXPECT_EQ(find_knob(advised(one_layer_each), "pp_x2"), nullptr);
}

// Tensor parallelism without sequence parallelism (Korthikanti et al. eq. 3 against eq. 4), s 2048, b 1,
// h 4096, a 32, L 32, t 8, dropout on, no vocabulary: turning it on divides by 8 what stayed whole —
//   layers: 32 x sbh (10 + 24/8 + 10) = 6,174,015,488 -> 32 x sbh (34 + 80)/8 = 3,825,205,248: 2,348,810,240 saved
//   embedding dropout mask 1 B x sbh = 8,388,608 -> 1,048,576: 7,340,032 saved
//   final norm and lm_head inputs 2 x 2 B x sbh = 33,554,432 -> 4,194,304: 29,360,128 saved
// 2,385,510,400 B of activations, x 1.05 with the fragmentation reserve = 2,504,785,920 B.
TEST(advise, sequence_parallelism_is_offered_under_tensor_parallelism) {
  auto s = seed_7b;
  s["tp"] = "8";
  s["devices"] = "8";
  s["sequence_parallel"] = "off";
  const auto a = advised(s);
  expect_consistent(s, a);
  const auto* sp = find_knob(a, "sequence_parallel");
  ASSERT_NE(sp, nullptr);
  EXPECT_EQ(sp->delta, (settings{{"sequence_parallel", "on"}}));
  EXPECT_EQ(sp->drains, "activations");
  EXPECT_EQ(sp->saved_bytes, 2385510400.0 * 1.05);
  s["sequence_parallel"] = "on";
  EXPECT_EQ(find_knob(advised(s), "sequence_parallel"), nullptr);
}
TEST(advise, inference_offers_weight_and_kv_quantisation) {
  const settings s = {
      {"framework", "generic"}, {"model", "llama-2-7b"}, {"mode", "inference"}, {"seq", "4096"}, {"batch", "8"}};
  const auto a = advised(s);
  expect_consistent(s, a);
  const auto* kv = find_knob(a, "kv_8bit");
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->drains, "kv_cache");
  // bf16 -> fp8 halves the cache: 2 x 32 layers x 8 x 4096 x 32 heads x 128 x 2 B = 17,179,869,184 B -> half.
  double kv_saved = 0;
  for (const auto& c : kv->changes)
    if (c.bucket == "kv_cache") kv_saved = c.saved();
  EXPECT_EQ(kv_saved, 17179869184.0 / 2);
  const auto* weights = find_knob(a, "weights_8bit");
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->drains, "parameters");
  EXPECT_EQ(find_knob(a, "recompute"), nullptr);  // training-only knobs are not offered
  EXPECT_EQ(find_knob(a, "offload_optimizer"), nullptr);
}

TEST(advise, json_lists_knobs_with_deltas) {
  const auto a = advised(seed_7b);
  const std::string j = advice_to_json(a);
  for (const char* key :
       {"\"knobs\"", "\"delta\"", "\"drains\"", "\"saved\"", "\"skipped\"", "\"offload\": \"optimizer\""})
    EXPECT_NE(j.find(key), std::string::npos) << key;
}

TEST(advise, errors_name_the_setting) {
  const auto r = advise(settings{{"framework", "generic"}, {"seq", "-1"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "seq");
}

// Never crashes on random settings; whatever it lists re-estimates exactly.
TEST(advise, random_settings_are_consistent) {
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int n = 0; n < llm_memory::testing::property_cases(120); ++n) {
    const settings s = llm_memory::testing::random_settings(rng);
    const auto a = advise(s);
    if (!a.ok()) {
      EXPECT_FALSE(estimate(s).ok());
      continue;
    }
    ++checked;
    expect_consistent(s, a.value());
  }
  EXPECT_GE(checked, llm_memory::testing::property_cases(50));
}

}  // namespace

// ---- cheapest combination (issue 17 item 4) ----------------------------------------------------------------------

// A hand-checkable evaluator: the total starts at 100 and each knob in the merged delta takes off its own saving
// (additive by construction), so every combination's total is derived by hand below.
struct fake_knob {
  combination_knob knob;
  double saves = 0;
};

combination_evaluator additive(const std::vector<fake_knob>& knobs, double limit, std::vector<settings>* seen) {
  return [=](const settings& delta) -> std::optional<combination_outcome> {
    if (seen != nullptr) seen->push_back(delta);
    double total = 100;
    for (const auto& k : knobs) {
      const bool applied = std::all_of(k.knob.delta.begin(), k.knob.delta.end(), [&](const auto& kv) {
        const auto it = delta.find(kv.first);
        return it != delta.end() && it->second == kv.second;
      });
      if (applied) total -= k.saves;
    }
    return combination_outcome{total, 0, total <= limit};
  };
}

std::vector<combination_knob> pool_of(const std::vector<fake_knob>& knobs) {
  std::vector<combination_knob> out;
  for (const auto& k : knobs) out.push_back(k.knob);
  return out;
}

// A (tier 0) saves 10, B (tier 2) 30, C (tier 1) 15, E (tier 0, same key as A) 40, D (tier 1) adds devices, 100.
const std::vector<fake_knob> fake = {
    {{"A", "a", {{"x", "1"}}, 0}, 10}, {{"B", "b", {{"y", "1"}}, 2}, 30},        {{"C", "c", {{"z", "1"}}, 1}, 15},
    {{"E", "e", {{"x", "2"}}, 0}, 40}, {{"D", "d", {{"devices", "2"}}, 1}, 100},
};

TEST(advise, cheapest_single_knob_is_the_lowest_tier_that_fits) {
  // Limit 85: alone A 90 (no), B 70, C 85, E 60 fit; the lowest tier among them is E's 0.
  const auto c = cheapest_combination(pool_of(fake), additive(fake, 85, nullptr));
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.ids, std::vector<std::string>{"E"});
  EXPECT_EQ(c.total_bytes, 60);
  EXPECT_EQ(c.cost, 0);
  EXPECT_TRUE(c.same_hardware);
}

TEST(advise, cheapest_pair_by_cost_and_alternatives_never_combined) {
  // Limit 50: no single same-hardware knob fits (best E: 60). Pairs without a shared key (A and E both set x):
  // AB 60, AC 75, BC 55, BE 30, CE 45; by cost AC 1, CE 1, AB 2, BE 2, BC 3 -> AC fails, CE fits (45); the next
  // cost (2) is dearer, so the search stops: 4 singles + 2 pairs estimated. BE saves more but costs 2.
  std::vector<settings> seen;
  const auto c = cheapest_combination(pool_of(fake), additive(fake, 50, &seen));
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.ids, (std::vector<std::string>{"C", "E"}));
  EXPECT_EQ(c.total_bytes, 45);
  EXPECT_EQ(c.cost, 1);
  EXPECT_EQ(c.evaluated, 6u);
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(c.delta, (settings{{"x", "2"}, {"z", "1"}}));
  for (const auto& d : seen) EXPECT_FALSE(d.contains("devices"));  // same hardware first
}

TEST(advise, cheapest_adds_devices_only_when_the_hardware_cannot_fit) {
  // Limit 5: the best same-hardware triple is B + C + E = 100 - 85 = 15 > 5; then D alone gives 0.
  const auto c = cheapest_combination(pool_of(fake), additive(fake, 5, nullptr));
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.ids, std::vector<std::string>{"D"});
  EXPECT_FALSE(c.same_hardware);
  // Nothing fits at -1000: not found, every combination up to 3 knobs estimated once: same hardware 4 + 5 + 2 (ABC,
  // BCE; ABE and ACE pair A with E), then with D: 1 + 4 + 5.
  const auto none = cheapest_combination(pool_of(fake), additive(fake, -1000, nullptr));
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.evaluated, 21u);
}

TEST(advise, cheapest_ties_on_cost_go_to_the_smallest_total) {
  // F (tier 0) saves 50: at limit 75, E (60) and F (50) both fit at cost 0; F leaves more room.
  std::vector<fake_knob> knobs = fake;
  knobs.push_back({{"F", "f", {{"w", "1"}}, 0}, 50});
  const auto c = cheapest_combination(pool_of(knobs), additive(knobs, 75, nullptr));
  EXPECT_EQ(c.ids, std::vector<std::string>{"F"});
  EXPECT_EQ(c.total_bytes, 50);
}

// The seed's 7B (generic arithmetic), one token so activations are a few MB: 14 GB weights + 14 GB gradients +
// 84 GB optimizer (28 master + 2 x 28 moments) = 112 GB, no overhead.
const settings tiny_7b = {{"framework", "generic"}, {"params", "7e9"},   {"mode", "train"}, {"seq", "1"},
                          {"batch", "1"},           {"overhead", "none"}};

TEST(advise, cheapest_on_real_estimates) {
  // 100 GB: 8-bit AdamW alone gives 14 + 14 + 28 + 2 x 7e9 x (1 + 4/256) B = 70.22 GB (tier 1); no tier-0 knob
  // applies (one device: no ZeRO; bf16 weights; no vocabulary, so no fused loss; flash saves only the few MB).
  auto s = tiny_7b;
  s["gpu_memory"] = "100GB";
  const auto a = advised(s);
  ASSERT_TRUE(a.cheapest.searched);
  ASSERT_TRUE(a.cheapest.found);
  EXPECT_EQ(a.cheapest.ids, std::vector<std::string>{"optimizer_8bit"});
  EXPECT_GT(a.cheapest.total_bytes, 70.21875e9);
  EXPECT_LT(a.cheapest.total_bytes, 70.23e9);
  EXPECT_EQ(a.cheapest.total_bytes, estimate(with(s, a.cheapest.delta)).value().total_bytes);

  // 60 GB: 8-bit AdamW (70.22) and Lion (98) no longer fit; one knob of tier 2 does: Adafactor (56 GB + the
  // factored moments), LoRA (14 GB bf16 base) and QLoRA (4-bit base): the smallest total is QLoRA's.
  s["gpu_memory"] = "60GB";
  const auto b = advised(s);
  ASSERT_TRUE(b.cheapest.found);
  EXPECT_EQ(b.cheapest.ids, std::vector<std::string>{"qlora"});
  EXPECT_EQ(b.cheapest.cost, 2);
  EXPECT_LT(b.cheapest.total_bytes, 14e9);

  // Fits now: nothing searched, and the JSON says null.
  s["gpu_memory"] = "200GB";
  const auto fits = advised(s);
  EXPECT_FALSE(fits.cheapest.searched);
  EXPECT_NE(advice_to_json(fits, -1).find("\"cheapest\":null"), std::string::npos);
}

// A knob that adds memory says so: Transformers + peft LoRA (q_proj, v_proj, r 16) on one device; doubling the
// data-parallel devices adds DDP's gradient buckets, a flat copy of the fp32 adapter gradients (peft keeps the
// adapters in fp32): 32 x (16 x (4096 + 4096) + 16 x (4096 + 1024)) = 6,815,744 x 4 B = 27,262,976 B, and saves
// nothing else (DDP replicates the rest).
TEST(advise, knobs_that_add_memory_say_what_they_cost) {
  const settings s = {{"model", "llama-3.1-8b"}, {"finetune", "lora"}, {"seq", "512"}, {"gpu_memory", "1GB"}};
  const auto a = advised(s);
  const auto* k = find_knob(a, "devices_x2");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->added_bytes(), 27262976.0);
  EXPECT_EQ(k->saved_bytes, -27262976.0);
  EXPECT_NE(advice_to_json(a, -1).find("\"added\":27262976"), std::string::npos);
  // It never joins a combination: only knobs that save memory on their own are combined.
  EXPECT_TRUE(std::find(a.cheapest.ids.begin(), a.cheapest.ids.end(), "devices_x2") == a.cheapest.ids.end());
}
