// SPDX-License-Identifier: MIT
// The ranking's request read from text keys (fits.hpp: fits_request_from), the one parser of the CLI's `fits`
// flags and the wasm binding's JSON object. Sizes and counts go through the settings rows' parsers, so "64GB",
// "8B" and "128K" read as everywhere else.
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm_memory/fits.hpp"
#include "llm_memory/settings.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

template <class E>
std::optional<E> choice_of(std::string_view text, std::initializer_list<std::pair<std::string_view, E>> choices) {
  for (const auto& [name, value] : choices)
    if (name == text) return value;
  return std::nullopt;
}

// A value read through a settings row's parser, its errors renamed to the request's key.
std::optional<double> number_as(const char* row, const std::string& key, const std::string& text,
                                std::vector<error>& errors) {
  const auto parsed = parse_number(*find_setting(row), text);
  if (parsed.ok()) return parsed.value();
  for (const error& e : parsed.errors()) errors.push_back({key, e.message});
  return std::nullopt;
}

void read_task(const std::string& value, fits_request& q, std::vector<error>& errors) {
  const auto t = choice_of<fits_task>(
      value,
      {{"run", fits_task::run}, {"lora", fits_task::lora}, {"qlora", fits_task::qlora}, {"full", fits_task::full}});
  if (t)
    q.task = *t;
  else
    errors.push_back({"task", "must be run, lora, qlora or full, got " + detail::quoted(value)});
}

void read_sort(const std::string& value, fits_request& q, std::vector<error>& errors) {
  const auto s = choice_of<fits_sort>(
      value, {{"size", fits_sort::size}, {"context", fits_sort::context}, {"speed", fits_sort::speed}});
  if (s)
    q.sort = *s;
  else
    errors.push_back({"sort", "must be size, context or speed, got " + detail::quoted(value)});
}

void read_moe(const std::string& value, fits_request& q, std::vector<error>& errors) {
  const auto m =
      choice_of<fits_moe>(value, {{"any", fits_moe::any}, {"only", fits_moe::only}, {"none", fits_moe::none}});
  if (m)
    q.moe = *m;
  else
    errors.push_back({"moe", "must be any, only or none, got " + detail::quoted(value)});
}

// One key and its value into the request; false when the key is unknown.
bool read_key(const std::string& key, const std::string& value, fits_request& q, std::vector<error>& errors) {
  if (key == "gpu") {
    q.gpu = value;
  } else if (key == "devices" || key == "seq") {
    if (const auto v = number_as(key.c_str(), key, value, errors))
      (key == "seq" ? q.seq : q.devices) = std::llround(*v);
  } else if (key == "ram") {
    if (const auto v = number_as("host_ram", key, value, errors)) q.ram_bytes = *v;
  } else if (key == "min_params" || key == "max_params") {
    if (const auto v = number_as("params", key, value, errors))
      (key == "min_params" ? q.min_params : q.max_params) = *v;
  } else if (key == "family") {
    q.family = value;
  } else if (key == "task") {
    read_task(value, q, errors);
  } else if (key == "sort") {
    read_sort(value, q, errors);
  } else if (key == "moe") {
    read_moe(value, q, errors);
  } else {
    return false;
  }
  return true;
}

}  // namespace

result<fits_request> fits_request_from(const settings& keys) {
  fits_request q;
  std::vector<error> errors;
  for (const auto& [key, value] : keys)
    if (!read_key(key, value, q, errors))
      errors.push_back({key,
                        "unknown key of the ranking (gpu, devices, ram, task, seq, family, min_params, "
                        "max_params, moe, sort)"});
  if (q.gpu.empty() && errors.empty())
    errors.push_back({"gpu", "the ranking needs a GPU preset id (llm-memory --list-gpus)"});
  if (!errors.empty()) return errors;
  return q;
}

}  // namespace llm_memory
