// SPDX-License-Identifier: MIT
#include "llm_memory/ways_out.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "frameworks/framework_def.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "runtimes/runtime_def.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

// Bytes as the JSON reports them (whole bytes): the comparisons below are those a reader of the JSON would make.
double whole(double bytes) { return std::round(bytes); }

way_out make_way(std::string way, std::string group, std::string text, double total_bytes, bool fits, settings delta) {
  way_out w;
  w.way = std::move(way);
  w.group = std::move(group);
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

// The entries of `delta` that change a resolved setting of `current`.
settings changed(const settings& delta, const settings& current) {
  settings out;
  for (const auto& [key, value] : delta)
    if (changes({{key, value}}, current)) out.emplace(key, value);
  return out;
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

// Whether the framework's row offers ZeRO stage `stage` (frameworks/<name>.cpp zero_stages): FSDP, torchtune,
// torchtitan and litgpt shard fully or not at all, Megatron's distributed optimizer is ZeRO-1, Unsloth has none.
bool offers_zero(const run_spec& spec, std::int64_t stage) {
  const auto stages = detail::framework_of(spec.framework).zero_stages;
  return std::find(stages.begin(), stages.end(), stage) != stages.end();
}

// The fewest devices: the solver's answer, or where ZeRO below 3 fits on no count (every device holds the whole
// optimizer state), the same search with ZeRO-3 where the framework offers it.
std::optional<solve_answer> fewest_devices(const run_spec& spec, const solve_result& solved) {
  if (solved.min_devices.found) return solved.min_devices;
  if (!spec.train() || spec.eval() || spec.values.zero >= 3 || !offers_zero(spec, 3)) return std::nullopt;
  const auto zero3 = vary(spec, {{"zero", "3"}});
  if (!zero3.ok()) return std::nullopt;
  solve_answer answer = solve_min_devices(zero3.value());
  if (!answer.found) return std::nullopt;
  answer.delta["zero"] = "3";
  return answer;
}

// The solver's fewest devices: own hardware when the user has that many (llama.cpp's -ngl on one device), else
// more of the same device.
std::optional<way_out> devices_way(const run_spec& spec, const solve_result& solved, const settings& current) {
  const auto answer = fewest_devices(spec, solved);
  // (Evaluation reads no ZeRO stage: the solver's search keeps the run's there, frameworks/table.cpp
  // searched_zero_stages.)
  if (!answer || !changes(answer->delta, current)) return std::nullopt;
  return make_way("devices", answer->value > spec.values.devices ? "more" : "own",
                  detail::group_digits(static_cast<double>(answer->value)) + " × " + device_name(spec) +
                      split_of(answer->delta, current),
                  answer->total_bytes, true, answer->delta);
}

// One split of the user's own devices: ZeRO stage (training), tensor-parallel degree and pipeline stages.
struct own_split {
  std::int64_t zero = 0;  ///< ZeRO stage (training) [stage]
  std::int64_t tp = 1;    ///< tensor-parallel degree [devices]
  std::int64_t pp = 1;    ///< pipeline stages [stages]
};

constexpr std::int64_t node_size = 8;  // tensor parallelism stays within one node (NVLink), as solve.cpp's

// The heads divide by tp, and the KV heads by tp or tp by them (solve.cpp valid_tp: vLLM's QKV split).
bool valid_tp(const run_spec& spec, std::int64_t tp) {
  const auto kv = static_cast<std::int64_t>(spec.model.kv_heads);
  return spec.values.num_attention_heads % tp == 0 && (kv <= 0 || kv % tp == 0 || tp % kv == 0);
}

// The tensor-parallel degrees tried on N devices: the run's own, and where the stack searches them (a framework's
// searches_tp; a runtime that splits tensors) the powers of two within a node dividing N and the heads; ascending.
std::vector<std::int64_t> tp_degrees(const run_spec& spec, bool searches) {
  std::vector<std::int64_t> tps{spec.values.tp};
  for (std::int64_t tp = 1; searches && tp <= node_size; tp *= 2)
    if (tp != spec.values.tp && spec.values.devices % tp == 0 && valid_tp(spec, tp)) tps.push_back(tp);
  std::sort(tps.begin(), tps.end());
  return tps;
}

// Training: every ZeRO stage the framework offers at every tp it searches, pp kept; tp ascending, then the stage
// (plain data parallel over sharding over tensor parallelism, as the solver orders them).
std::vector<own_split> training_splits(const run_spec& spec) {
  const setting_values& s = spec.values;
  std::vector<own_split> out;
  // The solver's stages (frameworks/table.cpp searched_zero_stages): the run's offload as the framework runs it,
  // evaluation's own stage only.
  const std::vector<std::int64_t> stages = detail::searched_zero_stages(spec);
  for (const std::int64_t tp : tp_degrees(spec, detail::framework_of(spec.framework).searches_tp))
    for (const std::int64_t zero : stages) out.push_back({zero, tp, s.pp});
  return out;
}

// Inference: the runtime's own splits (runtime_def::splits) whose tp x pp divides the devices, the fewest devices
// per replica first (the most replicas), tensor before pipeline at the same degree.
std::vector<own_split> inference_splits(const run_spec& spec) {
  const setting_values& s = spec.values;
  const detail::device_split kind = detail::runtime_of(spec.runtime).splits;
  const bool tensor = kind != detail::device_split::layers, pipeline = kind != detail::device_split::tensor;
  std::vector<own_split> out;
  for (const std::int64_t tp : tensor ? tp_degrees(spec, true) : std::vector<std::int64_t>{1})
    for (std::int64_t pp = 1; pp <= s.num_hidden_layers && tp * pp <= s.devices; ++pp)
      if (s.devices % (tp * pp) == 0 && (pp == 1 || pipeline)) out.push_back({s.zero, tp, pp});
  std::stable_sort(out.begin(), out.end(), [](const own_split& a, const own_split& b) {
    return a.tp * a.pp != b.tp * b.pp ? a.tp * a.pp < b.tp * b.pp : a.tp > b.tp;
  });
  return out;
}

// "tensor parallel 2 × data parallel 4, ZeRO-1": a split of N devices in the split picker's words.
std::string split_words(const run_spec& spec, const own_split& split) {
  std::string words;
  const auto add = [&](const std::string& part, const char* joint) { words += (words.empty() ? "" : joint) + part; };
  if (split.tp > 1) add("tensor parallel " + std::to_string(split.tp), " × ");
  if (split.pp > 1) add(std::to_string(split.pp) + " pipeline stages", " × ");
  const std::int64_t dp = spec.values.devices / (split.tp * split.pp);
  if (dp > 1) add(spec.train() ? "data parallel " + std::to_string(dp) : std::to_string(dp) + " replicas", " × ");
  if (spec.train() && split.zero > 0) add("ZeRO-" + std::to_string(split.zero), ", ");
  return words.empty() ? "one device" : words;
}

// The user's own devices split another way: the first split of their stack that fits on the same device count.
std::optional<way_out> split_way(const run_spec& spec, const settings& current) {
  const setting_values& s = spec.values;
  if (s.devices < 2) return std::nullopt;
  for (const own_split& split : spec.train() ? training_splits(spec) : inference_splits(spec)) {
    if (split.zero == s.zero && split.tp == s.tp && split.pp == s.pp) continue;
    // Inference states tp and pp both, as the solver does (a device count without them takes the runtime's default
    // split); training names what changes.
    settings delta{{"tp", std::to_string(split.tp)}, {"pp", std::to_string(split.pp)}};
    if (spec.train()) delta = changed(delta, current);
    if (spec.train() && !spec.eval()) delta.emplace("zero", std::to_string(split.zero));
    if (!changes(delta, current)) continue;
    const auto run = vary(spec, delta);
    // A profile that sets the split itself would make the words untrue: such a split is not this one.
    if (!run.ok() || run.value().values.tp != split.tp || run.value().values.pp != split.pp) continue;
    const estimate_result r = estimate(run.value());
    if (beyond_exact_bytes(r) || !r.fits) continue;
    return make_way("split", "own",
                    "your " + detail::group_digits(static_cast<double>(s.devices)) + " × " + device_name(spec) +
                        " as " + split_words(spec, split),
                    r.total_bytes, true, std::move(delta));
  }
  return std::nullopt;
}

// Whether `gpu` is a device the run's stack runs on, before resolve() is asked: an inference runtime's own check
// refuses the devices it has no backend for (runtimes/devices.cpp); a training framework is taken to run on the
// user's device's stack only (on CUDA when the device is given by its memory alone): no framework row says
// which other stacks it runs on.
bool same_stack(const run_spec& spec, const gpu_preset& gpu) {
  if (!spec.train()) return true;
  const gpu_preset* own = find_gpu(spec.values.gpu);
  return gpu.backend == (own != nullptr ? own->backend : device_backend::cuda);
}

// The smallest GPU preset the run fits on as it is (its device count): the presets with at least the memory it
// needs, smallest first, ways_out_gpu_candidates of them at most, each resolved as if picked (an explicit
// gpu_memory dropped, so the runtime profiles that read the device's memory follow).
std::optional<way_out> gpu_way(const run_spec& spec, double needed_bytes) {
  std::vector<const gpu_preset*> candidates;
  for (const gpu_preset& gpu : gpu_presets())
    if (whole(gpu.memory_bytes) >= whole(needed_bytes) && gpu.id != spec.values.gpu && same_stack(spec, gpu))
      candidates.push_back(&gpu);
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
    way_out way =
        make_way("gpu", "other", detail::group_digits(static_cast<double>(spec.values.devices)) + " × " + gpu->name,
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
  return make_way(way, "own",
                  what + detail::group_digits(static_cast<double>(answer.value)) + unit + " (from " +
                      detail::group_digits(static_cast<double>(now)) + ")",
                  answer.total_bytes, true, answer.delta);
}

way_out knob_way(const std::string& way, const knob_advice& knob) {
  way_out w = make_way(way, "own", knob.name, knob.total_bytes, knob.fits, knob.delta);
  if (way == "knob") w.note = knob.note;
  return w;
}

// The Knobs tab's cheapest combination, in its words, where it keeps the hardware and takes more than one knob (one
// knob is a knob way of its own).
std::optional<way_out> combination_way(const knob_combination& cheapest) {
  if (!cheapest.found || !cheapest.same_hardware || cheapest.names.size() < 2) return std::nullopt;
  std::string text;
  for (const std::string& name : cheapest.names) text += (text.empty() ? "" : " + ") + name;
  return make_way("combination", "own", text, cheapest.total_bytes, true, cheapest.delta);
}

// The first of `knobs` that fits, else the first (the largest saving: advise's order); null when none.
const knob_advice* pick(const std::vector<const knob_advice*>& knobs) {
  const auto fitting = std::find_if(knobs.begin(), knobs.end(), [](const knob_advice* k) { return k->fits; });
  if (fitting != knobs.end()) return *fitting;
  return knobs.empty() ? nullptr : knobs.front();
}

// The knobs that fit, cheapest in throughput first (advise.hpp tier), then the smallest total; ways_out_own_knobs
// at most. None fits: the largest saving alone, so the list says how near the stack comes.
std::vector<const knob_advice*> own_knobs(std::vector<const knob_advice*> knobs) {
  std::vector<const knob_advice*> fitting;
  std::copy_if(knobs.begin(), knobs.end(), std::back_inserter(fitting), [](const knob_advice* k) { return k->fits; });
  if (fitting.empty()) return knobs.empty() ? fitting : std::vector<const knob_advice*>{knobs.front()};
  std::stable_sort(fitting.begin(), fitting.end(), [](const knob_advice* a, const knob_advice* b) {
    return a->tier != b->tier ? a->tier < b->tier : a->total_bytes < b->total_bytes;
  });
  if (fitting.size() > ways_out_own_knobs) fitting.resize(ways_out_own_knobs);
  return fitting;
}

// A weights format alone (not a change of fine-tuning method that brings one, as QLoRA does).
bool weights_format(const knob_advice& k) { return k.delta.contains("weights_dtype") && !k.delta.contains("finetune"); }

// The knob search's ways on the same hardware: the cheapest combination, the knobs, a weights format.
void knob_ways(const advice_result& advice, const settings& current, std::vector<way_out>& out) {
  std::vector<const knob_advice*> knobs, formats;
  for (const knob_advice& k : advice.knobs)
    if (whole(k.saved_bytes) > 0 && !k.adds_devices() && changes(k.delta, current))
      (weights_format(k) ? formats : knobs).push_back(&k);
  if (auto combination = combination_way(advice.cheapest)) out.push_back(std::move(*combination));
  for (const knob_advice* k : own_knobs(knobs)) out.push_back(knob_way("knob", *k));
  if (const knob_advice* weights = pick(formats)) out.push_back(knob_way("weights", *weights));
}

// Leaves out of the own group a way that makes the same change as one before it (the ZeRO knob after the split that
// is that stage) and, once one of the group fits, the knobs and formats that only come nearer.
void drop_repeats_and_misses(const settings& current, std::vector<way_out>& ways) {
  const bool any_fits = std::any_of(ways.begin(), ways.end(), [](const way_out& w) { return w.fits; });
  std::vector<way_out> kept;
  for (way_out& w : ways) {
    const bool repeat = std::any_of(kept.begin(), kept.end(), [&](const way_out& k) {
      return changed(k.delta, current) == changed(w.delta, current);
    });
    if (!repeat && (w.fits || !any_fits)) kept.push_back(std::move(w));
  }
  ways = std::move(kept);
}

}  // namespace

ways_out_result ways_out(const run_spec& spec, const solve_result& solved, const advice_result& advice) {
  ways_out_result out;
  out.fits = solved.fits;
  if (out.fits) return out;
  const settings current = to_settings(spec.values);
  const auto add = [&](std::optional<way_out> way) {
    if (way) out.ways.push_back(std::move(*way));
  };
  // Own hardware and stack first; the solver's fewer devices only where no split of the user's own fits.
  auto split = split_way(spec, current);
  auto devices = devices_way(spec, solved, current);
  const bool more = devices && devices->group == "more";
  add(std::move(split));
  if (devices && !more && out.ways.empty()) add(std::move(devices));
  knob_ways(advice, current, out.ways);
  const std::string sequences = spec.train() ? "sequences of " : "context of ";
  add(axis_way("context", solved.max_seq, spec.values.seq, sequences));
  add(axis_way("batch", solved.max_batch, spec.values.batch, "micro-batch "));
  drop_repeats_and_misses(current, out.ways);
  if (more) add(std::move(devices));
  add(gpu_way(spec, solved.total_bytes));
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
