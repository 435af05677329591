// SPDX-License-Identifier: MIT
// Presets are parsed from the JSON compiled in from core/data/: each model when first asked for, the GPUs once.
#include "llm_memory/presets.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <mutex>
#include <vector>

#include "embedded_data.hpp"
#include "llm_memory/config_json.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using json = nlohmann::json;

std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

model_preset make_model(const json& m) {
  model_preset p;
  p.id = str(m, "id");
  p.name = str(m, "name");
  p.hf_repo = str(m, "hf_repo");
  p.source = str(m, "source");
  p.note = str(m, "note");
  if (const auto it = m.find("official_params"); it != m.end() && it->is_number_integer())
    p.official_params = it->get<std::int64_t>();
  if (const auto it = m.find("config"); it != m.end()) {
    auto fields = parse_config(it->dump());
    if (fields.ok()) p.fields = fields.value();
  }
  if (const auto it = m.find("settings"); it != m.end() && it->is_object())
    for (const auto& [key, value] : it->items())
      p.fields[key] = value.is_string() ? value.get<std::string>() : value.dump();
  return p;
}

std::vector<gpu_preset> load_gpus() {
  std::vector<gpu_preset> out;
  const json root = json::parse(detail::gpus_json, nullptr, false);
  if (!root.is_object() || !root.contains("gpus")) return out;
  for (const auto& g : root["gpus"]) {
    gpu_preset p;
    p.id = str(g, "id");
    p.name = str(g, "name");
    p.source = str(g, "source");
    p.note = str(g, "note");
    if (const auto it = g.find("memory_bytes"); it != g.end() && it->is_number()) p.memory_bytes = it->get<double>();
    // Apple silicon: the JSON gives the unified memory; what a job can use is Metal's working set.
    if (const auto it = g.find("unified_memory_bytes"); it != g.end() && it->is_number()) {
      p.unified_memory_bytes = it->get<double>();
      p.memory_bytes = metal_working_set_bytes(p.unified_memory_bytes);
    }
    out.push_back(std::move(p));
  }
  return out;
}

// The catalogue's presets, each mapped from its config.json on first use: an estimate needs one (the page's
// first result waits for it), the listings need them all; either way a preset is mapped once.
class model_store {
 public:
  const model_preset& at(std::size_t index) {
    const std::lock_guard guard(lock_);
    if (!mapped_[index]) {
      presets_[index] = make_model(json::parse(detail::model_entries[index].json, nullptr, false));
      mapped_[index] = true;
    }
    return presets_[index];
  }

  std::span<const model_preset> all() {
    for (std::size_t i = 0; i < presets_.size(); ++i) at(i);
    return presets_;
  }

 private:
  std::mutex lock_;
  std::vector<model_preset> presets_ = std::vector<model_preset>(detail::model_entries.size());
  std::vector<bool> mapped_ = std::vector<bool>(presets_.size());
};

model_store& models() {
  static model_store store;
  return store;
}

}  // namespace

double metal_working_set_bytes(double unified_bytes) {
  // 32 GiB machines were measured at 2/3, 48 GiB at 3/4; 36 GiB, unmeasured, is taken at the lower fraction.
  constexpr double small_machine_limit = 36.0 * 1073741824.0;
  const double fraction = unified_bytes <= small_machine_limit ? 2.0 / 3.0 : 3.0 / 4.0;
  return std::floor(unified_bytes * fraction);
}

std::span<const model_preset> model_presets() { return models().all(); }

const model_preset* find_model(std::string_view id) {
  const auto entries = detail::model_entries;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].id == id) return &models().at(i);
  return nullptr;
}

std::span<const gpu_preset> gpu_presets() {
  static const std::vector<gpu_preset> presets = load_gpus();
  return presets;
}

const gpu_preset* find_gpu(std::string_view id) {
  for (const auto& p : gpu_presets())
    if (p.id == id) return &p;
  return nullptr;
}

}  // namespace llm_memory
