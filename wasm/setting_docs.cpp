// SPDX-License-Identifier: MIT
// Writes llm-memory.docs.json, {key: doc} for every row of the settings table, with the core's JSON writer
// (the same text as the native --schema's "doc"). The page's module is compiled without these texts and
// wasm/api.js puts them back into settingsSchema() (docs/wasm.md, "Settings docs"). Run by node at build time.
#include <cstdio>

#include "json_value.hpp"
#include "llm_memory/settings_list.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  llm_memory::detail::json docs = llm_memory::detail::json::object();
#define LLM_MEMORY_DOC_ROW(key, kind, def, lo, hi, choices, unit, group, doc, ...) docs[#key] = doc;
  LLM_MEMORY_SETTINGS(LLM_MEMORY_DOC_ROW)
#undef LLM_MEMORY_DOC_ROW
  const std::string text = docs.dump() + "\n";
  std::FILE* out = std::fopen(argv[1], "wb");
  if (out == nullptr) return 1;
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  return std::fclose(out) == 0 && written ? 0 : 1;
}
