// SPDX-License-Identifier: MIT
#include "llm_memory/solve.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "frameworks/framework_def.hpp"
#include "llm_memory/estimate.hpp"
#include "runtimes/runtime_def.hpp"
#include "search.hpp"

namespace llm_memory {
namespace {

using detail::first_fitting;
using detail::last_fitting;

// The total of a point resolve() refuses: it fits nothing (it cannot be applied).
constexpr double inf = std::numeric_limits<double>::infinity();

std::string in_units(double bytes, display_units units) {
  const bool gib = units == display_units::gib;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f %s", bytes / (gib ? 1073741824.0 : 1e9), gib ? "GiB" : "GB");
  return buf;
}

std::int64_t setting_max(std::string_view key) {
  const setting_def* def = find_setting(key);
  return def != nullptr ? static_cast<std::int64_t>(def->max_value) : 1;
}

// Total bytes per device with one axis moved, as applying it gives (vary()); nullopt where resolve() refuses it.
std::optional<double> total_at(const run_spec& base, const char* axis, std::int64_t value) {
  const auto r = vary(base, {{axis, std::to_string(value)}});
  if (!r.ok()) return std::nullopt;
  return estimate(r.value()).total_bytes;
}

// The most of one factor of batch x grad_accum x data-parallel devices that keeps the product within what
// resolve() accepts, the other two fixed: the searches probe only settings a user could apply.
std::int64_t per_step_limit(double other_factors) {
  return static_cast<std::int64_t>(std::floor(max_sequences_per_step / other_factors));
}

// ---- devices, training: data parallel x the ZeRO stages and tensor-parallel degrees the framework offers ----------

constexpr std::int64_t node_size = 8;  // tensor parallelism stays within one node (NVLink)

// Tensor parallelism in training, where the framework's row searches it (the others keep the degree they were
// given). Degrees are powers of two within a node that divide the query heads and the KV heads (Megatron:
// num_query_groups % tensor_model_parallel_size == 0).
bool searches_tp(framework_kind f) { return detail::framework_of(f).searches_tp; }

struct training_split {
  std::int64_t zero = 0;  // ZeRO stage
  std::int64_t tp = 1;    // tensor-parallel degree
};

// The splits tried, the run's own first (an answer keeps what the user chose when it is as good), then by tp and
// ZeRO stage ascending: at equal device counts the first wins (plain data parallel over sharding over tp).
std::vector<training_split> training_splits(const run_spec& spec) {
  const setting_values& s = spec.values;
  std::vector<training_split> out{{s.zero, s.tp}};
  std::vector<std::int64_t> tps{s.tp};
  if (searches_tp(spec.framework)) {
    const auto kv = static_cast<std::int64_t>(spec.model.kv_heads);
    for (std::int64_t tp = 1; tp <= node_size; tp *= 2)
      if (tp != s.tp && s.num_attention_heads % tp == 0 && (kv <= 0 || kv % tp == 0)) tps.push_back(tp);
    std::sort(tps.begin(), tps.end());
  }
  // The stages the run may move to (frameworks/table.cpp searched_zero_stages): those at which the framework runs
  // the run's offload (the parameters' is ZeRO-3's), and in evaluation, which reads no stage, its own only.
  const std::vector<std::int64_t> stages = detail::searched_zero_stages(spec);
  for (const std::int64_t tp : tps)
    for (const std::int64_t zero : stages)
      if (zero != s.zero || tp != s.tp) out.push_back({zero, tp});
  return out;
}

// The split's run at `devices`, resolved as applying {devices, zero, tp} resolves it: the framework profiles follow
// the device count (torchtune's single-device recipe, litgpt's recomputation) and the ZeRO stage (DeepSpeed's
// ZeRO-3 keeps its gradient partitions from init). Nothing when resolve() refuses the split.
std::optional<run_spec> split_run(const run_spec& spec, const training_split& split, std::int64_t devices) {
  auto r = vary(
      spec,
      {{"devices", std::to_string(devices)}, {"zero", std::to_string(split.zero)}, {"tp", std::to_string(split.tp)}});
  if (!r.ok()) return std::nullopt;
  return std::move(r.value());
}

struct device_fit {
  std::int64_t dp = 0;     // data-parallel degree
  training_split split;    // ZeRO stage and tp
  double total_bytes = 0;  // per device
  run_spec run;            // the run evaluated: the split resolved at dp x tp x pp devices
};

// The largest data-parallel degree one split may take: within the device limit and the sequences-per-step limit.
std::int64_t dp_limit_for(const run_spec& spec, const training_split& split) {
  const setting_values& s = spec.values;
  return std::min(solve_device_limit / (split.tp * s.pp),
                  per_step_limit(static_cast<double>(s.batch) * static_cast<double>(s.grad_accum)));
}

// The data-parallel degrees resolve() accepts: multiples of cp (a context-parallel group spans cp devices) and of
// ep (the experts shard over the data-parallel devices), so multiples of their least common multiple.
std::int64_t dp_step(const setting_values& s) { return std::lcm(s.cp, s.ep); }

// Smallest dp (a multiple of dp_step) for one split with dp x tp x pp below `below` devices. The framework profiles
// read at most whether there is more than one device, so at most two resolved runs serve every dp: one at the
// first dp and, when that is one device, one at dp 2, varied to other counts on vary()'s fast path.
std::optional<device_fit> fewest_for(const run_spec& spec, const training_split& split, std::int64_t below,
                                     double capacity) {
  const setting_values& s = spec.values;
  const std::int64_t mp = split.tp * s.pp, step = dp_step(s);
  const std::int64_t k_limit = std::min(dp_limit_for(spec, split), (below - 1) / mp) / step;
  if (k_limit < 1) return std::nullopt;
  const std::optional<run_spec> first = split_run(spec, split, step * mp);
  // More than one device already at the first dp: that run serves every dp. Else dp >= 2 is resolved when the
  // search first needs it.
  std::optional<run_spec> more;
  bool resolved_more = false;
  auto run_at = [&](std::int64_t dp) -> const std::optional<run_spec>& {
    if (dp == step || step * mp > 1) return first;
    if (!resolved_more) more = split_run(spec, split, 2), resolved_more = true;
    return more;
  };
  auto fits = [&](std::int64_t k) {
    const std::optional<run_spec>& r = run_at(k * step);
    const auto total = r ? total_at(*r, "devices", k * step * mp) : std::nullopt;
    return total && *total <= capacity;
  };
  // dp = 1 stands apart: ZeRO-3 adds its gather buffers only once there is something to gather.
  std::optional<std::int64_t> k;
  if (fits(1))
    k = 1;
  else if (k_limit >= 2)
    k = first_fitting(2, k_limit, fits);
  if (!k) return std::nullopt;
  const std::int64_t dp = *k * step;
  run_spec run = vary(*run_at(dp), {{"devices", std::to_string(dp * mp)}}).value();  // fits(): it resolves
  const double total = estimate(run).total_bytes;
  return device_fit{dp, split, total, std::move(run)};
}

// The answer's changes, plus any of `evaluated`'s values that a profile would set otherwise once they are applied
// (FSDP and Megatron shard from two devices on, Ollama's num_ctx follows the devices' memory): applying the answer
// gives the run that was evaluated.
void pin_evaluated(const run_spec& spec, const run_spec& evaluated, settings& delta) {
  const auto applied = vary(spec, delta);
  if (!applied.ok()) return;
  const setting_values& now = applied.value().values;
  const setting_values& wanted = evaluated.values;
  if (now.zero != wanted.zero) delta.insert_or_assign("zero", std::to_string(wanted.zero));
  if (now.tp != wanted.tp) delta.insert_or_assign("tp", std::to_string(wanted.tp));
  if (now.seq != wanted.seq) delta.insert_or_assign("seq", std::to_string(wanted.seq));
}

std::string split_text(const device_fit& f, std::int64_t pp) {
  return "data-parallel " + std::to_string(f.dp) + " x tp " + std::to_string(f.split.tp) + " x pp " +
         std::to_string(pp) + ", ZeRO " + std::to_string(f.split.zero);
}

solve_answer no_training_split(const run_spec& spec, std::int64_t limit) {
  const setting_values& s = spec.values;
  solve_answer a{"min_devices", {"devices", "zero", "tp"}, false, 0, limit, false, 0, {}, {}};
  const std::vector<training_split> splits = training_splits(spec);
  // The stages searched (evaluation: its own; the run's offload: those that run it), else the run's own.
  std::vector<std::int64_t> stages = detail::searched_zero_stages(spec);
  if (stages.empty()) stages = {s.zero};
  if (splits.size() == 1 && s.zero == 0 && s.tp * s.pp == 1) {
    a.message =
        std::string("no device count fits with ZeRO 0: every data-parallel device holds a full replica of the ") +
        (spec.eval() ? "parameters (evaluation keeps its ZeRO stage)" : "parameters, gradients and optimizer state") +
        ", so adding devices never lowers per-device memory; raise tp or pp";
    return a;
  }
  // The most sharded split at its device limit says how far off it is.
  training_split most = splits.front();
  for (const auto& split : splits)
    if (split.tp > most.tp || (split.tp == most.tp && split.zero > most.zero)) most = split;
  const std::int64_t dp = dp_limit_for(spec, most), mp = most.tp * s.pp;
  const std::string searched =
      std::to_string(stages.front()) + (stages.size() > 1 ? "-" + std::to_string(stages.back()) : std::string{});
  a.message = "none within " + std::to_string(limit) + " devices for ZeRO " + searched + " and tp up to " +
              std::to_string(most.tp) + " (pp " + std::to_string(s.pp) + ")";
  if (const auto r = dp >= 1 ? split_run(spec, most, dp * mp) : std::nullopt)
    a.message += ": " + in_units(estimate(*r).total_bytes, spec.units) + " per device even at " +
                 std::to_string(dp * mp) + " devices with ZeRO " + std::to_string(most.zero) + ", tp " +
                 std::to_string(most.tp);
  return a;
}

// Fewest devices for training: every split the framework offers (training_splits), each with its smallest dp; the
// fewest devices win, ties to the earlier split. Later splits search only below the best so far.
solve_answer solve_devices(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  std::optional<device_fit> best;
  std::int64_t limit = 0, best_devices = solve_device_limit + 1;
  for (const training_split& split : training_splits(spec)) {
    limit = std::max(limit, dp_limit_for(spec, split) * split.tp * s.pp);
    const auto f = fewest_for(spec, split, best_devices, capacity);
    if (!f) continue;
    best = f;
    best_devices = f->dp * f->split.tp * s.pp;
  }
  if (!best) return no_training_split(spec, limit);
  solve_answer a{"min_devices", {"devices", "zero", "tp"}, true, best_devices, limit, false, 0, {}, {}};
  a.total_bytes = best->total_bytes;
  a.delta = {{"devices", std::to_string(best_devices)}};
  if (best->split.zero != s.zero) a.delta.emplace("zero", std::to_string(best->split.zero));
  if (best->split.tp != s.tp) a.delta.emplace("tp", std::to_string(best->split.tp));
  pin_evaluated(spec, best->run, a.delta);
  a.message = "fits on " + std::to_string(best_devices) + " device" + (best_devices == 1 ? "" : "s") + " (" +
              split_text(*best, s.pp) + ")";
  return a;
}

// ---- devices, inference: the splits the engines use -------------------------------------------------------------

// vLLM's and SGLang's QKV split: the query heads divide by tp, and the KV heads by tp or tp by them (replicated KV
// heads when fewer than tp: ModelConfig.get_num_kv_heads).
bool valid_tp(const run_spec& spec, std::int64_t tp) {
  const std::int64_t heads = spec.values.num_attention_heads;
  const auto kv = static_cast<std::int64_t>(spec.model.kv_heads);
  return heads % tp == 0 && kv > 0 && (kv % tp == 0 || tp % kv == 0);
}

// The splits an engine would be launched with, fewest devices first, as its row says (runtime_def::splits): whole
// layers per device; tensor parallel at a power of two within a node of 8; then pipeline stages across nodes at
// the node's largest valid degree.
std::vector<std::pair<std::int64_t, std::int64_t>> inference_splits(const run_spec& spec) {
  const std::int64_t L = spec.values.num_hidden_layers;
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const detail::device_split split = detail::runtime_of(spec.runtime).splits;
  if (split == detail::device_split::layers) {
    for (std::int64_t pp = 1; pp <= L; ++pp) out.emplace_back(1, pp);
    return out;
  }
  std::int64_t widest = 1;
  for (std::int64_t tp = 1; tp <= node_size; tp *= 2)
    if (valid_tp(spec, tp)) {
      out.emplace_back(tp, 1);
      widest = tp;
    }
  if (split == detail::device_split::tensor) return out;
  for (std::int64_t pp = 2; pp <= L; ++pp) out.emplace_back(widest, pp);
  return out;
}

// The run with `changes`, estimated; nothing where resolve() refuses it.
std::optional<estimate_result> estimate_with(const run_spec& one, const settings& changes) {
  const auto r = vary(one, changes);
  if (!r.ok()) return std::nullopt;
  return estimate(r.value());
}

// One device, every layer where the run puts it and the routed experts of the first N layers in host memory
// (--n-cpu-moe N), as llama.cpp's --fit does for a MoE model before it moves whole layers (common/fit.cpp steps 3
// and 4, ggml-org/llama.cpp 08033df): the fewest N whose device total fits and whose host part fits host_ram. The
// device total falls as N grows, so the layers whose experts can stay on the GPU are 0..boundary.
std::optional<solve_answer> experts_answer(const run_spec& spec, const run_spec& one, double capacity) {
  const std::int64_t L = spec.values.num_hidden_layers;
  auto at = [&](std::int64_t n) { return estimate_with(one, {{"n_cpu_moe", std::to_string(n)}}); };
  auto fits_kept = [&](std::int64_t kept) {
    const auto e = at(L - kept);
    return e && e->total_bytes <= capacity && e->fits_in_ram;
  };
  if (L < 1 || !fits_kept(0)) return std::nullopt;
  const std::int64_t n = L - last_fitting(1, L, fits_kept).value_or(0);
  const estimate_result e = *at(n);
  solve_answer a{"min_devices", {"devices", "tp", "pp", "n_cpu_moe"}, true, 1, 1, false, e.total_bytes, {}, {}};
  a.delta = {{"devices", "1"}, {"tp", "1"}, {"pp", "1"}, {"n_cpu_moe", std::to_string(n)}};
  pin_evaluated(spec, vary(one, {{"n_cpu_moe", std::to_string(n)}}).value(), a.delta);
  a.message = "fits on 1 device with --n-cpu-moe " + std::to_string(n) + ": the routed experts of the first " +
              std::to_string(n) + " of " + std::to_string(L) + " layers in host RAM (" +
              in_units(e.cpu_bytes, spec.units) + " there), attention and shared weights on the GPU, as " +
              std::string(runtime_name(spec.runtime)) + "'s own fitting does before another GPU";
  return a;
}

// One device with whole layers left in host memory, as the runtime's own fitting does (runtime_def::
// offloads_layers): the largest n_gpu_layers up to the run's own (at most num_hidden_layers + 1, the output layer)
// whose device total fits and whose host part fits host_ram. Device memory falls as layers leave, so the fitting
// -ngl values are 0..boundary and a bisection finds it. Nothing when even -ngl 0 does not fit. A MoE model on a
// runtime that moves experts first (runtime_def::offloads_experts) answers with experts_answer when that fits.
std::optional<solve_answer> offload_answer(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  const std::int64_t top = std::min<std::int64_t>(s.n_gpu_layers, s.num_hidden_layers + 1);
  const auto one = vary(spec, {{"devices", "1"}, {"tp", "1"}, {"pp", "1"}, {"seq", std::to_string(s.seq)}});
  if (top < 1 || !one.ok()) return std::nullopt;
  // A GGUF file's own tensors (--gguf) place their experts apart too (runtimes/llamacpp.cpp split_gguf_file).
  const bool experts_first = detail::runtime_of(spec.runtime).offloads_experts && spec.model.params.experts;
  if (experts_first)
    if (auto experts = experts_answer(spec, one.value(), capacity)) return experts;
  // A MoE's layers on the GPU then hold no experts (--fit's dense-only layers, common/fit.cpp step 3).
  auto at_ngl = [&](std::int64_t ngl) {
    settings c{{"n_gpu_layers", std::to_string(ngl)}};
    if (experts_first) c.emplace("n_cpu_moe", std::to_string(s.num_hidden_layers));
    return c;
  };
  auto fits = [&](std::int64_t ngl) {
    const auto e = estimate_with(one.value(), at_ngl(ngl));
    return e && e->total_bytes <= capacity && e->fits_in_ram;
  };
  std::optional<std::int64_t> ngl = top > 1 ? last_fitting(1, top - 1, fits) : std::nullopt;
  if (!ngl && fits(0)) ngl = 0;
  if (!ngl) return std::nullopt;
  const estimate_result e = *estimate_with(one.value(), at_ngl(*ngl));
  solve_answer a{"min_devices", {"devices", "tp", "pp", "n_gpu_layers"}, true, 1, 1, false, e.total_bytes, {}, {}};
  a.delta = {{"devices", "1"}, {"tp", "1"}, {"pp", "1"}};
  a.delta.merge(at_ngl(*ngl));
  if (experts_first) a.varied.emplace_back("n_cpu_moe");
  pin_evaluated(spec, vary(one.value(), at_ngl(*ngl)).value(), a.delta);
  const std::int64_t layers = std::min(*ngl, s.num_hidden_layers);
  a.message = "fits on 1 device with -ngl " + std::to_string(*ngl) + ": " + std::to_string(layers) + " of " +
              std::to_string(s.num_hidden_layers) + " layers on the GPU" +
              (experts_first ? " without their experts" : "") + ", " + std::to_string(s.num_hidden_layers - layers) +
              " layers (" +
              std::to_string((s.num_hidden_layers - layers) * 100 / std::max<std::int64_t>(1, s.num_hidden_layers)) +
              "%), " + in_units(e.cpu_bytes, spec.units) + ", in host RAM, as " +
              std::string(runtime_name(spec.runtime)) + "'s own fitting offloads before another GPU";
  return a;
}

solve_answer solve_devices_inference(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  solve_answer a{"min_devices", {"devices", "tp", "pp"}, false, 0, 0, false, 0, {}, {}};
  const auto splits = inference_splits(spec);
  for (const auto& [tp, pp] : splits) a.limit = std::max(a.limit, tp * pp);
  for (const auto& [tp, pp] : splits) {
    const std::int64_t n = tp * pp;
    // Varied as applying the split resolves it: vLLM's non-torch memory and SGLang's fraction follow tp and pp; at
    // the run's own context (Ollama's follows the devices' memory unless seq is pinned, pin_evaluated).
    const auto split = vary(spec, {{"devices", std::to_string(n)},
                                   {"tp", std::to_string(tp)},
                                   {"pp", std::to_string(pp)},
                                   {"seq", std::to_string(s.seq)}});
    if (!split.ok()) continue;
    const run_spec& evaluated = split.value();
    const double bytes = estimate(evaluated).total_bytes;
    if (bytes > capacity) {
      // Offloading layers comes before a second device (llama.cpp's --fit, Ollama's scheduler).
      if (n == 1 && detail::runtime_of(spec.runtime).offloads_layers)
        if (auto offloaded = offload_answer(spec, capacity)) return *std::move(offloaded);
      continue;
    }
    a.found = true;
    a.value = n;
    a.total_bytes = bytes;
    a.delta = {{"devices", std::to_string(n)}, {"tp", std::to_string(tp)}, {"pp", std::to_string(pp)}};
    pin_evaluated(spec, evaluated, a.delta);
    a.message = "fits on " + std::to_string(n) + " device" + (n == 1 ? "" : "s") + " (tensor parallel " +
                std::to_string(tp) + " x pipeline " + std::to_string(pp) + ", as " +
                std::string(runtime_name(spec.runtime)) + " splits a model)";
    return a;
  }
  a.message = "no split of up to " + std::to_string(a.limit) + " devices fits (" +
              std::string(detail::runtime_of(spec.runtime).split_limits) + ")";
  return a;
}

solve_answer solve_batch(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  const std::int64_t step_limit =
      per_step_limit(static_cast<double>(s.grad_accum) * static_cast<double>(spec.data_parallel));
  solve_answer a{"max_batch", {"batch"}, false, 0, std::min(setting_max("batch"), step_limit), false, 0, {}, {}};
  auto total = [&](std::int64_t b) { return total_at(spec, "batch", b).value_or(inf); };
  const auto b = last_fitting(1, a.limit, [&](std::int64_t x) { return total(x) <= capacity; });
  const std::string at = " at seq " + std::to_string(s.seq);
  if (!b) {
    a.message = "even micro-batch 1 does not fit" + at + " (" + in_units(total(1) - capacity, spec.units) + " over)";
    return a;
  }
  a.found = true;
  a.value = *b;
  a.at_limit = *b == a.limit;
  a.total_bytes = total(*b);
  a.delta = {{"batch", std::to_string(*b)}};
  const char* limit_reason = step_limit < setting_max("batch")
                                 ? " (the limit: batch x grad_accum x data-parallel devices stays below 2^53)"
                                 : " (the setting's maximum)";
  a.message = "largest micro-batch that fits: " + std::to_string(*b) + " sequence" + (*b == 1 ? "" : "s") + at +
              (a.at_limit ? limit_reason : "");
  return a;
}

solve_answer solve_seq(const run_spec& spec, double capacity) {
  const setting_values& s = spec.values;
  solve_answer a{"max_seq", {"seq"}, false, 0, setting_max("seq"), false, 0, {}, {}};
  // Context parallelism holds seq / cp tokens per device: resolve() takes only multiples of cp (1 without it).
  const std::int64_t step = s.cp;
  auto total = [&](std::int64_t k) { return total_at(spec, "seq", k * step).value_or(inf); };
  const auto k = last_fitting(1, a.limit / step, [&](std::int64_t x) { return total(x) <= capacity; });
  const std::string what = spec.train() ? "sequence" : "context";
  const std::string at = " at micro-batch " + std::to_string(s.batch);
  if (!k) {
    a.message = "even a " + what + " of " + std::to_string(step) + " token" + (step == 1 ? "" : "s") + " does not fit" +
                at + " (" + in_units(total(1) - capacity, spec.units) + " over)";
    return a;
  }
  const std::int64_t q = *k * step;
  a.found = true;
  a.value = q;
  a.at_limit = *k == a.limit / step;
  a.total_bytes = total(*k);
  a.delta = {{"seq", std::to_string(q)}};
  a.message = "longest " + what + " that fits: " + std::to_string(q) + " tokens" + at +
              (a.at_limit ? " (the setting's maximum)" : "");
  return a;
}

}  // namespace

solve_result solve(const run_spec& spec) {
  const estimate_result now = estimate(spec);
  solve_result r;
  r.fits = now.fits;
  r.total_bytes = now.total_bytes;
  r.gpu_memory_bytes = now.gpu_memory_bytes;
  r.headroom_bytes = now.gpu_memory_bytes - now.total_bytes;
  r.min_devices =
      spec.train() ? solve_devices(spec, now.gpu_memory_bytes) : solve_devices_inference(spec, now.gpu_memory_bytes);
  r.max_batch = solve_batch(spec, now.gpu_memory_bytes);
  r.max_seq = solve_seq(spec, now.gpu_memory_bytes);
  return r;
}

solve_answer solve_min_devices(const run_spec& spec) {
  const double capacity = spec.values.gpu_memory;  // estimate()'s gpu_memory_bytes
  return spec.train() ? solve_devices(spec, capacity) : solve_devices_inference(spec, capacity);
}

result<solve_result> solve(const settings& explicit_values, const settings& config) {
  auto spec = resolve(explicit_values, config);
  if (!spec.ok()) return spec.errors();
  return solve(spec.value());
}

}  // namespace llm_memory
