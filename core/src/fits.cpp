// SPDX-License-Identifier: MIT
#include "llm_memory/fits.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "llm_memory/dtype.hpp"
#include "llm_memory/resolve.hpp"
#include "search.hpp"
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
  const char* runtime;
};

// Best first: the shipped checkpoint and FP8 on vLLM, llama.cpp's common GGUF mixes from 8 down to 4.5 bits,
// then AWQ (4-bit, vLLM). The first that fits at the requested context is the row's.
constexpr candidate run_candidates[] = {{nullptr, "vllm"},    {"fp8", "vllm"},        {"q8_0", "llamacpp"},
                                        {"q6_k", "llamacpp"}, {"q5_k_m", "llamacpp"}, {"q4_k_m", "llamacpp"},
                                        {"awq", "vllm"}};

const char* finetune_of(fits_task t) {
  switch (t) {
    case fits_task::lora: return "lora";
    case fits_task::qlora: return "qlora";
    default: return "full";
  }
}

// The settings of one model on the machine before a format is chosen.
settings base_settings(const fits_request& q, const gpu_preset& gpu, const model_preset& m) {
  settings s{{"model", m.id},
             {"gpu", gpu.id},
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

// The candidate's changes: its format and runtime, and the split over several devices (vLLM: tensor parallel;
// llama.cpp: its layer split).
settings candidate_changes(const candidate& c, std::int64_t devices) {
  settings s{{"runtime", c.runtime}};
  if (c.weights != nullptr) s.emplace("weights_dtype", c.weights);
  const std::string n = std::to_string(devices);
  if (devices > 1) s.emplace(std::string(c.runtime) == "vllm" ? "tp" : "pp", n);
  return s;
}

// Fits the device (and host_ram), and the runtime starts at this context (vLLM's maximum model length).
bool holds(const estimate_result& e) {
  return e.fits && (!e.inference || e.runtime.max_context == 0 || e.runtime.max_context >= e.settings.seq);
}

std::optional<estimate_result> estimate_with(const run_spec& spec, const settings& changes) {
  const auto r = vary(spec, changes);
  if (!r.ok()) return std::nullopt;
  return estimate(r.value());
}

// Where the device total reaches the memory on the straight line through the totals at seq and at the cap: the KV
// cells and the compute buffer grow linearly with the context, so this is the boundary or next to it (the caller
// checks it). Nothing when the cap itself does not resolve or the line does not rise; `hi` when the cap holds.
std::optional<std::int64_t> straight_line_guess(const run_spec& spec, const estimate_result& at_seq, std::int64_t lo,
                                                std::int64_t hi) {
  if (hi <= lo + 1) return std::nullopt;
  const auto top = estimate_with(spec, {{"seq", std::to_string(hi * context_step)}});
  if (!top) return std::nullopt;
  if (holds(*top)) return hi;  // the cap holds: nothing to check
  const double seq = static_cast<double>(spec.values.seq);
  const double slope = (top->total_bytes - at_seq.total_bytes) / (static_cast<double>(hi * context_step) - seq);
  if (!(slope > 0)) return std::nullopt;
  const double tokens = seq + (at_seq.gpu_memory_bytes - at_seq.total_bytes) / slope;
  const auto k = static_cast<std::int64_t>(std::floor(tokens / static_cast<double>(context_step)));
  return k > lo && k < hi ? std::optional<std::int64_t>(k) : std::nullopt;
}

// The longest context that holds, in llama.cpp's steps of 256, up to the trained context; `spec` holds at its own
// seq. vLLM reports its own maximum model length, so one estimate answers it.
std::int64_t longest_context(const run_spec& spec, const estimate_result& at_seq) {
  const std::int64_t trained = spec.values.max_position_embeddings;
  const std::int64_t cap = trained > 0 ? trained : context_cap;
  const std::int64_t seq = spec.values.seq;
  if (at_seq.inference && at_seq.runtime.max_context > 0 && !at_seq.runtime.has_buffers)
    return std::max(seq, std::min(cap, at_seq.runtime.max_context));
  if (cap <= seq) return seq;
  const std::int64_t lo = std::max<std::int64_t>(1, seq / context_step);
  auto fits = [&](std::int64_t k) {
    const auto e = estimate_with(spec, {{"seq", std::to_string(k * context_step)}});
    return e && holds(*e);
  };
  const std::int64_t hi = cap / context_step;
  std::int64_t k = 0;
  const auto guess = straight_line_guess(spec, at_seq, lo, hi);
  if (guess && (*guess == hi || (fits(*guess) && !fits(*guess + 1))))
    k = *guess;  // the cap, or checked on both sides: the boundary the search would find
  else
    k = detail::last_fitting_from(lo, hi, fits);  // `spec` holds at lo: no estimate there
  return k == lo ? seq : k * context_step;
}

// The answer of one format: the estimate at seq and the run it came from.
struct answered {
  run_spec spec;
  estimate_result at_seq;
};

std::optional<answered> try_changes(const run_spec& base, const settings& changes) {
  auto r = vary(base, changes);
  if (!r.ok()) return std::nullopt;
  estimate_result e = estimate(r.value());
  if (!holds(e)) return std::nullopt;
  return answered{std::move(r.value()), std::move(e)};
}

// MoE first, as llama.cpp's --fit does (common/fit.cpp, ggml-org/llama.cpp 08033df, steps 3 and 4): every layer on
// the GPU with the routed experts of the first N layers in host RAM (--n-cpu-moe N), the fewest N that fits; the
// device total falls as N grows, so the fitting values are boundary..layers. Nothing when even N = layers does not.
std::optional<answered> try_experts_on_cpu(const run_spec& q4) {
  const std::int64_t layers = q4.values.num_hidden_layers;
  auto at = [&](std::int64_t n) { return try_changes(q4, {{"n_cpu_moe", std::to_string(n)}}); };
  if (!q4.model.params.experts || layers < 1 || !at(layers)) return std::nullopt;
  // The fewest N: layers - the most layers whose experts can stay on the GPU (given: none).
  std::int64_t kept = 0;
  if (at(layers - 1))
    kept = detail::last_fitting_from(1, layers, [&](std::int64_t k) { return at(layers - k).has_value(); });
  return at(layers - kept);
}

// Q4_K_M on one device with host RAM: a MoE model's experts first (try_experts_on_cpu), then layers in host RAM
// (llama.cpp's -ngl): the largest n_gpu_layers that fits, a MoE model's layers on the GPU without their experts
// (--fit's dense-only layers, step 3); the device total falls as layers leave, so the fitting values are
// 0..boundary.
std::optional<answered> try_offload(const run_spec& base, const fits_request& q) {
  if (q.task != fits_task::run || q.devices != 1 || q.ram_bytes <= 0) return std::nullopt;
  auto q4 = vary(base, candidate_changes({"q4_k_m", "llamacpp"}, 1));
  if (!q4.ok()) return std::nullopt;
  if (auto experts = try_experts_on_cpu(q4.value())) return experts;
  const std::int64_t layers = q4.value().values.num_hidden_layers;
  if (q4.value().model.params.experts) {
    q4 = vary(q4.value(), {{"n_cpu_moe", std::to_string(layers)}});
    if (!q4.ok()) return std::nullopt;
  }
  auto at = [&](std::int64_t ngl) { return try_changes(q4.value(), {{"n_gpu_layers", std::to_string(ngl)}}); };
  std::int64_t ngl = 0;
  if (layers >= 1 && at(1))
    ngl = detail::last_fitting_from(1, layers, [&](std::int64_t k) { return at(k).has_value(); });
  return at(ngl);
}

void fill_row(fits_row& row, const answered& a, const gpu_preset& gpu, const fits_request& q) {
  const setting_values& v = a.spec.values;
  const auto layers = static_cast<double>(v.num_hidden_layers);
  row.fits = true;
  row.format = v.weights_dtype;
  row.runtime = q.task == fits_task::run ? std::string(runtime_name(a.spec.runtime)) : v.framework;
  row.max_context = longest_context(a.spec, a.at_seq);
  const bool offloads = a.at_seq.runtime.has_buffers;
  row.gpu_layers = offloads ? std::min(v.n_gpu_layers, v.num_hidden_layers) : v.num_hidden_layers;
  row.offloaded_share = layers > 0 ? (layers - static_cast<double>(row.gpu_layers)) / layers : 0;
  if (offloads && a.spec.model.params.experts) row.n_cpu_moe = std::min(v.n_cpu_moe, v.num_hidden_layers);
  row.host_bytes = a.at_seq.cpu_bytes;
  row.total_bytes = a.at_seq.total_bytes;
  if (const auto speed = speed_of(a.at_seq, gpu)) row.decode_tokens_per_s = speed->decode_tokens_per_s;
  row.delta = a.spec.inputs->explicit_values;
}

// A format whose matrices alone pass the memory of every device cannot fit: skipped without resolving it. The
// parameters past the embedding (llama.cpp keeps token_embd on the host) at 0.9 x the format's nominal bytes, below
// what any mix of it stores.
bool weights_pass_memory(const run_spec& base, const candidate& c, std::int64_t devices) {
  const auto format = c.weights != nullptr ? find_dtype(c.weights) : std::nullopt;
  if (!format) return false;
  const double matrices = base.model.params.loaded() - base.model.params.embedding;
  return matrices * bytes_per_value(*format) * 0.9 > base.values.gpu_memory * static_cast<double>(devices);
}

std::optional<answered> best_answer(const run_spec& base, const fits_request& q) {
  if (q.task != fits_task::run) {
    auto e = estimate(base);
    if (!holds(e)) return std::nullopt;
    return answered{base, std::move(e)};
  }
  for (const candidate& c : run_candidates)
    if (!weights_pass_memory(base, c, q.devices))
      if (auto a = try_changes(base, candidate_changes(c, q.devices))) return a;
  return try_offload(base, q);
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
  if (!r.inference || gpu.bandwidth_bytes_per_s <= 0) return std::nullopt;
  const setting_values& v = r.settings;
  const double loaded = r.model.params.loaded();
  const double active = loaded > 0 ? std::min(1.0, r.model.params.active / loaded) : 1;
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
  s.prefill_tokens_per_s = flops > 0 && r.model.params.active > 0 ? flops / (2 * r.model.params.active) : 0;
  s.formula = "bandwidth " + detail::group_digits(bw) + " B/s / (" + detail::group_digits(weights) +
              " B of weights read (active share " + detail::format_number(active) + ") + " +
              detail::group_digits(kv_per_seq * stages) + " B of KV per sequence)" +
              (host_time > 0 ? " + " + detail::group_digits(s.host_bytes_per_token) + " B at the host's " +
                                   detail::group_digits(host_bandwidth_bytes_per_s) + " B/s"
                             : "");
  return s;
}

result<fits_result> fits(const fits_request& q) {
  const gpu_preset* gpu = find_gpu(detail::lower(q.gpu));
  if (auto errors = check_request(q, gpu); !errors.empty()) return errors;
  fits_result out{gpu->name, gpu->memory_bytes, q.devices, 0, {}};
  for (const model_preset& m : model_presets()) {
    if (!kept_by_name(q, m)) continue;
    const auto base = resolve(base_settings(q, *gpu, m));
    if (!base.ok()) continue;  // a task the model cannot take (an encoder asked to generate)
    fits_row row;
    row.model = m.id;
    row.name = m.name;
    row.params = base.value().params;
    row.active_params = base.value().model.params.active;
    row.moe = row.active_params < base.value().model.params.loaded();
    if (!kept_by_size(q, row)) continue;
    if (const auto a = best_answer(base.value(), q)) fill_row(row, *a, *gpu, q);
    out.fitting += row.fits ? 1 : 0;
    out.rows.push_back(std::move(row));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [&](const fits_row& a, const fits_row& b) { return ranks_before(a, b, q.sort); });
  return out;
}

}  // namespace llm_memory
