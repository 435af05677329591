// SPDX-License-Identifier: MIT
// Names to positions searched by halves, then hashed (name_index.hpp): find_setting, find_gpu and the model catalogue's
// look-ups use it where a scan of their table found the first position a name names.
#include "name_index.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "llm_memory/presets.hpp"
#include "llm_memory/settings.hpp"

namespace {

using namespace llm_memory;

std::vector<std::size_t> positions(const detail::name_index& index, std::string_view name) {
  std::vector<std::size_t> out;
  for (const auto& e : index.find(name)) out.push_back(e.second);
  return out;
}

TEST(NameIndex, PositionsInOrderEachOnce) {
  detail::name_index index;
  // Added out of order, "b" twice for 3 (a preset whose alias repeats its id) and once for 0.
  index.add("b", 3);
  index.add("a", 1);
  index.add("b", 0);
  index.add("b", 3);
  index.add("ab", 2);
  EXPECT_EQ(positions(index, "b"), (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(positions(index, "a"), (std::vector<std::size_t>{1}));
  EXPECT_EQ(positions(index, "ab"), (std::vector<std::size_t>{2}));
  EXPECT_TRUE(index.find("").empty());
  EXPECT_TRUE(index.find("c").empty());   // after the last name
  EXPECT_TRUE(index.find("aa").empty());  // between two names
}

// Sealed, the index finds by hash what it found by halves; an add after the seal is found again (by halves).
TEST(NameIndex, SealedFindsWhatHalvingFinds) {
  detail::name_index index;
  const std::vector<std::string_view> names{"b", "a", "b", "ab", "seq", "gpu_memory", "gpu", ""};
  for (std::size_t i = 0; i < names.size(); ++i) index.add(names[i], i);
  std::vector<std::vector<std::size_t>> halving;
  const std::vector<std::string_view> asked{"b", "a", "ab", "seq", "gpu", "gpu_memory", "", "c", "aa", "gp"};
  for (const auto name : asked) halving.push_back(positions(index, name));
  index.seal();
  for (std::size_t i = 0; i < asked.size(); ++i) EXPECT_EQ(positions(index, asked[i]), halving[i]) << asked[i];
  EXPECT_EQ(positions(index, "b"), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(positions(index, ""), (std::vector<std::size_t>{7}));
  index.add("c", 8);
  EXPECT_EQ(positions(index, "c"), (std::vector<std::size_t>{8}));
  EXPECT_EQ(positions(index, "b"), (std::vector<std::size_t>{0, 2}));
  detail::name_index none;
  none.seal();
  EXPECT_TRUE(none.find("a").empty());
}

TEST(NameIndex, LookupsFindWhatAScanFinds) {
  // Each row's key names that row (the table has no repeated key), and every device id or alias names the first
  // device a scan of the catalogue finds with it.
  for (const setting_def& def : setting_table()) EXPECT_EQ(find_setting(def.key), &def) << def.key;
  EXPECT_EQ(find_setting("no_such_setting"), nullptr);
  EXPECT_EQ(find_setting(""), nullptr);
  const auto gpus = gpu_presets();
  const auto scan = [&](std::string_view name) -> const gpu_preset* {
    for (const auto& p : gpus)
      if (p.id == name || std::find(p.aliases.begin(), p.aliases.end(), name) != p.aliases.end()) return &p;
    return nullptr;
  };
  for (const auto& p : gpus) {
    EXPECT_EQ(find_gpu(p.id), scan(p.id)) << p.id;
    for (const auto& alias : p.aliases) EXPECT_EQ(find_gpu(alias), scan(alias)) << alias;
  }
  EXPECT_EQ(find_gpu("no-such-gpu"), nullptr);
}

}  // namespace
