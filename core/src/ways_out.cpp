// SPDX-License-Identifier: MIT
#include "llm_memory/ways_out.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

// Bytes as the JSON reports them (whole bytes): the comparisons below are those a reader of the JSON would make.
double whole(double bytes) { return std::round(bytes); }

way_out make_way(std::string way, std::string text, double total_bytes, bool fits, settings delta) {
  way_out w;
  w.way = std::move(way);
  w.text = std::move(text);
  w.total_bytes = total_bytes;
  w.fits = fits;
  w.delta = std::move(delta);
  return w;
}

// Whether applying `delta` over the resolved settings `current` changes any of them.
bool changes(const settings& delta, const settings& current) {
  return std::any_of(delta.begin(), delta.end(), [&](const auto& entry) {
    const auto it = current.find(entry.first);
    return it == current.end() || it->second != entry.second;
  });
}

std::string value_of(const settings& s, const std::string& key) {
  const auto it = s.find(key);
  return it == s.end() ? std::string{} : it->second;
}

// " with ZeRO-3, tensor parallel 2": the split a devices answer's delta sets ("" when it sets none).
std::string split_of(const settings& delta, const settings& current) {
  std::string parts;
  const auto add = [&](const std::string& part) { parts += (parts.empty() ? "" : ", ") + part; };
  const std::string zero = value_of(delta, "zero");
  if (delta.contains("zero") && zero != value_of(current, "zero") && std::atof(zero.c_str()) > 0) add("ZeRO-" + zero);
  if (std::atof(value_of(delta, "tp").c_str()) > 1) add("tensor parallel " + value_of(delta, "tp"));
  if (std::atof(value_of(delta, "pp").c_str()) > 1) add(value_of(delta, "pp") + " pipeline stages");
  // llama.cpp / Ollama offload layers before asking for another device (solve.cpp, offload_answer).
  if (delta.contains("n_gpu_layers")) add("-ngl " + value_of(delta, "n_gpu_layers") + ", the other layers in host RAM");
  if (delta.contains("n_cpu_moe"))
    add("--n-cpu-moe " + value_of(delta, "n_cpu_moe") + ", the experts of those first layers in host RAM");
  return parts.empty() ? "" : " with " + parts;
}

// The device by its preset's name, or "device" for memory given without a preset.
std::string device_name(const run_spec& spec) {
  const gpu_preset* gpu = find_gpu(spec.values.gpu);
  return gpu != nullptr ? gpu->name : "device";
}

// The fewest devices: the solver's answer, or where ZeRO below 3 fits on no count (every device holds the whole
// optimizer state), the same search with ZeRO-3.
std::optional<solve_answer> fewest_devices(const run_spec& spec, const solve_result& solved) {
  if (solved.min_devices.found) return solved.min_devices;
  if (!spec.train() || spec.values.zero >= 3) return std::nullopt;
  const auto zero3 = vary(spec, {{"zero", "3"}});
  if (!zero3.ok()) return std::nullopt;
  solve_answer answer = solve_min_devices(zero3.value());
  if (!answer.found) return std::nullopt;
  answer.delta["zero"] = "3";
  return answer;
}

std::optional<way_out> devices_way(const run_spec& spec, const solve_result& solved, const settings& current) {
  const auto answer = fewest_devices(spec, solved);
  if (!answer || !changes(answer->delta, current)) return std::nullopt;
  return make_way("devices",
                  detail::group_digits(static_cast<double>(answer->value)) + " × " + device_name(spec) +
                      split_of(answer->delta, current),
                  answer->total_bytes, true, answer->delta);
}

// The smallest GPU preset the run fits on as it is (its device count): the presets with at least the memory it
// needs, smallest first, ways_out_gpu_candidates of them at most, each resolved as if picked (an explicit
// gpu_memory dropped, so the runtime profiles that read the device's memory follow).
std::optional<way_out> gpu_way(const run_spec& spec, double needed_bytes) {
  std::vector<const gpu_preset*> candidates;
  for (const gpu_preset& gpu : gpu_presets())
    if (whole(gpu.memory_bytes) >= whole(needed_bytes) && gpu.id != spec.values.gpu) candidates.push_back(&gpu);
  std::stable_sort(candidates.begin(), candidates.end(), [](const gpu_preset* a, const gpu_preset* b) {
    return whole(a->memory_bytes) < whole(b->memory_bytes);
  });
  if (candidates.size() > ways_out_gpu_candidates) candidates.resize(ways_out_gpu_candidates);
  for (const gpu_preset* gpu : candidates) {
    // As if the user had picked `gpu` (gpu_fit's rule): its preset's memory replaces an explicit gpu_memory.
    const auto on_gpu = vary(spec, {{"gpu", gpu->id}, {"gpu_memory", detail::format_number(gpu->memory_bytes)}});
    if (!on_gpu.ok()) continue;
    const estimate_result r = estimate(on_gpu.value());
    if (beyond_exact_bytes(r) || !r.fits) continue;
    way_out way = make_way("gpu", detail::group_digits(static_cast<double>(spec.values.devices)) + " × " + gpu->name,
                           r.total_bytes, true, {{"gpu", gpu->id}});
    way.cleared = {"gpu_memory"};
    return way;
  }
  return std::nullopt;
}

// A smaller answer of the solver along one axis ("context", "batch"), when it is below the current value.
std::optional<way_out> axis_way(const std::string& way, const solve_answer& answer, std::int64_t now,
                                const std::string& what) {
  if (!answer.found || answer.value >= now) return std::nullopt;
  const std::string unit = way == "context" ? " tokens" : "";
  return make_way(way,
                  what + detail::group_digits(static_cast<double>(answer.value)) + unit + " (from " +
                      detail::group_digits(static_cast<double>(now)) + ")",
                  answer.total_bytes, true, answer.delta);
}

way_out knob_way(const std::string& way, const knob_advice& knob) {
  way_out w = make_way(way, knob.name, knob.total_bytes, knob.fits, knob.delta);
  if (way == "knob") w.note = knob.note;
  return w;
}

// The first of `knobs` that fits, else the first (the largest saving: advise's order); null when none.
const knob_advice* pick(const std::vector<const knob_advice*>& knobs) {
  const auto fitting = std::find_if(knobs.begin(), knobs.end(), [](const knob_advice* k) { return k->fits; });
  if (fitting != knobs.end()) return *fitting;
  return knobs.empty() ? nullptr : knobs.front();
}

// A weights format alone (not a change of fine-tuning method that brings one, as QLoRA does).
bool weights_format(const knob_advice& k) { return k.delta.contains("weights_dtype") && !k.delta.contains("finetune"); }

}  // namespace

ways_out_result ways_out(const run_spec& spec, const solve_result& solved, const advice_result& advice) {
  ways_out_result out;
  out.fits = solved.fits;
  if (out.fits) return out;
  const settings current = to_settings(spec.values);
  const auto add = [&](std::optional<way_out> way) {
    if (way) out.ways.push_back(std::move(*way));
  };
  add(devices_way(spec, solved, current));
  add(gpu_way(spec, solved.total_bytes));
  std::vector<const knob_advice*> knobs;
  for (const knob_advice& k : advice.knobs)
    if (whole(k.saved_bytes) > 0 && changes(k.delta, current)) knobs.push_back(&k);
  std::vector<const knob_advice*> formats;
  std::copy_if(knobs.begin(), knobs.end(), std::back_inserter(formats),
               [](const knob_advice* k) { return weights_format(*k); });
  const knob_advice* weights = pick(formats);
  if (weights != nullptr) add(knob_way("weights", *weights));
  const std::string sequences = spec.train() ? "sequences of " : "context of ";
  add(axis_way("context", solved.max_seq, spec.values.seq, sequences));
  add(axis_way("batch", solved.max_batch, spec.values.batch, "micro-batch "));
  knobs.erase(std::remove(knobs.begin(), knobs.end(), weights), knobs.end());
  if (const knob_advice* knob = pick(knobs)) add(knob_way("knob", *knob));
  return out;
}

result<run_answers> answer(const settings& explicit_values, const settings& config) {
  auto spec = resolve(explicit_values, config);
  if (!spec.ok()) return spec.errors();
  run_answers out;
  out.solve = solve(spec.value());
  out.advice = advise(spec.value());
  out.ways_out = ways_out(spec.value(), out.solve, out.advice);
  return out;
}

}  // namespace llm_memory
