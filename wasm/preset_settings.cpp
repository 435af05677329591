// SPDX-License-Identifier: MIT
// Writes the model presets the page's module is handed (it compiles none in: no_models.cpp): DIR/models/<id>.json,
// one entry, written again under each of its aliases so the page loads a preset by any name, and
// DIR/llm-memory.models.json, every entry in core/data/models.json's order. Each entry's config.json is replaced
// by the settings the core maps it to (entry_with_settings), so the page's module never parses a preset's
// config.json and its config.json readers stay in the rest (docs/performance.md). Run by node at build time.
#include <cstdio>
#include <string>
#include <string_view>

#include "embedded_data.hpp"

namespace {

bool write(const std::string& path, const std::string& text) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) return false;
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  return std::fclose(out) == 0 && written;
}

// Writes `text` as DIR/models/<name>.json for the entry's id and each of its aliases (each followed by a space).
bool write_names(const std::string& dir, const llm_memory::detail::embedded_model& entry, const std::string& text) {
  bool ok = write(dir + "/models/" + std::string(entry.id) + ".json", text);
  std::string_view aliases = entry.aliases;
  for (std::size_t at = aliases.find(' '); at != std::string_view::npos; at = aliases.find(' ')) {
    ok = write(dir + "/models/" + std::string(aliases.substr(0, at)) + ".json", text) && ok;
    aliases.remove_prefix(at + 1);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  std::string all;
  bool ok = true;
  for (const auto& entry : llm_memory::detail::model_entries) {
    const std::string text = llm_memory::detail::entry_with_settings(entry);
    ok = write_names(dir, entry, text + "\n") && ok;
    all += (all.empty() ? "[" : ",\n") + text;
  }
  return ok && write(dir + "/llm-memory.models.json", all + "]\n") ? 0 : 1;
}
