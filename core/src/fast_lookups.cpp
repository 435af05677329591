// SPDX-License-Identifier: MIT
#include "fast_lookups.hpp"

#include <map>
#include <mutex>
#include <string>

#include "name_index.hpp"

namespace llm_memory::detail {

const fast_lookups* volatile installed_fast_lookups = nullptr;

// Every function here is a lambda made in this function, so that the page's split leaves them to its rest with
// fits() (scripts/split-wasm.mjs INLINED_MAKERS: lambdas whose maker LTO may inline into a rest binding).
const fast_lookups& install_fast_lookups() {
  static const fast_lookups lookups{
      [](std::string_view key) -> const setting_def* {
        // Each key to its row; a repeated key names its first row, as a scan does.
        static const name_index rows = [] {
          name_index out;
          const auto table = setting_table();
          for (std::size_t i = 0; i < table.size(); ++i) out.add(table[i].key, i);
          out.seal();
          return out;
        }();
        const auto found = rows.find(key);
        return found.empty() ? nullptr : &setting_table()[found.front().second];
      },
      [](std::string_view id) -> const gpu_preset* {
        // Every id and alias to the devices it names; the first in catalogue order is the one a scan finds.
        static const name_index named = [] {
          name_index out;
          const auto presets = gpu_presets();
          for (std::size_t i = 0; i < presets.size(); ++i) {
            out.add(presets[i].id, i);
            for (const auto& alias : presets[i].aliases) out.add(alias, i);
          }
          out.seal();
          return out;
        }();
        const auto found = named.find(id);
        return found.empty() ? nullptr : &gpu_presets()[found.front().second];
      },
      [](std::string_view text) -> const parsed_preset* {
        // Each text resolve was given, to its preset parsed: a look-up and two layers parsed per preset and
        // catalogue (add_models moves the presets: all are looked up again after it).
        static std::mutex lock;
        static std::map<std::string, parsed_preset, std::less<>> found;
        static std::size_t generation = 0;
        const std::lock_guard guard(lock);
        if (const std::size_t now = catalogue_generation(); now != generation) {
          found.clear();
          generation = now;
        }
        if (const auto it = found.find(text); it != found.end()) return &it->second;
        const auto preset = lookup_model(text);
        if (!preset.ok()) return nullptr;
        const model_preset& p = *preset.value();
        return &found.emplace(text, parsed_preset{&p, parse_layer(p.fields), parse_layer(p.shipped)}).first->second;
      },
      [](const parsed_preset& preset, bool shipped, setting_values& values, std::vector<error>& errors,
         std::string_view origin) { apply_layer(shipped ? preset.shipped : preset.fields, values, errors, origin); },
  };
  installed_fast_lookups = &lookups;
  return lookups;
}

}  // namespace llm_memory::detail
