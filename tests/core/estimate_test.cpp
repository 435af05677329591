// SPDX-License-Identifier: MIT
#include "llm_memory/estimate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../random_settings.hpp"

namespace {

using namespace llm_memory;

double total(settings s) {
  auto r = estimate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value().total_bytes : 0;
}

TEST(estimate, totals_grow_with_batch_seq_and_layers) {
  for (const char* mode : {"train", "inference"}) {
    settings base{{"framework", "generic"}, {"model", "llama-2-7b"}, {"mode", mode}};
    double previous = 0;
    for (int batch : {1, 2, 4, 8}) {
      auto s = base;
      s["batch"] = std::to_string(batch);
      const double t = total(s);
      EXPECT_GT(t, previous) << mode << " batch " << batch;
      previous = t;
    }
    previous = 0;
    for (int seq : {128, 512, 2048, 8192}) {
      auto s = base;
      s["seq"] = std::to_string(seq);
      const double t = total(s);
      EXPECT_GT(t, previous) << mode << " seq " << seq;
      previous = t;
    }
    previous = 0;
    for (int layers : {1, 2, 16, 32}) {
      auto s = base;
      s["num_hidden_layers"] = std::to_string(layers);
      const double t = total(s);
      EXPECT_GT(t, previous) << mode << " layers " << layers;
      previous = t;
    }
  }
}

TEST(estimate, buckets_sum_to_total_and_items_to_buckets) {
  auto r = estimate(settings{{"framework", "generic"}, {"model", "meta-llama-3-8b"}, {"devices", "8"}, {"zero", "3"}});
  ASSERT_TRUE(r.ok());
  double sum = 0;
  for (const auto& b : r.value().buckets) {
    double items = 0;
    for (const auto& i : b.items) items += i.bytes;
    EXPECT_EQ(items, b.bytes) << b.key;
    sum += b.bytes;
  }
  EXPECT_EQ(sum, r.value().total_bytes);
  ASSERT_EQ(r.value().buckets.size(), bucket_keys.size());
  for (std::size_t i = 0; i < bucket_keys.size(); ++i) EXPECT_EQ(r.value().buckets[i].key, bucket_keys[i]);
}

TEST(estimate, random_valid_settings_give_finite_non_negative_results) {
  std::mt19937_64 rng(20261202);
  int valid = 0;
  for (int i = 0; i < 3000; ++i) {
    const settings s = llm_memory::testing::random_settings(rng);
    const auto r = estimate(s);
    if (!r.ok()) continue;
    ++valid;
    const auto& e = r.value();
    ASSERT_TRUE(std::isfinite(e.total_bytes)) << i;
    ASSERT_GE(e.total_bytes, 0) << i;
    ASSERT_TRUE(std::isfinite(e.cpu_bytes) && e.cpu_bytes >= 0) << i;
    for (const auto& b : e.buckets)
      for (const auto& it : b.items) ASSERT_TRUE(std::isfinite(it.bytes) && it.bytes >= 0) << b.key << " " << it.name;
  }
  EXPECT_GT(valid, 1500);
}

// Korthikanti et al. 2022, Table 2: with tensor and sequence parallelism every per-layer term divides by t.
TEST(estimate, tensor_parallel_divides_layer_activations) {
  settings s{{"framework", "generic"},
             {"hidden_size", "4096"},
             {"num_attention_heads", "32"},
             {"num_hidden_layers", "32"},
             {"seq", "2048"}};
  auto one = estimate(s);
  s["tp"] = "8";
  s["devices"] = "8";
  auto eight = estimate(s);
  ASSERT_TRUE(one.ok() && eight.ok());
  EXPECT_EQ(one.value().buckets[3].items[0].bytes, 30601641984);
  EXPECT_EQ(eight.value().buckets[3].items[0].bytes, 30601641984 / 8);
}

// Korthikanti et al. 2022, eq. 3: tensor parallelism alone leaves the norms, dropouts and layer inputs whole:
// sbh(10 + 24/t + 5as/(ht)) per layer. s 2048, b 1, h 4096, a 32, t 8: 8,388,608 x (10 + 3 + 10) = 192,937,984,
// x 32 layers = 6,174,015,488 B. Full recompute keeps the checkpoints whole too: 2sbhL = 536,870,912 B (8x the
// sequence-parallel figure).
TEST(estimate, tensor_parallel_without_sequence_parallelism_matches_korthikanti_eq3) {
  settings s{{"framework", "generic"},
             {"hidden_size", "4096"},
             {"num_attention_heads", "32"},
             {"num_hidden_layers", "32"},
             {"seq", "2048"},
             {"tp", "8"},
             {"devices", "8"},
             {"sequence_parallel", "off"}};
  auto none = estimate(s);
  s["recompute"] = "full";
  auto full = estimate(s);
  s["sequence_parallel"] = "on";
  auto full_sp = estimate(s);
  ASSERT_TRUE(none.ok() && full.ok() && full_sp.ok());
  EXPECT_EQ(none.value().buckets[3].items[0].bytes, 6174015488);
  EXPECT_EQ(full.value().buckets[3].items[0].bytes, 536870912);
  EXPECT_EQ(full_sp.value().buckets[3].items[0].bytes, 536870912 / 8);
}

// Selective recompute drops the 5as/h term: 34 sbh L = 34 x 2048 x 4096 x 32 = 9,126,805,504 B.
// Full recompute keeps 2 sbh per layer (2 x 2048 x 4096 x 32 = 536,870,912) plus one layer (956,301,312).
TEST(estimate, recompute_levels_match_korthikanti) {
  settings s{{"framework", "generic"},
             {"hidden_size", "4096"},
             {"num_attention_heads", "32"},
             {"num_hidden_layers", "32"},
             {"seq", "2048"}};
  s["recompute"] = "selective";
  auto sel = estimate(s);
  s["recompute"] = "full";
  auto full = estimate(s);
  ASSERT_TRUE(sel.ok() && full.ok());
  EXPECT_EQ(sel.value().buckets[3].items[0].bytes, 9126805504);
  EXPECT_EQ(full.value().buckets[3].items[0].bytes, 536870912);
  EXPECT_EQ(full.value().buckets[3].items[1].bytes, 956301312);
}

// LoRA: a frozen linear keeps its input only when it is adapted (autograd saves a matmul input for the weight's
// gradient; lora_A needs the same input). Llama 2 7B (h 4096, a = n_kv = 32, d 128, i 11008), r 16, bf16 (B 2),
// s 2048, b 1 (T 2048), standard attention, no upcast, q_proj,v_proj; per layer, B x T = 4096 B per value:
//   2 norm inputs            2 x 4096 x 4096           =  33,554,432
//   q/k/v input (q, v adapt) 4096 x 4096               =  16,777,216
//   q, k, v                  3 x 4096 x 4096           =  50,331,648
//   o_proj input             frozen, standard kernel   =           0
//   scores                   2 x 32 x 2048^2           = 268,435,456
//   MLP gate, silu, up       3 x 4096 x 11008          = 135,266,304 (input and down_proj input: frozen, 0)
//   LoRA A outputs           2 x 4096 x 16             =     131,072
//   per layer                                            504,496,128; x 32 = 16,143,876,096
// The final norm keeps its input 4096 x 4096 = 16,777,216; the frozen lm_head keeps none. Full recompute keeps
// 2 x T x h x 32 = 536,870,912 of checkpoints and one layer (LoRA intermediates included) while recomputing.
TEST(estimate, lora_keeps_only_adapted_linear_inputs) {
  settings s{{"framework", "generic"},          {"model", "llama-2-7b"}, {"finetune", "lora"}, {"lora_rank", "16"},
             {"lora_targets", "q_proj,v_proj"}, {"seq", "2048"},         {"batch", "1"}};
  auto none = estimate(s);
  s["recompute"] = "full";
  auto full = estimate(s);
  ASSERT_TRUE(none.ok() && full.ok());
  const auto& act = none.value().buckets[3];
  EXPECT_EQ(act.items[0].bytes, 16143876096);
  EXPECT_EQ(act.items[1].name, "final norm and lm_head inputs");
  EXPECT_EQ(act.items[1].bytes, 16777216);
  EXPECT_EQ(full.value().buckets[3].items[0].bytes, 536870912);
  EXPECT_EQ(full.value().buckets[3].items[1].bytes, 504496128);
}

// The same model, all-linear, flash attention, Hugging Face's upcasting RMSNorm. Per layer:
//   2 norms: fp32 input only  2 x 4 x 2048 x 4096  =  67,108,864 (frozen weight: the normalised value is not kept)
//   q/k/v input, q, k, v, o_proj input (adapted; the flash kernel keeps its output anyway)
//                             5 x 4096 x 4096      =  83,886,080
//   log-sum-exp               4 x 32 x 2048        =     262,144
//   MLP input, gate, silu, up, product  4096 x (4096 + 4 x 11008) = 197,132,288
//   LoRA A outputs            7 x 4096 x 16        =     458,752
//   per layer                                        348,848,128; x 32 = 11,163,140,096
// Final norm: 4 x 2048 x 4096 = 33,554,432.
TEST(estimate, lora_all_linear_flash_upcast_norms) {
  auto r = estimate(settings{{"framework", "generic"},
                             {"model", "llama-2-7b"},
                             {"finetune", "lora"},
                             {"lora_rank", "16"},
                             {"lora_targets", "all-linear"},
                             {"seq", "2048"},
                             {"attention", "flash"},
                             {"norm_upcast", "on"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().buckets[3].items[0].bytes, 11163140096);
  EXPECT_EQ(r.value().buckets[3].items[1].bytes, 33554432);
}

// MoE: the rule applies per expert projection. Mixtral 8x7B (h 4096, n_kv 8, d 128, i 14336, E 8, k 2), r 16,
// s 2048, b 1, standard attention; routed experts see k x T = 4096 tokens. q_proj,v_proj, per layer:
//   norms 33,554,432; q/k/v input 16,777,216; q 16,777,216; k, v 2 x 2 x 2048 x 1024 = 8,388,608
//   scores 268,435,456; router probabilities 4 x 2048 x 8 = 65,536 (router input: frozen router, 0)
//   experts gate, silu, up 3 x 2 x 4096 x 14336 = 352,321,536 (their inputs and down inputs: 0)
//   LoRA 2 x 4096 x 16 = 131,072                        total 696,451,072
// all-linear adds o_proj input 16,777,216, router input 16,777,216 (peft adapts the router), expert inputs
// 2 x 4096 x 4096 = 33,554,432, expert down inputs 2 x 4096 x 14336 = 117,440,512, and LoRA 4 x 65,536 (attention)
// + 3 x 2 x 4096 x 16 (experts) + 2 x 2048 x 16 = 65,536 (the nn.Linear gate's adapter) = 720,896 instead of 131,072:
// 881,590,272.
TEST(estimate, lora_rule_applies_per_expert) {
  settings s{{"framework", "generic"}, {"model", "mixtral-8x7b-v0.1"},    {"finetune", "lora"},
             {"lora_rank", "16"},      {"lora_targets", "q_proj,v_proj"}, {"seq", "2048"}};
  auto qv = estimate(s);
  s["lora_targets"] = "all-linear";
  auto all = estimate(s);
  ASSERT_TRUE(qv.ok() && all.ok());
  EXPECT_EQ(qv.value().buckets[3].items[0].bytes, 32.0 * 696451072);
  EXPECT_EQ(all.value().buckets[3].items[0].bytes, 32.0 * 881590272);
}

// bitsandbytes < 0.43.2 under QLoRA: every frozen 4-bit linear keeps its input as an adapted one does. The Mixtral
// q_proj,v_proj case above on an NF4 base gains, per layer, exactly what all-linear adds besides the LoRA
// intermediates: o_proj input 16,777,216 + router input 16,777,216 + expert inputs 33,554,432 + expert down inputs
// 117,440,512 = 184,549,376, so 696,451,072 + 184,549,376 = 881,000,448; under all-linear nothing changes (881,590,272
// as above).
TEST(estimate, bnb_before_0_43_2_keeps_frozen_4bit_inputs) {
  settings s{{"framework", "generic"}, {"model", "mixtral-8x7b-v0.1"},    {"finetune", "qlora"},
             {"lora_rank", "16"},      {"lora_targets", "q_proj,v_proj"}, {"seq", "2048"}};
  auto current = estimate(s);
  s["bnb_version"] = "before_0.43.2";
  auto before = estimate(s);
  s["lora_targets"] = "all-linear";
  auto all = estimate(s);
  ASSERT_TRUE(current.ok() && before.ok() && all.ok());
  EXPECT_EQ(current.value().buckets[3].items[0].bytes, 32.0 * 696451072);
  EXPECT_EQ(before.value().buckets[3].items[0].bytes, 32.0 * 881000448);
  EXPECT_EQ(all.value().buckets[3].items[0].bytes, 32.0 * 881590272);
}

// KV cache = 2 x L x b x s x n_kv x head_dim x 2 B. Llama 2 7B at 4096 tokens: 2*32*4096*32*128*2 = 2,147,483,648.
TEST(estimate, kv_cache_follows_gqa) {
  auto r =
      estimate(settings{{"framework", "generic"}, {"model", "llama-2-7b"}, {"mode", "inference"}, {"seq", "4096"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().bytes("kv_cache"), 2147483648.0);
  r = estimate(
      settings{{"framework", "generic"}, {"model", "meta-llama-3-8b"}, {"mode", "inference"}, {"seq", "4096"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().bytes("kv_cache"), 2147483648.0 / 4);
}

TEST(estimate, cross_setting_errors_name_the_setting) {
  auto r = estimate(settings{{"framework", "generic"}, {"params", "7e9"}, {"trainable_params", "8e9"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "trainable_params");
  r = estimate(settings{{"framework", "generic"}, {"weights_dtype", "q4_0"}, {"mode", "train"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "weights_dtype");
}

}  // namespace
