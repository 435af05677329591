// SPDX-License-Identifier: MIT
// The estimate of one resolved run (resolve.hpp): each pipeline stage and phase put together from its parts
// (estimate/: weights, activations, kv_cache, state, overhead, inference), and the largest reported. Every formula
// is documented, with its source, in docs/methodology.md.
#include "llm_memory/estimate.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "estimate/stage.hpp"
#include "formula_texts.hpp"
#include "frameworks/framework_def.hpp"
#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory {
namespace detail {

context make_context(const run_spec& r, bool first, bool last, step_phase phase) {
  const setting_values& s = r.values;
  context c{r, s, r.model};
  c.train = r.train();
  c.eval = r.eval();
  c.t = static_cast<double>(s.tp);
  c.dp = static_cast<double>(r.data_parallel);
  c.layers_on_stage = std::ceil(static_cast<double>(r.model.layers) / static_cast<double>(s.pp));
  c.first_stage = first;
  c.last_stage = last;
  c.in_flight =
      c.train && !c.eval && first ? std::min(static_cast<double>(s.pp), static_cast<double>(s.grad_accum)) : 1;
  c.act = r.activation_bytes;
  // Context parallelism (training): each device computes seq / cp tokens of every sequence.
  c.cp = c.train ? static_cast<double>(s.cp) : 1;
  c.tokens = r.tokens / c.cp;
  c.phase = phase;
  return c;
}

namespace {

/// The buckets of one stage whose code is a training run's: each filled by training, left empty (or computed the
/// runtime's way) by inference.
struct stage_buckets {
  bucket gradients;    ///< gradients [bytes per device]
  bucket optimizer;    ///< optimizer state and master weights [bytes per device]
  bucket activations;  ///< saved or transient activations [bytes per device]
};

stage_buckets inference_buckets(const context& c, const state_layout&, tally&) {
  return {no_gradients(), no_optimizer_state(), activations_inference(c)};
}

// Named so that the page's first part leaves training's buckets to its rest (scripts/split-wasm.mjs
// RUNTIME_ROWS): the start page and the usual link are inference, and the row is reached through stage_rows only.
inline namespace rest_rows {

stage_buckets training_buckets(const context& c, const state_layout& l, tally& t) {
  bucket gradients = gradients_bucket(c, l, t);
  bucket optimizer = optimizer_bucket(c, l, t);
  return {std::move(gradients), std::move(optimizer),
          c.eval && !c.s.eval_grad ? activations_eval(c) : activations_train(c)};
}

}  // namespace rest_rows

using stage_row = stage_buckets (*)(const context&, const state_layout&, tally&);

// One row per step_phase, in its order: every phase of a training step, then inference. A table rather than a
// branch, so that LTO keeps training's code apart from the inference path (scripts/split-wasm.mjs).
constexpr std::array<stage_row, 7> stage_rows = {training_buckets, training_buckets, training_buckets, training_buckets,
                                                 training_buckets, training_buckets, inference_buckets};
static_assert(static_cast<std::size_t>(step_phase::inference) == stage_rows.size() - 1);

}  // namespace

}  // namespace detail

namespace {

using namespace detail;

// What evaluation assumes (transformers v4.54.0 trainer.py: evaluation_loop / prediction_step).
void eval_notes(const run_spec& r, std::vector<std::string>& notes) {
  notes.emplace_back(
      "eval: one forward pass as the HF Trainer's prediction_step runs it (model(**inputs) with labels, "
      "use_cache=False as training; no gradients, optimizer state or KV cache)" +
      std::string(r.values.eval_grad ? "; eval_grad on: the saved activations training holds, no backward"
                                     : " under torch.no_grad: one layer's transients at a time"));
  notes.emplace_back(
      "eval: the Trainer gathers every batch's logits on the GPU unless prediction_loss_only or "
      "eval_accumulation_steps is set; one batch is estimated");
  if (r.values.finetune != "full") notes.emplace_back("finetune is ignored for eval: the model is estimated as loaded");
}

std::vector<std::string> stage_notes(const context& c) {
  const run_spec& r = c.r;
  const setting_values& s = c.s;
  std::vector<std::string> notes;
  // What config.json's reader assumed (an unknown model_type, towers left out) comes first.
  if (!s.model_notes.empty()) notes.push_back(s.model_notes);
  if (!c.train && s.num_kv_shared_layers > 0)
    notes.push_back("the last " + std::to_string(s.num_kv_shared_layers) +
                    " layers reuse an earlier layer's keys and values (num_kv_shared_layers): they keep no KV cache");
  if (!c.train && r.adapters())
    notes.emplace_back("finetune is ignored for inference: the base weights are estimated as stored");
  if (c.eval) eval_notes(r, notes);
  if (c.train && r.adapters() && s.trainable_params != 1)
    notes.emplace_back("trainable_params is ignored with LoRA: the adapters' shapes give the trainable count");
  if (c.train && !c.eval && s.pp > 1 && s.grad_accum < s.pp)
    notes.push_back("pp > grad_accum: the 1F1B pipeline is not full (" + std::to_string(s.grad_accum) + " of " +
                    std::to_string(s.pp) + " micro-batches in flight)");
  if (c.train && s.max_position_embeddings > 0 && s.seq > s.max_position_embeddings)
    notes.push_back("seq " + std::to_string(s.seq) + " exceeds the model's max_position_embeddings " +
                    std::to_string(s.max_position_embeddings) +
                    " (its trained length): training longer sequences needs rope scaling or a larger position table");
  if (s.params > 0 && r.quantised())
    notes.emplace_back("params overrides the architecture: embeddings and norms are still taken from the architecture");
  if (!c.train && c.m.mla)
    notes.emplace_back("MLA cache as vLLM/SGLang store it (the latent); eager Hugging Face caches full K/V");
  const framework_def& framework = framework_of(r.framework);
  if (c.train && framework.notes != nullptr) framework.notes(r, notes);
  // An offload the framework's own code does not run (its row's `offloads`): said, and estimated as stated.
  if (c.train && !c.eval && !runs_offload(r.framework, r.offload, s.zero))
    notes.push_back("offload " + s.offload + ": framework " + s.framework + " does not run it at ZeRO " +
                    std::to_string(s.zero) + " (docs/methodology.md, \"CPU offload\"); estimated as stated");
  if (c.phased() && s.fragmentation != detail::default_values().fragmentation)
    notes.emplace_back("fragmentation is ignored by the phase model: allocator_reserve sets the allocator's reserve");
  if (info(r.weights).family == dtype_family::gguf_mix)
    notes.emplace_back(
        "GGUF mix typed tensor by tensor as llama.cpp's quantiser does (llama_tensor_get_type), the file made with "
        "an importance matrix; Falcon's own rules are not modelled");
  const runtime_def& rt = runtime_of(r.runtime);
  if (!c.train && r.runtime_auto)
    notes.push_back("runtime auto: estimated as " + std::string(runtime_name(r.runtime)) +
                    std::string(rt.picked_because));
  if (!c.train && rt.notes != nullptr) rt.notes(c, notes);
  return notes;
}

// One stage in one phase. `with_run`: the result carries the run's settings and model (~50 strings and every layer
// group's linears); estimate() copies them into the stage it reports only, and a search reading totals not at all.
estimate_result estimate_stage(const run_spec& spec, bool first, bool last, step_phase phase, bool with_run) {
  const context c = make_context(spec, first, last, phase);
  const state_layout l = layout_state(c);
  estimate_result r;
  if (with_run) {
    r.settings = spec.values;
    r.model = spec.model;
  }
  r.params = spec.params;
  r.trainable_params = l.trainable_model;
  r.data_parallel = spec.data_parallel;
  r.effective_batch = spec.effective_batch;
  r.stage = spec.values.pp == 1 ? "only" : (first ? "first" : "last");
  tally t;
  bucket parameters = parameters_bucket(c, l, t);
  stage_buckets trained = stage_rows[static_cast<std::size_t>(phase)](c, l, t);
  // Moved in one by one (a braced list would copy each bucket and its items), in bucket_keys order.
  r.buckets.reserve(bucket_keys.size());
  r.buckets.push_back(std::move(parameters));
  r.buckets.push_back(std::move(trained.gradients));
  r.buckets.push_back(std::move(trained.optimizer));
  r.buckets.push_back(std::move(trained.activations));
  r.buckets.push_back(c.train ? kv_cache(c) : inference_kv(c, t.cpu));
  double tensors = 0;
  for (const auto& b : r.buckets) tensors += b.bytes;
  t.dynamic += c.train ? r.buckets[3].bytes : 0;
  r.buckets.push_back(overhead_bucket(c, l, t, tensors, r.buckets[0].bytes, r.peak));
  r.peak.phase = phase_name(phase);
  // What the framework's own log prints (docs/methodology.md, "Frameworks").
  r.peak.printed = c.train ? std::string(framework_of(spec.framework).printed) : "device";
  if (formula_texts_on()) r.notes = stage_notes(c);  // estimate_totals drops them: not written for a search
  r.inference = !c.train;
  if (r.inference) r.runtime = report_runtime(c, r, r.notes);
  r.total_bytes = r.peak.device;
  r.gpu_memory_bytes = spec.values.gpu_memory;
  r.cpu_bytes = t.cpu;
  // What is offloaded (llama.cpp's CPU layers, ZeRO-Offload's states) must fit in the host's RAM too.
  const double ram = spec.values.host_ram;
  r.fits_in_ram = ram <= 0 || r.cpu_bytes <= ram;
  r.fits = r.total_bytes <= r.gpu_memory_bytes && r.fits_in_ram;
  if (!r.fits_in_ram)
    r.notes.push_back("does not fit in RAM: " + detail::group_digits(r.cpu_bytes) +
                      " B offloaded to the host > host_ram " + detail::group_digits(ram) + " B");
  return r;
}

// The phases of a step for this run: one (the sum) for framework generic and for inference.
std::vector<step_phase> phases_of(const run_spec& spec) {
  if (!spec.train()) return {step_phase::inference};
  if (!spec.phased()) return {step_phase::sum};
  if (spec.eval()) return {step_phase::forward_end};  // no backward, no optimizer step
  std::vector<step_phase> out = {
      step_phase::forward_end, step_phase::backward_start,
      spec.recompute == recompute_policy::full ? step_phase::recompute : step_phase::backward_end};
  if (!spec.values.optimizer_in_backward) out.push_back(step_phase::optimizer_step);
  return out;
}

}  // namespace

double estimate_result::bytes(std::string_view bucket_key) const {
  for (const auto& b : buckets)
    if (b.key == bucket_key) return b.bytes;
  return 0;
}

std::string_view phase_name(step_phase phase) {
  switch (phase) {
    case step_phase::sum: return "sum";
    case step_phase::forward_end: return "forward_end";
    case step_phase::backward_start: return "backward_start";
    case step_phase::recompute: return "recompute";
    case step_phase::backward_end: return "backward_end";
    case step_phase::optimizer_step: return "optimizer_step";
    case step_phase::inference: return "inference";
  }
  return "sum";
}

namespace {

// Every stage and phase (estimate_stages); `with_run` as estimate_stage's.
std::vector<estimate_result> stages_of(const run_spec& spec, bool with_run) {
  std::vector<estimate_result> out;
  const std::vector<step_phase> phases = phases_of(spec);
  out.reserve(phases.size() * (spec.values.pp == 1 ? 1 : 2));  // a result moved on growth is ~50 strings
  for (const bool first : {true, false}) {
    if (!first && spec.values.pp == 1) break;
    for (const step_phase phase : phases)
      out.push_back(estimate_stage(spec, spec.values.pp == 1 || first, spec.values.pp == 1 || !first, phase, with_run));
  }
  return out;
}

// The largest stage and phase, with the reported stage's phases; `with_run`: its settings and model filled.
estimate_result estimate_run(const run_spec& spec, bool with_run) {
  if (!spec.train() && spec.values.pp == 1) {
    // One stage in one phase (phases_of: inference), estimated in place: no list of one, no move out of it.
    estimate_result r = estimate_stage(spec, true, true, step_phase::inference, with_run);
    r.phases = {{r.peak.phase, r.peak.allocated}};
    return r;
  }
  std::vector<estimate_result> all = stages_of(spec, false);
  std::size_t best = 0;
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].total_bytes > all[best].total_bytes) best = i;
  // The phases of the reported stage, for the output.
  const std::size_t per_stage = phases_of(spec).size(), from = best / per_stage * per_stage;
  std::vector<phase_bytes> phases;
  for (std::size_t i = from; i < from + per_stage; ++i) phases.push_back({all[i].peak.phase, all[i].peak.allocated});
  estimate_result r = std::move(all[best]);
  r.phases = std::move(phases);
  if (with_run) {
    r.settings = spec.values;
    r.model = spec.model;
  }
  return r;
}

}  // namespace

std::vector<estimate_result> estimate_stages(const run_spec& spec) { return stages_of(spec, true); }

estimate_result estimate(const run_spec& spec) { return estimate_run(spec, true); }

namespace detail {

estimate_result estimate_totals(const run_spec& spec, bool with_run) {
  const formula_texts_off off;
  estimate_result r = estimate_run(spec, with_run);
  // The texts made without their numbers are not kept.
  for (bucket& b : r.buckets)
    for (item& i : b.items) i.formula.clear();
  for (runtime_term& t : r.runtime.terms) t.formula.clear();
  r.notes.clear();
  return r;
}

}  // namespace detail

result<estimate_result> estimate(const settings& explicit_values, const settings& config) {
  auto spec = resolve(explicit_values, config);
  if (!spec.ok()) return spec.errors();
  estimate_result r = estimate(spec.value());
  if (auto refused = beyond_exact_bytes(r)) return *refused;
  return r;
}

}  // namespace llm_memory
