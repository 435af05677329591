// SPDX-License-Identifier: MIT
// The CLI's text output: the estimate's table, the runtime's own terms, the solver's and the knob search's answers,
// the ways out, a checkpoint's summary and what --from read. --json goes through report.hpp instead.
#pragma once

#include <cstdint>
#include <string>

#include "llm_memory/advise.hpp"
#include "llm_memory/checkpoint.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/solve.hpp"
#include "llm_memory/ways_out.hpp"

namespace llm_memory::cli {

/// The estimate's table: buckets, items, formulas, the peak and the runtime's own terms.
void print_table(const run_spec& spec, const estimate_result& r);
/// The solver's answers; `inference_seq` (tokens; 0 in training) words the micro-batch as concurrent requests.
void print_solve(const solve_result& s, std::int64_t inference_seq = 0);
/// Each knob's saving and the cheapest combination.
void print_advice(const advice_result& a, display_units units);
/// The ways out of a "does not fit".
void print_ways_out(const ways_out_result& w, display_units units);
/// A checkpoint's header summary.
void print_checkpoint(const checkpoint_summary& c);
/// The "read from FILE:" block: each option read (and the explicit flag that overrides it), the ignored ones, the
/// notes.
void print_from(const std::string& path, const launch_read& from, const settings& values);

}  // namespace llm_memory::cli
