// SPDX-License-Identifier: MIT
// The page's module (llm-memory.js + .wasm) compiles no model presets in: linked before the core's archive, this
// empty catalogue stands in for core/data/models.json's (embedded_models.cpp, which is then never pulled in),
// and wasm/api.js hands the module the presets it needs, fetched from dist/models/ (docs/performance.md).
#include "embedded_data.hpp"

namespace llm_memory::detail {
const std::span<const embedded_model> model_entries;
}  // namespace llm_memory::detail
