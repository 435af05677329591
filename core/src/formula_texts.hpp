// SPDX-License-Identifier: MIT
// The estimate without its texts (private): fits ranks the catalogue on totals alone, and writing every formula's
// numbers as text (format_number's shortest round trip, up to three snprintf calls and a read back per number) was
// a sixth of a ranking's instructions (docs/performance.md, "The first ranking").
#pragma once

#include "llm_memory/estimate.hpp"

namespace llm_memory::detail {

/// Whether the estimate's texts (formulas, notes) are written on this thread: false while a formula_texts_off is
/// alive, when format_number and group_digits return "" at once and the hottest formulas are not put together.
[[nodiscard]] bool formula_texts_on();

/// Turns the texts off on this thread for its lifetime (nests; restores the state it found).
class formula_texts_off {
 public:
  formula_texts_off();
  ~formula_texts_off();
  formula_texts_off(const formula_texts_off&) = delete;
  formula_texts_off& operator=(const formula_texts_off&) = delete;

 private:
  bool was_on_;  ///< the state to restore
};

/// estimate(spec) without its texts: every number as estimate() gives it (bytes, totals, fits, the runtime's
/// report, the phases), every item's and runtime term's formula and every note empty. For searches that read only
/// totals (fits.cpp); tests/core/fits_fast_test.cpp compares it with estimate() field by field. `with_run` false:
/// the result's `settings` and `model` are left empty (the caller has them in `spec`), the rest the same.
[[nodiscard]] estimate_result estimate_totals(const run_spec& spec, bool with_run = true);

}  // namespace llm_memory::detail
