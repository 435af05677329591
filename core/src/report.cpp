// SPDX-License-Identifier: MIT
#include "llm_memory/report.hpp"

#include <nlohmann/json.hpp>

#include "json_bytes.hpp"
#include "llm_memory/presets.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using json = nlohmann::ordered_json;
using detail::json_bytes;

json layer_json(const layer_params& layer) {
  json j = {{"attention", json_bytes(layer.attention)}, {"mlp", json_bytes(layer.mlp)}, {"norms", json_bytes(layer.norms)}};
  if (layer.router > 0) j["router"] = json_bytes(layer.router);
  j["total"] = json_bytes(layer.total());
  return j;
}

}  // namespace

std::string to_json(const estimate_result& r, int indent) {
  json bytes = json::object();
  for (const auto& b : r.buckets) bytes[b.key] = json_bytes(b.bytes);
  bytes["total"] = json_bytes(r.total_bytes);

  json buckets = json::array();
  for (const auto& b : r.buckets) {
    json items = json::array();
    for (const auto& i : b.items) items.push_back({{"name", i.name}, {"bytes", json_bytes(i.bytes)}, {"formula", i.formula}});
    buckets.push_back({{"key", b.key}, {"label", b.label}, {"bytes", json_bytes(b.bytes)}, {"includes", b.includes},
                       {"assumes", b.assumes}, {"items", items}});
  }
  const auto& p = r.model.params;
  json breakdown = {{"embedding", json_bytes(p.embedding)},
                    {"lm_head", json_bytes(p.lm_head)},
                    {"final_norm", json_bytes(p.final_norm)},
                    {"dense_layers", p.dense_layers},
                    {"dense_layer", layer_json(p.dense_layer)}};
  if (p.moe_layers > 0) {
    breakdown["moe_layers"] = p.moe_layers;
    breakdown["moe_layer"] = layer_json(p.moe_layer);
  }
  breakdown["total"] = json_bytes(p.total);
  breakdown["active"] = json_bytes(p.active);

  json settings_json = json::object();
  for (const auto& [key, value] : to_settings(r.settings)) settings_json[key] = value;

  json out = {{"ok", true},
              {"params", json_bytes(r.params)},
              {"trainable_params", json_bytes(r.trainable_params)},
              {"bytes", bytes},
              {"cpu_bytes", json_bytes(r.cpu_bytes)},
              {"devices", r.settings.devices},
              {"data_parallel", r.data_parallel},
              {"effective_batch", r.effective_batch},
              {"stage", r.stage},
              {"fits", r.fits},
              {"gpu_memory", json_bytes(r.gpu_memory_bytes)},
              {"buckets", buckets},
              {"param_breakdown", breakdown},
              {"notes", r.notes},
              {"settings", settings_json}};
  return out.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string errors_to_json(const std::vector<error>& errors, int indent) {
  json list = json::array();
  for (const auto& e : errors) list.push_back({{"setting", e.setting}, {"message", e.message}});
  return json{{"ok", false}, {"errors", list}}.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string settings_schema_json(int indent) {
  json list = json::array();
  for (const auto& def : setting_table()) {
    json row = {{"key", def.key}, {"kind", to_string(def.kind)}, {"default", def.default_value}};
    if (def.kind == setting_kind::integer || def.kind == setting_kind::number || def.kind == setting_kind::count ||
        def.kind == setting_kind::bytes) {
      row["min"] = def.min_value;
      row["max"] = def.max_value;
    }
    if (def.kind == setting_kind::choice) {
      json choices = json::array();
      for (auto c : detail::split(def.choices, '|')) choices.push_back(c);
      row["choices"] = choices;
    }
    row["unit"] = def.unit;
    row["group"] = def.group;
    row["doc"] = def.doc;
    list.push_back(row);
  }
  return list.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string models_json(int indent) {
  json list = json::array();
  for (const auto& p : model_presets()) {
    const auto r = estimate(settings{{"model", p.id}});
    list.push_back({{"id", p.id},
                    {"name", p.name},
                    {"hf_repo", p.hf_repo},
                    {"params", json_bytes(r.ok() ? r.value().params : 0)},
                    {"official_params", p.official_params},
                    {"source", p.source},
                    {"note", p.note}});
  }
  return list.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string gpus_json(int indent) {
  json list = json::array();
  for (const auto& g : gpu_presets())
    list.push_back({{"id", g.id}, {"name", g.name}, {"memory_bytes", json_bytes(g.memory_bytes)}, {"source", g.source},
                    {"note", g.note}});
  return list.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace llm_memory
