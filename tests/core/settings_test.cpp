// SPDX-License-Identifier: MIT
#include "llm_memory/settings.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/resolve.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

namespace {

using namespace llm_memory;

TEST(settings, table_keys_are_unique_and_defaults_parse) {
  std::set<std::string_view> keys;
  for (const auto& def : setting_table()) {
    EXPECT_TRUE(keys.insert(def.key).second) << def.key;
    EXPECT_FALSE(def.doc.empty()) << def.key;
    EXPECT_FALSE(def.group.empty()) << def.key;
  }
  EXPECT_TRUE(resolve({}).ok());
}

TEST(settings, counts_accept_suffixes) {
  const auto* params = find_setting("params");
  ASSERT_NE(params, nullptr);
  EXPECT_EQ(parse_number(*params, "7e9").value(), 7e9);
  EXPECT_EQ(parse_number(*params, "7B").value(), 7e9);
  EXPECT_EQ(parse_number(*params, "7000000000").value(), 7e9);
  EXPECT_EQ(parse_number(*params, "1.5b").value(), 1.5e9);
  EXPECT_EQ(parse_number(*params, "350M").value(), 3.5e8);
}

TEST(settings, bytes_accept_decimal_and_binary_units) {
  const auto* mem = find_setting("gpu_memory");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(parse_number(*mem, "80GB").value(), 80e9);
  EXPECT_EQ(parse_number(*mem, "80GiB").value(), 80.0 * 1073741824);
  EXPECT_EQ(parse_number(*mem, "24 GiB").value(), 24.0 * 1073741824);
  EXPECT_EQ(parse_number(*mem, "1024").value(), 1024);
}

TEST(settings, errors_name_the_setting) {
  auto r = resolve({{"batch", "0"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "batch");
  EXPECT_EQ(to_string(r.errors()[0]), "batch: must be an integer from 1 to 10000000, got \"0\"");
}

TEST(settings, every_invalid_class_is_rejected_with_its_setting) {
  const std::vector<std::pair<std::string, std::string>> bad = {{"batch", "-1"},
                                                                {"batch", "1.5"},
                                                                {"batch", "nan"},
                                                                {"batch", "inf"},
                                                                {"batch", ""},
                                                                {"batch", "1e300"},
                                                                {"seq", "abc"},
                                                                {"seq", "0x10"},
                                                                {"hidden_size", "0"},
                                                                {"params", "-7B"},
                                                                {"params", "7Q"},
                                                                {"gpu_memory", "80XB"},
                                                                {"mode", "training"},
                                                                {"tie_word_embeddings", "maybe"},
                                                                {"zero", "4"},
                                                                {"overhead_factor", "0.5"},
                                                                {"fragmentation", "101"},
                                                                {"optimizer", "adam"},
                                                                {"weights_dtype", "int3"},
                                                                {"model", "no-such-model"},
                                                                {"gpu", "no-such-gpu"},
                                                                {"no_such_key", "1"},
                                                                {"devices", "3"},
                                                                {"num_key_value_heads", "5"},
                                                                {"tp", "3"},
                                                                {"pp", "33"},
                                                                {"offload", "optimizer+params"},
                                                                {"lora_targets", "qkv"},
                                                                {"model", std::string(300, 'x')}};
  for (const auto& [key, value] : bad) {
    settings s{{key, value}};
    if (key == "lora_targets") s["finetune"] = "lora";
    if (key == "devices") s["tp"] = "2";
    if (key == "tp" || key == "pp") s["devices"] = value;
    const auto r = resolve(s);
    ASSERT_FALSE(r.ok()) << key << "=" << value;
    EXPECT_EQ(r.errors()[0].setting, key) << key << "=" << value << ": " << to_string(r.errors()[0]);
  }
}

// Found by the settings fuzzer: "?=32" gave an error naming the empty string.
TEST(settings, empty_key_is_named_in_the_error) {
  const auto r = resolve({{"", "32"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "(empty key)");
}

TEST(settings, layers_apply_in_order) {
  // The preset gives 32 layers; config.json overrides it; an explicit value overrides both.
  auto r = resolve({{"model", "llama-2-7b"}, {"num_hidden_layers", "4"}}, {{"num_hidden_layers", "8"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().values.num_hidden_layers, 4);
  EXPECT_EQ(r.value().values.hidden_size, 4096);
  r = resolve({{"model", "llama-2-7b"}}, {{"num_hidden_layers", "8"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().values.num_hidden_layers, 8);
}

TEST(settings, round_trip_through_text) {
  auto r = resolve({{"params", "7B"}, {"gpu_memory", "80GiB"}, {"overhead_factor", "1.25"}, {"mode", "INFERENCE"}});
  ASSERT_TRUE(r.ok());
  const settings text = to_settings(r.value().values);
  EXPECT_EQ(text.at("params"), "7000000000");
  EXPECT_EQ(text.at("gpu_memory"), "85899345920");
  EXPECT_EQ(text.at("overhead_factor"), "1.25");
  EXPECT_EQ(text.at("mode"), "inference");
  auto again = resolve(text);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(to_settings(again.value().values), text);
}

// The page shows the label column and names choices by their labels (issue 19 item 6); the key stays the
// machine name. The compile-time check in settings.cpp guarantees one label per choice; this checks the schema
// carries them to JavaScript in order.
TEST(settings, schema_carries_labels_in_choice_order) {
  const auto schema = nlohmann::json::parse(settings_schema_json());
  const auto row = [&](std::string_view key) {
    for (const auto& r : schema)
      if (r["key"] == key) return r;
    return nlohmann::json{};
  };
  EXPECT_EQ(row("seq")["label"], "Context length");
  EXPECT_FALSE(row("seq").contains("choice_labels"));
  EXPECT_EQ(row("norm")["choices"], (nlohmann::json{"layernorm", "rmsnorm"}));
  EXPECT_EQ(row("norm")["choice_labels"], (nlohmann::json{"LayerNorm", "RMSNorm"}));
  EXPECT_EQ(row("finetune")["choice_labels"], (nlohmann::json{"Full fine-tune", "LoRA", "QLoRA"}));
  for (const auto& r : schema) EXPECT_FALSE(r["label"].get<std::string>().empty()) << r["key"];
}
}  // namespace
