// SPDX-License-Identifier: MIT
#include "llm_memory/advise.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "frameworks/framework_def.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory {
namespace {

// A knob moved one step, before it is re-estimated.
struct candidate {
  std::string id;
  std::string name;
  settings delta;
  std::string note;
};

std::string str(std::int64_t v) { return std::to_string(v); }

// The throughput cost of each knob, as a tier (docs/solve-and-advise.md, "Cheapest combination"): 0 none or a
// speed-up (FlashAttention, fused cross-entropy, ZeRO-1/2's traffic equals DDP's, sequence parallelism replaces
// tp's all-reduce by a reduce-scatter + all-gather of the same volume, fp32 -> bf16), 1 small (8-bit AdamW,
// ZeRO-3's 1.5x traffic, half the micro-batch at the same effective batch, 8-bit weights or KV cache), 2
// moderate or a change of what trains (full recomputation: one more forward, about +33 % compute; LoRA/QLoRA;
// another optimizer; 4-bit weights), 3 large or a change of the workload (CPU offload over PCIe, shorter
// sequences, 4-bit KV cache). Knobs that add devices are tier 1: they are searched only after every
// same-hardware combination.
int throughput_tier(std::string_view id) {
  static constexpr std::array<std::pair<std::string_view, int>, 23> tiers = {{
      {"flash", 0},
      {"fused_ce", 0},
      {"sequence_parallel", 0},
      {"weights_16bit", 0},
      {"zero", 0},
      {"optimizer_8bit", 1},
      {"half_batch", 1},
      {"weights_8bit", 1},
      {"kv_8bit", 1},
      {"add_devices_zero3", 1},
      {"devices_x2", 1},
      {"tp_x2", 1},
      {"pp_x2", 1},
      {"recompute", 2},
      {"lora", 2},
      {"qlora", 2},
      {"one_moment", 2},
      {"adafactor", 2},
      {"weights_4bit", 2},
      {"offload_optimizer", 3},
      {"offload_params", 3},
      {"half_seq", 3},
      {"kv_4bit", 3},
  }};
  for (const auto& [key, tier] : tiers)
    if (key == id) return tier;
  return 3;
}

// Whether two deltas set a common key (such knobs are alternatives: never combined).
bool overlaps(const settings& a, const settings& b) {
  return std::any_of(a.begin(), a.end(), [&](const auto& kv) { return b.contains(kv.first); });
}

// Every combination of `size` knobs (indices ascending) whose deltas share no key and that passes `keep`.
template <class Keep>
void combinations(const std::vector<combination_knob>& knobs, std::size_t size, std::vector<std::size_t>& at,
                  std::size_t from, const Keep& keep, std::vector<std::vector<std::size_t>>& out) {
  if (at.size() == size) {
    if (keep(at)) out.push_back(at);
    return;
  }
  for (std::size_t i = from; i < knobs.size(); ++i) {
    if (std::any_of(at.begin(), at.end(), [&](std::size_t j) { return overlaps(knobs[i].delta, knobs[j].delta); }))
      continue;
    at.push_back(i);
    combinations(knobs, size, at, i + 1, keep, out);
    at.pop_back();
  }
}

int cost_of(const std::vector<combination_knob>& knobs, const std::vector<std::size_t>& set) {
  int cost = 0;
  for (const std::size_t i : set) cost += knobs[i].tier;
  return cost;
}

settings merged(const std::vector<combination_knob>& knobs, const std::vector<std::size_t>& set) {
  settings delta;
  for (const std::size_t i : set)
    for (const auto& [key, value] : knobs[i].delta) delta[key] = value;
  return delta;
}

// One size of one pass: the combinations by cost (stable: table order among equals); the first that fits sets
// the cost, and the smallest total among those of that cost wins. Returns whether one was found.
bool search_size(const std::vector<combination_knob>& knobs, std::vector<std::vector<std::size_t>> sets,
                 const combination_evaluator& evaluate, std::size_t max_evaluations, knob_combination& out) {
  std::stable_sort(sets.begin(), sets.end(),
                   [&](const auto& a, const auto& b) { return cost_of(knobs, a) < cost_of(knobs, b); });
  const std::vector<std::size_t>* best = nullptr;
  combination_outcome best_outcome;
  for (const auto& set : sets) {
    if (best != nullptr && cost_of(knobs, set) > cost_of(knobs, *best)) break;
    if (out.evaluated >= max_evaluations) break;
    ++out.evaluated;
    const auto outcome = evaluate(merged(knobs, set));
    if (!outcome || !outcome->fits) continue;
    if (best == nullptr || outcome->total_bytes < best_outcome.total_bytes) best = &set, best_outcome = *outcome;
  }
  if (best == nullptr) return false;
  out.found = true;
  out.delta = merged(knobs, *best);
  out.cost = cost_of(knobs, *best);
  out.total_bytes = best_outcome.total_bytes;
  out.cpu_bytes = best_outcome.cpu_bytes;
  for (const std::size_t i : *best) {
    out.ids.push_back(knobs[i].id);
    out.names.push_back(knobs[i].name);
    if (knobs[i].delta.contains("devices")) out.same_hardware = false;
  }
  return true;
}

// What the run is, the one rule every knob below is offered by: a training step moves the settings the table reads
// in training (the optimizer, LoRA, offload, ZeRO, ...); evaluation (mode eval) is a framework's forward pass under
// the engine the run states (its ZeRO stage held, as the device search holds it: searched_zero_stages), which reads
// none of the others, nor a runtime's KV cache or formats: its knobs are those
// of a forward pass (devices, the split, fp32 -> bf16, attention, batch, context; recomputation when it keeps its
// graph for gradients, eval_grad); serving is a runtime's (formats, the KV cache).
enum class pass_kind : std::uint8_t { training, evaluation, serving };

pass_kind pass_of(const run_spec& spec) {
  if (!spec.train()) return pass_kind::serving;
  return spec.eval() ? pass_kind::evaluation : pass_kind::training;
}

bool trains(const run_spec& spec) { return pass_of(spec) == pass_kind::training; }

bool is_16bit(dtype d) { return d == dtype::bf16 || d == dtype::fp16; }
bool is_8bit(dtype d) { return d == dtype::int8 || d == dtype::fp8 || d == dtype::q8_0; }

std::int64_t max_of(std::string_view key) { return static_cast<std::int64_t>(find_setting(key)->max_value); }

// The framework's next ZeRO stage above the run's (frameworks/<name>.cpp zero_stages), or the run's own at the last.
std::int64_t next_stage(const run_spec& spec) {
  for (const std::int64_t stage : detail::framework_of(spec.framework).zero_stages)
    if (stage > spec.values.zero) return stage;
  return spec.values.zero;
}

bool offers_zero3(const run_spec& spec) {
  const auto stages = detail::framework_of(spec.framework).zero_stages;
  return std::find(stages.begin(), stages.end(), 3) != stages.end();
}

// Parallelism: shard over more data-parallel devices, or split the layers with tensor or pipeline parallelism.
void parallelism_knobs(const run_spec& spec, std::vector<candidate>& out) {
  const setting_values& s = spec.values;
  const bool train = trains(spec);
  const std::int64_t devices = s.devices, dp = spec.data_parallel;
  const bool can_double_devices = 2 * devices <= max_of("devices");
  // The next stage the framework offers (its row's zero_stages): FSDP-style frameworks go 0 -> 3 at once.
  const std::int64_t next_zero = next_stage(spec);
  if (train && next_zero > s.zero && dp > 1)
    out.push_back({"zero",
                   "ZeRO stage " + str(s.zero) + " -> " + str(next_zero),
                   {{"zero", str(next_zero)}},
                   "shards over the " + str(dp) +
                       " data-parallel devices: stage 1 the optimizer state, 2 also the "
                       "gradients, 3 also the parameters"});
  // ZeRO shards training state; in inference more devices without a stated split would take the runtime's
  // default tensor-parallel split (resolve.cpp default_split), which the tp and pp knobs below name themselves.
  if (train && s.zero < 3 && offers_zero3(spec) && dp == 1 && can_double_devices)
    out.push_back({"add_devices_zero3",
                   "2x devices with ZeRO-3 (" + str(devices) + " -> " + str(2 * devices) + ")",
                   {{"devices", str(2 * devices)}, {"zero", "3"}},
                   "ZeRO needs more than one data-parallel device; ZeRO-3 (FSDP) shards parameters, gradients and "
                   "optimizer state"});
  if (can_double_devices) {
    settings more{{"devices", str(2 * devices)}};
    // Data-parallel as it says: in inference the split is stated, else the default split would take the devices.
    if (!train) more.insert({{"tp", str(s.tp)}, {"pp", str(s.pp)}});
    out.push_back({"devices_x2", "2x devices, data-parallel (" + str(devices) + " -> " + str(2 * devices) + ")",
                   std::move(more), "ZeRO stage " + str(s.zero) + " unchanged"});
  }
  if (can_double_devices && 2 * s.tp <= max_of("tp"))
    out.push_back({"tp_x2",
                   "tensor parallel " + str(s.tp) + " -> " + str(2 * s.tp) + " (devices " + str(devices) + " -> " +
                       str(2 * devices) + ")",
                   {{"tp", str(2 * s.tp)}, {"devices", str(2 * devices)}},
                   "the data-parallel degree stays " + str(dp)});

  if (can_double_devices && 2 * s.pp <= std::min(max_of("pp"), s.num_hidden_layers))
    out.push_back({"pp_x2",
                   "pipeline stages " + str(s.pp) + " -> " + str(2 * s.pp) + " (devices " + str(devices) + " -> " +
                       str(2 * devices) + ")",
                   {{"pp", str(2 * s.pp)}, {"devices", str(2 * devices)}},
                   "each stage holds half the layers; 1F1B keeps up to pp micro-batches in flight on the first"});
  if (train && s.tp > 1 && !s.sequence_parallel)
    out.push_back({"sequence_parallel",
                   "sequence parallelism on (tp " + str(s.tp) + ")",
                   {{"sequence_parallel", "on"}},
                   "splits the norms, dropouts and layer inputs over the sequence as well (Megatron "
                   "--sequence-parallel); same devices"});
}

// CPU offload, only as the framework runs it (its row's `offloads`, frameworks/<name>.cpp): the optimizer state alone
// from the least ZeRO stage that offloads it (DeepSpeed's offload_optimizer needs stage 1: the knob raises the stage
// with it), the parameters too at ZeRO-3 (DeepSpeed's offload_param, FSDP's CPUOffloadPolicy).
void offload_knobs(const run_spec& spec, std::vector<candidate>& out) {
  const setting_values& s = spec.values;
  if (!trains(spec)) return;
  const detail::offload_support& runs = detail::framework_of(spec.framework).offloads;
  const std::int64_t stage = std::max(s.zero, runs.optimizer_from_zero);
  if (spec.offload == offload_target::none && detail::runs_offload(spec.framework, offload_target::optimizer, stage)) {
    settings delta{{"offload", "optimizer"}};
    std::string name = "offload optimizer state to CPU";
    if (stage != s.zero) {
      delta.emplace("zero", str(stage));
      name += " (ZeRO " + str(s.zero) + " -> " + str(stage) + ")";
    }
    out.push_back({"offload_optimizer", std::move(name), std::move(delta),
                   "moves it to CPU RAM; the optimizer step runs on the CPU (ZeRO-Offload)"});
  }
  if (s.zero == 3 && spec.offload != offload_target::optimizer_and_params &&
      detail::runs_offload(spec.framework, offload_target::optimizer_and_params, 3))
    out.push_back({"offload_params",
                   "offload optimizer state and parameters to CPU",
                   {{"offload", "optimizer+params"}},
                   "ZeRO-3 / FSDP CPU offload of the parameter shards too"});
}

// Training: activation checkpointing, the optimizer, trainable parameters, the loss, offload.
void training_knobs(const run_spec& spec, const settings& explicit_values, std::vector<candidate>& out) {
  const setting_values& s = spec.values;
  const bool train = trains(spec);
  // Moved as far as it goes: full recomputation keeps only the layer inputs. An evaluation that keeps its graph for
  // gradients (eval_grad) saves what training saves, so recomputation moves it too.
  const bool saves_graph = train || (pass_of(spec) == pass_kind::evaluation && s.eval_grad);
  if (saves_graph && spec.recompute != recompute_policy::full)
    out.push_back({"recompute",
                   "recompute " + s.recompute + " -> full",
                   {{"recompute", "full"}},
                   "costs one extra forward pass in the backward pass"});
  if (train && spec.finetune != finetune_method::qlora) {
    // All linear layers at rank 16 unless the user chose modules: the QLoRA paper (Dettmers et al. 2023) found
    // adapting every linear layer necessary to match full fine-tuning.
    const std::string targets = spec.finetune == finetune_method::lora || explicit_values.contains("lora_targets")
                                    ? s.lora_targets
                                    : "all-linear";
    const std::string rank = str(s.lora_rank);
    const std::string adapters = "rank " + rank + " on " + targets;
    if (!spec.adapters())
      out.push_back({"lora",
                     "full fine-tune -> LoRA (" + adapters + ")",
                     {{"finetune", "lora"}, {"lora_rank", rank}, {"lora_targets", targets}},
                     "trains adapters only; the " + s.weights_dtype + " base is frozen"});
    out.push_back({"qlora",
                   s.finetune + " -> QLoRA (" + adapters + ")",
                   {{"finetune", "qlora"}, {"weights_dtype", "nf4"}, {"lora_rank", rank}, {"lora_targets", targets}},
                   "NF4 4-bit frozen base + 16-bit adapters"});
  }
  if (train && spec.optimizer == optimizer_kind::adamw) {
    out.push_back({"optimizer_8bit",
                   "AdamW -> 8-bit AdamW",
                   {{"optimizer", "adamw_8bit"}},
                   "bitsandbytes block-wise 8-bit moments"});
    out.push_back({"one_moment",
                   "AdamW -> Lion (one moment, as SGD with momentum)",
                   {{"optimizer", "lion"}},
                   "one momentum buffer instead of two (Chen et al. 2023); usually needs a smaller learning rate"});
  }
  if (train && (spec.optimizer == optimizer_kind::adamw || spec.optimizer == optimizer_kind::adamw_8bit))
    out.push_back({"adafactor",
                   s.optimizer + " -> Adafactor",
                   {{"optimizer", "adafactor"}},
                   "factored second moment, no first moment"});
  if (train && !s.fused_ce)
    out.push_back({"fused_ce",
                   "fused cross-entropy on",
                   {{"fused_ce", "on"}},
                   "Liger / Cut Cross-Entropy kernels: the logits are never materialised"});
  offload_knobs(spec, out);
}

// What training on bf16 weights keeps: mixed precision's fp32 master copy, or, where the profile trains a 16-bit load
// pure (the HF Trainer: frameworks/hf.cpp), none.
std::string sixteen_bit_note(const run_spec& spec) {
  const auto varied = vary(spec, {{"weights_dtype", "bf16"}});
  if (varied.ok() && !varied.value().values.master_weights && spec.values.master_weights)
    return "pure bf16: no fp32 master copy, the optimizer states in bf16";
  return "mixed precision: an fp32 master copy joins the optimizer state";
}

// The runtime loads a GGUF conversion (llama.cpp, Ollama: runtime_def::converts_checkpoint), so its formats are
// llama.cpp's file types and cache types.
bool gguf_runtime(const run_spec& spec) {
  return !spec.train() && detail::runtime_of(spec.runtime).converts_checkpoint;
}

// The device has FP8 tensor cores (its preset's fp8_flops; Hopper, Ada, Blackwell, MI300): where vLLM, SGLang and
// TGI run FP8 checkpoints natively.
bool fp8_device(const run_spec& spec) {
  const gpu_preset* gpu = find_gpu(spec.values.gpu);
  return gpu != nullptr && gpu->fp8_flops > 0;
}

// The 8-bit and 4-bit formats the stack runs: GGUF Q8_0 / Q4_K_M for llama.cpp and Ollama; FP8 (on an FP8 device)
// and AWQ for the engines that split tensors (vLLM, SGLang, TGI: runtime_def::splits); else bitsandbytes int8 / NF4.
std::pair<std::string, std::string> weight_formats(const run_spec& spec) {
  if (gguf_runtime(spec)) return {"q8_0", "q4_k_m"};
  const bool engine = !spec.train() && detail::runtime_of(spec.runtime).splits != detail::device_split::layers;
  if (engine) return {fp8_device(spec) ? "fp8" : "int8", "awq"};
  return {"int8", "nf4"};
}

// Weights: one step down 32 -> 16 -> 8 -> 4 bit. Quantised bases serve inference or a frozen LoRA base.
void weight_knobs(const run_spec& spec, std::vector<candidate>& out) {
  const setting_values& s = spec.values;
  const bool train = trains(spec);
  // A quantised base serves inference or is a frozen LoRA base; evaluation scores the model as loaded.
  const bool frozen_or_served =
      pass_of(spec) == pass_kind::serving || (train && spec.finetune == finetune_method::lora);
  const auto [eight, four] = weight_formats(spec);
  if (spec.weights == dtype::fp32)
    out.push_back({"weights_16bit",
                   "weights fp32 -> bf16",
                   {{"weights_dtype", "bf16"}},
                   train                                    ? sixteen_bit_note(spec)
                   : pass_of(spec) == pass_kind::evaluation ? "the forward pass reads 16-bit weights"
                                                            : ""});
  if (frozen_or_served && is_16bit(spec.weights))
    out.push_back({"weights_8bit",
                   "weights " + s.weights_dtype + " -> " + eight,
                   {{"weights_dtype", eight}},
                   eight == "int8" ? "8-bit weight-only quantisation" : "an 8-bit checkpoint the runtime loads"});
  if (frozen_or_served && is_8bit(spec.weights))
    out.push_back({"weights_4bit",
                   "weights " + s.weights_dtype + " -> " + four,
                   {{"weights_dtype", four}},
                   four == "nf4" ? "bitsandbytes 4-bit: 4.5 bits per weight with the block scales"
                                 : "a 4-bit checkpoint the runtime loads"});
}

// Attention, sequences and the KV cache.
void workload_knobs(const run_spec& spec, std::vector<candidate>& out) {
  const setting_values& s = spec.values;
  const bool train = trains(spec);
  if (spec.attention != attention_kernel::flash)
    out.push_back(
        {"flash", "attention " + s.attention + " -> flash", {{"attention", "flash"}}, "no seq^2 scores are stored"});
  if (train && s.batch >= 2 && s.batch % 2 == 0 && 2 * s.grad_accum <= max_of("grad_accum"))
    out.push_back({"half_batch",
                   "micro-batch " + str(s.batch) + " -> " + str(s.batch / 2) + ", grad_accum " + str(s.grad_accum) +
                       " -> " + str(2 * s.grad_accum),
                   {{"batch", str(s.batch / 2)}, {"grad_accum", str(2 * s.grad_accum)}},
                   "effective batch unchanged; more steps per optimizer update"});
  const bool eval = pass_of(spec) == pass_kind::evaluation;
  if (!train && s.batch >= 2)
    out.push_back({"half_batch",
                   "batch " + str(s.batch) + " -> " + str(s.batch / 2),
                   {{"batch", str(s.batch / 2)}},
                   eval ? "fewer sequences per forward pass" : "fewer sequences served at once"});
  if (s.seq >= 2)
    out.push_back({"half_seq",
                   "sequence " + str(s.seq) + " -> " + str(s.seq / 2) + " tokens",
                   {{"seq", str(s.seq / 2)}},
                   train  ? "trains on shorter contexts"
                   : eval ? "evaluates shorter contexts"
                          : "holds a shorter context"});
  if (pass_of(spec) == pass_kind::serving) {
    // The runtime's own cache types: llama.cpp's -ctk/-ctv q8_0 and q4_0 (a quantized V cache needs -fa on,
    // runtimes/llamacpp.cpp check), the engines' fp8 and int4.
    const bool gguf = gguf_runtime(spec);
    const double kv = bytes_per_value(spec.kv);
    const auto kv_knob = [&](const char* id, const std::string& type, const char* note) {
      settings delta{{"kv_dtype", type}};
      if (gguf && spec.attention != attention_kernel::flash) delta.emplace("attention", "flash");
      out.push_back({id, "KV cache " + s.kv_dtype + " -> " + type, std::move(delta), note});
    };
    if (kv >= 2)
      kv_knob("kv_8bit", gguf ? "q8_0" : "fp8", "8-bit KV-cache quantisation");
    else if (kv >= 1)
      kv_knob("kv_4bit", gguf ? "q4_0" : "int4", "4-bit KV-cache quantisation");
  }
}

// Every knob of the design's table that applies to `spec`, moved one step from where it is; each family offers a knob
// only where the run's pass reads what it moves (pass_of: training, evaluation, serving).
std::vector<candidate> knobs_for(const run_spec& spec, const settings& explicit_values) {
  std::vector<candidate> out;
  parallelism_knobs(spec, out);
  training_knobs(spec, explicit_values, out);
  weight_knobs(spec, out);
  workload_knobs(spec, out);
  return out;
}

// The knobs that save memory on their own, in table order, for the combination search.
std::vector<combination_knob> combination_pool(const std::vector<knob_advice>& table) {
  std::vector<combination_knob> pool;
  for (const auto& k : table)
    if (k.saved_bytes > 0) pool.push_back({k.id, k.name, k.delta, k.tier});
  return pool;
}

}  // namespace

knob_combination cheapest_combination(const std::vector<combination_knob>& knobs, const combination_evaluator& evaluate,
                                      std::size_t max_knobs, std::size_t max_evaluations) {
  knob_combination out;
  out.searched = true;
  out.max_knobs = max_knobs;
  const auto adds = [&](std::size_t i) { return knobs[i].delta.contains("devices"); };
  for (const bool more_devices : {false, true}) {
    const auto keep = [&](const std::vector<std::size_t>& set) {
      return std::any_of(set.begin(), set.end(), adds) == more_devices;
    };
    for (std::size_t size = 1; size <= max_knobs; ++size) {
      std::vector<std::vector<std::size_t>> sets;
      std::vector<std::size_t> at;
      combinations(knobs, size, at, 0, keep, sets);
      if (search_size(knobs, std::move(sets), evaluate, max_evaluations, out)) return out;
    }
  }
  return out;
}

namespace {

// The run with `delta` applied (vary(): the GGUF file and the profile follow), estimated; the error a knob gives
// when the settings refuse it or its bytes pass what the estimate counts exactly.
result<estimate_result> estimate_with(const run_spec& spec, const settings& delta) {
  const auto varied = vary(spec, delta);
  if (!varied.ok()) return varied.errors();
  estimate_result r = estimate(varied.value());
  if (auto refused = beyond_exact_bytes(r)) return *refused;
  return r;
}

}  // namespace

advice_result advise(const run_spec& spec) {
  static const settings none;  // a run_spec built by hand has no recorded inputs
  const settings& explicit_values = spec.inputs ? spec.inputs->explicit_values : none;
  const estimate_result now = estimate(spec);
  advice_result out;
  out.total_bytes = now.total_bytes;
  out.gpu_memory_bytes = now.gpu_memory_bytes;
  out.fits = now.fits;
  const auto largest = std::max_element(now.buckets.begin(), now.buckets.end(),
                                        [](const bucket& a, const bucket& b) { return a.bytes < b.bytes; });
  if (largest != now.buckets.end()) out.largest_bucket = largest->key;

  for (auto& c : knobs_for(spec, explicit_values)) {
    const auto after = estimate_with(spec, c.delta);
    if (!after.ok()) {
      out.skipped.push_back({c.name, to_string(after.errors().front())});
      continue;
    }
    const estimate_result& r = after.value();
    knob_advice k{c.id,
                  c.name,
                  std::move(c.delta),
                  "",
                  {},
                  r.total_bytes,
                  now.total_bytes - r.total_bytes,
                  r.cpu_bytes,
                  r.fits,
                  std::move(c.note),
                  throughput_tier(c.id)};
    double best = 0;
    for (const auto& b : now.buckets) {
      const double before = b.bytes, later = r.bytes(b.key);
      if (before == later) continue;
      k.changes.push_back({b.key, before, later});
      if (before - later > best) {
        best = before - later;
        k.drains = b.key;
      }
    }
    if (k.changes.empty() && r.cpu_bytes == now.cpu_bytes) {
      out.skipped.push_back({k.name, "changes no bucket"});
      continue;
    }
    out.knobs.push_back(std::move(k));
  }
  if (!out.fits) {
    const combination_evaluator evaluate = [&](const settings& delta) -> std::optional<combination_outcome> {
      const auto r = estimate_with(spec, delta);
      if (!r.ok()) return std::nullopt;
      return combination_outcome{r.value().total_bytes, r.value().cpu_bytes, r.value().fits};
    };
    out.cheapest = cheapest_combination(combination_pool(out.knobs), evaluate);
  }
  // Knobs that keep the hardware first, then those that add devices; each group by bytes saved.
  std::stable_sort(out.knobs.begin(), out.knobs.end(), [&](const knob_advice& a, const knob_advice& b) {
    if (a.adds_devices() != b.adds_devices()) return !a.adds_devices();
    return a.saved_bytes > b.saved_bytes;
  });
  return out;
}

result<advice_result> advise(const settings& explicit_values, const settings& config) {
  auto spec = resolve(explicit_values, config);
  if (!spec.ok()) return spec.errors();
  return advise(spec.value());
}

}  // namespace llm_memory
