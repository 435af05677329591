// SPDX-License-Identifier: MIT
// The page's module (llm-memory.js + .wasm) compiles no model presets in: linked before the core's archive, this
// empty catalogue stands in for core/data/models.json's (embedded_models.cpp, which is then never pulled in),
// and wasm/api.js hands the module the presets it needs, fetched from dist/models/ (docs/performance.md), each
// with its settings written out (wasm/preset_settings.cpp): no config.json to read, so the config.json readers
// stay out of the page's first part (reached by the parse_config binding only, in the rest).
#include "embedded_data.hpp"

namespace llm_memory::detail {
const std::span<const embedded_model> model_entries;

result<settings> preset_config(std::string_view /*config_json*/) {
  return error{"models",
               "a preset's \"config\" is not read by this module: hand it the entries with their settings "
               "written out (dist/models/, wasm/preset_settings.cpp)"};
}
}  // namespace llm_memory::detail
