// SPDX-License-Identifier: MIT
// Which GPUs fit (gpu_fit.hpp) and the Apple silicon presets at Metal's working set (presets.hpp).
#include "llm_memory/gpu_fit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/report.hpp"

namespace {

using namespace llm_memory;

constexpr double gib = 1073741824.0;

// The seed's 7B full fine-tune (as solve_test.cpp's seed_7b), written out so that changes of defaults do not move
// the derivations below. Per device at ZeRO 0 (solve_test.cpp derives each term):
//   fixed state (2 + 2 + 12) B x 7e9 = 112e9 B; activations at s 2048, b 1 = 30,643,585,024 B;
//   total 142,643,585,024 B.
settings seed_7b() {
  return {{"framework", "generic"},      {"params", "7e9"},    {"hidden_size", "4096"},   {"num_hidden_layers", "32"},
          {"num_attention_heads", "32"}, {"mode", "train"},    {"seq", "2048"},           {"batch", "1"},
          {"gpu_memory", "80GB"},        {"overhead", "none"}, {"attention", "standard"}, {"dropout", "on"},
          {"norm", "layernorm"},         {"mlp", "plain"},     {"recompute", "none"},     {"vocab_size", "0"}};
}
constexpr double seed_total = 142643585024;

const gpu_fit_row& row_of(const gpu_fit_result& r, const std::string& id) {
  const auto it = std::find_if(r.rows.begin(), r.rows.end(), [&](const gpu_fit_row& g) { return g.id == id; });
  EXPECT_NE(it, r.rows.end()) << id;
  return *it;
}

gpu_fit_result fit_of(const settings& s) {
  const auto r = gpu_fit(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.errors()[0]));
  return r.ok() ? r.value() : gpu_fit_result{};
}

TEST(gpu_fit, one_row_per_gpu_preset_in_catalogue_order) {
  const auto fit = fit_of(seed_7b());
  ASSERT_EQ(fit.rows.size(), gpu_presets().size());
  for (std::size_t i = 0; i < fit.rows.size(); ++i) {
    EXPECT_EQ(fit.rows[i].id, gpu_presets()[i].id);
    // The preset's memory, not the explicit gpu_memory 80GB of the settings.
    EXPECT_EQ(fit.rows[i].memory_bytes, gpu_presets()[i].memory_bytes);
  }
}

TEST(gpu_fit, zero0_fits_only_where_one_device_holds_everything) {
  // ZeRO 0: every data-parallel device holds a full replica, so a GPU fits on 1 device or on none.
  const auto fit = fit_of(seed_7b());
  // H200: 150,108,897,280 B (PyTorch's 139.80 GiB = 143,155 MiB) >= 142,643,585,024: headroom 7,465,312,256 B.
  const auto& h200 = row_of(fit, "h200-141gb");
  EXPECT_TRUE(h200.fits);
  EXPECT_EQ(h200.devices, 1);
  EXPECT_DOUBLE_EQ(h200.total_bytes, seed_total);
  EXPECT_TRUE(h200.needed.found);
  EXPECT_EQ(h200.needed.value, 1);
  EXPECT_DOUBLE_EQ(h200.headroom_bytes, 7465312256.0);
  // Apple 192 GB: Metal's working set 3/4 x 192 GiB = 144 GiB = 154,618,822,656 B: headroom 11,975,237,632 B.
  const auto& apple = row_of(fit, "m2-ultra-192gb");  // apple-192gb's preset
  EXPECT_TRUE(apple.fits);
  EXPECT_DOUBLE_EQ(apple.headroom_bytes, 11975237632.0);
  // H100: 85,030,076,416 B (PyTorch's 79.19 GiB = 81,091 MiB) < 142.6e9 on one device. Data parallel alone never helps
  // at ZeRO 0, but the solver also tries tensor parallel (solve.cpp, docs/solve-and-advise.md "Fewest devices"): tp 2
  // on 2 devices. Per device at tp 2 (sequence parallel on): matrices halved, norms replicated (32 x 2 + 1 LayerNorms x
  // 8,192 = 532,480): (7e9 - 532,480) / 2 + 532,480 = 3,500,266,240 params x 16 B = 56,004,259,840 B; activations
  // (Korthikanti eq. 5) 32 x s b h (34/2 + 5 a s / (2 h)) = 32 x 8,388,608 x 57 = 15,300,820,992 + embedding
  // dropout mask s b h / 2 = 4,194,304 + final norm and lm_head inputs 2 x 2 s b h / 2 = 16,777,216; total
  // 71,326,052,352 B, headroom 85,030,076,416 - 71,326,052,352 = 13,704,024,064 B.
  const auto& h100 = row_of(fit, "h100-80gb");
  EXPECT_FALSE(h100.fits);
  ASSERT_TRUE(h100.needed.found);
  EXPECT_EQ(h100.needed.value, 2);
  EXPECT_DOUBLE_EQ(h100.needed.total_bytes, 71326052352.0);
  EXPECT_DOUBLE_EQ(h100.headroom_bytes, 13704024064.0);
  EXPECT_EQ(h100.needed.delta.at("tp"), "2");
  // Apple 128 GB: 3/4 x 128 GiB = 96 GiB = 103,079,215,104 B < 142.6e9.
  EXPECT_FALSE(row_of(fit, "m4-max-128gb").fits);
  // The presets that hold 142.6e9 B (132.85 GiB): H200 (139.80 GiB), H200 NVL (141), GH200 144GB (144), B200
  // (178.36), B300 (288), GB200 (186), GB300 (288), MI300X (192), MI325X (256), MI355X (288), and the Apple
  // working sets of 192, 256 and 512 GiB (144, 192, 384 GiB).
  const auto fitting = std::count_if(fit.rows.begin(), fit.rows.end(), [](const gpu_fit_row& g) { return g.fits; });
  EXPECT_EQ(fitting, 13);
}

TEST(gpu_fit, zero1_devices_needed_and_headroom_by_hand) {
  // ZeRO 1 shards the optimizer state (12 B x 7e9 = 84e9 B) over dp devices; parameters and gradients (28e9 B)
  // and activations (30,643,585,024 B) stay whole: per device 58,643,585,024 + 84e9 / dp, so data parallel needs
  // dp >= 3.125 -> 4 H100s. Tensor parallel 2 fits on 2 (71,326,052,352 B, derived in the test above) and the
  // solver takes the fewest devices, ties to the lower ZeRO stage: tp 2 at ZeRO 0.
  auto s = seed_7b();
  s["zero"] = "1";
  const auto fit = fit_of(s);
  const auto& h100 = row_of(fit, "h100-80gb");
  EXPECT_FALSE(h100.fits);
  ASSERT_TRUE(h100.needed.found);
  EXPECT_EQ(h100.needed.value, 2);
  EXPECT_DOUBLE_EQ(h100.needed.total_bytes, 71326052352.0);
  EXPECT_DOUBLE_EQ(h100.headroom_bytes, 13704024064.0);
  EXPECT_EQ(h100.needed.delta.at("devices"), "2");
  EXPECT_EQ(h100.needed.delta.at("zero"), "0");
  // A100 40GB (42,298,834,944 B, as CUDA reports it): tp 2 leaves 71.3e9 B; tp 4 on 4 devices: (7e9 - 532,480) / 4 +
  // 532,480 = 1,750,399,360 params x 16 B = 28,006,389,760 B + activations 32 x 8,388,608 x (34/4 + 5 x 32 x 2048 / (4
  // x 4096) = 28.5) = 7,650,410,496 + 8,388,608 / 4 x 1 B = 2,097,152 + 2 x 2 x 8,388,608 / 4 = 8,388,608; total
  // 35,667,286,016 B, headroom 6,631,548,928 B.
  const auto& a100 = row_of(fit, "a100-40gb");
  ASSERT_TRUE(a100.needed.found);
  EXPECT_EQ(a100.needed.value, 4);
  EXPECT_EQ(a100.needed.delta.at("tp"), "4");
  EXPECT_DOUBLE_EQ(a100.needed.total_bytes, 35667286016.0);
  EXPECT_DOUBLE_EQ(a100.headroom_bytes, 6631548928.0);
}

TEST(gpu_fit, errors_name_the_setting) {
  auto s = seed_7b();
  s["batch"] = "0";
  const auto r = gpu_fit(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "batch");
}

TEST(gpu_fit, json_rows_carry_the_answer) {
  const auto fit = fit_of(seed_7b());
  const auto j = nlohmann::json::parse(gpu_fit_to_json(fit));
  ASSERT_EQ(j["gpus"].size(), gpu_presets().size());
  EXPECT_EQ(j["gpus"][0]["id"], gpu_presets()[0].id);
  for (const auto& row : j["gpus"]) {
    if (row["id"] == "h100-80gb") {
      EXPECT_EQ(row["memory"], 85030076416LL);
      EXPECT_EQ(row["fits"], false);
      EXPECT_EQ(row["needed"]["found"], true);
      EXPECT_EQ(row["needed"]["value"], 2);  // tp 2, as derived above
    }
    if (row["id"] == "h200-141gb") {
      EXPECT_EQ(row["headroom"], 7465312256LL);
    }
  }
}

// Metal's default working set (recommendedMaxWorkingSetSize), docs/methodology.md "Apple silicon": 2/3 of the
// unified memory up to 36 GiB (measured: 10,922.67 MiB on 16 GiB, 21,845.34 MiB on 32 GiB), 3/4 above
// (about 36 GiB on 48 GiB, 48 GiB on 64 GiB), floored to whole bytes.
TEST(gpu_presets, apple_silicon_at_the_metal_working_set) {
  // 16 GiB x 2/3 = 34,359,738,368 / 3 = 11,453,246,122.67 -> 11,453,246,122 B (= 10,922.67 MiB as logged).
  EXPECT_EQ(find_gpu("apple-16gb")->memory_bytes, 11453246122.0);
  EXPECT_EQ(find_gpu("apple-16gb")->unified_memory_bytes, 16 * gib);
  // 24 GiB x 2/3 = 16 GiB; 36 GiB x 2/3 = 24 GiB (the largest at 2/3).
  EXPECT_EQ(find_gpu("apple-24gb")->memory_bytes, 16 * gib);
  EXPECT_EQ(find_gpu("apple-36gb")->memory_bytes, 24 * gib);
  // 32 GiB x 2/3 = 22,906,492,245.33 -> 22,906,492,245 B (= 21,845.33 MiB; ollama's log: 21845.34 MB).
  EXPECT_EQ(find_gpu("apple-32gb")->memory_bytes, 22906492245.0);
  // Above 36 GiB, 3/4: 48 -> 36 GiB, 64 -> 48 GiB, 96 -> 72 GiB, 128 -> 96 GiB, 192 -> 144 GiB.
  EXPECT_EQ(find_gpu("apple-48gb")->memory_bytes, 36 * gib);
  EXPECT_EQ(find_gpu("apple-64gb")->memory_bytes, 48 * gib);
  EXPECT_EQ(find_gpu("apple-96gb")->memory_bytes, 72 * gib);
  EXPECT_EQ(find_gpu("apple-128gb")->memory_bytes, 96 * gib);
  EXPECT_EQ(find_gpu("apple-192gb")->memory_bytes, 144 * gib);
  // Discrete GPUs have no unified memory.
  EXPECT_EQ(find_gpu("h100-80gb")->unified_memory_bytes, 0);
  // The boundary itself: 36 GiB is the last at 2/3, one byte more is at 3/4.
  EXPECT_EQ(metal_working_set_bytes(36 * gib), 24 * gib);
  EXPECT_EQ(metal_working_set_bytes(36 * gib + 4), 27 * gib + 3);
}

TEST(gpu_presets, the_gpu_setting_uses_the_working_set) {
  const auto r = estimate(settings{{"gpu", "apple-64gb"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().gpu_memory_bytes, 48 * gib);
}

// The note when the context exceeds the trained length (max_position_embeddings), in training as in inference.
TEST(notes, context_beyond_the_trained_length) {
  auto has_note = [](const settings& s) {
    const auto r = estimate(s);
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return false;
    return std::any_of(r.value().notes.begin(), r.value().notes.end(), [](const std::string& n) {
      return n.find("exceeds the model's max_position_embeddings") != std::string::npos;
    });
  };
  // Llama 2 7B was trained at 4,096 tokens (config.json max_position_embeddings).
  EXPECT_TRUE(has_note({{"model", "llama-2-7b"}, {"mode", "train"}, {"seq", "4097"}}));
  EXPECT_FALSE(has_note({{"model", "llama-2-7b"}, {"mode", "train"}, {"seq", "4096"}}));
  EXPECT_TRUE(has_note({{"model", "llama-2-7b"}, {"mode", "inference"}, {"seq", "8192"}}));
  EXPECT_FALSE(has_note({{"model", "llama-2-7b"}, {"mode", "inference"}, {"seq", "4096"}}));
}

}  // namespace
