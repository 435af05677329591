// SPDX-License-Identifier: MIT
// Arbitrary bytes as a YAML recipe and as a TOML job config: the bounded readers (core/src/readers/yaml.hpp,
// toml.hpp) never crash or recurse past their depth bound, every error names a line of the input on one line, and
// what they read goes on through the recipe readers (read_launch with the text as a document behind axolotl's or
// LLaMA-Factory's keys, or behind a `[training]` header as torchtitan's TOML), whose settings estimate or fail
// naming a setting.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/report.hpp"
#include "readers/toml.hpp"
#include "readers/yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llm_memory;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> notes;
  const auto doc = detail::parse_yaml(text, notes);
  if (doc.ok()) {
    fuzz::require(!doc.value().dump().empty());
  } else {
    const auto& e = doc.errors().front();
    fuzz::check(e);
    fuzz::require(e.setting.starts_with("line "));
    const auto line = std::stoul(e.setting.substr(5));
    fuzz::require(line >= 1 && line <= static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  }
  const auto toml = detail::parse_toml(text);
  if (toml.ok()) {
    fuzz::require(toml.value().is_object());
  } else {
    const auto& e = toml.errors().front();
    fuzz::check(e);
    fuzz::require(e.setting.starts_with("line "));
    const auto line = std::stoul(e.setting.substr(5));
    fuzz::require(line >= 1 && line <= static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  }
  // The same bytes as pasted documents: key lines first make read_launch read them as YAML (axolotl's, then
  // LLaMA-Factory's keys), a table header as TOML (torchtitan's).
  for (const char* head : {"base_model: x\nadapter: lora\n", "model_name_or_path: x\nfinetuning_type: lora\n",
                           "[training]\nseq_len = 64\n"}) {
    const launch_read r = read_launch(head + std::string(text));
    for (const auto& e : r.errors) fuzz::check(e);
    for (const auto& [key, value] : r.values) fuzz::require(find_setting(key) != nullptr);
    fuzz::require(!launch_to_json(r).empty());
    if (r.errors.empty()) fuzz::check(estimate(r.values));
  }
  return 0;
}
