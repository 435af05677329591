// SPDX-License-Identifier: MIT
// Presets are parsed once from the JSON compiled in from core/data/.
#include "llm_memory/presets.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>

#include "llm_memory/config_json.hpp"
#include "text.hpp"

namespace llm_memory {
namespace detail {
extern const std::string_view models_json;
extern const std::string_view gpus_json;
}  // namespace detail
namespace {

using json = nlohmann::json;

std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The "models" array of the compiled-in catalogue, parsed once (null, which iterates as empty, if missing).
const json& catalogue() {
  static const json models = [] {
    json root = json::parse(detail::models_json, nullptr, false);
    return root.is_object() && root.contains("models") && root["models"].is_array() ? std::move(root["models"]) : json();
  }();
  return models;
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
    for (const auto& [key, value] : it->items()) p.fields[key] = value.is_string() ? value.get<std::string>() : value.dump();
  return p;
}

std::vector<model_preset> load_models() {
  std::vector<model_preset> out;
  for (const auto& m : catalogue()) out.push_back(make_model(m));
  return out;
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
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::span<const model_preset> model_presets() {
  static const std::vector<model_preset> presets = load_models();
  return presets;
}

// An estimate needs one preset: only its config is mapped onto settings (the page's first result waits for
// it), not the whole catalogue's as model_presets() does.
const model_preset* find_model(std::string_view id) {
  static std::mutex lock;
  static std::map<std::string, model_preset, std::less<>> found;
  const std::lock_guard guard(lock);
  if (const auto it = found.find(id); it != found.end()) return &it->second;
  for (const auto& m : catalogue())
    if (str(m, "id") == id) return &found.emplace(std::string(id), make_model(m)).first->second;
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
