// SPDX-License-Identifier: MIT
// Compares the estimate with memory measured in PyTorch (tests/validation/measured.json, written by
// tests/validation/measure.py; re-measure with scripts/measure.sh). Method and tables: docs/validation.md.
//
// Tolerances (the goal, stated once here and in docs/validation.md):
//   parameters, gradients, optimizer state, KV cache  exact (to the byte; AdamW's 4-byte step counters
//                                                      are measured apart and not compared)
//   activations, every item and the bucket            within +-5 % of the measured bytes
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/report.hpp"

namespace {

using json = nlohmann::json;
using namespace llm_memory;

constexpr double activation_tolerance = 0.05;

json load_measurements() {
  std::ifstream in(LLM_MEMORY_TESTS_DIR "/validation/measured.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, false);
}

struct record {
  std::string name;
  json body;
};

// ctest lists each case by name, not by the bytes of the struct.
void PrintTo(const record& r, std::ostream* os) { *os << r.name; }

std::vector<record> records() {
  const json doc = load_measurements();
  std::vector<record> out;
  if (doc.is_discarded() || !doc.contains("records")) return {{"unreadable", json{}}};
  for (const auto& r : doc["records"]) out.push_back({r.value("name", "unnamed"), r});
  return out;
}

const bucket* find_bucket(const estimate_result& r, std::string_view key) {
  for (const auto& b : r.buckets)
    if (b.key == key) return &b;
  return nullptr;
}

// Sum of the named activation items (0 for names the estimate does not list).
double items(const estimate_result& r, const std::vector<std::string>& names) {
  double sum = 0;
  if (const bucket* b = find_bucket(r, "activations"))
    for (const auto& i : b->items)
      for (const auto& n : names)
        if (i.name == n) sum += i.bytes;
  return sum;
}

// Which estimate items each measured activation key corresponds to.
const std::vector<std::pair<std::string, std::vector<std::string>>>& activation_keys() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> keys = {
      {"activations.layers", {"transformer layers"}},
      {"activations.checkpoints", {"layer inputs (checkpoints)"}},
      {"activations.recomputed_layer", {"one layer recomputed during backward"}},
      {"activations.embedding", {"embedding dropout mask"}},
      {"activations.head", {"final norm and lm_head inputs"}},
      {"activations.logits",
       {"logits", "log-softmax output (fp32, saved by the loss)",
        "logits gradient (fp32, two buffers at the start of backward)"}},
  };
  return keys;
}

class validation : public ::testing::TestWithParam<record> {};

TEST_P(validation, estimate_matches_measurement) {
  const json& body = GetParam().body;
  ASSERT_TRUE(body.contains("settings") && body.contains("measured")) << "measured.json is missing or malformed";
  settings input;
  for (const auto& [key, value] : body["settings"].items()) input[key] = value.get<std::string>();
  const auto r = estimate(input);
  ASSERT_TRUE(r.ok()) << to_string(r.errors()[0]);
  const estimate_result& e = r.value();
  const json& m = body["measured"];

  for (const char* exact : {"parameters", "gradients", "optimizer", "kv_cache"}) {
    if (m.contains(exact)) {
      EXPECT_EQ(e.bytes(exact), m[exact].get<double>()) << exact;
    }
  }

  if (e.settings.mode != "train") return;
  double measured_total = 0;
  for (const auto& [key, value] : m.items())
    if (key.starts_with("activations.")) measured_total += value.get<double>();
  for (const auto& [key, names] : activation_keys()) {
    if (!m.contains(key)) continue;
    const double measured = m[key].get<double>();
    EXPECT_NEAR(items(e, names), measured, activation_tolerance * measured) << key;
  }
  EXPECT_NEAR(e.bytes("activations"), measured_total, activation_tolerance * measured_total) << "activations bucket";
}

INSTANTIATE_TEST_SUITE_P(measured, validation, ::testing::ValuesIn(records()),
                         [](const ::testing::TestParamInfo<record>& p) { return p.param.name; });

// The harness must cover what the issue asks for: both layer kinds, both dtypes, recompute on and off, GQA, and
// LoRA on two target sets for both layer kinds.
TEST(validation, measurements_cover_the_grid) {
  std::vector<std::string> seen;
  bool gqa = false;
  for (const auto& r : records()) {
    if (!r.body.contains("settings")) continue;
    const json& s = r.body["settings"];
    seen.push_back(s.value("attention", "") + "/" + s.value("weights_dtype", "") + "/" + s.value("mode", "") + "/" +
                   s.value("recompute", ""));
    if (s.contains("lora_targets")) seen.push_back(s.value("attention", "") + "/lora/" + s.value("lora_targets", ""));
    if (s.contains("num_key_value_heads") && s["num_key_value_heads"] != s["num_attention_heads"]) gqa = true;
  }
  for (const char* wanted : {"standard/fp32/train/none", "standard/bf16/train/full", "eager/bf16/train/none",
                             "eager/fp32/train/full", "eager/bf16/inference/", "standard/lora/q_proj,v_proj",
                             "standard/lora/all-linear", "eager/lora/q_proj,v_proj", "eager/lora/all-linear"})
    EXPECT_NE(std::find(seen.begin(), seen.end(), wanted), seen.end()) << wanted;
  EXPECT_TRUE(gqa);
}

// Figures published by others (tests/validation/published.json): the seeds' arithmetic and measurements from
// other projects. A row with a tolerance must stay within it; rows without one are documented, not asserted
// (docs/validation.md says why for each).
// A figure of the runtime's report as the JSON output gives it ("kv_capacity_tokens", "buffers.model"): the
// numbers a runtime logs (runtime.hpp).
double runtime_figure(const estimate_result& e, const std::string& path) {
  const json out = json::parse(to_json(e));
  const json* node = &out["runtime"];
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '.')) {
    if (!node->is_object() || !node->contains(part)) return -1;
    node = &(*node)[part];
  }
  return node->is_number() ? node->get<double>() : -1;
}

double quantity(const estimate_result& e, const json& keys) {
  double sum = 0;
  for (const auto& k : keys) {
    const std::string key = k.get<std::string>();
    if (key == "total") {
      sum += e.total_bytes;
    } else if (key.starts_with("runtime:")) {
      sum += runtime_figure(e, key.substr(8));
    } else if (key == "peak.allocated") {
      sum += e.peak.allocated;
    } else if (key == "peak.reserved") {
      sum += e.peak.reserved;
    } else if (key == "peak.device") {
      sum += e.peak.device;
    } else if (key == "model:params.total") {  // the preset's counted parameters (a checkpoint's published total)
      sum += e.model.params.total;
    } else if (key == "fits") {  // a verdict: 1 fits, 0 does not (a published out-of-memory is 0)
      sum += e.fits ? 1 : 0;
    } else if (key.starts_with("item:")) {
      const auto colon = key.find(':', 5);
      if (const bucket* b = find_bucket(e, key.substr(5, colon - 5)))
        for (const auto& i : b->items)
          if (i.name == key.substr(colon + 1)) sum += i.bytes;
    } else {
      sum += e.bytes(key);
    }
  }
  return sum;
}

// One row's first try: (estimate - published) / published. A verdict ("fits") is 0 where llm-memory agrees
// with the published outcome and 1 (100 %) where it does not.
struct first_try {
  std::string name;            ///< the row's name in published.json
  bool measured_peak = false;  ///< a measured peak (kind "measured", quantity peak.*), not a log or arithmetic
  double error = 0;            ///< relative error of the estimate (fraction of the published figure)
};

double unit_bytes(const std::string& unit) {
  return unit == "MiB" ? 1048576.0 : unit == "GiB" ? 1073741824.0 : unit == "GB" ? 1e9 : 1.0;  // tokens, x: counts
}

first_try try_row(const json& row, const estimate_result& e) {
  const std::string first_key = row["quantity"][0].get<std::string>();
  const double published = row["published"].get<double>() * unit_bytes(row["unit"].get<std::string>());
  const double estimated = quantity(e, row["quantity"]);
  first_try out{.name = row["name"].get<std::string>()};
  out.measured_peak = row["kind"] == "measured" && first_key.starts_with("peak.");
  out.error = first_key == "fits" ? (estimated == published ? 0.0 : 1.0) : (estimated - published) / published;
  return out;
}

// The figures docs/validation.md quotes ("Summary of the first try"): median |error| and the share within +-10 %.
struct summary {
  double median = 0;  ///< median |error| (fraction of the published figures)
  double within = 0;  ///< share of rows within +-10 % (fraction of the rows)
};

summary summarise(const std::vector<first_try>& tries, const std::string& label) {
  std::vector<double> errors;
  for (const auto& t : tries) errors.push_back(std::abs(t.error));
  if (errors.empty()) return {};
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  const auto within = std::count_if(errors.begin(), errors.end(), [](double e) { return e <= 0.10; });
  const double share = static_cast<double>(within) / static_cast<double>(n);
  std::printf("first try, %s: %zu records, median |error| %.1f %%, %td within +-10 %% (%.0f %%)\n", label.c_str(), n,
              100 * median, within, 100 * share);
  return {median, share};
}

// Every row is estimated (its settings must be valid); rows with a tolerance must stay within it, and the first try
// over all records must meet the bar. The first try's error of every row and the summaries are printed for
// docs/validation.md.
TEST(validation, published_figures_within_their_tolerance) {
  std::ifstream in(LLM_MEMORY_TESTS_DIR "/validation/published.json");
  std::stringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  int checked = 0;
  std::vector<first_try> all;
  std::vector<first_try> peaks;
  for (const auto& row : doc["rows"]) {
    settings input;
    for (const auto& [key, value] : row["settings"].items()) input[key] = value.get<std::string>();
    const auto r = estimate(input);
    ASSERT_TRUE(r.ok()) << row["name"];
    const first_try t = try_row(row, r.value());
    std::printf("first try: %+.1f %% %s\n", 100 * t.error, t.name.c_str());
    all.push_back(t);
    if (t.measured_peak) peaks.push_back(t);
    if (!row.contains("tolerance")) continue;
    const double published = row["published"].get<double>() * unit_bytes(row["unit"].get<std::string>());
    EXPECT_NEAR(quantity(r.value(), row["quantity"]), published, row["tolerance"].get<double>() * published)
        << row["name"];
    ++checked;
  }
  EXPECT_GE(checked, 30);
  // Issue 35's bar over every record: median |error| <= 5 % and at least 80 % of the rows within +-10 %.
  const summary over_all = summarise(all, "all records");
  EXPECT_LE(over_all.median, 0.05);
  EXPECT_GE(over_all.within, 0.80);
  summarise(peaks, "measured peaks");
}

}  // namespace
