// SPDX-License-Identifier: MIT
// The settings table's `applies` column (issue 31 item 4): the rules the page hides a field by, exported by
// --schema, and the core's notes that call a setting ignored name the settings the column says are not read there.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/settings.hpp"

namespace {

using namespace llm_memory;

// The keys whose `applies` column names `rule`, in table order.
std::vector<std::string> keys_with(std::string_view rule) {
  std::vector<std::string> keys;
  for (const auto& def : setting_table()) {
    std::string_view rest = def.applies;
    bool named = false;
    while (!rest.empty() && !named) {
      const std::size_t comma = rest.find(',');
      named = rest.substr(0, comma) == rule;
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    if (named) keys.emplace_back(def.key);
  }
  return keys;
}

bool has_note(const estimate_result& r, const std::string& note) {
  return std::find(r.notes.begin(), r.notes.end(), note) != r.notes.end();
}

TEST(applies, every_rule_is_named_and_has_words) {
  for (const auto& rule : applies_rules()) {
    EXPECT_FALSE(rule.when.empty()) << rule.id;
    EXPECT_FALSE(keys_with(rule.id).empty()) << rule.id << " names no setting";
  }
}

// 52 rows carry rules (the page's former key lists, state_dtype, and issue 35's compile, transformers_version and
// eval_grad, and issue 34's n_cpu_moe): 25 read in training only, 4 in training and evaluation (framework, compile,
// transformers_version, autocast), eval_grad in evaluation only, 18 in inference only, and double_quant,
// overhead_factor, sequence_parallel, encoder_layers and encoder_seq.
TEST(applies, rows_with_rules) {
  std::size_t rows = 0;
  for (const auto& def : setting_table()) rows += def.applies.empty() ? 0U : 1U;
  // 49 rows before issue 35; + compile, transformers_version, eval_grad, unsloth_version and the three ZeRO-3
  // bucket rows; + n_cpu_moe (issue 34, inference on llama.cpp). framework, compile, transformers_version,
  // autocast and recompute (an eval_grad pass saves what training saves) apply to training and eval. Issue 36 item 3: +
  // quant_bits (int_packed), quant_group_size (grouped_quant) and cp (training: estimate.cpp sets cp = 1 outside
  // training), so the page hides them where nothing reads them. Issue 35's leftovers: + selective_ac_option
  // (training with framework torchtitan). zero moves from training to training_or_eval: a ZeRO-3 engine keeps the
  // parameters sharded while it evaluates (eval_test.cpp zero3_shards_the_weights). Round 3: + torchtitan_version
  // (training with framework torchtitan). + quant_skip_layers (grouped_quant: read by the layouts but MXFP4's).
  EXPECT_EQ(rows, 63U);
  EXPECT_EQ(keys_with("training").size(), 30U);
  EXPECT_EQ(keys_with("torchtitan"), (std::vector<std::string>{"torchtitan_version", "selective_ac_option"}));
  EXPECT_EQ(keys_with("int_packed"), std::vector<std::string>{"quant_bits"});
  EXPECT_EQ(keys_with("grouped_quant"), (std::vector<std::string>{"quant_group_size", "quant_skip_layers"}));
  EXPECT_EQ(keys_with("training_or_eval").size(), 6U);
  EXPECT_EQ(find_setting("zero")->applies, "training_or_eval");
  EXPECT_EQ(keys_with("eval").size(), 1U);
  EXPECT_EQ(keys_with("inference").size(), 18U);
}

TEST(applies, schema_exports_each_rule_with_its_words_in_row_order) {
  const auto schema = nlohmann::json::parse(settings_schema_json());
  const auto row = [&](std::string_view key) {
    for (const auto& r : schema)
      if (r["key"] == key) return r;
    return nlohmann::json{};
  };
  EXPECT_FALSE(row("seq").contains("applies"));
  using nlohmann::json;
  const json lora_rank = json::array(
      {json{{"rule", "training"}, {"when", "training"}}, json{{"rule", "lora_or_qlora"}, {"when", "LoRA or QLoRA"}}});
  EXPECT_EQ(row("lora_rank")["applies"], lora_rank);
  const json sequence_parallel = json::array({json{{"rule", "tp_gt_1"}, {"when", "tensor parallelism (tp > 1)"}}});
  EXPECT_EQ(row("sequence_parallel")["applies"], sequence_parallel);
}

// framework generic has no phase model: its note lists, in table order, the settings read only by one.
TEST(applies, generic_framework_note_names_the_phase_model_settings) {
  const std::vector<std::string> keys = keys_with("phased_framework");
  ASSERT_EQ(keys.size(), 6U);
  std::string list;
  for (std::size_t i = 0; i < keys.size(); ++i) list += (i == 0 ? "" : i + 1 == keys.size() ? " and " : ", ") + keys[i];
  const auto r = estimate({{"framework", "generic"}, {"allocator_reserve", "1"}});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(has_note(r.value(), "framework generic sums every bucket: " + list + " are ignored"));
}

TEST(applies, inference_note_names_a_training_only_setting) {
  EXPECT_EQ(find_setting("finetune")->applies, "training");
  const auto r = estimate({{"mode", "inference"}, {"finetune", "lora"}});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(has_note(r.value(), "finetune is ignored for inference: the base weights are estimated as stored"));
}

TEST(applies, lora_note_names_a_full_training_setting) {
  EXPECT_EQ(find_setting("trainable_params")->applies, "training,full");
  const auto r = estimate({{"finetune", "lora"}, {"trainable_params", "0.5"}});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(
      has_note(r.value(), "trainable_params is ignored with LoRA: the adapters' shapes give the trainable count"));
}

}  // namespace
