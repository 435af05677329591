// SPDX-License-Identifier: MIT
// Random settings drawn from the settings table, shared by property tests and differential tests.
#pragma once

#include <cmath>
#include <random>
#include <string>

#include "llm_memory/presets.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory::testing {

/// How many of a property test's `n` random cases (or of a floor on those checked) a build draws: every one, or a
/// fifth in the sanitizer build (LLM_MEMORY_SANITIZED), where an estimate runs about twenty times slower; the
/// release and wasm builds check every case.
constexpr int property_cases(int n) {
#ifdef LLM_MEMORY_SANITIZED
  return n / 5 > 0 ? n / 5 : 1;
#else
  return n;
#endif
}

/// A random combination of settings; most are valid, some violate cross-setting rules on purpose.
inline settings random_settings(std::mt19937_64& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto pow2 = [&](int lo, int hi) { return std::to_string(1LL << pick(lo, hi)); };
  settings s;
  const auto models = model_presets();
  if (!models.empty() && pick(0, 2) > 0) {
    s["model"] = models[static_cast<std::size_t>(pick(0, static_cast<int>(models.size()) - 1))].id;
  } else {
    const int heads = 1 << pick(0, 6);
    s["num_attention_heads"] = std::to_string(heads);
    s["hidden_size"] = std::to_string(heads * 64 * pick(1, 3));
    s["num_hidden_layers"] = std::to_string(pick(1, 96));
    s["num_key_value_heads"] = std::to_string(heads >> pick(0, 2) == 0 ? 1 : heads >> pick(0, 2));
    s["vocab_size"] = std::to_string(pick(0, 256000));
  }
  for (const auto& def : setting_table()) {
    if (def.group == "model" || def.key == "gpu" || pick(0, 3) != 0) continue;
    if (def.kind == setting_kind::choice) {
      std::vector<std::string> options;
      std::string all(def.choices);
      for (std::size_t start = 0, bar; start <= all.size(); start = bar + 1) {
        bar = all.find('|', start);
        if (bar == std::string::npos) bar = all.size();
        options.push_back(all.substr(start, bar - start));
      }
      s[std::string(def.key)] = options[static_cast<std::size_t>(pick(0, static_cast<int>(options.size()) - 1))];
    } else if (def.kind == setting_kind::flag) {
      s[std::string(def.key)] = pick(0, 1) ? "on" : "off";
    }
  }
  s["batch"] = pow2(0, 6);
  s["seq"] = pow2(6, 17);
  const int tp = 1 << pick(0, 2), pp = 1 << pick(0, 1);
  s["tp"] = std::to_string(tp);
  s["pp"] = std::to_string(pp);
  s["devices"] = std::to_string(tp * pp * (1 << pick(0, 4)));
  s["zero"] = std::to_string(pick(0, 3));
  s["grad_accum"] = std::to_string(pick(1, 8));
  auto get = [&](const char* key) { return s.contains(key) ? s.at(key) : std::string(); };
  const std::string dtype = get("weights_dtype");
  const bool float_weights = dtype.empty() || dtype == "fp32" || dtype == "bf16" || dtype == "fp16";
  // The phase model's checks: keep the combinations valid.
  if (get("optimizer_in_backward") == "on") s["grad_accum"] = "1";
  if (!get("activation_offload").empty() && get("activation_offload") != "none") s["recompute"] = "full";
  if (get("finetune") == "qlora" || (!float_weights && get("mode") != "inference" && get("finetune") != "lora"))
    s.erase("weights_dtype");
  return s;
}

}  // namespace llm_memory::testing
