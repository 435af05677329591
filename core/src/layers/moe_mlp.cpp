// SPDX-License-Identifier: MIT
// The mixture-of-experts MLP: num_experts routed MLPs (num_experts_per_tok per token), shared experts every token
// passes through, and the router. Formulas: docs/models.md (parameters), docs/methodology.md (activations).
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

// The routed experts' inner width: moe_intermediate_size, or intermediate_size when 0.
double expert_inner(const setting_values& s) {
  return static_cast<double>(s.moe_intermediate_size > 0 ? s.moe_intermediate_size : s.intermediate_size);
}

// The shared experts' inner width together: shared_expert_intermediate_size, or n_shared_experts x the expert's.
double shared_inner(const setting_values& s) {
  return s.shared_expert_intermediate_size > 0 ? static_cast<double>(s.shared_expert_intermediate_size)
                                               : static_cast<double>(s.n_shared_experts) * expert_inner(s);
}

// The routed experts' input and output width: moe_latent_size under LatentMoE, else hidden_size.
double expert_width(const setting_values& s, const model_spec& m) {
  return s.moe_latent_size > 0 ? static_cast<double>(s.moe_latent_size) : m.hidden;
}

// LatentMoE (transformers models/nemotron_h NemotronHMoE, vLLM and SGLang nemotron_h.py): fc1_latent_proj (h -> L)
// feeds the routed experts, which work at width L, and fc2_latent_proj (L -> h) lifts their weighted sum back; the
// router and the shared expert read the full-width input. vLLM and SGLang build both projections as ReplicatedLinear
// (vllm/model_executor/models/nemotron_h.py NemotronHMoE, sglang python/sglang/srt/models/nemotron_h.py): tensor
// parallelism does not split them, every rank holds them whole (estimate/weights.cpp replicated).
void add_moe_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  add_mlp(s, m, layer, expert_width(s, m), expert_inner(s), static_cast<double>(s.num_experts), true);
  if (shared_inner(s) > 0) add_mlp(s, m, layer, m.hidden, shared_inner(s), 1, false);
  if (s.moe_latent_size > 0) {
    const auto latent = static_cast<double>(s.moe_latent_size);
    add_linear(layer, projection::fc1_latent_proj, m.hidden, latent, 1, s.mlp_bias);
    add_linear(layer, projection::fc2_latent_proj, latent, m.hidden, 1, s.mlp_bias);
  }
  // Router: one h-wide row per expert, plus DeepSeek-V3's per-expert score-correction bias and
  // Qwen2-MoE's h-wide shared_expert_gate (modeling_deepseek_v3.py, modeling_qwen2_moe.py).
  const auto experts = static_cast<double>(s.num_experts);
  layer.router = m.hidden * experts + (s.router_bias ? experts : 0) + (s.shared_expert_gate ? m.hidden : 0);
  const double per_expert = linear_params(layer, true) / static_cast<double>(s.num_experts);
  layer.routed_inactive = per_expert * static_cast<double>(s.num_experts - s.num_experts_per_tok);
}

// The router's input and fp32 probabilities, top-k experts' MLPs for each token, the shared experts' (which share
// the MLP input). LatentMoE: the experts' copies are of the L-wide latent, fc1_latent_proj reads the MLP input and
// fc2_latent_proj keeps its L-wide input (the experts' weighted sum) when it trains.
void moe_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const auto& s = c.s;
  const double T = c.tokens, h = c.m.hidden, B = c.act;
  const mlp_saving mlp = mlp_saving_of(c, layer);
  // The router keeps the MLP input when it trains (full fine-tuning), when peft's all-linear adapts an nn.Linear
  // router, or (bitsandbytes before 0.43.2) when it is a frozen 4-bit linear; a frozen Parameter router does not.
  const bool router_input =
      trains(c, layer, {projection::gate_proj, projection::up_proj, projection::fc1_latent_proj}) || !c.r.adapters() ||
      (!c.m.router_parameter && (c.r.lora_targets.is_all_linear() || c.r.frozen_linears_keep_input));
  const auto k = static_cast<double>(s.num_experts_per_tok);
  const double input = router_input ? B * T * h : 0;
  out.linear_terms += input + fp32_bytes * T * static_cast<double>(s.num_experts);  // input, router probs
  out.outside_tp += input + fp32_bytes * T * static_cast<double>(s.num_experts);    // the router is not tp
  const double width = expert_width(s, c.m);
  const mlp_saving routed =
      width == h
          ? mlp
          : mlp_saving{input_bytes(c, layer, {projection::gate_proj, projection::up_proj}, width), mlp.per_inner};
  out.linear_terms += routed.bytes(k * T, expert_inner(s));
  const double shared = shared_inner(s);
  if (shared > 0) out.linear_terms += mlp.bytes(T, shared) - T * mlp.input;  // shares the MLP input
  if (s.moe_latent_size > 0) {
    const double lifted = T * input_bytes(c, layer, {projection::fc2_latent_proj}, width);
    out.linear_terms += lifted;
    out.outside_tp += lifted;  // fc2_latent_proj is a ReplicatedLinear in vLLM and SGLang
  }
}

}  // namespace

const mlp_kind_def moe_mlp{mlp_kind::moe, "moe", add_moe_params, moe_saved};

}  // namespace llm_memory::detail
