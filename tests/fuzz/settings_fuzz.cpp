// SPDX-License-Identifier: MIT
// Arbitrary bytes as a URL-style query "key=value&key=value": parsing, validation and estimation.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llm_memory;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  settings s;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('&', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view pair = text.substr(start, end - start);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos) s[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
    start = end + 1;
  }
  fuzz::check(estimate(s));
  return 0;
}
