// SPDX-License-Identifier: MIT
// Inference's buckets and report, each runtime's terms taken from its row in the table (runtimes/), and the parts
// the runtimes share. Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <cmath>

#include "estimate/stage.hpp"
#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {

namespace {

// Under overhead = factor the whole inference estimate is weights x factor (seed 2's rule): no other bucket.
bool factor_rule(const context& c) { return !c.train && c.r.overhead == overhead_mode::factor; }

}  // namespace

double mlp_inner(const context& c) {
  const auto& s = c.s;
  if (c.m.params.moe_layers() == 0) return c.m.intermediate;
  const auto inner = static_cast<double>(s.moe_intermediate_size > 0 ? s.moe_intermediate_size : s.intermediate_size);
  return static_cast<double>(s.num_experts_per_tok) * inner;
}

double chunk_tokens(const context& c) {
  return c.s.max_num_batched_tokens > 0 ? static_cast<double>(c.s.max_num_batched_tokens) : c.tokens;
}

// The layers whose kind keeps a state per sequence (layers/: a kind with state_bytes).
double recurrent_layers(const context& c) {
  double layers = 0;
  for (const layer_kind_def* kind : layer_kinds())
    if (kind->state_bytes != nullptr) layers += c.m.layers_of(kind->kind, c.layers_on_stage);
  return layers;
}

// Recurrent layers that also attend (layers/: a kind with attends) cache keys and values as well; KV-shared
// layers (Gemma 3n) read an earlier layer's cache and keep none.
double attention_layers(const context& c) {
  double both = 0;
  for (const layer_kind_def* kind : layer_kinds())
    if (kind->attends) both += c.m.layers_of(kind->kind, c.layers_on_stage);
  return c.layers_on_stage - recurrent_layers(c) + both - c.m.layers_of(layer_kind::none, c.layers_on_stage) -
         c.m.shared_layers_in(c.layers_on_stage);
}

double state_bytes_per_layer(const context& c) {
  double most = 0;
  for (const layer_kind_def* kind : layer_kinds())
    if (kind->state_bytes != nullptr && c.m.layers_of(kind->kind, c.layers_on_stage) > 0)
      most = std::max(most, kind->state_bytes(c));
  return most;
}

// Recurrent and MLP-only layers cache no token: only the attention layers count, the full-attention ones in their own
// heads' shape (Gemma 4's global heads; layers/attention.cpp).
double full_length_kv_bytes_per_token(const context& c) {
  const double kv = bytes_per_value(c.r.kv), L = attention_layers(c);
  if (c.m.mla) return L * static_cast<double>(c.s.kv_lora_rank + c.s.qk_rope_head_dim) * kv;
  const double standard = kv_heads_per_rank(c.m.kv_heads, c.s.tp) * c.m.head_dim;
  const double wider = kv_heads_per_rank(c.m.full_kv_heads, c.s.tp) * c.m.full_head_dim - standard;
  return L * 2 * standard * kv + c.m.cached_layers_of(layer_kind::attention, c.layers_on_stage) * 2 * wider * kv;
}

double kv_bytes_per_token(const context& c) { return c.s.sliding_window > 0 ? 0 : full_length_kv_bytes_per_token(c); }

double kv_bytes_per_request(const context& c) {
  const run_spec one = with_workload(c.r, 1, c.s.seq, c.s.devices);
  const context c1 = make_context(one, c.first_stage, c.last_stage, step_phase::inference);
  return kv_cache(c1).bytes;
}

builder workspace() { return {{"activations", "Activations", 0, "The runtime's transient workspace", "", {}}}; }

bucket device_kv(const context& c, double& /*cpu*/) { return kv_cache(c); }

void torch_overhead(const context& c, double allocated, double /*weights*/, builder& over) {
  const setting_values& s = c.s;
  over.add("CUDA context and framework", s.cuda_context, "cuda_context setting");
  over.add("allocator fragmentation reserve", allocated * s.fragmentation / 100,
           n(s.fragmentation) + " % of " + n(allocated) + " B");
}

bucket activations_inference(const context& c) {
  if (factor_rule(c)) {
    builder out = workspace();
    out.b.assumes = "overhead = factor: the whole estimate is weights x overhead_factor (seed 2's rule)";
    return std::move(out.b);
  }
  return runtime_of(c.r.runtime).activations(c);
}

bucket inference_kv(const context& c, double& cpu) {
  if (factor_rule(c))
    return {"kv_cache",
            "KV cache",
            0,
            "Keys and values of every cached token",
            "overhead = factor: the whole estimate is weights x overhead_factor (seed 2's rule)",
            {}};
  return runtime_of(c.r.runtime).kv(c, cpu);
}

void runtime_overhead(const context& c, double allocated, double weights, builder& over) {
  runtime_of(c.r.runtime).overhead(c, allocated, weights, over);
}

runtime_report report_runtime(const context& c, const estimate_result& r, std::vector<std::string>& notes) {
  runtime_report out;
  out.name = c.r.runtime;
  const runtime_def& rt = runtime_of(c.r.runtime);
  const runtime_term weights{"weights", r.buckets[0].bytes, "parameters bucket"};
  if (rt.report != nullptr) rt.report(c, weights, out, notes);
  if (rt.pooled_kv && out.kv_capacity_tokens > 0 && out.kv_capacity_tokens < c.tokens)
    notes.push_back("the KV cache holds " + std::to_string(static_cast<std::int64_t>(out.kv_capacity_tokens)) +
                    " tokens, fewer than batch x seq = " + n(c.tokens));
  if (c.s.max_position_embeddings > 0 && c.s.seq > c.s.max_position_embeddings)
    notes.push_back("seq " + std::to_string(c.s.seq) + " exceeds the model's max_position_embeddings " +
                    std::to_string(c.s.max_position_embeddings) +
                    ": runtimes refuse a longer context unless rope scaling extends it");
  return out;
}

}  // namespace llm_memory::detail
