// SPDX-License-Identifier: MIT
// Arbitrary bytes as a pasted launch command or Modelfile (launch.hpp): the readers never crash, every error names
// its option or line on one line, and the settings they read either estimate (finite, whole bytes) or fail with
// errors that name a setting.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llm_memory;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const launch_read r = read_launch(text);
  for (const auto& e : r.errors) fuzz::check(e);
  for (const auto& [key, value] : r.values) fuzz::require(find_setting(key) != nullptr);
  fuzz::require(!launch_to_json(r).empty());
  if (r.errors.empty()) fuzz::check(estimate(r.values));
  return 0;
}
