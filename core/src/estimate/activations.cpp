// SPDX-License-Identifier: MIT
// Activations: what training saves for backward (per layer kind, loss and logits paths, checkpoints) and the
// prefill of one forward pass.
// Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "estimate/stage.hpp"
#include "frameworks/framework_def.hpp"
#include "layers/layer_kinds.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {

namespace {

// Bytes per value of what one norm saves: its input; an upcasting norm (Hugging Face's eager RMSNorm) saves it
// cast to fp32, plus the normalised value cast back, which the weight multiply keeps only to compute the
// weight's gradient, so not under LoRA, where norms are frozen (measured: docs/validation.md).
double norm_saved_bytes(const context& c) {
  // Compiled, the fused norm saves its 16-bit input and recomputes the fp32 cast (the rstd is per token).
  if (!c.s.norm_upcast || c.r.compiled) return c.act;
  // The normalised value is multiplied by the weight in the weight's dtype: fp32 under autocast (8 B in all).
  return c.r.adapters() ? fp32_bytes : fp32_bytes + std::max(c.act, bytes_per_value(c.r.weights));
}

// Whether a linear's backward keeps its input: a trained weight or an adapter reads it (and, before bitsandbytes
// 0.43.2, every 4-bit linear kept it anyway).
bool keeps_input(const context& c, const linear_shape& l) {
  return !c.r.adapters() || c.r.lora_targets.contains(l.name) || c.r.frozen_linears_keep_input;
}

}  // namespace

// Whether any of `layer`'s linears with one of these names keeps its input.
bool trains(const context& c, const layer_params& layer, std::initializer_list<projection> names) {
  return std::any_of(layer.linears.begin(), layer.linears.end(), [&](const linear_shape& l) {
    return std::find(names.begin(), names.end(), l.name) != names.end() && keeps_input(c, l);
  });
}

// Saved copies of one input read by the linears `names`: one shared copy if any keeps it, or one per keeping linear
// (input_copies = per_linear); with LoRA dropout each adapter's site keeps a 1-byte mask and the dropped copy.
// Bytes per token.
double input_bytes(const context& c, const layer_params& layer, std::initializer_list<projection> names, double width) {
  double sites = 0, adapted = 0, base = 0;  // reading linears that keep it; with an adapter; whose own backward does
  for (const auto& l : layer.linears) {
    if (std::find(names.begin(), names.end(), l.name) == names.end() || !keeps_input(c, l)) continue;
    sites += 1;
    if (c.r.adapters() && c.r.lora_targets.contains(l.name)) adapted += 1;
    if (!c.r.adapters() || c.r.frozen_linears_keep_input) base += 1;
  }
  if (!c.r.per_linear_inputs)
    sites = std::min(sites, 1.0), adapted = std::min(adapted, 1.0), base = std::min(base, 1.0);
  // LoRA dropout: each adapter keeps a 1-byte mask and the dropped copy; the base keeps the undropped input only if
  // its own backward needs it.
  if (c.r.adapters() && c.s.lora_dropout > 0) return (adapted * (1 + c.act) + base * c.act) * width;
  return sites * c.act * width;
}

namespace {

// Whether o_proj's input, the attention's output, is kept: by the flash and memory-efficient kernels (their
// backward needs it) or by an o_proj that keeps its input.
bool keeps_attention_output(const context& c, const layer_params& layer) {
  const attention_kernel kernel = c.r.attention;
  return trains(c, layer, {projection::o_proj}) || kernel == attention_kernel::flash ||
         kernel == attention_kernel::sdpa || kernel == attention_kernel::sdpa_gqa;
}

// The scores of `scores` = heads x query length x key length x sequences: the materialising kernels keep them (and,
// with dropout, its mask and the dropped copy); the others keep a log-sum-exp per head and query token. Context
// parallelism keeps 1/cp of them: Ulysses a/cp heads over the whole sequence, ring s/cp queries.
void scores_saved(const context& c, double scores, layer_activations& out) {
  const double B = c.act;
  const double drop = c.s.dropout ? (1 + B) * scores : 0;
  if (c.r.attention == attention_kernel::standard)
    out.square_terms += (B * scores + drop) / c.cp;
  else if (c.r.attention == attention_kernel::eager)
    out.square_terms += (fp32_bytes * scores + (B < fp32_bytes ? B * scores : 0) + drop) / c.cp;
  else
    out.linear_terms += fp32_bytes * c.m.heads * c.tokens;
}

}  // namespace

// Attention: shared q/k/v input, q, k, v, the projection input, the output dropout mask, and the scores (s^2).
void attention_saved(const context& c, const layer_kind_def& kind, const layer_params& layer, layer_activations& out) {
  const auto& s = c.s;
  const auto& m = c.m;
  const double T = c.tokens, h = m.hidden, B = c.act;
  const double a = m.heads;
  const double b = static_cast<double>(s.batch), sq = static_cast<double>(s.seq);
  const bool drop = s.dropout;
  // The widths the layer's kind keeps (layers/): q, k, v, the output projection's input, and MLA's latents.
  const attention_widths w = kind.saved_widths(c);
  out.linear_terms += B * T * w.latent;
  // q, k and v are kept by the attention's own backward.
  const double qkv_input = T * input_bytes(c, layer,
                                           {projection::q_proj, projection::k_proj, projection::v_proj,
                                            projection::q_a_proj, projection::kv_a_proj_with_mqa},
                                           h);
  const bool o_input = keeps_attention_output(c, layer);
  out.linear_terms += qkv_input + B * T * (w.q + w.k + w.v + (o_input ? w.o : 0));
  out.outside_tp += qkv_input;
  if (m.choices.qk_norm != qk_norm_kind::none) out.linear_terms += B * T * (w.q + w.k);
  if (drop) out.linear_terms += T * h, out.outside_tp += T * h;
  scores_saved(c, a * sq * sq * b, out);
}

namespace {

// Saved-for-backward bytes of one layer for one micro-batch, before tensor parallelism.
// Autograd keeps a linear layer's input only to compute its weight's gradient (the input's gradient needs only
// the weight): under LoRA a frozen linear keeps its input only if it is adapted (lora_A needs the same input;
// lora_dropout = 0 assumed) or another op keeps that tensor anyway.
layer_activations layer_saved(const context& c, layer_kind mixer, mlp_kind mlp, const layer_params& layer) {
  const auto& s = c.s;
  const double T = c.tokens, h = c.m.hidden;
  layer_activations out;
  // A framework's own selective policy (torchtitan's op-level one) replaces the per-tensor count.
  const auto own_selective = framework_of(c.r.framework).selective_saved;
  if (c.r.recompute == recompute_policy::selective && own_selective != nullptr && c.r.layer_sac == 0) {
    own_selective(c, layer, out);
    return out;
  }
  // Norm inputs (Korthikanti: 2sbh each).
  out.linear_terms += static_cast<double>(s.norms_per_layer) * norm_saved_bytes(c) * T * h;
  out.outside_tp += static_cast<double>(s.norms_per_layer) * norm_saved_bytes(c) * T * h;
  // The token mixer and the MLP save what their kinds keep (layers/).
  const layer_kind_def& kind = layer_def(mixer);
  if (kind.saved != nullptr)
    kind.saved(c, layer, out);
  else
    attention_saved(c, kind, layer, out);
  mlp_def(mlp).saved(c, layer, out);
  if (s.dropout) out.linear_terms += T * h, out.outside_tp += T * h;
  // LoRA: each adapted matrix keeps its rank-r intermediate (lora_A's output) for lora_B's gradient; routed
  // experts' adapters see each token k times.
  if (c.r.adapters()) {
    const auto k = static_cast<double>(s.num_experts_per_tok);
    for (const auto& l : layer.linears)
      if (c.r.lora_targets.contains(l.name))
        out.linear_terms += c.act * (l.routed ? k * T : T) * static_cast<double>(s.lora_rank);
    // The router's adapters (peft's all-linear on an nn.Linear router) see every token, whole on each tp rank.
    const double router =
        c.act * T * static_cast<double>(s.lora_rank) * static_cast<double>(adapted_router_linears(c, layer).size());
    out.linear_terms += router, out.outside_tp += router;
  }
  return out;
}

layer_activations layer_saved(const context& c, const layer_group& g) {
  return layer_saved(c, g.mixer, g.mlp, g.params);
}

// An encoder-decoder's cross-attention in one decoder layer (docs/methodology.md, "Encoders and encoder-decoders"):
// its norm's input, the query input and q at the decoder length, k and v of the encoder's output at the encoder
// length, the projection input, the output dropout mask, and the scores a x s_dec x s_enc per sequence (standard and
// eager kernels) or the log-sum-exp per head and decoder token. Keys and values read the encoder's output, one tensor
// for every layer: encoder_output_bytes counts it once.
void cross_attention_saved(const context& c, layer_activations& out) {
  const auto& m = c.m;
  const double T = c.tokens, h = m.hidden, B = c.act, a = m.heads, d = m.head_dim;
  const double b = static_cast<double>(c.s.batch), sq = static_cast<double>(c.s.seq), enc = c.r.encoder_seq;
  const double T_enc = b * enc / c.cp;
  const attention_kernel kernel = c.r.attention;
  const double kv_width =
      kernel == attention_kernel::eager || kernel == attention_kernel::sdpa ? a * d : m.kv_heads * d;
  const double norm = norm_saved_bytes(c) * T * h;
  const double q_input = T * input_bytes(c, m.params.layer_with(mlp_kind::dense), {projection::q_proj}, h);
  const bool o_input = keeps_attention_output(c, m.params.layer_with(mlp_kind::dense));
  out.linear_terms += norm + q_input + B * T * (a * d + (o_input ? a * d : 0)) + B * T_enc * 2 * kv_width;
  out.outside_tp += norm + q_input;
  if (c.s.dropout) out.linear_terms += T * h, out.outside_tp += T * h;
  scores_saved(c, a * sq * enc * b, out);
}

// The encoder's output, read by k_proj and v_proj of every cross-attention: one B x T_enc x h tensor.
double encoder_output_bytes(const context& c) {
  if (!trains(c, c.m.params.layer_with(mlp_kind::dense), {projection::k_proj, projection::v_proj})) return 0;
  return c.act * static_cast<double>(c.s.batch) * c.r.encoder_seq / c.cp * c.m.hidden;
}

// One encoder layer of an encoder-decoder at the encoder length: the decoder's per-layer count with encoder_seq
// tokens per sequence (bidirectional attention saves the same tensors as causal attention) [bytes, on this device].
struct stack_bytes {
  double linear = 0;  // per layer, after tp / sequence parallelism
  double square = 0;  // per layer, after tp
};

stack_bytes encoder_layer_bytes(const context& c, double t_seq) {
  const run_spec r = with_workload(c.r, c.s.batch, static_cast<std::int64_t>(c.r.encoder_seq), c.s.devices);
  const context e = make_context(r, c.first_stage, c.last_stage, c.phase);
  const layer_activations l = layer_saved(e, layer_kind::attention, mlp_kind::dense, c.m.params.encoder_layer);
  return {(l.linear_terms - l.outside_tp) / c.t + l.outside_tp / t_seq, l.square_terms / c.t};
}

// The encoder stack's saved activations on the first stage, under the same recompute policy as the decoder layers.
void encoder_stack(const context& c, double t_seq, builder& out) {
  if (!c.m.cross_attention() || !c.first_stage) return;
  const stack_bytes e = encoder_layer_bytes(c, t_seq);
  const double L = static_cast<double>(c.m.params.encoder_layers), mb = c.in_flight;
  const double enc_tokens = static_cast<double>(c.s.batch) * c.r.encoder_seq / c.cp;
  const std::string what = n(L) + " encoder layers at encoder_seq " + n(c.r.encoder_seq) + " x ";
  if (c.r.recompute == recompute_policy::none)
    out.add("encoder layers", (e.linear + e.square) * L * mb, what + n(e.linear + e.square) + " B per layer");
  else if (c.r.recompute == recompute_policy::selective)
    out.add("encoder layers (attention scores recomputed)", e.linear * L * mb, what + n(e.linear) + " B per layer");
  else
    out.add("encoder layer inputs (checkpoints)", c.r.residual_bytes * enc_tokens * c.m.hidden * L * mb / t_seq,
            what + n(c.r.residual_bytes) + " B x tokens x h");
}

// Each group's share of the layers that run (ALBERT's shared weights run as every layer): count / sets, the
// first and the last group taking the rest so that the shares sum to exactly 1.
std::vector<double> group_shares(const param_breakdown& p) {
  const auto sets = static_cast<double>(p.layer_sets());
  std::vector<double> shares(p.groups.size(), 0.0);
  std::size_t first = shares.size(), last = 0;
  for (std::size_t i = 0; i < shares.size(); ++i)
    if (p.groups[i].count > 0) first = std::min(first, i), last = i;
  if (first == shares.size()) return shares;
  double others = 0;
  for (std::size_t i = first + 1; i < shares.size(); ++i)
    others += shares[i] = static_cast<double>(p.groups[i].count) / sets;
  shares[first] = 1 - others;
  if (last != first) {
    double before = 0;
    for (std::size_t i = first; i < last; ++i) before += shares[i];
    shares[last] = 1 - before;
  }
  return shares;
}

// The textbook logits peak (framework generic): 16-bit logits, the fp32 log-softmax and two fp32 gradients.
void logits_generic(const context& c, builder& out) {
  const double T = c.tokens, V = c.m.vocab, B = c.act, t = c.t;
  if (c.s.fused_ce) {
    out.add("logits (fused cross-entropy: not materialised)", 0, "chunked loss keeps no b x s x V tensor");
    return;
  }
  out.add("logits", B * T * V / t, n(B) + " B x " + n(T) + " tokens x V " + n(V));
  out.add("log-softmax output (fp32, saved by the loss)", fp32_bytes * T * V / t, "4 B x tokens x V");
  out.add("logits gradient (fp32, two buffers at the start of backward)", 2 * fp32_bytes * T * V / t,
          "2 x 4 B x tokens x V");
}

}  // namespace

// Bytes per token per vocabulary entry alive in the loss at the end of forward / the start of backward, per
// implementation (docs/methodology.md, "Logits and loss"; B = bytes of a 16-bit logit).
loss_path loss_coefficients(loss_kind kind, double B) {
  switch (kind) {
    case loss_kind::hf: return {B + 8, 12, "logits.float() + log-softmax / saved log-softmax + 2 fp32 gradients"};
    case loss_kind::hf_legacy: return {12, 12, "fp32 logits + shifted copy + log-softmax / as transformers <= 4.45"};
    case loss_kind::torchtune_chunked:
      return {B + 4 + 4.0 / 8, 4 + 8.0 / 8, "8 chunks: 16-bit chunks + every chunk's fp32 log-softmax"};
    case loss_kind::torchtune_compiled:  // inductor fuses the upcast and writes the chunk's 16-bit gradient
      return {B, B + B / 8, "compiled chunks: 16-bit chunks + one chunk's 16-bit gradient"};
    case loss_kind::litgpt: return {2 * B, 2 * B, "16-bit logits + 16-bit log-softmax per 128-token chunk"};
    case loss_kind::megatron: return {B + 4, B + 4, "16-bit logits + fp32 softmax, gradient written in place"};
    case loss_kind::unsloth: return {B, B, "16-bit logits, gradient written into them (Triton kernel)"};
    case loss_kind::torchtune_legacy:  // fp32 output; the recipe's shifted copy lives through backward
      return {8, 16, "fp32 shifted logits (kept by the recipe) + log-softmax / + NLL and log-softmax gradients"};
    case loss_kind::compiled:  // inductor saves the 16-bit input (+ an fp32 row logsumexp), writes a 16-bit gradient
      return {B, 2 * B, "16-bit logits kept by the compiled graph / + their 16-bit gradient"};
    case loss_kind::trl_chunked:
    case loss_kind::fused: break;
  }
  return {0, 0, "the full logits are never materialised"};
}

namespace {

// The loss at the end of forward / the start of backward, per loss implementation (tensor parallelism splits the
// vocabulary).
void logits_phase(const context& c, builder& out) {
  const double T = c.tokens, V = c.m.vocab, h = c.m.hidden, t = c.t;
  const loss_kind kind = c.s.fused_ce ? loss_kind::fused : c.r.loss;
  const loss_path path = loss_coefficients(kind, c.act);
  const double k = c.phase == step_phase::forward_end ? path.forward : path.backward;
  const std::string when = c.phase == step_phase::forward_end ? "forward" : "backward";
  out.add("logits and loss (" + when + ")", k * T * V / t, n(k) + " B x tokens x V " + n(V) + ": " + path.how);
  if (kind == loss_kind::trl_chunked)  // h.float() @ w.float().t() per 256-token chunk, under checkpoint
    out.add("chunked lm_head (fp32 weight copy + one 256-token chunk)", (fp32_bytes * V * h + 256 * V * 8) / t,
            "4 B x V x h + 256 tokens x V x 8 B");
  if (kind == loss_kind::litgpt && c.phase == step_phase::backward_start)
    out.add("one 128-token chunk's gradients", 2 * 2 * 128 * V / t, "2 x 2 B x 128 tokens x V");
  if (kind == loss_kind::unsloth || kind == loss_kind::compiled)
    out.add("logsumexp (fp32)", fp32_bytes * T / t, "4 B x tokens");
}

}  // namespace

// Checkpoints alive through forward: every layer's input in the residual stream's dtype, fewer when offloaded.
void checkpoints(const context& c, double layers, double t_seq, builder& out) {
  const double T = c.tokens, h = c.m.hidden, R = c.r.residual_bytes;
  switch (c.r.activation_offload) {
    case offload_activations::none:
      out.add("layer inputs (checkpoints)", R * T * h * layers / t_seq,
              n(layers) + " layers x " + n(R) + " B x " + n(T) + " tokens x h " + n(h));
      break;
    case offload_activations::prefetched:
      out.add("layer inputs (checkpoints; the rest offloaded to CPU)", R * T * h * std::min(2.0, layers) / t_seq,
              "min(2, " + n(layers) + ") layers in the offload stream x " + n(R) + " B x tokens x h");
      break;
    case offload_activations::full:
      out.add("layer inputs (checkpoints offloaded to CPU)", 0, "none stay on the GPU");
      break;
  }
}

namespace {

// After the start of backward: inside the recomputed bottom layer (recompute = full), or nothing saved left at the
// end of backward / at the optimizer step.
void backward_activations(const context& c, double layer_bytes, double t_seq, builder& out) {
  const double T = c.tokens, h = c.m.hidden, R = c.r.residual_bytes;
  if (c.phase != step_phase::recompute) {
    out.add("saved activations (all freed by the end of backward)", 0, "0");
    return;
  }
  out.add("layer 0 input (checkpoint)", R * T * h / t_seq, n(R) + " B x tokens x h");
  out.add("one layer recomputed during backward", layer_bytes, "activations of one layer: " + n(layer_bytes) + " B");
}

// Layer-level selective checkpointing (torchtitan's selective_ac_option N; frameworks/torchtitan.cpp): of the stage's
// L blocks, floor(L / N) are checkpointed whole (their input kept, as recompute = full) and the others keep every
// tensor (as recompute = none). A checkpointed block's recompute in backward comes after the blocks above it have
// freed theirs, so the start of backward stays the peak.
void layer_level_checkpoints(const context& c, double layer_bytes, double t_seq, builder& out) {
  const double L = c.layers_on_stage, mb = c.in_flight, N = static_cast<double>(c.r.layer_sac);
  const double checkpointed = std::floor(L / N), kept = L - checkpointed;
  const std::string per_micro = mb > 1 ? " x " + n(mb) + " micro-batches in flight (1F1B)" : "";
  out.add("transformer layers not checkpointed (selective_ac_option " + std::to_string(c.r.layer_sac) + ")",
          layer_bytes * kept * mb,
          n(kept) + " = " + n(L) + " - floor(" + n(L) + " / " + n(N) + ") layers x " + n(layer_bytes) + " B per layer" +
              per_micro);
  checkpoints(c, checkpointed * mb, t_seq, out);
}

}  // namespace

bucket activations_train(const context& c) {
  const auto& s = c.s;
  const auto& m = c.m;
  builder out{{"activations",
               "Activations",
               0,
               "Tensors saved in the forward pass for the backward pass, for the micro-batches in flight, plus the "
               "logits and cross-entropy peak at the start of the backward pass",
               "Korthikanti et al. 2022 per-tensor count generalised to GQA, gated MLPs and MoE; tensor "
               "parallelism divides the tensors inside its regions by tp, and sequence parallelism the rest; "
               "intermediate buffers freed within an op are not counted",
               {}}};
  const double t = c.t;
  // Without sequence parallelism the tensors outside the tensor-parallel regions stay whole on every rank
  // (Korthikanti et al. 2022, eq. 3 against eq. 4: sbh(10 + 24/t) against sbh·34/t).
  const double t_seq = s.sequence_parallel ? t : 1;
  auto on_device = [&](const layer_activations& l) {
    return (l.linear_terms - l.outside_tp) / t + l.outside_tp / t_seq;
  };
  double per_layer_linear = 0, per_layer_square = 0;
  const std::vector<double> shares = group_shares(m.params);
  for (std::size_t i = 0; i < shares.size(); ++i) {
    if (shares[i] == 0) continue;
    layer_activations l = layer_saved(c, m.params.groups[i]);
    if (m.cross_attention()) cross_attention_saved(c, l);
    per_layer_linear += shares[i] * on_device(l);
    per_layer_square += shares[i] * l.square_terms;
  }
  per_layer_square /= t;
  const double L = c.layers_on_stage, mb = c.in_flight;
  const std::string per_micro = mb > 1 ? " x " + n(mb) + " micro-batches in flight (1F1B)" : "";
  const std::string whole = t > 1 && !s.sequence_parallel ? " (no sequence parallelism: not divided by tp)" : "";
  const double T = c.tokens, h = m.hidden, B = c.act;
  const double layer_bytes = per_layer_linear + per_layer_square;
  if (c.phased() && !c.before_backward()) {
    backward_activations(c, layer_bytes, t_seq, out);
    return std::move(out.b);
  }
  if (c.r.recompute == recompute_policy::none) {
    out.add("transformer layers", layer_bytes * L * mb,
            n(L) + " layers x " + n(layer_bytes) + " B per layer" + per_micro);
  } else if (c.r.layer_sac > 0) {
    layer_level_checkpoints(c, layer_bytes, t_seq, out);
  } else if (c.r.recompute == recompute_policy::selective) {
    const bool own = framework_of(c.r.framework).selective_saved != nullptr;
    out.add(own ? "transformer layers (op-level selective checkpointing)"
                : "transformer layers (attention scores recomputed)",
            per_layer_linear * L * mb, n(L) + " layers x " + n(per_layer_linear) + " B per layer" + per_micro);
  } else if (!c.phased()) {
    out.add("layer inputs (checkpoints)", B * T * h * L * mb / t_seq,
            n(L) + " layers x " + n(B) + " B x " + n(T) + " tokens x h " + n(h) + per_micro + whole);
    out.add("one layer recomputed during backward", layer_bytes, "activations of one layer: " + n(layer_bytes) + " B");
  } else {
    checkpoints(c, L * mb, t_seq, out);
  }
  if (c.first_stage && s.dropout) out.add("embedding dropout mask", T * h * mb / t_seq, "1 B x tokens x h" + whole);
  if (m.cross_attention()) {
    encoder_stack(c, t_seq, out);
    out.add("encoder output (keys and values of every cross-attention)", encoder_output_bytes(c) * mb / t_seq,
            n(B) + " B x b x encoder_seq " + n(c.r.encoder_seq) + " x h " + n(h));
  }
  if (c.last_stage) {
    // A frozen lm_head (LoRA) does not keep its input.
    const bool lora = c.r.adapters();
    const std::string kept = s.norm_upcast && !c.r.compiled
                                 ? (lora ? "fp32 norm input" : "fp32 norm input + normalised + lm_head input")
                                 : (lora ? "norm input" : "norm input + lm_head input");
    out.add("final norm and lm_head inputs", (norm_saved_bytes(c) + (lora ? 0 : B)) * T * h / t_seq,
            "(" + kept + ") x tokens x h" + (lora ? " (frozen lm_head keeps no input)" : ""));
    // A classification (or QA, or bare encoder) head has num_labels outputs per token or sequence, no vocabulary.
    const bool vocab_logits = m.vocab > 0 && s.num_labels == 0;
    if (!vocab_logits && m.vocab > 0)
      out.add("task-head logits (num_labels " + std::to_string(s.num_labels) + ", no vocabulary logits)",
              (B + 3 * fp32_bytes) * T * static_cast<double>(s.num_labels) / t_seq,
              "(" + n(B) + " B logits + 3 x 4 B loss) x tokens x num_labels");
    if (vocab_logits && !c.phased()) logits_generic(c, out);
    if (vocab_logits && c.phased()) logits_phase(c, out);
  }
  return std::move(out.b);
}

// transformers generate(): the whole prompt in one pass.
bucket activations_prefill(const context& c) {
  const auto& s = c.s;
  const auto& m = c.m;
  builder out{{"activations",
               "Activations",
               0,
               "Transient workspace of the largest layer during prefill of the whole context, plus the last "
               "token's logits",
               "Buffers are reused layer to layer (only one layer's transients live at once); the prompt is "
               "processed in one pass",
               {}}};
  const double T = c.tokens, h = m.hidden, B = c.act, t = c.t;
  const double a = m.heads, d = m.head_dim;
  const double b = static_cast<double>(s.batch), sq = static_cast<double>(s.seq);
  out.add("hidden states (residual + normalised)", 2 * B * T * h, "2 x " + n(B) + " B x tokens x h");
  double scores = 0;
  if (c.r.attention == attention_kernel::standard) scores = B * a * sq * sq * b / t;
  if (c.r.attention == attention_kernel::eager) scores = (fp32_bytes + B) * a * sq * sq * b / t;
  const double qkvo = B * T * (2 * a + 2 * m.kv_heads) * d / t;
  const bool moe = m.params.moe_layers() > 0;
  const auto expert_tokens = moe ? static_cast<double>(s.num_experts_per_tok) : 1.0;
  const double inner =
      moe && s.moe_intermediate_size > 0 ? static_cast<double>(s.moe_intermediate_size) : m.intermediate;
  const double mlp = B * T * expert_tokens * (m.choices.gated_mlp ? 3 : 2) * inner / t;
  if (qkvo + scores >= mlp)
    out.add("attention workspace (largest transient)", qkvo + scores,
            "q, k, v, output" + std::string(scores > 0 ? " + attention scores a x s^2 x b" : ""));
  else
    out.add("MLP workspace (largest transient)", mlp, "tokens x inner x " + n(B) + " B");
  if (m.vocab > 0 && s.num_labels == 0)
    out.add("last-token logits", (B + fp32_bytes) * b * m.vocab, "b x V x (16-bit + fp32)");
  // bitsandbytes dequantises one weight at a time into the compute dtype for its matmul.
  if (c.r.weights == dtype::nf4 || c.r.weights == dtype::int8) {
    double largest = 0;
    for (const layer_group& g : m.params.groups)
      for (const auto& l : g.params.linears) largest = std::max(largest, l.in_features * l.out_features / t);
    out.add("bitsandbytes dequantisation workspace", largest * B, "largest matrix " + n(largest) + " x " + n(B) + " B");
  }
  return std::move(out.b);
}

}  // namespace llm_memory::detail
