// SPDX-License-Identifier: MIT
#include "llm_memory/fits.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fast_lookups.hpp"
#include "formula_texts.hpp"
#include "llm_memory/dtype.hpp"
#include "llm_memory/resolve.hpp"
#include "profiles.hpp"
#include "runtimes/devices.hpp"
#include "runtimes/runtime_def.hpp"
#include "search.hpp"
#include "settings_apply.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

// llama.cpp pads its cells to 256 per slot (runtime.hpp llamacpp_cell_count): contexts are searched in its steps.
constexpr std::int64_t context_step = 256;

// The longest context a model is asked for when config.json names none [tokens].
constexpr std::int64_t context_cap = 1 << 20;

// A format and the runtime that runs it; weights nullptr: the checkpoint as shipped (bf16, or its FP8 / MXFP4).
struct candidate {
  const char* weights;
  runtime_kind runtime;
};

// Best first: the shipped checkpoint and FP8 on vLLM, llama.cpp's common GGUF mixes from 8 down to 4.5 bits,
// then AWQ (4-bit, vLLM). The first that fits at the requested context is the row's.
constexpr runtime_kind vllm = runtime_kind::vllm, llamacpp = runtime_kind::llamacpp;
constexpr candidate run_candidates[] = {{nullptr, vllm},    {"fp8", vllm},        {"q8_0", llamacpp},
                                        {"q6_k", llamacpp}, {"q5_k_m", llamacpp}, {"q4_k_m", llamacpp},
                                        {"awq", vllm}};

const char* finetune_of(fits_task t) {
  switch (t) {
    case fits_task::lora: return "lora";
    case fits_task::qlora: return "qlora";
    default: return "full";
  }
}

// The settings of every model on the machine before a format is chosen, but the model: made once per ranking (the
// host RAM's text alone, format_number's shortest round trip, cost more than copying them for each model).
settings machine_settings(const fits_request& q, const gpu_preset& gpu) {
  settings s{{"gpu", gpu.id},
             {"devices", std::to_string(q.devices)},
             {"seq", std::to_string(q.seq)},
             {"host_ram", detail::format_number(q.ram_bytes)}};
  if (q.task == fits_task::run) {
    // llama.cpp runs on every backend: the model resolves on any device; each candidate sets its own runtime.
    s.emplace("mode", "inference");
    s.emplace("runtime", "llamacpp");
    return s;
  }
  s.emplace("mode", "train");
  s.emplace("finetune", finetune_of(q.task));
  s.emplace("recompute", "full");             // gradient checkpointing, as LoRA / QLoRA recipes turn it on
  if (q.devices > 1) s.emplace("zero", "3");  // sharded over the devices (the Trainer with DeepSpeed / FSDP)
  return s;
}

// The settings of one model on the machine (machine_settings) before a format is chosen.
settings base_settings(const settings& machine, const model_preset& m) {
  settings s = machine;
  s.emplace("model", m.id);
  return s;
}

// The candidate's changes: its format and runtime, and llama.cpp's layer split over several devices. vLLM's split is
// the one it is launched with on them (resolve.cpp default_split: the largest tp up to a node that divides the
// devices and the heads, pipeline stages for the rest), so a model whose KV heads tp = devices does not divide
// (Phi-4's 10 on 8 GPUs: vLLM refuses tp 8) runs tp 2 x pp 4 rather than not at all.
settings candidate_changes(const candidate& c, std::int64_t devices) {
  settings s{{"runtime", std::string(runtime_name(c.runtime))}};
  if (c.weights != nullptr) s.emplace("weights_dtype", c.weights);
  if (devices > 1 && detail::runtime_of(c.runtime).splits == detail::device_split::layers)
    s.emplace("pp", std::to_string(devices));
  return s;
}

// ---- runs kept across rankings ----------------------------------------------------------------------------------
// The page ranks the catalogue again for every machine it is asked about, and between two machines only the device
// changes. A run on llama.cpp or in training reads the device through its backend (the runtimes that refuse it,
// runtimes/devices.cpp) and its memory, which only the fit compares (estimate.cpp: fits); nothing else of it
// (resolve.cpp's apply_gpu_preset sets gpu and gpu_memory, and neither profile reads them: profile_axes). Such a
// run is kept under its settings without the device, and each device compares its own memory. vLLM's estimate
// reads the memory (its KV budget): kept per device; its resolved run is kept per backend and taken for another
// device when vLLM's profile is the same on both (runtimes/vllm.cpp reads the memory's tier and whether the device
// is an A100), so that device costs an estimate, not a resolve. tests/core/fits_fast_test.cpp checks every
// catalogue model against a ranking with nothing kept.

// What holds() reads of an estimate.
struct fit_facts {
  double total_bytes = 0;        ///< per-device memory [bytes]
  bool fits_in_ram = true;       ///< the host's part fits host_ram
  bool inference = false;        ///< an inference run
  std::int64_t max_context = 0;  ///< the runtime's maximum model length; 0: none reported [tokens]
  std::int64_t seq = 0;          ///< the context asked for [tokens]
};

// `seq`: the run's context (the estimates here leave out their copy of the run's settings: estimate_totals).
fit_facts facts_of(const estimate_result& e, std::int64_t seq) {
  return {e.total_bytes, e.fits_in_ram, e.inference, e.runtime.max_context, seq};
}

// Fits a device of `memory` (and host_ram), and the runtime starts at this context (vLLM's maximum model length).
bool holds(const fit_facts& f, double memory) {
  return f.total_bytes <= memory && f.fits_in_ram && (!f.inference || f.max_context == 0 || f.max_context >= f.seq);
}

// The answer of one format: the estimate at seq and the run it came from.
struct answered {
  /// The run moved in and estimated in place: a default member assigned afterwards costs a run_spec's and an
  /// estimate's ~50 strings each.
  explicit answered(run_spec&& run) : spec(std::move(run)), at_seq(detail::estimate_totals(spec, false)) {}
  run_spec spec;           ///< the run
  estimate_result at_seq;  ///< its estimate's numbers, without its copy of the run's settings and model
  [[nodiscard]] fit_facts facts() const { return facts_of(at_seq, spec.values.seq); }
};

// The memo: resolved bases, estimated runs and the context search's probes; nullptr: did not resolve. A map is
// cleared when it reaches `memo_cap` entries, so a long session does not grow without bound (natively, 30 rankings
// with host RAM, the offload searches included, peak at 83 MB of RSS against 15 MB for one).
struct run_memo {
  std::unordered_map<std::string, std::shared_ptr<const run_spec>> bases;
  std::unordered_map<std::string, std::shared_ptr<const run_spec>> resolved;  ///< vLLM's, per backend
  std::unordered_map<std::string, std::shared_ptr<const answered>> runs;
  std::unordered_map<std::string, std::optional<fit_facts>> probes;
};
constexpr std::size_t memo_cap = 6000;

run_memo& memo() {
  thread_local run_memo m;
  return m;
}

template <class Map>
void keep(Map& map, std::string key, typename Map::mapped_type value) {
  if (map.size() >= memo_cap) map.clear();
  map.emplace(std::move(key), std::move(value));
}

// Whether the run these settings resolve to reads the device only through its backend and the fit (above).
bool device_free(const settings& explicit_values) {
  const auto mode = explicit_values.find("mode"), runtime = explicit_values.find("runtime");
  if (mode != explicit_values.end() && mode->second == "train") return true;
  if (runtime == explicit_values.end()) return false;
  const auto kind = detail::runtime_named(runtime->second);
  return kind && detail::runtime_of(*kind).device_free;
}

// The memo's key: the explicit values but the GPU, under the device's backend (`by_backend`, or a device-free run)
// or the device itself.
std::string key_of(const settings& explicit_values, const gpu_preset& gpu, bool by_backend = false) {
  std::string key =
      by_backend || device_free(explicit_values) ? "backend " + std::string(backend_name(gpu.backend)) : gpu.id;
  std::size_t size = key.size();
  for (const auto& [k, v] : explicit_values) size += k.size() + v.size() + 2;
  key.reserve(size);
  for (const auto& [k, v] : explicit_values)
    if (k != "gpu") key.append("\n").append(k).append("=").append(v);  // no temporaries
  return key;
}

settings with_changes(settings values, const settings& changes) {
  for (const auto& [k, v] : changes) values.insert_or_assign(k, v);
  return values;
}

// A device-free run as `gpu` resolves it: the device is the run's only difference (apply_gpu_preset).
run_spec on_device(const run_spec& spec, const gpu_preset& gpu) {
  run_spec r = spec;
  r.values.gpu = gpu.id;
  r.values.gpu_memory = gpu.memory_bytes;
  auto inputs = std::make_shared<resolve_inputs>(*spec.inputs);
  inputs->explicit_values.insert_or_assign("gpu", gpu.id);
  r.inputs = std::move(inputs);
  return r;
}

// A vLLM run resolved on another device of the backend, moved to `gpu`: the same run when vLLM's profile is the
// same for both devices (the profile is the only part of resolve() that reads the device past its memory).
std::optional<run_spec> resolved_elsewhere(const std::string& key, const gpu_preset& gpu) {
  const auto& resolved = memo().resolved;
  const auto it = resolved.find(key);
  if (it == resolved.end()) return std::nullopt;
  run_spec r = on_device(*it->second, gpu);
  if (detail::runtime_profile(r.runtime, r.values) != detail::runtime_profile(r.runtime, it->second->values))
    return std::nullopt;
  return r;
}

// -ngl and --n-cpu-moe over a run whose runtime places layers on the host (runtime_def::places_layers_on_host:
// llama.cpp and Ollama): only the placement in the estimate reads them (runtimes/llamacpp.cpp: the weights' split,
// the KV buffer's layers, the compute buffer); no profile, default, architecture rule or check does past the
// setting's range, which apply_layer checks as resolve() does. So the run
// with another value is `base` with the value set, as vary() keeps the model for batch, seq and devices; resolving
// it again (the settings layered twice) was most of each offload probe. Nothing for other changes or runtimes.
// `explicit_values`: base's with `changes`. Estimated here: the run moved once, into its answer.
std::shared_ptr<const answered> placed(const run_spec& base, const settings& changes, const settings& explicit_values) {
  if (!detail::runtime_of(base.runtime).places_layers_on_host || !base.inputs) return nullptr;
  for (const auto& change : changes)
    if (change.first != "n_gpu_layers" && change.first != "n_cpu_moe") return nullptr;
  run_spec r = base;
  std::vector<error> errors;
  detail::apply_layer(changes, r.values, errors, "");
  if (!errors.empty()) return nullptr;  // vary() names the setting
  r.inputs = std::make_shared<const resolve_inputs>(
      resolve_inputs{explicit_values, base.inputs->config, base.inputs->gguf_file});
  return std::make_shared<const answered>(std::move(r));
}

// `changes` over `base` resolved on `gpu`: a vLLM run from another device where it is the same run (kept per
// backend), else vary() (an offload probe is placed first, by run_with).
result<run_spec> resolved_on(const run_spec& base, const settings& changes, const settings& explicit_values,
                             const gpu_preset& gpu) {
  // Training's base itself, or vLLM's shipped run over its base: the same inputs resolve to the same run.
  if (explicit_values == base.inputs->explicit_values) return base;
  if (device_free(explicit_values)) return vary(base, changes);
  std::string key = key_of(explicit_values, gpu, true);
  if (auto r = resolved_elsewhere(key, gpu)) return std::move(*r);
  auto r = vary(base, changes);
  if (r.ok()) keep(memo().resolved, std::move(key), std::make_shared<const run_spec>(r.value()));
  return r;
}

// The run of `changes` over `base`, estimated: kept, or resolved and kept. `base` is on `gpu` where `changes` make
// a run that reads the device (vLLM from the llama.cpp base: on_device); a device-free one may name another.
std::shared_ptr<const answered> run_with(const run_spec& base, const settings& changes, const gpu_preset& gpu) {
  const settings explicit_values = with_changes(base.inputs->explicit_values, changes);
  std::string key = key_of(explicit_values, gpu);
  auto& runs = memo().runs;
  if (const auto it = runs.find(key); it != runs.end()) return it->second;
  // An offload probe without resolving; else resolved. The ranking reads numbers only: estimate_totals, in place.
  std::shared_ptr<const answered> a = placed(base, changes, explicit_values);
  if (!a) {
    auto r = resolved_on(base, changes, explicit_values, gpu);
    if (r.ok()) a = std::make_shared<const answered>(std::move(r.value()));
  }
  keep(runs, std::move(key), a);
  return a;
}

// The run with `changes` when it holds on `gpu`.
std::shared_ptr<const answered> holding(const run_spec& base, const settings& changes, const gpu_preset& gpu) {
  auto a = run_with(base, changes, gpu);
  return a && holds(a->facts(), gpu.memory_bytes) ? a : nullptr;
}

// Whether `runtime` runs on `gpu` at all, as resolve's check_device answers: a refused format is not resolved.
// Asked for every format of every model: kept per runtime and device id (the device catalogue does not change).
bool runs_on(runtime_kind runtime, const gpu_preset& gpu) {
  thread_local std::array<std::map<std::string, bool, std::less<>>, static_cast<std::size_t>(runtime_kind::ollama) + 1>
      known;
  auto& on = known.at(static_cast<std::size_t>(runtime));
  if (const auto it = on.find(gpu.id); it != on.end()) return it->second;
  run_spec probe;
  probe.mode = run_mode::inference;
  probe.runtime = runtime;
  probe.values.gpu = gpu.id;
  std::vector<error> refused;
  detail::check_device(probe, refused);
  return on.emplace(gpu.id, refused.empty()).first->second;
}

// ---- the longest context ---------------------------------------------------------------------------------------

// What holds() reads of `spec` at another context; kept like the runs (nothing: it does not resolve).
std::optional<fit_facts> facts_at(const run_spec& spec, std::int64_t seq, const gpu_preset& gpu) {
  const settings changes{{"seq", std::to_string(seq)}};
  std::string key = key_of(with_changes(spec.inputs->explicit_values, changes), gpu);
  auto& probes = memo().probes;
  if (const auto it = probes.find(key); it != probes.end()) return it->second;
  const auto r = vary(spec, changes);
  std::optional<fit_facts> f;
  if (r.ok()) {
    // Numbers only: the estimate leaves out its copy of the run's settings and model (the seq is the probe's).
    f = facts_of(detail::estimate_totals(r.value(), false), r.value().values.seq);
  }
  keep(probes, std::move(key), f);
  return f;
}

// One end of the context search's bracket: a context in steps of 256 (seq itself at the start) and the device
// total there (nothing: the probe did not resolve).
struct bracket_end {
  std::int64_t k = 0;           ///< the context / 256 [steps]
  double tokens = 0;            ///< the context the total was estimated at [tokens]
  std::optional<double> total;  ///< per-device memory there [bytes]
};

// Probes that follow the straight line before the search bisects: the KV cells and the compute buffer grow
// linearly with the context, so the first lands on the boundary or next to it and the second checks it; a
// sliding window or a recurrent state bends the line, and a third usually closes the bracket.
constexpr int line_probes = 3;

// The step where the straight line through the bracket's totals reaches the memory, inside the bracket; the middle
// when a total is missing or the line does not rise.
std::int64_t next_probe(const bracket_end& good, const bracket_end& bad, double memory, bool along_line) {
  const std::int64_t middle = good.k + (bad.k - good.k) / 2;
  if (!along_line || !good.total || !bad.total) return middle;
  const double slope = (*bad.total - *good.total) / (bad.tokens - good.tokens);
  if (!(slope > 0)) return middle;
  const double tokens = good.tokens + (memory - *good.total) / slope;
  const double k = std::floor(tokens / static_cast<double>(context_step));
  if (!std::isfinite(k)) return middle;
  // Outside the bracket: the line puts the boundary next to that end, so the step beside it is probed.
  if (k <= static_cast<double>(good.k)) return good.k + 1;
  if (k >= static_cast<double>(bad.k)) return bad.k - 1;
  return static_cast<std::int64_t>(k);
}

// The longest context that holds, in llama.cpp's steps of 256, up to the trained context; `spec` holds at its own
// seq. vLLM reports its own maximum model length, so one estimate answers it. Elsewhere the fit falls from seq to
// the cap, so the answer is the bracket's boundary (the one a bisection finds), probed along the line first.
std::int64_t longest_context(const run_spec& spec, const estimate_result& at_seq, const gpu_preset& gpu) {
  const std::int64_t trained = spec.values.max_position_embeddings;
  const std::int64_t cap = trained > 0 ? trained : context_cap;
  const std::int64_t seq = spec.values.seq;
  if (at_seq.inference && at_seq.runtime.max_context > 0 && !at_seq.runtime.has_buffers)
    return std::max(seq, std::min(cap, at_seq.runtime.max_context));
  if (cap <= seq) return seq;
  const std::int64_t lo = std::max<std::int64_t>(1, seq / context_step), hi = cap / context_step;
  if (hi <= lo) return seq;
  const double memory = gpu.memory_bytes;
  auto at = [&](std::int64_t k) {
    const auto f = facts_at(spec, k * context_step, gpu);
    return std::pair{
        bracket_end{k, static_cast<double>(k * context_step), f ? std::optional<double>(f->total_bytes) : std::nullopt},
        f && holds(*f, memory)};
  };
  const auto [top, top_holds] = at(hi);
  if (top_holds) return hi * context_step;
  bracket_end good{lo, static_cast<double>(seq), at_seq.total_bytes}, bad = top;
  for (int probes = 0; bad.k - good.k > 1; ++probes) {
    const auto [end, fits] = at(next_probe(good, bad, memory, probes < line_probes));
    (fits ? good : bad) = end;
  }
  return good.k == lo ? seq : good.k * context_step;
}

// ---- the format and the offload ----------------------------------------------------------------------------------

// Whether the model's matrices alone, in `format`, pass `memory`: the parameters past the embedding (llama.cpp keeps
// token_embd on the host) at 0.9 x the format's nominal bytes, below what any mix of it stores.
bool matrices_pass(const run_spec& base, dtype format, double memory) {
  const double matrices = base.model.params.loaded() - base.model.params.embedding;
  return matrices * bytes_per_value(format) * 0.9 > memory;
}

// What the offload searches read of a run: whether it holds on `gpu`, and its device total.
detail::line_probe probe_of(const answered* a, const gpu_preset& gpu) {
  if (a == nullptr) return {};
  return {holds(a->facts(), gpu.memory_bytes), a->at_seq.total_bytes};
}

// MoE first, as llama.cpp's --fit does (common/fit.cpp, ggml-org/llama.cpp 08033df, steps 3 and 4): every layer on
// the GPU with the routed experts of the first N layers in host RAM (--n-cpu-moe N), the fewest N that fits; the
// device total falls as N grows (each layer's experts the same bytes: along a straight line), so the fitting
// values are boundary..layers. Nothing when even N = layers does not. `q4` is the run at N = 0 (the default).
std::shared_ptr<const answered> try_experts_on_cpu(const answered& q4, const gpu_preset& gpu) {
  const std::int64_t layers = q4.spec.values.num_hidden_layers;
  auto at = [&](std::int64_t n) { return run_with(q4.spec, {{"n_cpu_moe", std::to_string(n)}}, gpu); };
  if (!q4.spec.model.params.experts || layers < 1) return nullptr;
  const auto all = probe_of(at(layers).get(), gpu);
  if (!all.holds) return nullptr;
  // The bracket: N = layers holds; N = 0 is q4 itself, which does not hold where the format was tried (a format
  // skipped unresolved cannot hold); when q4 holds, the position below the range, its total unknown.
  const auto none = probe_of(&q4, gpu);
  const detail::line_end bad = none.holds ? detail::line_end{-1, std::nullopt} : detail::line_end{0, none.total};
  const std::int64_t n = detail::boundary_along_line({layers, all.total}, bad, gpu.memory_bytes,
                                                     [&](std::int64_t x) { return probe_of(at(x).get(), gpu); });
  return holding(q4.spec, {{"n_cpu_moe", std::to_string(n)}}, gpu);
}

// Q4_K_M with host RAM: a MoE model's experts first (try_experts_on_cpu; on several devices too: --n-cpu-moe
// moves the first layers' experts whichever device -ts gave them, and each device's total falls as N grows), then,
// on one device, layers in host RAM (llama.cpp's -ngl): the largest n_gpu_layers that fits, a MoE model's layers
// on the GPU without their experts (--fit's dense-only layers, step 3); the device total falls as layers leave
// (along a straight line: the layers are alike), so the fitting values are 0..boundary.
std::shared_ptr<const answered> try_offload(const run_spec& base, const fits_request& q, const gpu_preset& gpu) {
  if (q.task != fits_task::run || q.ram_bytes <= 0) return nullptr;
  // On one device each matrix is in its memory or the host's, whatever -ngl and --n-cpu-moe say (llama.cpp's
  // placement, runtimes/llamacpp.cpp): matrices that pass both together hold at no position, and none is probed.
  if (q.devices == 1 && matrices_pass(base, dtype::q4_k_m, base.values.gpu_memory + q.ram_bytes)) return nullptr;
  auto q4 = run_with(base, candidate_changes({"q4_k_m", llamacpp}, q.devices), gpu);
  if (!q4) return nullptr;
  if (auto experts = try_experts_on_cpu(*q4, gpu)) return experts;
  if (q.devices != 1) return nullptr;  // -ngl over several devices' layer split is not searched
  const std::int64_t layers = q4->spec.values.num_hidden_layers;
  if (q4->spec.model.params.experts) {
    q4 = run_with(q4->spec, {{"n_cpu_moe", std::to_string(layers)}}, gpu);
    if (!q4) return nullptr;
  }
  auto at = [&](std::int64_t ngl) { return run_with(q4->spec, {{"n_gpu_layers", std::to_string(ngl)}}, gpu); };
  std::int64_t ngl = 0;
  if (layers >= 1) {
    // The bracket: one layer holds; past the range, q4 at its own -ngl (999: every layer and the output on the
    // GPU), whose total the line aims with.
    if (const auto one = probe_of(at(1).get(), gpu); one.holds)
      ngl = detail::boundary_along_line({1, one.total}, {layers + 1, q4->at_seq.total_bytes}, gpu.memory_bytes,
                                        [&](std::int64_t x) { return probe_of(at(x).get(), gpu); });
  }
  return holding(q4->spec, {{"n_gpu_layers", std::to_string(ngl)}}, gpu);
}

// speed_of over the run's settings `v` and parameter counts `p`, which the ranking's kept estimates leave in their
// run (estimate_totals without the run), so a row is answered without copying the estimate to fill them in.
std::optional<speed_bound> speed_bound_of(const estimate_result& r, const setting_values& v, const param_breakdown& p,
                                          const gpu_preset& gpu) {
  if (!r.inference || gpu.bandwidth_bytes_per_s <= 0) return std::nullopt;
  const double loaded = p.loaded();
  const double active = loaded > 0 ? std::min(1.0, p.active / loaded) : 1;
  const double seqs = static_cast<double>(std::max<std::int64_t>(1, v.batch));
  const double kv_per_seq = r.bytes("kv_cache") / seqs;
  // The layers on the host (llama.cpp -ngl): their share of the host buffers, read by the CPU.
  const double layers = static_cast<double>(v.num_hidden_layers);
  const double host_layers =
      r.runtime.has_buffers ? std::max(0.0, layers - static_cast<double>(std::min(v.n_gpu_layers, v.num_hidden_layers)))
                            : 0;
  speed_bound s;
  const double stages = static_cast<double>(v.pp);  // pipeline stages run one after another for one token
  const double weights = r.bytes("parameters") * active * stages;
  s.device_bytes_per_token = weights + kv_per_seq * stages;
  s.host_bytes_per_token = layers > 0 ? r.cpu_bytes * active * host_layers / layers : 0;
  const double host_time = s.host_bytes_per_token / host_bandwidth_bytes_per_s;
  const double bw = gpu.bandwidth_bytes_per_s;
  s.decode_tokens_per_s = 1 / (s.device_bytes_per_token / bw + host_time);
  s.batch_tokens_per_s = seqs / ((weights + kv_per_seq * seqs * stages) / bw + host_time);
  const double flops = gpu.bf16_flops * static_cast<double>(v.tp);
  s.prefill_tokens_per_s = flops > 0 && p.active > 0 ? flops / (2 * p.active) : 0;
  if (!detail::formula_texts_on()) return s;  // the ranking's rows read the numbers only
  s.formula = "bandwidth " + detail::group_digits(bw) + " B/s / (" + detail::group_digits(weights) +
              " B of weights read (active share " + detail::format_number(active) + ") + " +
              detail::group_digits(kv_per_seq * stages) + " B of KV per sequence)" +
              (host_time > 0 ? " + " + detail::group_digits(s.host_bytes_per_token) + " B at the host's " +
                                   detail::group_digits(host_bandwidth_bytes_per_s) + " B/s"
                             : "");
  return s;
}

void fill_row(fits_row& row, const answered& a, const gpu_preset& gpu, const fits_request& q) {
  const setting_values& v = a.spec.values;
  const auto layers = static_cast<double>(v.num_hidden_layers);
  row.fits = true;
  row.format = v.weights_dtype;
  row.runtime = q.task == fits_task::run ? std::string(runtime_name(a.spec.runtime)) : v.framework;
  row.max_context = longest_context(a.spec, a.at_seq, gpu);
  const bool offloads = a.at_seq.runtime.has_buffers;
  row.gpu_layers = offloads ? std::min(v.n_gpu_layers, v.num_hidden_layers) : v.num_hidden_layers;
  row.offloaded_share = layers > 0 ? (layers - static_cast<double>(row.gpu_layers)) / layers : 0;
  if (offloads && a.spec.model.params.experts) row.n_cpu_moe = std::min(v.n_cpu_moe, v.num_hidden_layers);
  row.host_bytes = a.at_seq.cpu_bytes;
  row.total_bytes = a.at_seq.total_bytes;
  {
    const detail::formula_texts_off off;  // the row keeps the speed, not its formula
    if (const auto speed = speed_bound_of(a.at_seq, v, a.spec.model.params, gpu))
      row.decode_tokens_per_s = speed->decode_tokens_per_s;
  }
  row.delta = a.spec.inputs->explicit_values;
  row.delta.insert_or_assign("gpu", gpu.id);  // a kept device-free run may come from another device
}

// A format whose matrices alone pass the memory of every device cannot fit: skipped without resolving it. The
// checkpoint as shipped (no weights named) is the base's own format: bounded the same way where that stores every
// weight at its bytes (bf16, fp16, fp32), so vLLM's shipped run of a model several times the devices' memory is not
// estimated; a quantised checkpoint's bits may be fewer than its format's nominal figure (quant_bits), so not it.
bool weights_pass_memory(const run_spec& base, const candidate& c, std::int64_t devices) {
  const double memory = base.values.gpu_memory * static_cast<double>(devices);
  if (c.weights == nullptr)
    return info(base.weights).family == dtype_family::floating && matrices_pass(base, base.weights, memory);
  const auto format = find_dtype(c.weights);
  return format && matrices_pass(base, *format, memory);
}

// A model's base runs on the machine. For run: vLLM's (the checkpoint as shipped, split as it is launched on the
// devices), where vLLM runs on the device, resolved per backend and moved to a device of the same vLLM profile
// (resolved_elsewhere); and llama.cpp's, device-free and kept, resolved only when a GGUF format is tried or vLLM's does
// not resolve. For training: the task's run. Nothing when neither resolves (a task the model cannot take).
struct model_bases {
  const fits_request& q;                   ///< the request
  const gpu_preset& gpu;                   ///< the device
  const settings& machine;                 ///< machine_settings(q, gpu)
  const model_preset& m;                   ///< the model
  std::shared_ptr<const run_spec> served;  ///< vLLM's base; nothing where vLLM does not run or it does not resolve
  std::shared_ptr<const run_spec> local;   ///< llama.cpp's (training: the task's), once `local_tried`
  bool local_tried = false;                ///< local_base() has run

  const run_spec* local_base();
  const run_spec* row_base() { return served ? served.get() : local_base(); }
  const run_spec* of(runtime_kind runtime) {
    return served && runtime == served->runtime ? served.get() : local_base();
  }
};

// The model's llama.cpp or training base on `gpu` (device-free, kept: shared, not copied, on the device it was
// resolved on).
std::shared_ptr<const run_spec> base_run(const gpu_preset& gpu, const settings& machine, const model_preset& m) {
  const settings values = base_settings(machine, m);
  std::string key = key_of(values, gpu);
  auto& bases = memo().bases;
  std::shared_ptr<const run_spec> kept;
  if (const auto it = bases.find(key); it != bases.end()) {
    kept = it->second;
  } else {
    auto r = resolve(values);
    if (r.ok()) kept = std::make_shared<const run_spec>(std::move(r.value()));
    keep(bases, std::move(key), kept);
  }
  if (!kept || kept->values.gpu == gpu.id) return kept;
  return std::make_shared<const run_spec>(on_device(*kept, gpu));
}

const run_spec* model_bases::local_base() {
  if (!local_tried) local = base_run(gpu, machine, m);
  local_tried = true;
  return local.get();
}

// vLLM's base: the llama.cpp base's settings with the shipped candidate's changes, as best_answer would vary them.
std::shared_ptr<const run_spec> served_run(const fits_request& q, const gpu_preset& gpu, const settings& machine,
                                           const model_preset& m) {
  if (q.task != fits_task::run || !runs_on(vllm, gpu)) return nullptr;
  const settings values = with_changes(base_settings(machine, m), candidate_changes({nullptr, vllm}, q.devices));
  std::string key = key_of(values, gpu, true);
  if (auto r = resolved_elsewhere(key, gpu)) return std::make_shared<const run_spec>(std::move(*r));
  auto r = resolve(values);
  if (!r.ok()) return nullptr;
  auto served = std::make_shared<const run_spec>(std::move(r.value()));
  keep(memo().resolved, std::move(key), served);  // the same run, shared
  return served;
}

// The formats in turn, best first. A runtime's later formats vary the weights of its first run that resolved (its
// split and profile already layered: vary()'s weights path, resolve.cpp varies_weights_alone), so each costs the
// checks and an estimate, not a resolve; the run is the one resolving its settings gives (fits_fast_test.cpp).
std::shared_ptr<const answered> best_answer(model_bases& b) {
  const fits_request& q = b.q;
  const gpu_preset& gpu = b.gpu;
  if (q.task != fits_task::run) return holding(*b.local_base(), {}, gpu);
  std::map<runtime_kind, std::shared_ptr<const answered>> firsts;
  for (const candidate& c : run_candidates) {
    if (!runs_on(c.runtime, gpu)) continue;
    const run_spec* base = b.of(c.runtime);
    if (base == nullptr || weights_pass_memory(*base, c, q.devices)) continue;
    auto& first = firsts[c.runtime];
    std::shared_ptr<const answered> a;
    if (first && c.weights != nullptr) {
      const run_spec& from = first->spec;
      a = run_with(from.values.gpu == gpu.id ? from : on_device(from, gpu), {{"weights_dtype", c.weights}}, gpu);
    } else {
      a = run_with(*base, candidate_changes(c, q.devices), gpu);
    }
    if (a && !first) first = a;
    if (a && holds(a->facts(), gpu.memory_bytes)) return a;
  }
  const run_spec* local = b.local_base();
  return local != nullptr ? try_offload(*local, q, gpu) : nullptr;
}

bool kept_by_name(const fits_request& q, const model_preset& m) {
  if (q.family.empty()) return true;
  const std::string f = detail::lower(q.family);
  return detail::lower(m.id).find(f) != std::string::npos || detail::lower(m.name).find(f) != std::string::npos;
}

bool kept_by_size(const fits_request& q, const fits_row& row) {
  if (row.params < q.min_params || (q.max_params > 0 && row.params > q.max_params)) return false;
  return q.moe == fits_moe::any || (q.moe == fits_moe::only) == row.moe;
}

// Fitting rows first, then the requested order; ties by size, then id.
bool ranks_before(const fits_row& a, const fits_row& b, fits_sort sort) {
  if (a.fits != b.fits) return a.fits;
  if (sort == fits_sort::context && a.max_context != b.max_context) return a.max_context > b.max_context;
  if (sort == fits_sort::speed && a.decode_tokens_per_s != b.decode_tokens_per_s)
    return a.decode_tokens_per_s > b.decode_tokens_per_s;
  if (a.params != b.params) return a.params > b.params;
  return a.model < b.model;
}

std::vector<error> check_request(const fits_request& q, const gpu_preset* gpu) {
  std::vector<error> errors;
  if (gpu == nullptr) errors.push_back({"gpu", "no GPU preset " + detail::quoted(q.gpu) + " (llm-memory --list-gpus)"});
  if (q.devices < 1 || q.devices > 1024) errors.push_back({"devices", "must be an integer from 1 to 1024"});
  if (q.seq < 1 || q.seq > 100000000) errors.push_back({"seq", "must be an integer from 1 to 100000000"});
  if (!(q.ram_bytes >= 0) || q.ram_bytes > 1e15) errors.push_back({"ram", "must be a size from 0 to 1PB"});
  return errors;
}

}  // namespace

std::optional<speed_bound> speed_of(const estimate_result& r, const gpu_preset& gpu) {
  return speed_bound_of(r, r.settings, r.model.params, gpu);
}

void forget_kept_runs() { memo() = run_memo{}; }

result<fits_result> fits(const fits_request& q) {
  detail::install_fast_lookups();  // its look-ups and presets parsed once, kept for the rankings after
  const gpu_preset* gpu = find_gpu(detail::lower(q.gpu));
  if (auto errors = check_request(q, gpu); !errors.empty()) return errors;
  fits_result out{gpu->name, gpu->memory_bytes, q.devices, 0, {}};
  const settings machine = machine_settings(q, *gpu);
  for (const model_preset& m : model_presets()) {
    if (!kept_by_name(q, m)) continue;
    model_bases bases{q, *gpu, machine, m, served_run(q, *gpu, machine, m), nullptr, false};
    const run_spec* base = bases.row_base();
    if (base == nullptr) continue;  // a task the model cannot take (an encoder asked to generate)
    fits_row row;
    row.model = m.id;
    row.name = m.name;
    row.params = base->params;
    row.active_params = base->model.params.active;
    row.moe = row.active_params < base->model.params.loaded();
    if (!kept_by_size(q, row)) continue;
    if (const auto a = best_answer(bases)) fill_row(row, *a, *gpu, q);
    out.fitting += row.fits ? 1 : 0;
    out.rows.push_back(std::move(row));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [&](const fits_row& a, const fits_row& b) { return ranks_before(a, b, q.sort); });
  return out;
}

}  // namespace llm_memory
