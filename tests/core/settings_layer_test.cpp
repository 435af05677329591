// SPDX-License-Identifier: MIT
// A layer of settings parsed once and applied as values (settings_layer.hpp): the ranking's resolves layer each
// model preset's fields so on every run (fast_lookups.cpp parses them once per preset). Applying the parsed layer
// must equal parsing the layer's text onto the same values: every setting, and the same errors in the same order.
#include "settings_layer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm_memory/presets.hpp"
#include "settings_apply.hpp"

namespace {

using namespace llm_memory;

struct applied {
  settings values;                  // every setting's text after the layer
  std::vector<std::string> errors;  // each error as "setting: message"
};

applied by_text(const settings& layer, const setting_values& base, std::string_view origin) {
  setting_values values = base;
  std::vector<error> errors;
  detail::apply_layer(layer, values, errors, origin);
  applied out{to_settings(values), {}};
  for (const error& e : errors) out.errors.push_back(e.setting + ": " + e.message);
  return out;
}

applied by_values(const settings& layer, const setting_values& base, std::string_view origin) {
  setting_values values = base;
  std::vector<error> errors;
  detail::apply_layer(detail::parse_layer(layer), values, errors, origin);
  applied out{to_settings(values), {}};
  for (const error& e : errors) out.errors.push_back(e.setting + ": " + e.message);
  return out;
}

// Every catalogue preset's fields and shipped format, over the defaults and over another model's settings (so a
// row the layer does not set must keep the base's value, not the default's).
TEST(SettingsLayer, EveryPresetAppliesAsItsText) {
  setting_values other = detail::default_values();
  std::vector<error> ignored;
  std::size_t checked = 0;
  for (const model_preset& p : model_presets()) {
    for (const settings* layer : {&p.fields, &p.shipped}) {
      for (const setting_values* base : {&detail::default_values(), static_cast<const setting_values*>(&other)}) {
        const applied text = by_text(*layer, *base, " (from model preset)");
        const applied values = by_values(*layer, *base, " (from model preset)");
        EXPECT_EQ(values.values, text.values) << p.id;
        EXPECT_EQ(values.errors, text.errors) << p.id;
      }
    }
    // The next preset is layered over this one's fields.
    other = detail::default_values();
    detail::apply_layer(p.fields, other, ignored, "");
    ++checked;
  }
  EXPECT_GE(checked, 200u);
}

// A layer with a runtime's name for a choice, a number, a bad value, an unknown and an empty key. By the settings
// table (settings_list.hpp): kv_dtype "F16" is llama.cpp's f16, read as the choice fp16; batch 4 fits [1, 1e7];
// seq 0 is under its minimum 1, so seq keeps the base's 2048 (its default); the errors come in key order
// ("" < "batch" < "kv_dtype" < "nonsense" < "seq"), each message followed by the origin.
TEST(SettingsLayer, ErrorsAndUnsetRowsAsTheTextGivesThem) {
  const settings layer = {{"kv_dtype", "F16"}, {"batch", "4"}, {"seq", "0"}, {"nonsense", "1"}, {"", "5"}};
  const applied values = by_values(layer, detail::default_values(), " (from the test)");
  EXPECT_EQ(values.values.at("kv_dtype"), "fp16");
  EXPECT_EQ(values.values.at("batch"), "4");
  EXPECT_EQ(values.values.at("seq"), "2048");
  ASSERT_EQ(values.errors.size(), 3u);
  EXPECT_EQ(values.errors[0], "(empty key): unknown setting (from the test)");
  EXPECT_EQ(values.errors[1], "nonsense: unknown setting (from the test)");
  EXPECT_EQ(values.errors[2].rfind("seq: must be an integer", 0), 0u) << values.errors[2];
  EXPECT_NE(values.errors[2].find(" (from the test)"), std::string::npos) << values.errors[2];
  const applied text = by_text(layer, detail::default_values(), " (from the test)");
  EXPECT_EQ(values.values, text.values);
  EXPECT_EQ(values.errors, text.errors);
}

}  // namespace
