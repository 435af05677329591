// SPDX-License-Identifier: MIT
// Arbitrary bytes as a config.json: the importer and the estimate on what it returns must never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "llm_memory/config_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llm_memory;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto config = parse_config(text);
  if (!config.ok()) {
    for (const auto& e : config.errors()) fuzz::check(e);
    return 0;
  }
  fuzz::check(estimate(settings{}, config.value()));
  return 0;
}
