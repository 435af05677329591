// SPDX-License-Identifier: MIT
// The config.json field reader every family's reader goes through, and the number helpers they share.
#include <cmath>

#include "decimal.hpp"
#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {

const json* reader::find(std::initializer_list<const char*> names, const char** found) const {
  for (const char* name : names) {
    const auto it = j_.find(name);
    if (it != j_.end() && !it->is_null()) {
      if (found != nullptr) *found = name;
      return &*it;
    }
  }
  return nullptr;
}

bool reader::integer(std::initializer_list<const char*> names, std::string_view setting) {
  const char* name = nullptr;
  const json* v = find(names, &name);
  if (v == nullptr) return false;
  const setting_def* def = find_setting(setting);
  const double max = def != nullptr ? def->max_value : 1e15;
  const bool integral =
      v->is_number() && std::isfinite(v->get<double>()) && v->get<double>() == std::floor(v->get<double>());
  if (!integral || v->get<double>() < 0 || v->get<double>() > max) {
    fail(setting, std::string("config.json field \"") + name + "\" must be a whole number from 0 to " +
                      format_number(max) + ", got " + quoted(v->dump()));
    return true;
  }
  out[std::string(setting)] = format_number(v->get<double>());
  return true;
}

std::optional<bool> reader::boolean(const char* name, std::string_view setting) {
  const json* v = find({name});
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    fail(setting, std::string("config.json field \"") + name + "\" must be true or false, got " + quoted(v->dump()));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::string reader::text(const char* name) const {
  const json* v = find({name});
  return v != nullptr && v->is_string() ? lower(v->get<std::string>()) : std::string();
}

void reader::require(std::initializer_list<const char*> names, std::string_view setting) {
  if (!integer(names, setting) && !out.contains(std::string(setting))) {
    std::string list;
    for (const char* n : names) list += std::string(list.empty() ? "" : " or ") + n;
    fail(setting, "config.json has no " + list);
  }
}

void reader::fail(std::string_view setting, std::string message) {
  errors.push_back({std::string(setting), std::move(message)});
}

void reader::set(std::string_view setting, std::string_view value) { out[std::string(setting)] = value; }

std::optional<double> whole(const json* v) {
  if (v == nullptr || !v->is_number()) return std::nullopt;
  const double x = v->get<double>();
  if (!std::isfinite(x) || x != std::floor(x)) return std::nullopt;
  return x;
}

// The core's decimal reader, not std::stod: stod would link musl's strtod into the wasm module
// (docs/performance.md) and throws on bad text.
double number_in(const std::string& text) {
  double value = 0;
  (void)read_double(text, value);
  return value;
}

double field(reader& r, const char* name, double fallback, std::string_view setting) {
  const json* v = r.find({name});
  if (v == nullptr) return fallback;
  const auto x = whole(v);
  if (!x || *x < 0 || *x > 1e9) {
    r.fail(setting, std::string("config.json field \"") + name + "\" must be a whole number from 0 to 1e9, got " +
                        quoted(v->dump()));
    return fallback;
  }
  return *x;
}

}  // namespace llm_memory::detail
