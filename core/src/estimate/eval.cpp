// SPDX-License-Identifier: MIT
// mode = eval under torch.no_grad: what one forward pass holds at its peak, read from the modeling code of
// transformers v4.54.0 (models/llama/modeling_llama.py, integrations/sdpa_attention.py, loss/loss_utils.py) as the
// Trainer's prediction_step runs it. Without autograd nothing is saved: each tensor dies with its last reference, so
// the peak is the largest set alive at one moment, inside one layer or at the loss (docs/methodology.md, "Evaluation").
#include <algorithm>
#include <string>

#include "estimate/stage.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {
namespace {

// Bytes per attention-score element alive at once (eager_attention_forward: the scaled scores in the compute dtype,
// softmax(dtype=float32) and its .to(query.dtype) while the scores are still bound), 0 without a score matrix.
double score_bytes(const context& c) {
  switch (c.r.attention) {
    case attention_kernel::eager: return 2 * c.act + fp32_bytes;
    case attention_kernel::standard: return 2 * c.act;  // Korthikanti et al.: scores and 16-bit softmax
    case attention_kernel::sdpa:
    case attention_kernel::flash:
    case attention_kernel::sdpa_gqa: break;
  }
  return 0;
}

// The attention block at its peak [bytes]: the layer's input and its normalised copy, q, k and v (locals of
// LlamaAttention.forward until it returns), the kernel's output and its transpose(1, 2).contiguous() copy (or, once
// the first is freed, o_proj's output), K/V repeated to every head where the kernel needs it (repeat_kv), and the
// score matrix (eager) or the kernels' fp32 logsumexp.
double attention_peak(const context& c) {
  const double T = c.tokens, h = c.m.hidden, B = c.act, t = c.t, d = c.m.head_dim;
  const double q = c.m.heads * d / t, kv = c.m.kv_heads * d / t;
  const bool repeats =
      c.m.kv_heads < c.m.heads && (c.r.attention == attention_kernel::eager || c.r.attention == attention_kernel::sdpa);
  const double per_token = 2 * h + q + 2 * kv + std::max(2 * q, q + h) + (repeats ? 2 * q : 0);
  const double b = static_cast<double>(c.s.batch), s = static_cast<double>(c.s.seq) / c.cp, a = c.m.heads / t;
  const double k = score_bytes(c);
  // The eager path's 4-D additive causal mask (b x 1 x s x s in the compute dtype) lives through every layer.
  const double scores = k > 0 ? k * b * a * s * s + B * b * s * s : fp32_bytes * b * a * s;
  return B * T * per_token + scores;
}

// The MLP at its peak [bytes]: the layer's input and normalised copy, then down_proj(act_fn(gate_proj(x)) *
// up_proj(x)) holds act_fn's output, up's output and their product (gate's output is freed as act_fn returns);
// a plain MLP holds fc1's output and the activation's.
double mlp_peak(const context& c) {
  const double T = c.tokens, h = c.m.hidden, B = c.act, t = c.t;
  const bool moe = c.m.params.moe_layers() > 0;
  const double routed = moe ? static_cast<double>(c.s.num_experts_per_tok) : 1.0;
  const double inner =
      moe && c.s.moe_intermediate_size > 0 ? static_cast<double>(c.s.moe_intermediate_size) : c.m.intermediate;
  return B * T * (2 * h + routed * (c.m.choices.gated_mlp ? 3 : 2) * inner / t);
}

// The last stage's peak after the layers [bytes]: the last hidden state and its normalised copy, and the logits with
// the loss's forward terms (loss_impl: hf keeps the 16-bit logits, logits.float() and the fp32 log-softmax).
double head_peak(const context& c, std::string& how) {
  const double T = c.tokens, V = c.m.vocab, h = c.m.hidden, B = c.act, t = c.t;
  const double hidden = 2 * B * T * h;
  if (V > 0 && c.s.num_labels > 0) {
    how = "2 x " + n(B) + " B x tokens x h + (" + n(B) + " B logits + 3 x 4 B loss) x tokens x num_labels";
    return hidden + (B + 3 * fp32_bytes) * T * static_cast<double>(c.s.num_labels);
  }
  const loss_path path = loss_coefficients(c.s.fused_ce ? loss_kind::fused : c.r.loss, B);
  const std::string what = path.how;  // "forward / backward": the forward part only
  how = "2 x " + n(B) + " B x tokens x h + " + n(path.forward) + " B x tokens x V " + n(V) + ": " +
        what.substr(0, what.find(" / "));
  return hidden + path.forward * T * V / t;
}

}  // namespace

bucket activations_eval(const context& c) {
  builder out{{"activations",
               "Activations",
               0,
               "The largest set of tensors alive at once in a forward pass under torch.no_grad: one layer's "
               "transients, or the final norm, logits and loss",
               "Nothing is saved for backward, so one layer's transients live at a time (transformers v4.54.0 "
               "modeling code); the allocator reuses the freed blocks",
               {}}};
  const double attention = attention_peak(c), mlp = mlp_peak(c);
  // An encoder-decoder's decoder layers also read the encoder's output (the keys of every cross-attention).
  const double encoder =
      c.m.cross_attention() ? c.act * static_cast<double>(c.s.batch) * c.r.encoder_seq * c.m.hidden : 0;
  const double layer = std::max(attention, mlp) + encoder;
  std::string how;
  const double head = c.last_stage ? head_peak(c, how) : 0;
  const std::string extra = encoder > 0 ? " + encoder output " + n(encoder) + " B" : "";
  if (head > layer)
    out.add("final norm, logits and loss (largest live set)", head, how);
  else if (attention >= mlp)
    out.add("attention block (largest live set)", attention + encoder,
            "input, normalised, q, k, v, kernel output and copy" + std::string(score_bytes(c) > 0 ? " + scores" : "") +
                extra);
  else
    out.add("MLP block (largest live set)", mlp + encoder,
            "(2 x h + " + std::string(c.m.choices.gated_mlp ? "3" : "2") + " x inner) x " + n(c.act) + " B x tokens" +
                extra);
  return std::move(out.b);
}

}  // namespace llm_memory::detail
