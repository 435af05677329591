// SPDX-License-Identifier: MIT
// Runs every case of tests/golden/*.json through the core, via the same JSON the CLI and wasm print.
// tests/web/golden.test.mjs runs the same files against the wasm build.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"

namespace {

using json = nlohmann::json;
using namespace llm_memory;

struct golden_case {
  std::string file;
  json body;
};

// Names the case in ctest's listing instead of dumping the struct's bytes.
void PrintTo(const golden_case& c, std::ostream* os) { *os << c.file << ": " << c.body.value("name", "?"); }

std::vector<golden_case> load_cases() {
  std::vector<golden_case> cases;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(LLM_MEMORY_TESTS_DIR "/golden"))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const json doc = json::parse(text.str(), nullptr, false);
    if (doc.is_discarded() || !doc.contains("cases")) {
      cases.push_back({path.filename().string(), json{{"name", "unreadable"}}});
      continue;
    }
    for (const auto& c : doc["cases"]) cases.push_back({path.filename().string(), c});
  }
  return cases;
}

// "bytes.total" -> out["bytes"]["total"]; "item:optimizer:fp32 master weights" -> that item's bytes.
const json* lookup(const json& out, const std::string& path) {
  if (path.starts_with("item:")) {
    const auto colon = path.find(':', 5);
    const std::string bucket = path.substr(5, colon - 5), name = path.substr(colon + 1);
    for (const auto& b : out["buckets"])
      if (b["key"] == bucket)
        for (const auto& i : b["items"])
          if (i["name"] == name) return &i["bytes"];
    return nullptr;
  }
  const json* node = &out;
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '.')) {
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
  }
  return node;
}

class golden : public ::testing::TestWithParam<golden_case> {};

TEST_P(golden, matches_expectations) {
  const json& c = GetParam().body;
  ASSERT_TRUE(c.contains("settings")) << "case has no settings";
  settings input;
  for (const auto& [key, value] : c["settings"].items())
    input[key] = value.is_string() ? value.get<std::string>() : value.dump();
  const auto r = estimate(input);
  const json out = json::parse(r.ok() ? to_json(r.value()) : errors_to_json(r.errors()));

  if (c.contains("expect_error")) {
    ASSERT_FALSE(r.ok()) << "expected an error naming " << c["expect_error"];
    EXPECT_EQ(out["errors"][0]["setting"], c["expect_error"]["setting"]);
    return;
  }
  ASSERT_TRUE(r.ok()) << out.dump();
  const json expectations = c.value("expect", json::object());
  const json ranges = c.value("range", json::object());
  for (const auto& [path, expected] : expectations.items()) {
    const json* actual = lookup(out, path);
    ASSERT_NE(actual, nullptr) << path << " missing in output";
    if (expected.is_number() && c.contains("tolerance") && c["tolerance"].contains(path)) {
      const double tol = c["tolerance"][path].get<double>();
      EXPECT_NEAR(actual->get<double>(), expected.get<double>(), tol * std::fabs(expected.get<double>())) << path;
    } else {
      EXPECT_EQ(*actual, expected) << path;
    }
  }
  for (const auto& [path, range] : ranges.items()) {
    const json* actual = lookup(out, path);
    ASSERT_NE(actual, nullptr) << path << " missing in output";
    EXPECT_GE(actual->get<double>(), range[0].get<double>()) << path;
    EXPECT_LE(actual->get<double>(), range[1].get<double>()) << path;
  }
}

INSTANTIATE_TEST_SUITE_P(cases, golden, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<golden_case>& param) {
                           std::string name = param.param.file.substr(0, param.param.file.find('.')) + "_" +
                                              param.param.body.value("name", "case" + std::to_string(param.index));
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
