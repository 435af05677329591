// SPDX-License-Identifier: MIT
// Any bytes through the core's JSON reader and writer (core/src/json_value.cpp), against nlohmann-json, which they
// replaced: both accept or both refuse, and what is accepted is written back as the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "../../core/src/json_value.hpp"

namespace {

// Arrays and objects nested deeper than the core's reader goes (512 levels) are refused by it and read by nlohmann.
bool nests_past_the_bound(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > 512) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (nests_past_the_bound(text)) return 0;
  const auto mine = llm_memory::detail::parse_json(text);
  // nlohmann's lexer takes a NUL byte for the end of the input and reads what came before; JSON has no NUL outside
  // strings (and none raw inside them), so the core refuses every such text.
  if (text.find('\0') != std::string_view::npos) {
    if (!mine.is_discarded()) std::abort();
    return 0;
  }
  const auto theirs = nlohmann::ordered_json::parse(text, nullptr, false);
  if (mine.is_discarded() != theirs.is_discarded()) std::abort();
  if (!mine.is_discarded() &&
      mine.dump(2) != theirs.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace))
    std::abort();
  return 0;
}
