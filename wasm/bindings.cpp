// SPDX-License-Identifier: MIT
// Embind registrations only. Inputs arrive as JSON text of {key: text} objects, built by wasm/api.js;
// outputs leave as the JSON text the CLI prints (report.hpp), which wasm/api.js parses into plain objects:
// one serialiser for both front ends, so native and wasm agree byte for byte (docs/wasm.md).
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include "json_value.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm_memory/advise.hpp"
#include "llm_memory/checkpoint.hpp"
#include "llm_memory/config_json.hpp"
#include "llm_memory/emit.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/fits.hpp"
#include "llm_memory/gpu_fit.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/log.hpp"
#include "llm_memory/paste.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/settings.hpp"
#include "llm_memory/solve.hpp"
#include "llm_memory/sweep.hpp"
#include "llm_memory/ways_out.hpp"
#include "text.hpp"

namespace {

using emscripten::val;
using namespace llm_memory;

// One input as wasm/api.js sends it: the JSON text of a flat object of strings. api.js turns every JS value
// into text before calling in, so no user code (getters, Proxy traps, toString) runs while wasm frames are
// live (docs/wasm.md, "Hostile input"); anything else arriving here is reported against `what`.
result<settings> settings_from(const std::string& text, const char* what) {
  // As the core parses (json_value.hpp): one parser instantiation in the module.
  const auto parsed = llm_memory::detail::parse_json(text);
  if (!parsed.is_object()) return error{what, "must be a JSON object of strings (as wasm/api.js sends it)"};
  settings out;
  for (const auto* member : llm_memory::detail::sorted_members(parsed)) {
    const auto& [key, value] = *member;
    if (!value.is_string()) return error{key, "must be a string (as wasm/api.js sends it)"};
    out[key] = value.get<std::string>();
  }
  return out;
}

// The explicit settings and the config of a call, or the errors of either.
result<std::pair<settings, settings>> inputs_from(const std::string& explicit_values, const std::string& config) {
  auto values = settings_from(explicit_values, "settings");
  auto layered = settings_from(config, "config");
  if (values.ok() && layered.ok()) return std::pair{std::move(values.value()), std::move(layered.value())};
  std::vector<error> errors = values.errors();
  errors.insert(errors.end(), layered.errors().begin(), layered.errors().end());
  return errors;
}

// Runs `compute(settings, config)` -> result<T> on the decoded inputs; its value through `to_text`, or the errors.
template <class Compute, class ToText>
std::string answer_json(const std::string& explicit_values, const std::string& config, Compute compute,
                        ToText to_text) {
  const auto inputs = inputs_from(explicit_values, config);
  if (!inputs.ok()) return errors_to_json(inputs.errors());
  const auto r = compute(inputs.value().first, inputs.value().second);
  return r.ok() ? to_text(r.value()) : errors_to_json(r.errors());
}

// estimate(settings, config): config holds architecture settings from parse_config, layered under the
// explicit settings exactly as the CLI's --config.
std::string estimate_json(const std::string& explicit_values, const std::string& config) {
  return answer_json(
      explicit_values, config, [](const settings& v, const settings& c) { return estimate(v, c); },
      [](const estimate_result& e) { return to_json(e); });
}

// The knob diagnosis (the CLI's "advice" object) or the errors object.
std::string advise_json(const std::string& explicit_values, const std::string& config) {
  return answer_json(
      explicit_values, config, [](const settings& v, const settings& c) { return advise(v, c); },
      [](const advice_result& a) { return advice_to_json(a); });
}

// Devices needed, largest micro-batch, longest sequence (the CLI's "solve" object) or the errors object.
std::string solve_json(const std::string& explicit_values, const std::string& config) {
  return answer_json(
      explicit_values, config, [](const settings& v, const settings& c) { return solve(v, c); },
      [](const solve_result& s) { return solve_to_json(s); });
}

// The nearest ways out with the solver's and the knob search's answers they come from (ways_out.hpp), or the
// errors object: one call for the page's verdict box, its solver and its knob table.
std::string ways_out_json(const std::string& explicit_values, const std::string& config) {
  return answer_json(
      explicit_values, config, [](const settings& v, const settings& c) { return answer(v, c); },
      [](const run_answers& a) { return ways_out_to_json(a); });
}

// Which GPUs fit: every GPU preset's answer (the CLI's --gpus --json) or the errors object.
std::string gpu_fit_json(const std::string& explicit_values, const std::string& config) {
  return answer_json(
      explicit_values, config, [](const settings& v, const settings& c) { return gpu_fit(v, c); },
      [](const gpu_fit_result& g) { return gpu_fit_to_json(g); });
}

// {"ok": true, "settings": {key: text}} from a config.json, or the errors object.
// What runs on my machine: every model preset ranked on one machine (the CLI's `fits --json`), or the errors
// object. The request is a flat object of strings (fits_request_from's keys).
std::string fits_json(const std::string& request) {
  const auto keys = settings_from(request, "request");
  if (!keys.ok()) return errors_to_json(keys.errors());
  const auto q = fits_request_from(keys.value());
  if (!q.ok()) return errors_to_json(q.errors());
  const auto r = fits(q.value());
  return r.ok() ? fits_to_json(r.value()) : errors_to_json(r.errors());
}

std::string parse_config_json(const std::string& text) {
  const auto r = parse_config(text);
  return r.ok() ? settings_to_json(r.value()) : errors_to_json(r.errors());
}

// resolve(settings, config?): every setting resolved and checked (resolve.hpp), as text ({"ok": true,
// "settings"}), or the errors object; how the page checks a link without estimating it.
std::string resolve_json(const std::string& explicit_values, const std::string& config) {
  return answer_json(
      explicit_values, config, [](const settings& v, const settings& c) { return resolve(v, c); },
      [](const run_spec& spec) { return settings_to_json(to_settings(spec.values)); });
}

// A new Float64Array holding a copy of `values` (never a view into wasm memory, which may move when it grows).
val copy_out(const std::vector<double>& values) {
  return val::global("Float64Array").new_(emscripten::typed_memory_view(values.size(), values.data()));
}

// sweep(settings, config, {batch, seq, kernel}): axes as the CLI's --batch/--seq ("1:256", "256:131072:64"),
// kernel "simd" (default) or "scalar". Returns {ok: true, batch, seq, total (row-major [batch][seq]),
// max_batch, fixed, slope (the kernel's input), gpu_memory, rounding_bound, isa}, every array a copy;
// or {ok: false, errors} (docs/sweep.md).
val sweep_js(const std::string& explicit_values, const std::string& config, const std::string& axes) {
  const auto inputs = inputs_from(explicit_values, config);
  const auto given_axes = settings_from(axes, "axes");
  if (!inputs.ok() || !given_axes.ok()) {
    std::vector<error> errors = inputs.errors();
    errors.insert(errors.end(), given_axes.errors().begin(), given_axes.errors().end());
    return val::global("JSON").call<val>("parse", errors_to_json(errors));
  }
  const settings& options = given_axes.value();
  sweep_request request{inputs.value().first, inputs.value().second};
  if (const auto it = options.find("batch"); it != options.end()) request.batch = it->second;
  if (const auto it = options.find("seq"); it != options.end()) request.seq = it->second;
  const auto kernel_name = options.find("kernel");
  if (kernel_name != options.end() && kernel_name->second == "scalar") request.kernel_choice = kernel::scalar;
  const auto run = run_sweep(request);
  if (!run.ok()) return val::global("JSON").call<val>("parse", errors_to_json(run.errors()));
  const sweep_grid& g = run.value().grid;
  const sweep_columns c = columns(run.value().lowered, g.seq);
  val out = val::object();
  out.set("ok", true);
  out.set("batch", copy_out(g.batch));
  out.set("seq", copy_out(g.seq));
  out.set("total", copy_out(g.total));
  out.set("max_batch", copy_out(std::vector<double>(g.max_batch.begin(), g.max_batch.end())));
  out.set("fixed", copy_out(c.fixed));
  out.set("slope", copy_out(c.slope));
  out.set("gpu_memory", run.value().lowered.gpu_memory);
  out.set("rounding_bound", run.value().lowered.rounding_bound);
  out.set("isa", std::string(simd_isa()));
  return out;
}

// An error naming `what` unless 1 <= n <= most (a count sweep_kernel_ms allocates for).
std::optional<error> count_error(const char* what, int n, std::size_t most) {
  if (n >= 1 && static_cast<std::size_t>(n) <= most) return std::nullopt;
  return error{what, "must be a whole number from 1 to " + std::to_string(most)};
}

// For benchmarks/sweep_bench.mjs: milliseconds per evaluation of the kernel alone on an n_batch x n_seq grid
// (batch 1..n_batch, seq evenly spaced over 256..131072), the mean of `reps` runs, timed inside wasm; as JSON
// text, or the errors object naming the argument. The grid is held to the sweep's own limits (max_axis_values,
// max_sweep_cells): 1e6 x 1e6 once threw a bare number out of std::vector and leaked ~55 MiB a call (issue 37).
std::string sweep_kernel_ms(const std::string& explicit_values, int n_batch, int n_seq, const std::string& kernel_name,
                            int reps) {
  std::vector<error> errors;
  for (auto e : {count_error("nBatch", n_batch, max_axis_values), count_error("nSeq", n_seq, max_axis_values),
                 count_error("reps", reps, 1000)})
    if (e) errors.push_back(*e);
  if (errors.empty() && std::uint64_t(n_batch) * std::uint64_t(n_seq) > max_sweep_cells)
    errors.push_back({n_batch >= n_seq ? "nBatch" : "nSeq", "the grid of " + std::to_string(n_batch) + " x " +
                                                                std::to_string(n_seq) + " has more than " +
                                                                std::to_string(max_sweep_cells) + " cells"});
  if (kernel_name != "simd" && kernel_name != "scalar") errors.push_back({"kernel", "must be simd or scalar"});
  const auto values = settings_from(explicit_values, "settings");
  if (!values.ok()) errors.insert(errors.end(), values.errors().begin(), values.errors().end());
  if (!errors.empty()) return errors_to_json(errors);
  const auto spec = resolve(values.value());
  if (!spec.ok()) return errors_to_json(spec.errors());
  const auto lowered = lower(spec.value());
  if (!lowered.ok()) return errors_to_json(lowered.errors());
  std::vector<double> batch, seq;
  for (int i = 0; i < n_batch; ++i) batch.push_back(i + 1);
  for (int j = 0; j < n_seq; ++j) seq.push_back(std::round(256 + (131072.0 - 256) * j / std::max(1, n_seq - 1)));
  const sweep_columns c = columns(lowered.value(), seq);
  std::vector<double> out(batch.size() * seq.size());
  const kernel k = kernel_name == "scalar" ? kernel::scalar : kernel::simd;
  const double start = emscripten_get_now();
  for (int r = 0; r < reps; ++r) evaluate(c, batch, out, k);
  return detail::format_number((emscripten_get_now() - start) / reps);
}

// add_models(text): model presets (one entry of core/data/models.json or an array of them) that wasm/api.js
// fetched for the page's module, which compiles none in: how many were added, as JSON text, or the errors object.
std::string add_models_json(const std::string& text) {
  const auto r = add_models(text);
  return r.ok() ? std::to_string(r.value()) : errors_to_json(r.errors());
}

// {"ok": false, "need": n}: read the file's first n bytes and call again.
std::string need_json(std::uint64_t n) { return "{\"ok\": false, \"need\": " + std::to_string(n) + "}"; }

// A safetensors file's header from its first bytes (the 8-byte length, then the JSON), as --safetensors reads it.
std::string safetensors_json(std::string_view bytes, std::uint64_t size, const std::string& what) {
  const auto length = safetensors_header_length(bytes.substr(0, 8), size, what);
  if (!length.ok()) return errors_to_json(length.errors());
  if (bytes.size() < 8 + length.value()) return need_json(8 + length.value());
  // length <= max_safetensors_header_bytes (100 MB): it fits a 32-bit size_t.
  const auto r = parse_safetensors_header(bytes.substr(8, static_cast<std::size_t>(length.value())),
                                          size - 8 - length.value(), what);
  if (!r.ok()) return errors_to_json(r.errors());
  settings layered;
  // The elements are the parameter count unless integer containers pack several values (as the CLI).
  if (!r.value().packed) layered["params"] = detail::format_number(r.value().elements);
  return checkpoint_to_json(r.value(), layered, "");
}

// A GGUF file's header from its first bytes, as --gguf reads it: 16 MiB first, then up to max_gguf_header_bytes.
std::string gguf_json(std::string_view bytes, std::uint64_t size, const std::string& what) {
  bool truncated = false;
  const auto r = parse_gguf_header(bytes, size, what, &truncated);
  // The CLI's two steps (cli/main.cpp read_gguf): 16 MiB, then the whole limit, never one byte more per round.
  const std::uint64_t limit = std::min(size, max_gguf_header_bytes);
  const std::uint64_t first = std::min(limit, std::uint64_t{16} << 20);
  if (!r.ok() && truncated && bytes.size() < limit) return need_json(bytes.size() < first ? first : limit);
  if (!r.ok()) return errors_to_json(r.errors());
  settings layered = r.value().fields;
  layered["params"] = detail::format_number(r.value().tensors.elements);  // every GGUF element is a parameter
  return checkpoint_to_json(r.value().tensors, layered, r.value().architecture);
}

// read_checkpoint(kind, bytes, file_size, name): what a checkpoint's header says, read by the CLI's readers
// (checkpoint.hpp) from the file's first bytes. kind "safetensors" or "gguf"; file_size: the whole file [bytes];
// name: the file's name, for errors. Returns checkpoint_to_json, the errors object, or {"ok": false, "need": n}
// when the header goes on past `bytes` (n never exceeds the readers' limits or the file).
std::string read_checkpoint(const std::string& kind, const std::string& bytes, double file_size,
                            const std::string& name) {
  if (!(file_size >= 0 && file_size <= 9007199254740992.0))
    return errors_to_json({error{kind, "the file size must be a whole number of bytes up to 2^53"}});
  const auto size = static_cast<std::uint64_t>(file_size);
  const std::string what = kind + " " + name;
  if (kind == "safetensors") return safetensors_json(bytes, size, what);
  if (kind == "gguf") return gguf_json(bytes, size, what);
  return errors_to_json({error{"checkpoint", "kind must be safetensors or gguf"}});
}

// read_launch_json(text): a pasted launch command or Modelfile read into settings (launch.hpp), as the CLI's
// --from reads it: launch_to_json's {ok, command, settings, read, ignored, notes, errors}.
std::string read_launch_json(const std::string& text) { return launch_to_json(read_launch(text), -1); }

// The page's settings with the log's over them: the log states what ran. A log naming a model drops the page's
// architecture settings (group "model"), as the launch box's model does (web/app.js, #openLaunch).
settings under_log(settings page, const settings& logged) {
  if (logged.contains("model")) {
    for (auto it = page.begin(); it != page.end();) {
      const auto* row = find_setting(it->first);
      it = row && row->group == "model" ? page.erase(it) : std::next(it);
    }
  }
  for (const auto& [key, value] : logged) page[key] = value;
  return page;
}

// A startup log read, laid over the page's settings, estimated and put beside the log's figures, as the CLI's
// --log --json and --as-record: {"ok": true, "settings": as estimated, "log": reconciliation_to_json's object,
// "record": validation_records' rows}, or the errors object (the log's errors name the line).
std::string reconciled_json(const log_read& log, const std::string& explicit_values, const std::string& config) {
  const auto inputs = inputs_from(explicit_values, config);
  if (!inputs.ok()) return errors_to_json(inputs.errors());
  if (!log.settings.errors.empty()) return errors_to_json(log.settings.errors);
  const settings used = under_log(inputs.value().first, log.settings.values);
  const auto r = estimate(used, inputs.value().second);
  if (!r.ok()) return errors_to_json(r.errors());
  const reconciliation rec = reconcile(log, r.value());
  detail::json out = detail::json::object();
  out["ok"] = true;
  detail::json values = detail::json::object();
  for (const auto& [key, value] : used) values[key] = value;
  out["settings"] = std::move(values);
  out["log"] = detail::parse_json(reconciliation_to_json(log, rec, -1));
  out["record"] = detail::parse_json(validation_records(log, rec, used, "a startup log pasted on the page", -1));
  return out.dump(-1);
}

// reconcile_log(text, settings, config): a pasted startup log (log.hpp), as reconciled_json answers it.
std::string reconcile_log_json(const std::string& text, const std::string& explicit_values, const std::string& config) {
  return reconciled_json(read_log(text), explicit_values, config);
}

// read_paste(text, settings, config): the page's one box (paste.hpp): a startup log as reconcile_log answers it,
// with "kind": "log", or a launch command or recipe as read_launch answers it, with "kind": "launch".
std::string read_paste_json(const std::string& text, const std::string& explicit_values, const std::string& config) {
  const pasted read = read_pasted(text);
  detail::json out = detail::parse_json(read.log ? reconciled_json(*read.log, explicit_values, config)
                                                 : launch_to_json(read.launch, -1));
  out["kind"] = read.log ? "log" : "launch";
  return out.dump(-1);
}

// emit_launch(format, settings, config): the launch command for the resolved settings (emit.hpp), as the CLI's
// --emit FORMAT: {"ok": true, "format", "text", "not_carried": [setting]}, or the errors object.
std::string emit_launch_json(const std::string& format, const std::string& explicit_values, const std::string& config) {
  return answer_json(
      explicit_values, config, [](const settings& v, const settings& c) { return resolve(v, c); },
      [&format](const run_spec& spec) {
        const auto out = emit(spec.values, format);
        if (!out.ok()) return errors_to_json(out.errors());
        detail::json o = detail::json::object();
        o["ok"] = true;
        o["format"] = format;
        o["text"] = out.value().text;
        detail::json missing = detail::json::array();
        for (const auto& key : out.value().not_carried) missing.push_back(key);
        o["not_carried"] = std::move(missing);
        return o.dump(-1);
      });
}

// emit_formats(settings, config): the formats that apply to the resolved run (emit.hpp emit_formats_for: an inference
// runtime's command, a training framework's config): {"ok": true, "run": "runtime vllm" (what they are chosen by),
// "formats": [{"format", "label"}]}, or the errors.
std::string emit_formats_json(const std::string& explicit_values, const std::string& config) {
  return answer_json(
      explicit_values, config, [](const settings& v, const settings& c) { return resolve(v, c); },
      [](const run_spec& spec) {
        detail::json formats = detail::json::array();
        for (const auto& row : emit_formats_for(spec)) {
          detail::json f = detail::json::object();
          f["format"] = std::string(row.format);
          f["label"] = std::string(row.label);
          formats.push_back(std::move(f));
        }
        detail::json o = detail::json::object();
        o["ok"] = true;
        o["run"] = spec.eval()    ? std::string("mode eval")
                   : spec.train() ? "framework " + spec.values.framework
                                  : "runtime " + std::string(runtime_name(spec.runtime));
        o["formats"] = std::move(formats);
        return o.dump(-1);
      });
}

std::string settings_schema() { return settings_schema_json(); }
std::string list_models() { return models_json(); }
std::string list_gpus() { return gpus_json(); }

}  // namespace

EMSCRIPTEN_BINDINGS(llm_memory) {
  emscripten::function("estimate", &estimate_json);
  emscripten::function("resolve", &resolve_json);
  emscripten::function("advise", &advise_json);
  emscripten::function("solve", &solve_json);
  emscripten::function("ways_out", &ways_out_json);
  emscripten::function("gpu_fit", &gpu_fit_json);
  emscripten::function("fits", &fits_json);
  emscripten::function("settings_schema", &settings_schema);
  emscripten::function("list_models", &list_models);
  emscripten::function("list_gpus", &list_gpus);
  emscripten::function("add_models", &add_models_json);
  emscripten::function("parse_config", &parse_config_json);
  emscripten::function("sweep", &sweep_js);
  emscripten::function("read_checkpoint", &read_checkpoint);
  emscripten::function("sweep_kernel_ms", &sweep_kernel_ms);
  emscripten::function("read_launch", &read_launch_json);
  emscripten::function("reconcile_log", &reconcile_log_json);
  emscripten::function("read_paste", &read_paste_json);
  emscripten::function("emit_launch", &emit_launch_json);
  emscripten::function("emit_formats", &emit_formats_json);
}
