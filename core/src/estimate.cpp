// SPDX-License-Identifier: MIT
// The estimate. Every formula is documented, with its source, in docs/methodology.md.
#include "llm_memory/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "llm_memory/presets.hpp"
#include "byte_limit.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using detail::format_number;

constexpr double fp32_bytes = 4;

bool is_float_format(std::string_view dtype) { return dtype == "fp32" || dtype == "bf16" || dtype == "fp16"; }

std::string n(double v) { return format_number(v); }

// Everything the formulas need, derived once.
struct context {
  const setting_values& s;
  const model_spec& m;
  bool train = true;
  double t = 1;                 // tensor-parallel degree
  double dp = 1;                // data-parallel degree
  double layers_on_stage = 0;   // layers held by the reported pipeline stage
  double in_flight = 1;         // micro-batches whose activations the stage holds (1F1B)
  bool first_stage = true;      // holds the embedding
  bool last_stage = true;       // holds the final norm, lm_head and the loss
  double act = 2;               // bytes per activation value
  double tokens = 0;            // b x s of one micro-batch
};

struct builder {
  bucket b;
  void add(std::string name, double bytes, std::string formula) {
    bytes = std::ceil(bytes);
    b.bytes += bytes;
    b.items.push_back({std::move(name), bytes, std::move(formula)});
  }
};

// ---- parameters ------------------------------------------------------------------------------------------------

struct stage_params {
  double matrices = 0;      // linear-layer weights (and their biases) on this device, after tp
  double matrix_rows = 0;   // output rows of those matrices (per-row quantisation scales)
  double embed = 0;         // input embedding on this device
  double head = 0;          // lm_head on this device (0 when tied and on the same stage)
  double norms = 0;         // norm weights (replicated across tp)
  double adapters = 0;      // LoRA parameters on this device
  double largest_layer = 0; // one layer's parameters on this device (ZeRO-3 gathers)
  [[nodiscard]] double total() const { return matrices + embed + head + norms; }
};

bool targeted(const setting_values& s, std::string_view name) {
  if (s.lora_targets.find("all-linear") != std::string::npos) return true;
  const auto targets = detail::split(s.lora_targets, ',');
  return std::find(targets.begin(), targets.end(), name) != targets.end();
}

double adapter_params(const layer_params& layer, const setting_values& s) {
  double total = 0;
  for (const auto& l : layer.linears)
    if (targeted(s, l.name)) total += static_cast<double>(s.lora_rank) * (l.in_features + l.out_features) * l.copies;
  return total;
}

double rows(const layer_params& layer) {
  double n = 0;
  for (const auto& l : layer.linears) n += l.out_features * l.copies;
  return n;
}

stage_params count_stage(const context& c) {
  const auto& p = c.m.params;
  const auto dense = static_cast<double>(p.dense_layers), sparse = static_cast<double>(p.moe_layers);
  const double share = c.layers_on_stage / static_cast<double>(c.m.layers);
  const double layer_norms = dense * p.dense_layer.norms + sparse * p.moe_layer.norms;
  const double layer_all = dense * p.dense_layer.total() + sparse * p.moe_layer.total();
  stage_params sp;
  double embed = c.first_stage ? p.embedding : 0;
  double head = c.last_stage ? p.lm_head : 0;
  // With a tied head split across stages, the last stage keeps its own copy of the embedding (Megatron).
  if (c.last_stage && !c.first_stage && c.s.tie_word_embeddings) head = p.embedding;
  double norms = share * layer_norms + (c.last_stage ? p.final_norm : 0);
  double matrices = share * (layer_all - layer_norms);
  if (c.s.params > 0) {
    // A given total overrides the architecture: the layers take what embeddings and norms do not.
    const double fixed = p.embedding + p.lm_head + p.final_norm + layer_norms;
    if (c.s.params >= fixed) {
      matrices = share * (c.s.params - fixed);
    } else {
      const double scale = c.s.params / std::max(1.0, p.total);
      embed *= scale, head *= scale, norms *= scale, matrices *= scale;
    }
  }
  sp.matrices = matrices / c.t;
  sp.matrix_rows = share * (dense * rows(p.dense_layer) + sparse * rows(p.moe_layer)) / c.t;
  sp.embed = embed / c.t;
  sp.head = head / c.t;
  sp.norms = norms;
  const double adapters_all = dense * adapter_params(p.dense_layer, c.s) + sparse * adapter_params(p.moe_layer, c.s);
  sp.adapters = c.s.finetune == "full" ? 0 : share * adapters_all / c.t;
  sp.largest_layer = std::max(p.dense_layer.total(), p.moe_layer.total()) / c.t;
  return sp;
}

// GGUF block layouts (llama.cpp ggml-common.h): bytes per block / weights per block.
double gguf_type_bytes(std::string_view type) {
  if (type == "Q2_K") return 84.0 / 256;
  if (type == "Q3_K") return 110.0 / 256;
  if (type == "Q4_K") return 144.0 / 256;
  if (type == "Q5_K") return 176.0 / 256;
  if (type == "Q6_K") return 210.0 / 256;
  if (type == "Q8_0") return 34.0 / 32;
  return 18.0 / 32;  // Q4_0
}

// llama.cpp gives a few layers more bits: the first and last eighth and every third layer between.
bool use_more_bits(std::int64_t i, std::int64_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

// The tensor type llama.cpp's quantiser picks for one matrix of layer i (llama_tensor_get_type, for dense
// non-Falcon models; the 70B and 8-expert special cases are not modelled).
std::string_view gguf_matrix_type(const setting_values& s, const model_spec& m, std::string_view name,
                                  std::int64_t i) {
  const std::string& f = s.weights_dtype;
  const std::int64_t n = m.layers;
  const std::string_view base = f == "q2_k" ? "Q2_K" : f == "q3_k_m" ? "Q3_K" : f == "q4_k_m" ? "Q4_K"
                              : f == "q5_k_m" ? "Q5_K" : f == "q6_k" ? "Q6_K" : f == "q8_0" ? "Q8_0" : "Q4_0";
  if (name == "v_proj") {
    if (f == "q2_k") return m.heads / m.kv_heads >= 4 ? "Q4_K" : "Q3_K";
    if (f == "q3_k_m") return i < 2 ? "Q5_K" : "Q4_K";
    if ((f == "q4_k_m" || f == "q5_k_m") && use_more_bits(i, n)) return "Q6_K";
  } else if (name == "down_proj") {
    if (f == "q2_k") return "Q3_K";
    if (f == "q3_k_m") return i < n / 16 ? "Q5_K" : "Q4_K";
    if ((f == "q4_k_m" || f == "q5_k_m") && use_more_bits(i, n)) return "Q6_K";
  } else if (name == "o_proj") {
    if (f == "q2_k") return "Q3_K";
    if (f == "q3_k_m") return "Q4_K";
  }
  return base;
}

struct weight_storage {
  double bytes = 0;     // per device, before ZeRO sharding
  std::string formula;  // how
};

// Bytes of the stored weights in the chosen format. Quantised formats compress the linear layers only:
// bitsandbytes and FP8 keep embeddings, lm_head and norms in 16-bit; GGUF keeps norms in fp32 and stores the
// output matrix in Q6_K (Q8_0 for q8_0).
weight_storage store_weights(const context& c, const stage_params& sp) {
  const auto& s = c.s;
  const std::string& f = s.weights_dtype;
  const double others = sp.embed + sp.head + sp.norms;
  if (is_float_format(f)) {
    const double w = dtype_bytes(f);
    return {sp.total() * w, n(sp.total()) + " x " + n(w) + " B"};
  }
  if (f == "nf4" || f == "fp8" || f == "int4") {
    const double w = dtype_bytes(f, s.double_quant);
    return {sp.matrices * w + others * 2,
            n(sp.matrices) + " matrix weights x " + n(w) + " B + " + n(others) + " embedding/norm weights x 2 B"};
  }
  if (f == "int8") {
    return {sp.matrices + sp.matrix_rows * fp32_bytes + others * 2,
            n(sp.matrices) + " x 1 B + " + n(sp.matrix_rows) + " fp32 row scales + " + n(others) + " x 2 B"};
  }
  // GGUF: average bytes per matrix weight over every layer's tensor types. A layer's types depend on its index
  // only through four predicates (dense or MoE, and the mixes' use_more_bits, i < 2, i < n/16: see
  // gguf_matrix_type), so the layers are counted per combination first and each combination is typed once,
  // through its first layer: integer work per layer, not string work (10^5 layers were 40 ms an estimate).
  // Every term is a whole count times a dyadic number of bytes, so the sums are exact in any order.
  const auto& p = c.m.params;
  const std::int64_t layers = c.m.layers;
  struct layer_class {
    std::int64_t first = -1;  // a layer of the class (its lowest index)
    std::int64_t count = 0;   // layers in the class
  };
  layer_class classes[16];
  for (std::int64_t i = 0; i < layers; ++i) {
    const int key = (i < p.dense_layers ? 1 : 0) | (use_more_bits(i, layers) ? 2 : 0) | (i < 2 ? 4 : 0) |
                    (i < layers / 16 ? 8 : 0);
    if (classes[key].count++ == 0) classes[key].first = i;
  }
  double weights = 0, bytes = 0;
  for (const auto& k : classes) {
    if (k.count == 0) continue;
    const layer_params& layer = k.first < p.dense_layers ? p.dense_layer : p.moe_layer;
    for (const auto& l : layer.linears) {
      const double count = l.in_features * l.out_features * l.copies * static_cast<double>(k.count);
      weights += count;
      bytes += count * gguf_type_bytes(gguf_matrix_type(s, c.m, l.name, k.first));
    }
  }
  const double per_matrix_weight = weights > 0 ? bytes / weights : gguf_type_bytes("Q4_0");
  const bool tied_output = sp.head == 0 && s.tie_word_embeddings;
  const double output_type = gguf_type_bytes(f == "q8_0" ? "Q8_0" : "Q6_K");
  const double embed_type = tied_output ? output_type : gguf_type_bytes(gguf_matrix_type(s, c.m, "embed", 0));
  return {sp.matrices * per_matrix_weight + sp.embed * embed_type + sp.head * output_type + sp.norms * fp32_bytes,
          n(sp.matrices) + " x " + n(per_matrix_weight) + " B (llama.cpp " + f + " mix) + embedding " + n(sp.embed) +
              " x " + n(embed_type) + " B + output " + n(sp.head) + " x " + n(output_type) + " B + norms x 4 B"};
}

// ---- activations ------------------------------------------------------------------------------------------------

struct layer_activations {
  double linear_terms = 0;  // terms linear in s (bytes)
  double square_terms = 0;  // terms in s^2 (attention scores)
  double outside_tp = 0;    // part of linear_terms outside the tensor-parallel regions (bytes): norm inputs, the
                            // attention and MLP inputs, residual dropout masks (Korthikanti et al. eq. 3: 10sbh)
};

// Bytes per value of what one norm saves: its input; an upcasting norm (Hugging Face's eager RMSNorm) saves it
// cast to fp32, plus the normalised value cast back, which the weight multiply keeps only to compute the
// weight's gradient, so not under LoRA, where norms are frozen (measured: docs/validation.md).
double norm_saved_bytes(const context& c) {
  if (!c.s.norm_upcast) return c.act;
  return c.s.finetune == "full" ? fp32_bytes + c.act : fp32_bytes;
}

// Saved-for-backward bytes of one layer for one micro-batch, before tensor parallelism.
// Autograd keeps a linear layer's input only to compute its weight's gradient (the input's gradient needs only
// the weight): under LoRA a frozen linear keeps its input only if it is adapted (lora_A needs the same input;
// lora_dropout = 0 assumed) or another op keeps that tensor anyway.
layer_activations layer_saved(const context& c, bool moe) {
  const auto& s = c.s;
  const auto& m = c.m;
  const double T = c.tokens, h = m.hidden, B = c.act;
  const double a = m.heads, d = m.head_dim;
  const double b = static_cast<double>(s.batch), sq = static_cast<double>(s.seq);
  const bool drop = s.dropout;
  const bool lora = s.finetune != "full";
  const layer_params& layer = moe ? m.params.moe_layer : m.params.dense_layer;
  // Whether any of this layer's linears with one of these names has a trained weight or an adapter.
  auto trains = [&](std::initializer_list<std::string_view> names) {
    return std::any_of(layer.linears.begin(), layer.linears.end(), [&](const linear_shape& l) {
      return std::find(names.begin(), names.end(), l.name) != names.end() && (!lora || targeted(s, l.name));
    });
  };
  layer_activations out;
  // Norm inputs (Korthikanti: 2sbh each).
  out.linear_terms += static_cast<double>(s.norms_per_layer) * norm_saved_bytes(c) * T * h;
  out.outside_tp += static_cast<double>(s.norms_per_layer) * norm_saved_bytes(c) * T * h;
  // Attention: shared q/k/v input, q, k, v, the projection input, and the output dropout mask.
  double q_width = a * d, kv_width = m.kv_heads * d, v_width = m.kv_heads * d, o_width = a * d;
  if (m.mla) {
    const auto qk = static_cast<double>(s.qk_nope_head_dim + s.qk_rope_head_dim);
    q_width = a * qk, kv_width = a * qk, v_width = a * static_cast<double>(s.v_head_dim), o_width = v_width;
    out.linear_terms += B * T * static_cast<double>(s.q_lora_rank + s.kv_lora_rank);
  } else if (s.attention == "eager" || s.attention == "sdpa") {
    kv_width = v_width = a * d;  // repeat_kv materialises grouped K/V at full width
  }
  // q, k and v are kept by the attention's own backward; its output by the flash and memory-efficient kernels
  // (their backward needs it) or by a trained o_proj.
  const bool qkv_input = trains({"q_proj", "k_proj", "v_proj", "q_a_proj", "kv_a_proj_with_mqa"});
  const bool o_input = trains({"o_proj"}) || s.attention == "flash" || s.attention == "sdpa";
  out.linear_terms += B * T * ((qkv_input ? h : 0) + q_width + kv_width + v_width + (o_input ? o_width : 0));
  out.outside_tp += qkv_input ? B * T * h : 0;
  if (s.qk_norm != "none") out.linear_terms += B * T * (q_width + kv_width);
  if (drop) out.linear_terms += T * h, out.outside_tp += T * h;
  if (s.attention == "standard") {
    out.square_terms += B * a * sq * sq * b + (drop ? (1 + B) * a * sq * sq * b : 0);
  } else if (s.attention == "eager") {
    out.square_terms += fp32_bytes * a * sq * sq * b + (B < fp32_bytes ? B * a * sq * sq * b : 0) +
                        (drop ? (1 + B) * a * sq * sq * b : 0);
  } else {
    out.linear_terms += fp32_bytes * a * T;  // log-sum-exp per head and token
  }
  // MLP (dense, or routed experts + shared experts): its input (kept for up/gate), what the activation and the
  // gate multiply keep (gated: gate, act(gate), up; plain: the activation's input), the down_proj input (kept
  // for down). Under LoRA, targets name the routed and shared experts' projections alike.
  const bool mlp_input = trains({"gate_proj", "up_proj"});
  const double kept_inner = (m.gated_mlp ? 3 : 1) + (trains({"down_proj"}) ? 1 : 0);
  auto mlp = [&](double tokens, double inner) { return B * tokens * ((mlp_input ? h : 0) + kept_inner * inner); };
  // The router's linear keeps the MLP input when it trains (full fine-tuning; peft's all-linear adapts it).
  const bool router_input = mlp_input || !lora || s.lora_targets.find("all-linear") != std::string::npos;
  if (!moe) {
    out.linear_terms += mlp(T, m.intermediate);
    out.outside_tp += mlp_input ? B * T * h : 0;
  } else {
    const auto k = static_cast<double>(s.num_experts_per_tok);
    const auto inner = static_cast<double>(s.moe_intermediate_size > 0 ? s.moe_intermediate_size
                                                                        : s.intermediate_size);
    const double shared = s.shared_expert_intermediate_size > 0
                              ? static_cast<double>(s.shared_expert_intermediate_size)
                              : static_cast<double>(s.n_shared_experts) * inner;
    const double input = router_input ? B * T * h : 0;
    out.linear_terms += input + fp32_bytes * T * static_cast<double>(s.num_experts);  // input, router probs
    out.outside_tp += input + fp32_bytes * T * static_cast<double>(s.num_experts);  // the router is not tp
    out.linear_terms += mlp(k * T, inner);
    if (shared > 0) out.linear_terms += mlp(T, shared) - (mlp_input ? B * T * h : 0);  // shares the MLP input
  }
  if (drop) out.linear_terms += T * h, out.outside_tp += T * h;
  // LoRA: each adapted matrix keeps its rank-r intermediate (lora_A's output) for lora_B's gradient; routed
  // experts' adapters see each token k times.
  if (lora) {
    const auto k = static_cast<double>(s.num_experts_per_tok);
    for (const auto& l : layer.linears)
      if (targeted(s, l.name)) out.linear_terms += B * (l.routed ? k * T : T) * static_cast<double>(s.lora_rank);
  }
  return out;
}

bucket activations_train(const context& c) {
  const auto& s = c.s;
  const auto& m = c.m;
  builder out{{"activations", "Activations", 0,
               "Tensors saved in the forward pass for the backward pass, for the micro-batches in flight, plus the "
               "logits and cross-entropy peak at the start of the backward pass",
               "Korthikanti et al. 2022 per-tensor count generalised to GQA, gated MLPs and MoE; tensor "
               "parallelism divides the tensors inside its regions by tp, and sequence parallelism the rest; "
               "intermediate buffers freed within an op are not counted",
               {}}};
  const double dense_share = static_cast<double>(m.params.dense_layers) / static_cast<double>(m.layers);
  const layer_activations dense = layer_saved(c, false);
  const layer_activations moe = m.params.moe_layers > 0 ? layer_saved(c, true) : dense;
  const double L = c.layers_on_stage, mb = c.in_flight, t = c.t;
  // Without sequence parallelism the tensors outside the tensor-parallel regions stay whole on every rank
  // (Korthikanti et al. 2022, eq. 3 against eq. 4: sbh(10 + 24/t) against sbh·34/t).
  const double t_seq = s.sequence_parallel ? t : 1;
  auto on_device = [&](const layer_activations& l) { return (l.linear_terms - l.outside_tp) / t + l.outside_tp / t_seq; };
  const double per_layer_linear = dense_share * on_device(dense) + (1 - dense_share) * on_device(moe);
  const double per_layer_square = (dense_share * dense.square_terms + (1 - dense_share) * moe.square_terms) / t;
  const std::string per_micro = mb > 1 ? " x " + n(mb) + " micro-batches in flight (1F1B)" : "";
  const std::string whole = t > 1 && !s.sequence_parallel ? " (no sequence parallelism: not divided by tp)" : "";
  const double T = c.tokens, h = m.hidden, B = c.act;
  if (s.recompute == "none") {
    out.add("transformer layers", (per_layer_linear + per_layer_square) * L * mb,
            n(L) + " layers x " + n(per_layer_linear + per_layer_square) + " B per layer" + per_micro);
  } else if (s.recompute == "selective") {
    out.add("transformer layers (attention scores recomputed)", per_layer_linear * L * mb,
            n(L) + " layers x " + n(per_layer_linear) + " B per layer" + per_micro);
  } else {
    out.add("layer inputs (checkpoints)", B * T * h * L * mb / t_seq,
            n(L) + " layers x " + n(B) + " B x " + n(T) + " tokens x h " + n(h) + per_micro + whole);
    out.add("one layer recomputed during backward", per_layer_linear + per_layer_square,
            "activations of one layer: " + n(per_layer_linear + per_layer_square) + " B");
  }
  if (c.first_stage && s.dropout) out.add("embedding dropout mask", T * h * mb / t_seq, "1 B x tokens x h" + whole);
  if (c.last_stage) {
    // A frozen lm_head (LoRA) does not keep its input.
    const bool lora = s.finetune != "full";
    const std::string kept = s.norm_upcast ? (lora ? "fp32 norm input" : "fp32 norm input + normalised + lm_head input")
                                           : (lora ? "norm input" : "norm input + lm_head input");
    out.add("final norm and lm_head inputs", (norm_saved_bytes(c) + (lora ? 0 : B)) * T * h / t_seq,
            "(" + kept + ") x tokens x h" + (lora ? " (frozen lm_head keeps no input)" : ""));
    if (m.vocab > 0) {
      const double V = m.vocab;
      if (s.fused_ce) {
        out.add("logits (fused cross-entropy: not materialised)", 0, "chunked loss keeps no b x s x V tensor");
      } else {
        out.add("logits", B * T * V / t, n(B) + " B x " + n(T) + " tokens x V " + n(V));
        out.add("log-softmax output (fp32, saved by the loss)", fp32_bytes * T * V / t, "4 B x tokens x V");
        out.add("logits gradient (fp32, two buffers at the start of backward)", 2 * fp32_bytes * T * V / t,
                "2 x 4 B x tokens x V");
      }
    }
  }
  return out.b;
}

bucket activations_inference(const context& c) {
  const auto& s = c.s;
  const auto& m = c.m;
  builder out{{"activations", "Activations", 0,
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
  if (s.attention == "standard") scores = B * a * sq * sq * b / t;
  if (s.attention == "eager") scores = (fp32_bytes + B) * a * sq * sq * b / t;
  const double qkvo = B * T * (2 * a + 2 * m.kv_heads) * d / t;
  const auto expert_tokens = m.params.moe_layers > 0 ? static_cast<double>(s.num_experts_per_tok) : 1.0;
  const double inner = m.params.moe_layers > 0 && s.moe_intermediate_size > 0
                           ? static_cast<double>(s.moe_intermediate_size)
                           : m.intermediate;
  const double mlp = B * T * expert_tokens * (m.gated_mlp ? 3 : 2) * inner / t;
  if (qkvo + scores >= mlp)
    out.add("attention workspace (largest transient)", qkvo + scores,
            "q, k, v, output" + std::string(scores > 0 ? " + attention scores a x s^2 x b" : ""));
  else
    out.add("MLP workspace (largest transient)", mlp, "tokens x inner x " + n(B) + " B");
  if (m.vocab > 0) out.add("last-token logits", (B + fp32_bytes) * b * m.vocab, "b x V x (16-bit + fp32)");
  return out.b;
}

bucket kv_cache(const context& c) {
  const auto& s = c.s;
  const auto& m = c.m;
  builder out{{"kv_cache", "KV cache", 0, "Keys and values of every cached token in every layer of this device",
               "The cache is allocated for the full context (seq) and batch", {}}};
  if (c.train) return out.b;
  const double kv_bytes = s.kv_dtype == "auto" ? c.act : dtype_bytes(s.kv_dtype);
  const double b = static_cast<double>(s.batch), sq = static_cast<double>(s.seq), L = c.layers_on_stage;
  if (m.mla) {
    const auto latent = static_cast<double>(s.kv_lora_rank + s.qk_rope_head_dim);
    out.add("MLA latent cache", L * b * sq * latent * kv_bytes,
            n(L) + " layers x b x s x (kv_lora_rank + qk_rope_head_dim = " + n(latent) + ") x " + n(kv_bytes) + " B");
    return out.b;
  }
  const double heads = std::max(1.0, m.kv_heads / c.t);
  const double per_token_layer = 2 * heads * m.head_dim * kv_bytes;
  double global_layers = L, sliding_layers = 0;
  if (s.sliding_window > 0) {
    global_layers = s.sliding_window_pattern > 0 ? std::floor(L / static_cast<double>(s.sliding_window_pattern)) : 0;
    sliding_layers = L - global_layers;
  }
  if (global_layers > 0)
    out.add("full-attention layers", global_layers * b * sq * per_token_layer,
            "2 x " + n(global_layers) + " layers x b " + n(b) + " x s " + n(sq) + " x n_kv " + n(heads) +
                " x head_dim " + n(m.head_dim) + " x " + n(kv_bytes) + " B");
  if (sliding_layers > 0) {
    const double window = std::min(sq, static_cast<double>(s.sliding_window));
    out.add("sliding-window layers", sliding_layers * b * window * per_token_layer,
            "2 x " + n(sliding_layers) + " layers x b x min(s, " + std::to_string(s.sliding_window) + ") x n_kv " +
                n(heads) + " x head_dim " + n(m.head_dim) + " x " + n(kv_bytes) + " B");
  }
  return out.b;
}

// ---- one pipeline stage ----------------------------------------------------------------------------------------

estimate_result estimate_stage(const setting_values& s, const model_spec& m, bool first, bool last) {
  estimate_result r;
  r.settings = s;
  r.model = m;
  const auto& p = m.params;
  context c{s, m};
  c.train = s.mode == "train";
  c.t = static_cast<double>(s.tp);
  c.dp = static_cast<double>(s.devices / (s.tp * s.pp));
  c.layers_on_stage = std::ceil(static_cast<double>(m.layers) / static_cast<double>(s.pp));
  c.first_stage = first;
  c.last_stage = last;
  c.in_flight = c.train && first ? std::min(static_cast<double>(s.pp), static_cast<double>(s.grad_accum)) : 1;
  c.act = s.weights_dtype == "fp32" ? fp32_bytes : 2;
  c.tokens = static_cast<double>(s.batch) * static_cast<double>(s.seq);
  r.params = s.params > 0 ? s.params : p.total;
  r.data_parallel = s.devices / (s.tp * s.pp);
  r.effective_batch = s.batch * s.grad_accum * r.data_parallel;
  r.stage = s.pp == 1 ? "only" : (first ? "first" : "last");

  const stage_params sp = count_stage(c);
  const bool lora = s.finetune != "full";
  const bool quantised = !is_float_format(s.weights_dtype);
  const double zero_params = s.zero >= 3 ? c.dp : 1;
  const double zero_grads = s.zero >= 2 ? c.dp : 1;
  const double zero_opt = s.zero >= 1 ? c.dp : 1;
  const std::string shard = c.dp > 1 ? " / " + n(c.dp) + " data-parallel shards" : "";

  // Trainable parameters, in the whole model and on this device.
  double trainable_fraction = 1;
  if (lora) {
    r.trainable_params = static_cast<double>(p.dense_layers) * adapter_params(p.dense_layer, s) +
                         static_cast<double>(p.moe_layers) * adapter_params(p.moe_layer, s);
  } else {
    trainable_fraction = s.trainable_params <= 1 ? s.trainable_params : s.trainable_params / r.params;
    r.trainable_params = trainable_fraction * r.params;
  }
  if (!c.train) r.trainable_params = 0;
  const double trainable_dev = lora ? sp.adapters : trainable_fraction * sp.total();
  // LoRA adapters live in the compute dtype (bf16 over a quantised base).
  const std::string train_dtype = lora && quantised ? "bf16" : s.weights_dtype;
  const double train_w = dtype_bytes(train_dtype);
  const double gather_w = quantised ? 2 : dtype_bytes(s.weights_dtype);

  // Parameters.
  builder params{{"parameters", "Parameters", 0, "The weights held on this device",
                  quantised ? "Quantised formats compress the linear layers; embeddings, lm_head and norms keep "
                              "higher precision (16-bit; GGUF: norms fp32, output Q6_K)"
                            : "Weights stored in " + s.weights_dtype + "; tensor parallelism splits matrices and "
                                                                       "embeddings, norms are replicated",
                  {}}};
  const bool params_offloaded = s.offload == "optimizer+params";
  double cpu = 0;
  {
    const weight_storage stored = store_weights(c, sp);
    std::string formula = stored.formula;
    if (c.t > 1) formula += " (tp " + std::to_string(s.tp) + ")";
    if (zero_params > 1) formula += shard;
    const double base = stored.bytes / zero_params;
    const std::string name = lora ? "frozen base weights" : "weights";
    if (params_offloaded) {
      cpu += std::ceil(base);
      params.add(name + " (offloaded to CPU)", 0, formula + " on CPU");
    } else {
      params.add(name, base, formula);
    }
    if (lora && c.train)
      params.add("LoRA adapters", sp.adapters * train_w / zero_params,
                 n(sp.adapters) + " adapter parameters x " + n(train_w) + " B" + (zero_params > 1 ? shard : ""));
    if (s.zero >= 3 && c.dp > 1)
      params.add("ZeRO-3 gathered layers (current + prefetched)", 2 * sp.largest_layer * gather_w,
                 "2 x largest layer " + n(sp.largest_layer) + " x " + n(gather_w) + " B");
  }

  builder grads{{"gradients", "Gradients", 0, "One gradient per trainable parameter",
                 "Gradients of the frozen base are never stored; buckets for reduction are not counted", {}}};
  builder opt{{"optimizer", "Optimizer state", 0, "Optimizer states and the fp32 master copy of trainable weights",
               "Per trainable parameter; states of frozen weights do not exist", {}}};
  if (c.train) {
    const std::string g_dtype = s.grads_dtype == "auto" ? train_dtype : s.grads_dtype;
    const double g = dtype_bytes(g_dtype);
    grads.add(g_dtype + " gradients", trainable_dev * g / zero_grads,
              n(trainable_dev) + " trainable x " + n(g) + " B" + (zero_grads > 1 ? shard : ""));
    const double o = dtype_bytes(s.optimizer_dtype);
    const bool to_cpu = s.offload != "none";
    auto add_opt = [&](std::string name, double bytes, std::string formula) {
      bytes /= zero_opt;
      if (zero_opt > 1) formula += shard;
      if (to_cpu) {
        cpu += std::ceil(bytes);
        opt.add(name + " (offloaded to CPU)", 0, formula + " on CPU");
      } else {
        opt.add(std::move(name), bytes, std::move(formula));
      }
    };
    if (s.master_weights && train_w < fp32_bytes)
      add_opt("fp32 master weights", trainable_dev * fp32_bytes, n(trainable_dev) + " x 4 B");
    const std::string od = s.optimizer_dtype;
    if (s.optimizer == "adamw") {
      add_opt(od + " Adam first moment (m)", trainable_dev * o, n(trainable_dev) + " x " + n(o) + " B");
      add_opt(od + " Adam second moment (v)", trainable_dev * o, n(trainable_dev) + " x " + n(o) + " B");
    } else if (s.optimizer == "adamw_8bit") {
      const double per = 1 + fp32_bytes / 256;
      add_opt("8-bit Adam moments (m, v) + block scales", 2 * trainable_dev * per,
              "2 x " + n(trainable_dev) + " x (1 B + 4 B absmax per 256-value block)");
    } else if (s.optimizer == "sgd_momentum") {
      add_opt(od + " momentum", trainable_dev * o, n(trainable_dev) + " x " + n(o) + " B");
    } else if (s.optimizer == "lion") {
      add_opt(od + " Lion momentum", trainable_dev * o, n(trainable_dev) + " x " + n(o) + " B");
    } else if (s.optimizer == "adafactor") {
      // Factored second moment: a row and a column vector per matrix (Shazeer & Stern 2018).
      auto layer_factored = [&](const layer_params& layer) {
        if (lora) {
          double f = 0;
          for (const auto& l : layer.linears)
            if (targeted(s, l.name))
              f += (2 * static_cast<double>(s.lora_rank) + l.in_features + l.out_features) * l.copies;
          return f;
        }
        double f = layer.norms + (layer.router > 0 ? m.hidden + static_cast<double>(s.num_experts) : 0);
        for (const auto& l : layer.linears) f += (l.in_features + l.out_features + l.bias) * l.copies;
        return f;
      };
      const double factored = static_cast<double>(p.dense_layers) * layer_factored(p.dense_layer) +
                              static_cast<double>(p.moe_layers) * layer_factored(p.moe_layer);
      const double full = lora ? 0
                               : (p.embedding > 0 ? m.vocab + m.hidden : 0) + (p.lm_head > 0 ? m.vocab + m.hidden : 0) +
                                     p.final_norm;
      const double share = r.trainable_params > 0 ? trainable_dev / r.trainable_params : 0;
      add_opt(od + " Adafactor factored second moment", (factored + full) * share * trainable_fraction * o,
              "(rows + columns of each matrix) x " + n(o) + " B");
    }
  }

  bucket act = c.train ? activations_train(c) : activations_inference(c);
  bucket kv = kv_cache(c);

  r.buckets = {params.b, grads.b, opt.b, act, kv};
  double allocated = 0;
  for (const auto& b : r.buckets) allocated += b.bytes;

  builder over{{"overhead", "Overhead", 0, "Memory the runtime takes beyond the tensors above",
                "Estimates of runtime behaviour, not arithmetic: change the defaults to match your stack", {}}};
  if (s.overhead == "factor") {
    over.add("overhead factor on the weights", (s.overhead_factor - 1) * r.buckets[0].bytes,
             "(" + n(s.overhead_factor) + " - 1) x weights (seed 2's inference rule)");
  } else if (s.overhead == "detailed") {
    over.add("CUDA context and framework", s.cuda_context, "cuda_context setting");
    if (c.train && c.dp > 1) {
      // Gradient communication needs buffers beyond the gradients themselves. PyTorch DDP (zero 0) copies
      // every gradient into its flat buckets unless gradient_as_bucket_view=True; DeepSpeed ZeRO reduces
      // through reduce_bucket_size = 5e8 elements (and ZeRO-1/2 all-gather updated weights through
      // allgather_bucket_size = 5e8), capped here at the size of what they carry.
      const std::string g_dtype = s.grads_dtype == "auto" ? train_dtype : s.grads_dtype;
      const double g = dtype_bytes(g_dtype);
      constexpr double bucket_elements = 5e8;
      if (s.zero == 0) {
        over.add("DDP gradient buckets", trainable_dev * g, "a flat copy of the " + n(trainable_dev) + " gradients x " +
                                                               n(g) + " B (gradient_as_bucket_view=False)");
      } else {
        over.add("ZeRO reduce bucket", std::min(bucket_elements, trainable_dev) * g,
                 "min(5e8, trainable) x " + n(g) + " B (DeepSpeed reduce_bucket_size)");
        if (s.zero <= 2)
          over.add("ZeRO all-gather bucket", std::min(bucket_elements, trainable_dev) * train_w,
                   "min(5e8, trainable) x " + n(train_w) + " B (DeepSpeed allgather_bucket_size)");
      }
    }
    over.add("allocator fragmentation reserve", allocated * s.fragmentation / 100,
             n(s.fragmentation) + " % of " + n(allocated) + " B");
  }
  r.buckets.push_back(over.b);

  auto note = [&](std::string text) { r.notes.push_back(std::move(text)); };
  if (!c.train && lora) note("finetune is ignored for inference: the base weights are estimated as stored");
  if (c.train && lora && s.trainable_params != 1)
    note("trainable_params is ignored with LoRA: the adapters' shapes give the trainable count");
  if (c.train && s.pp > 1 && s.grad_accum < s.pp)
    note("pp > grad_accum: the 1F1B pipeline is not full (" + std::to_string(s.grad_accum) + " of " +
         std::to_string(s.pp) + " micro-batches in flight)");
  if (s.params > 0 && !is_float_format(s.weights_dtype))
    note("params overrides the architecture: embeddings and norms are still taken from the architecture");
  if (!c.train && m.mla) note("MLA cache as vLLM/SGLang store it (the latent); eager Hugging Face caches full K/V");
  if (!is_float_format(s.weights_dtype) && s.weights_dtype.starts_with("q"))
    note("GGUF mix per llama.cpp's quantiser for dense models; its 70B and 8-expert special cases are not modelled");
  r.total_bytes = allocated + over.b.bytes;
  r.gpu_memory_bytes = s.gpu_memory;
  r.cpu_bytes = cpu;
  r.fits = r.total_bytes <= r.gpu_memory_bytes;
  return r;
}

}  // namespace

double estimate_result::bytes(std::string_view bucket_key) const {
  for (const auto& b : buckets)
    if (b.key == bucket_key) return b.bytes;
  return 0;
}

double dtype_bytes(std::string_view dtype, bool double_quant) {
  if (dtype == "fp32") return 4;
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8" || dtype == "int8") return 1;
  // GPTQ/AWQ-style int4: groups of 128 weights share an fp16 scale and a 4-bit zero point.
  if (dtype == "int4") return (4.0 * 128 + 16 + 4) / 128 / 8;
  // NF4: 4-bit codes + one fp32 absmax per 64 weights; double quantisation stores the absmax in 8 bits with
  // one fp32 scale per 256 blocks (Dettmers et al. 2023, QLoRA section 3).
  if (dtype == "nf4") return double_quant ? (4 + 8.0 / 64 + 32.0 / (64 * 256)) / 8 : (4 + 32.0 / 64) / 8;
  // GGUF block layouts (llama.cpp ggml-common.h): bytes per block / weights per block.
  if (dtype == "q8_0") return 34.0 / 32;
  if (dtype == "q4_0") return 18.0 / 32;
  if (dtype == "q6_k") return 210.0 / 256;
  if (dtype == "q5_k_m") return 176.0 / 256;
  if (dtype == "q4_k_m") return 144.0 / 256;
  if (dtype == "q3_k_m") return 110.0 / 256;
  if (dtype == "q2_k") return 84.0 / 256;
  return 2;
}

std::vector<estimate_result> estimate_stages(const setting_values& values) {
  const model_spec m = make_model(values);
  if (values.pp == 1) return {estimate_stage(values, m, true, true)};
  return {estimate_stage(values, m, true, false), estimate_stage(values, m, false, true)};
}

estimate_result estimate(const setting_values& values) {
  std::vector<estimate_result> stages = estimate_stages(values);
  if (stages.size() == 1 || stages[0].total_bytes >= stages[1].total_bytes) return std::move(stages[0]);
  return std::move(stages[1]);
}

result<estimate_result> estimate(const settings& explicit_values, const settings& config) {
  auto resolved = resolve(explicit_values, config);
  if (!resolved.ok()) return resolved.errors();
  const setting_values& s = resolved.value();
  const model_spec m = make_model(s);
  constexpr double exact_limit = 9007199254740992.0;  // 2^53: parameter counts stay exact integers
  if (m.params.total > exact_limit)
    return error{"hidden_size", "the architecture has " + format_number(m.params.total) +
                                    " parameters, more than 2^53; reduce hidden_size or num_hidden_layers"};
  const double total = s.params > 0 ? s.params : m.params.total;
  if (s.finetune == "full" && s.trainable_params > 1 && s.trainable_params > total)
    return error{"trainable_params", "must not exceed the model's " + format_number(total) + " parameters, got " +
                                         format_number(s.trainable_params)};
  if (s.mode == "train" && s.finetune == "full" && !is_float_format(s.weights_dtype))
    return error{"weights_dtype", "full training needs fp32, bf16 or fp16 weights, got \"" + s.weights_dtype +
                                      "\"; use finetune=lora or qlora for a quantised base"};
  estimate_result r = estimate(s);
  if (auto refused = detail::beyond_exact_bytes(r)) return *refused;
  return r;
}

}  // namespace llm_memory
