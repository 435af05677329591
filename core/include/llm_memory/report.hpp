// SPDX-License-Identifier: MIT
// Machine-readable output shared by the CLI (--json) and the wasm API: one JSON shape everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/advise.hpp"
#include "llm_memory/checkpoint.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/fits.hpp"
#include "llm_memory/gpu_fit.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/solve.hpp"
#include "llm_memory/sweep.hpp"
#include "llm_memory/ways_out.hpp"

namespace llm_memory {

/// The estimate's JSON shape, written as its "schema_version": raised when a field is removed or changes its meaning
/// or unit, never when one is added (docs/wasm.md, "Versions").
inline constexpr int json_schema_version = 1;

/// The project's version (the top-level CMakeLists.txt project() VERSION): --version and the estimate's "version".
[[nodiscard]] std::string_view version();

/// The estimate as a JSON object (byte values as integers, per device), with the solver's answers under "solve",
/// the knob diagnosis under "advice" and the checkpoint headers' totals under "checkpoint" when given.
[[nodiscard]] std::string to_json(const estimate_result& r, const solve_result* solved = nullptr,
                                  const advice_result* advice = nullptr, int indent = 2,
                                  const checkpoint_summary* checkpoint = nullptr);

/// As above, with the ways out under "ways_out" ({fits, ways}: the CLI's --json --ways-out).
[[nodiscard]] std::string to_json(const estimate_result& r, const ways_out_result& ways, const solve_result* solved,
                                  const advice_result* advice, int indent = 2,
                                  const checkpoint_summary* checkpoint = nullptr);

/// As above (with "ways_out" when `ways` is given), and what --from read from a launch command under "from" (as
/// launch_to_json writes it).
[[nodiscard]] std::string to_json(const estimate_result& r, const launch_read& from, const ways_out_result* ways,
                                  const solve_result* solved, const advice_result* advice, int indent = 2,
                                  const checkpoint_summary* checkpoint = nullptr);

/// A launch command's reading: {ok, command, settings: {key: text}, read: [{option, setting, value}],
/// ignored: [{option, why}], notes: [text], errors: [{setting, message}]}; ok is false when errors is not empty.
[[nodiscard]] std::string launch_to_json(const launch_read& r, int indent = 2);

/// The ways out with the answers they were found from: {fits, ways: [{way, text, total, fits, delta, note}],
/// solve (as under "solve"), advice (as under "advice")}; a key the way drops is null in its delta.
[[nodiscard]] std::string ways_out_to_json(const run_answers& a, int indent = 2);

/// The solver's answers alone, as under "solve" (bytes as integers).
[[nodiscard]] std::string solve_to_json(const solve_result& r, int indent = 2);

/// The knob diagnosis alone, as under "advice" (bytes as integers).
[[nodiscard]] std::string advice_to_json(const advice_result& r, int indent = 2);

/// A sweep: {batch, seq, max_batch, gpu_memory, rounding_bound, total (rows of [batch][seq])}, compact.
[[nodiscard]] std::string sweep_to_json(const sweep_run& run);

/// Which GPUs fit: {"gpus": [{id, name, memory, devices, fits, total, needed (as a solve answer), headroom}]}.
[[nodiscard]] std::string gpu_fit_to_json(const gpu_fit_result& r, int indent = 2);

/// What runs on the machine: {"gpu", "memory", "devices", "fitting", "rows": [{model, name, params, active_params,
/// moe, fits, format, runtime, max_context, gpu_layers, offloaded_share, n_cpu_moe, host, total,
/// decode_tokens_per_s, delta}]}.
[[nodiscard]] std::string fits_to_json(const fits_result& r, int indent = 2);

/// {"ok": true, "settings": {key: text}}: a parsed config.json, or every setting of a resolved run.
[[nodiscard]] std::string settings_to_json(const settings& values, int indent = 2);

/// A checkpoint's headers as the page reads them: {"ok": true, "checkpoint": {as under "checkpoint"},
/// "architecture": GGUF general.architecture ("" for safetensors), "settings": {key: text}}, where settings are what
/// the CLI's --safetensors / --gguf layer under the explicit values (params, and a GGUF's architecture fields).
[[nodiscard]] std::string checkpoint_to_json(const checkpoint_summary& c, const settings& layered,
                                             const std::string& architecture, int indent = 2);

/// {"ok": false, "errors": [{"setting": ..., "message": ...}]}
[[nodiscard]] std::string errors_to_json(const std::vector<error>& errors, int indent = 2);

/// The settings table as JSON: [{key, kind, default, min, max, choices, unit, group, doc}].
[[nodiscard]] std::string settings_schema_json(int indent = 2);

/// The model presets: [{id, name, hf_repo, params, official_params, source, note}]; params is the exact
/// count computed from the preset's architecture, official_params the published one (0 when none).
[[nodiscard]] std::string models_json(int indent = 2);

/// The GPU presets: [{id, name, memory_bytes, unified_memory_bytes, source, note}]; unified_memory_bytes is 0 for a
/// discrete GPU.
[[nodiscard]] std::string gpus_json(int indent = 2);

}  // namespace llm_memory
