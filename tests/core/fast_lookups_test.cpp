// SPDX-License-Identifier: MIT
// The ranking's fast look-ups (core/src/fast_lookups.hpp): each gives what the scan or text parsing it replaces
// gives, so that installing them (fits() does) changes no answer: every setting key, every device id and alias,
// every preset's id and aliases, and resolve over the catalogue with and without them.
#include "fast_lookups.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm_memory/presets.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/settings.hpp"

namespace {

using namespace llm_memory;

// The first row of the table with `key`, by a scan (find_setting before the ranking).
const setting_def* scanned_setting(std::string_view key) {
  for (const auto& def : setting_table())
    if (def.key == key) return &def;
  return nullptr;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return text;
}

// A resolve's answer as text: every setting, or every error.
std::vector<std::string> answer(const settings& explicit_values) {
  const auto r = resolve(explicit_values);
  std::vector<std::string> out;
  if (!r.ok()) {
    for (const error& e : r.errors()) out.push_back(e.setting + ": " + e.message);
    return out;
  }
  for (const auto& [key, value] : to_settings(r.value().values)) out.push_back(key + "=" + value);
  return out;
}

// The first device in catalogue order with `id` as its id or an alias, by a scan.
const gpu_preset* scanned_gpu(std::string_view id) {
  for (const auto& p : gpu_presets()) {
    if (p.id == id) return &p;
    for (const auto& alias : p.aliases)
      if (alias == id) return &p;
  }
  return nullptr;
}

TEST(FastLookups, EverySettingKeyNamesItsRow) {
  const detail::fast_lookups& fast = detail::install_fast_lookups();
  for (const auto& def : setting_table()) EXPECT_EQ(fast.setting(def.key), scanned_setting(def.key)) << def.key;
  EXPECT_EQ(fast.setting(setting_table().front().key), &setting_table().front());
  for (const char* unknown : {"", "no_such_setting", "Seq", "seq "})
    EXPECT_EQ(fast.setting(unknown), nullptr) << unknown;
}

TEST(FastLookups, EveryDeviceIdAndAliasNamesTheFirstDevice) {
  const detail::fast_lookups& fast = detail::install_fast_lookups();
  std::size_t names = 0;
  for (const auto& p : gpu_presets()) {
    EXPECT_EQ(fast.gpu(p.id), scanned_gpu(p.id)) << p.id;
    for (const auto& alias : p.aliases) EXPECT_EQ(fast.gpu(alias), scanned_gpu(alias)) << alias;
    names += 1 + p.aliases.size();
  }
  EXPECT_GT(names, gpu_presets().size()) << "some device has an alias";
  for (const char* unknown : {"", "rtx-9999", "RTX-4090"}) EXPECT_EQ(fast.gpu(unknown), nullptr) << unknown;
}

// Every preset's id, the forms lookup_model forgives ("Org/Id", upper case), and texts that name none.
TEST(FastLookups, EveryPresetIsTheOneLookupModelFinds) {
  const detail::fast_lookups& fast = detail::install_fast_lookups();
  for (const model_preset& m : model_presets()) {
    for (const std::string& text : {m.id, "Org/" + m.id, upper(m.id)}) {
      const auto found = lookup_model(text);
      const detail::parsed_preset* parsed = fast.preset(text);
      ASSERT_EQ(parsed != nullptr, found.ok()) << text;
      if (parsed != nullptr) {
        EXPECT_EQ(parsed->preset, found.value()) << text;
      }
    }
  }
  for (const char* unknown : {"no-such-model", "llama"}) {
    EXPECT_FALSE(lookup_model(unknown).ok()) << unknown;
    EXPECT_EQ(fast.preset(unknown), nullptr) << unknown;
  }
}

// Every preset resolved with the look-ups installed and without (as before the first ranking): served on the
// default runtime and on llama.cpp (which converts a checkpoint, so the shipped format applies by another rule),
// trained with LoRA, and with an explicit value that does not fit, so the layers' errors and origins count too.
TEST(FastLookups, ResolveAnswersAsWithout) {
  const detail::fast_lookups& fast = detail::install_fast_lookups();
  std::size_t compared = 0;
  for (const model_preset& m : model_presets()) {
    for (const settings& run : {settings{{"model", m.id}, {"gpu", "rtx-4090"}},
                                settings{{"model", m.id}, {"runtime", "llamacpp"}, {"gpu", "H100"}},
                                settings{{"model", upper(m.id)}, {"mode", "train"}, {"finetune", "lora"}},
                                settings{{"model", m.id}, {"seq", "-1"}, {"no_such_setting", "1"}}}) {
      detail::installed_fast_lookups = nullptr;
      const std::vector<std::string> without = answer(run);
      detail::installed_fast_lookups = &fast;
      EXPECT_EQ(answer(run), without) << m.id;
      ++compared;
    }
  }
  EXPECT_GT(compared, 400u);
  EXPECT_EQ(detail::installed_fast_lookups, &fast);
}

// add_models moves the presets: a preset parsed before it is looked up again after it, at its new address. The
// catalogue's first preset handed over again: known, so nothing is added and the order stays (presets.hpp), but
// the store is rebuilt.
TEST(FastLookups, AddModelsDropsTheParsedPresets) {
  const detail::fast_lookups& fast = detail::install_fast_lookups();
  const std::string first = model_presets().front().id;
  const detail::parsed_preset* before = fast.preset(first);
  ASSERT_NE(before, nullptr);
  const model_preset* old_address = before->preset;
  const std::size_t generation = detail::catalogue_generation();
  const auto added = add_models(R"({"id": ")" + first + R"("})");
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(added.value(), 0u);
  EXPECT_EQ(model_presets().front().id, first);
  EXPECT_EQ(detail::catalogue_generation(), generation + 1);
  const detail::parsed_preset* after = fast.preset(first);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->preset, &model_presets().front());
  EXPECT_NE(after->preset, old_address) << "the store's vector was rebuilt, so the test can tell a stale pointer";
}

}  // namespace
