// SPDX-License-Identifier: MIT
// `tune run RECIPE --config CONFIG key=value ...`: torchtune's launcher (torchtune/_cli/run.py) and its config
// overrides (torchtune/config/_parse.py: dotted keys, `~key` removes one), read as the recipe document they make
// (readers/torchtune.cpp). The built-in config a name stands for is not read: its keys are the overrides'
// defaults, given as another --from (the YAML) when they matter.
#include <string>

#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "readers/yaml.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// `value` as the override parser reads it: a bracketed list through the YAML reader, anything else as text.
json override_value(std::string_view value, launch_read& out) {
  if (!value.starts_with('[')) return json(std::string(value));
  std::vector<std::string> notes;
  auto doc = parse_yaml("v: " + std::string(value), notes);
  if (doc.ok() && doc.value().is_object() && doc.value().contains("v")) return doc.value()["v"];
  out.notes.push_back("override value " + quoted(value) + " is not a list llm-memory reads: kept as text");
  return json(std::string(value));
}

// Sets doc.a.b.c = value for "a.b.c" (an intermediate that is not an object is replaced).
void set_path(json& doc, std::string_view path, json value) {
  json* at = &doc;
  for (const auto part : split(path, '.')) {
    if (!at->is_object()) *at = json::object();
    at = &(*at)[std::string(part)];
  }
  *at = std::move(value);
}

}  // namespace

void read_tune_run(const command_line& cmd, launch_read& out) {
  json doc = json::object();
  const auto& args = cmd.args;
  bool recipe_seen = false;  // the first bare word names the recipe
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (word == "--config" || word.starts_with("--config=")) {
      const std::string name =
          word == "--config" ? (i + 1 < args.size() ? args[++i] : "") : std::string(word.substr(9));
      out.notes.push_back("--config " + quoted(name) +
                          " is not opened: the overrides are read; give the config's YAML as another --from for "
                          "the rest");
      continue;
    }
    if ((word == "--nproc_per_node" || word == "--nproc-per-node") && i + 1 < args.size()) {
      set_setting(out, word, "devices", args[++i]);  // torchrun's processes: one a device
      continue;
    }
    const auto eq = word.find('=');
    if (word.starts_with('-') || word.starts_with('~') || eq == std::string_view::npos || eq == 0) {
      const bool recipe =
          !recipe_seen && !word.starts_with('-') && !word.starts_with('~') && eq == std::string_view::npos;
      recipe_seen = recipe_seen || recipe;
      ignore(out, word, recipe ? "the recipe: the overrides are what is read" : "not a key=value override");
      continue;
    }
    set_path(doc, word.substr(0, eq), override_value(word.substr(eq + 1), out));
  }
  read_torchtune(doc, out);
}

}  // namespace llm_memory::detail
