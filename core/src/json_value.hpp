// SPDX-License-Identifier: MIT
// The one JSON type of the core and the wasm bindings (private to the sources that read or write JSON).
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>
#include <vector>

namespace llm_memory::detail {

/// Every reader and writer uses nlohmann's insertion-ordered type: the reports need its key order, and one
/// type instantiates one parser and one serialiser in the wasm module, not two (docs/performance.md).
using json = nlohmann::ordered_json;

/// `text` parsed as json::parse(text, nullptr, false) parses it (a discarded value when it is not JSON), through
/// nlohmann's DOM builder alone: parse() also instantiates the callback builder, which no reader uses.
[[nodiscard]] inline json parse_json(std::string_view text) {
  json out;
  nlohmann::detail::json_sax_dom_parser<json> builder(out, false);
  const bool read = json::sax_parse(text.data(), text.data() + text.size(), &builder);
  if (!read || builder.is_errored()) out = json(json::value_t::discarded);
  return out;
}

/// A JSON object holding `values`' members in their order. Appended directly: nlohmann's ordered_map finds each
/// key it inserts by a linear scan, which makes the 100-odd settings quadratic (docs/performance.md); the keys of
/// a std::map are unique, so there is nothing to find.
template <class Map>
[[nodiscard]] json object_of(const Map& values) {
  json out = json::object();
  auto& members = out.get_ref<json::object_t&>();
  members.reserve(values.size());
  for (const auto& [key, value] : values) members.emplace_back(key, value);
  return out;
}

/// The members of a JSON object (the caller checked is_object) in key order, as std::map held them: the
/// readers that stop at the first bad member or list members keep the order they always had.
[[nodiscard]] inline std::vector<const json::object_t::value_type*> sorted_members(const json& object) {
  const auto& members = object.get_ref<const json::object_t&>();
  std::vector<const json::object_t::value_type*> out;
  out.reserve(members.size());
  for (const auto& m : members) out.push_back(&m);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  return out;
}

}  // namespace llm_memory::detail
