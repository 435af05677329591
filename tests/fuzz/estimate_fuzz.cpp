// SPDX-License-Identifier: MIT
// Arbitrary combinations of valid-looking values for every setting of the table: each byte pair picks a
// setting and a value drawn from its kind (extremes included), so the fuzzer explores combinations, not syntax.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "llm_memory/advise.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/solve.hpp"

namespace {

using namespace llm_memory;

std::string value_for(const setting_def& def, std::uint8_t pick) {
  static const char* const numbers[] = {"0",    "1",   "2",   "3",   "7",   "8",   "64",   "128", "1000",
                                        "4096", "1e5", "1e6", "1e7", "1e8", "0.5", "1e15", "-1",  "1.5"};
  static const char* const sizes[] = {"0", "1", "80GB", "80GiB", "1e15", "24GiB", "1B", "0.5TB"};
  switch (def.kind) {
    case setting_kind::choice: {
      std::string all(def.choices);
      std::size_t n = 1;
      for (char c : all) n += c == '|';
      std::size_t index = pick % n, start = 0;
      for (std::size_t i = 0; i < index; ++i) start = all.find('|', start) + 1;
      return all.substr(start, all.find('|', start) - start);
    }
    case setting_kind::flag: return pick % 2 ? "on" : "off";
    case setting_kind::bytes: return sizes[pick % (sizeof sizes / sizeof *sizes)];
    case setting_kind::text: {
      if (def.key == "model" && !model_presets().empty()) return model_presets()[pick % model_presets().size()].id;
      if (def.key == "gpu" && !gpu_presets().empty()) return gpu_presets()[pick % gpu_presets().size()].id;
      return pick % 2 ? "all-linear" : "q_proj,k_proj";
    }
    default: return numbers[pick % (sizeof numbers / sizeof *numbers)];
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto table = setting_table();
  settings s;
  for (std::size_t i = 0; i + 1 < size; i += 2) {
    const setting_def& def = table[data[i] % table.size()];
    s[std::string(def.key)] = value_for(def, data[i + 1]);
  }
  const auto estimated = estimate(s);
  fuzz::check(estimated);
  // The solver and the knob table re-estimate dozens of times: one input in 16 also runs them, on the same
  // settings. They must accept whatever estimate() accepts, and their answers must render.
  if (estimated.ok() && size > 0 && data[0] % 16 == 0) {
    const auto solved = solve(s);
    fuzz::require(solved.ok() && !solve_to_json(solved.value()).empty());
    const auto advised = advise(s);
    fuzz::require(advised.ok());
    for (const auto& k : advised.value().knobs)
      fuzz::require(std::isfinite(k.total_bytes) && std::isfinite(k.saved_bytes));
    fuzz::require(!advice_to_json(advised.value()).empty());
  }
  return 0;
}
