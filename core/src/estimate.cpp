// SPDX-License-Identifier: MIT
// The estimate of one resolved run (resolve.hpp): one function per bucket, per pipeline stage. Every formula is
// documented, with its source, in docs/methodology.md.
#include "llm_memory/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "settings_apply.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using detail::format_number;

constexpr double fp32_bytes = 4;

std::string n(double v) { return format_number(v); }

// Everything the formulas need about one pipeline stage, derived once.
struct context {
  const run_spec& r;
  const setting_values& s;  // r.values
  const model_spec& m;      // r.model
  bool train = true;
  double t = 1;                        // tensor-parallel degree
  double dp = 1;                       // data-parallel degree
  double layers_on_stage = 0;          // layers held by the reported pipeline stage
  double in_flight = 1;                // micro-batches whose activations the stage holds (1F1B)
  bool first_stage = true;             // holds the embedding
  bool last_stage = true;              // holds the final norm, lm_head and the loss
  double act = 2;                      // bytes per activation value
  double tokens = 0;                   // b x s of one micro-batch on this device (/ cp)
  double cp = 1;                       // context-parallel degree (training)
  step_phase phase = step_phase::sum;  // the phase estimated (sum: framework generic, every bucket summed)
  [[nodiscard]] bool phased() const { return phase != step_phase::sum && phase != step_phase::inference; }
  [[nodiscard]] bool before_backward() const {
    return phase == step_phase::forward_end || phase == step_phase::backward_start;
  }
};

// What the bucket functions report besides their buckets.
struct tally {
  double cpu = 0;      // host RAM for offloaded state [bytes]
  double dynamic = 0;  // allocated and freed within the step (the allocator's reserve grows with it) [bytes]
  double paged = 0;    // paged optimizer states: managed memory outside PyTorch's allocator [bytes]
};

context make_context(const run_spec& r, bool first, bool last, step_phase phase) {
  const setting_values& s = r.values;
  context c{r, s, r.model};
  c.train = r.train();
  c.t = static_cast<double>(s.tp);
  c.dp = static_cast<double>(r.data_parallel);
  c.layers_on_stage = std::ceil(static_cast<double>(r.model.layers) / static_cast<double>(s.pp));
  c.first_stage = first;
  c.last_stage = last;
  c.in_flight = c.train && first ? std::min(static_cast<double>(s.pp), static_cast<double>(s.grad_accum)) : 1;
  c.act = r.activation_bytes;
  // Context parallelism (training): each device computes seq / cp tokens of every sequence.
  c.cp = c.train ? static_cast<double>(s.cp) : 1;
  c.tokens = r.tokens / c.cp;
  c.phase = phase;
  return c;
}

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
  double matrices = 0;       // linear-layer weights (and their biases) on this device, after tp
  double matrix_rows = 0;    // output rows of those matrices (per-row quantisation scales)
  double embed = 0;          // input embedding on this device
  double head = 0;           // lm_head on this device (0 when tied and on the same stage)
  double norms = 0;          // norm weights (replicated across tp)
  double adapters = 0;       // LoRA parameters on this device
  double largest_layer = 0;  // one layer's parameters on this device (ZeRO-3 gathers)
  double routed = 0;         // routed-expert matrix weights on this device, before expert parallelism
  double vision = 0;         // vision tower + projector on this device (first stage, split by tp), 16-bit
  [[nodiscard]] double total() const { return matrices + embed + head + norms + vision; }
};

double adapter_params(const layer_params& layer, const run_spec& r) {
  double total = 0;
  for (const auto& l : layer.linears)
    if (r.lora_targets.contains(l.name))
      total += static_cast<double>(r.values.lora_rank) * (l.in_features + l.out_features) * l.copies;
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
  double vision = c.first_stage ? p.vision : 0;
  // An encoder-decoder's encoder stack and the extra parameters (token-type and relative embeddings, pooler, task
  // head) sit on the first stage with the embedding.
  if (c.first_stage) matrices += p.encoder, embed += p.extra;
  if (c.s.params > 0) {
    // A given total overrides the architecture: the layers take what embeddings, norms and the vision tower do not.
    const double fixed = p.embedding + p.lm_head + p.final_norm + layer_norms + p.vision + p.extra;
    if (c.s.params >= fixed) {
      matrices = share * (c.s.params - fixed);
    } else {
      const double scale = c.s.params / std::max(1.0, p.loaded());
      embed *= scale, head *= scale, norms *= scale, matrices *= scale, vision *= scale;
    }
  }
  sp.vision = vision / c.t;
  sp.matrices = matrices / c.t;
  const double encoder_rows = c.first_stage ? static_cast<double>(p.encoder_layers) * rows(p.encoder_layer) : 0;
  sp.matrix_rows = (share * (dense * rows(p.dense_layer) + sparse * rows(p.moe_layer)) + encoder_rows) / c.t;
  sp.embed = embed / c.t;
  sp.head = head / c.t;
  sp.norms = norms;
  const double adapters_all = dense * adapter_params(p.dense_layer, c.r) + sparse * adapter_params(p.moe_layer, c.r);
  const double encoder_adapters =
      c.first_stage ? static_cast<double>(p.encoder_layers) * adapter_params(p.encoder_layer, c.r) : 0;
  sp.adapters = c.r.adapters() ? (share * adapters_all + encoder_adapters) / c.t : 0;
  sp.largest_layer = std::max(p.dense_layer.total(), p.moe_layer.total()) / c.t;
  double routed = 0;
  for (const auto& l : p.moe_layer.linears)
    if (l.routed) routed += l.in_features * l.out_features * l.copies;
  sp.routed = c.s.params > 0 ? 0 : share * sparse * routed / c.t;
  return sp;
}

struct weight_storage {
  double bytes = 0;     // per device, before ZeRO sharding
  std::string formula;  // how
};

// What llama.cpp's quantiser reads about the model (dtype.hpp gguf_model_facts).
gguf_model_facts gguf_facts(const context& c) {
  return {c.m.heads / c.m.kv_heads, c.s.num_experts, c.m.layers == 80 && c.m.heads != c.m.kv_heads, c.m.hidden};
}

// GGUF: average bytes per matrix weight over every layer's tensor types. A layer's types depend on its index only
// through its quantiser position (dtype.hpp gguf_position), so the layers are counted per (position, dense or MoE)
// class first and each class is typed once: integer work per layer, not string work (10^5 layers were 40 ms an
// estimate). Every term is a whole count times a dyadic number of bytes, so the sums are exact in any order.
double gguf_bytes_per_matrix_weight(const context& c) {
  const auto& p = c.m.params;
  const std::int64_t layers = c.m.layers;
  struct layer_class {
    std::int64_t count = 0;        // layers in the class
    gguf_layer_position position;  // their position
  };
  layer_class classes[2 * gguf_position_keys];
  for (std::int64_t i = 0; i < layers; ++i) {
    const gguf_layer_position at = gguf_position(i, layers);
    layer_class& k = classes[at.key() | (p.is_moe(i) ? 0 : gguf_position_keys)];
    if (k.count++ == 0) k.position = at;
  }
  const gguf_model_facts facts = gguf_facts(c);
  double weights = 0, bytes = 0;
  for (int key = 0; key < 2 * gguf_position_keys; ++key) {
    const layer_class& k = classes[key];
    if (k.count == 0) continue;
    const layer_params& layer = key >= gguf_position_keys ? p.dense_layer : p.moe_layer;
    for (const auto& l : layer.linears) {
      const double count = l.in_features * l.out_features * l.copies * static_cast<double>(k.count);
      weights += count;
      bytes += count *
               info(gguf_matrix_type(c.r.weights, name_of(l.name), k.position, facts, l.in_features)).bytes_per_value();
    }
  }
  return weights > 0 ? bytes / weights : info(ggml_type::q4_0).bytes_per_value();
}

// Bytes per value of the token embedding and of the output matrix in a GGUF mix: a tied embedding is quantised as
// the output (llama-quant.cpp: has_tied_embeddings).
struct gguf_edge_types {
  double embed = 0;   // token_embd [bytes per value]
  double output = 0;  // output [bytes per value]
};

gguf_edge_types gguf_edges(const context& c) {
  const dtype f = c.r.weights;
  const double out = info(gguf_output_type(f, c.m.hidden)).bytes_per_value();
  return {c.s.tie_word_embeddings ? out : info(gguf_embedding_type(f, c.m.hidden)).bytes_per_value(), out};
}

// llama.cpp's mix: matrices per the quantiser, norms fp32, the output matrix per its OUTPUT rule.
weight_storage store_gguf(const context& c, const stage_params& sp) {
  const double per_matrix_weight = gguf_bytes_per_matrix_weight(c);
  const gguf_edge_types e = gguf_edges(c);
  const double embed_type = sp.head == 0 && c.s.tie_word_embeddings ? e.output : e.embed;
  return {sp.matrices * per_matrix_weight + sp.embed * embed_type + sp.head * e.output + sp.norms * fp32_bytes,
          n(sp.matrices) + " x " + n(per_matrix_weight) + " B (llama.cpp " + c.s.weights_dtype + " mix) + embedding " +
              n(sp.embed) + " x " + n(embed_type) + " B + output " + n(sp.head) + " x " + n(e.output) +
              " B + norms x 4 B"};
}

// llama.cpp's placement (llama-model.cpp): token_embd stays in host memory; the first n_layer - ngl repeating
// layers stay on the CPU; the output layer (output_norm + output) goes to the GPU only when ngl > n_layer. Norms
// are f32 in every GGUF. With tied embeddings the output is a copy of token_embd.
struct weight_split {
  double device = 0;    // bytes on the GPU ("CUDA0 model buffer")
  double host = 0;      // bytes in host memory ("CPU model buffer")
  std::string formula;  // how
};

// A GGUF file's own tensors (--gguf): repeating layer N on the GPU when N >= n_layer - ngl (n_layer = the file's
// blocks); the output layer (output.weight, or the duplicated token_embd when tied, and output_norm) on the GPU
// when ngl > n_layer; token_embd and any other tensor in host memory.
weight_split split_gguf_file(const context& c, const gguf_placement& g) {
  const auto layers = static_cast<double>(g.layers.size());
  const double gpu = std::min(static_cast<double>(c.s.n_gpu_layers), layers);
  const bool output_on_gpu = static_cast<double>(c.s.n_gpu_layers) > layers;
  weight_split out;
  for (std::size_t i = 0; i < g.layers.size(); ++i)
    (static_cast<double>(i) >= layers - gpu ? out.device : out.host) += g.layers[i];
  const double output_copy = g.tied ? g.token_embd : 0;  // TENSOR_DUPLICATED: a second copy only off the host
  (output_on_gpu ? out.device : out.host) += g.output + (output_on_gpu ? output_copy : 0);
  out.host += g.token_embd + g.other;
  out.formula = "the GGUF file's tensors at their stored types: " + n(gpu) + " of " + n(layers) + " blocks" +
                (output_on_gpu ? " + the output layer" : "") + " on the GPU; token_embd " + n(g.token_embd) +
                " B in host memory";
  return out;
}

weight_split split_llamacpp(const context& c, const stage_params& sp) {
  if (c.r.gguf_file) return split_gguf_file(c, *c.r.gguf_file);
  const dtype f = c.r.weights;
  const bool gguf = info(f).family == dtype_family::gguf_mix;
  const double w = bytes_per_value(f);
  const double per_matrix = gguf ? gguf_bytes_per_matrix_weight(c) : w;
  const gguf_edge_types e = gguf ? gguf_edges(c) : gguf_edge_types{w, w};
  const double out_type = e.output;
  const bool tied = c.s.tie_word_embeddings;
  const double embed_type = e.embed;
  const double final_norm = c.last_stage ? c.m.params.final_norm : 0;
  const double layers = sp.matrices * per_matrix + (sp.norms - final_norm) * fp32_bytes;
  const double head = c.last_stage ? (tied ? c.m.params.embedding / c.t : sp.head) : 0;
  const double output = head * out_type + final_norm * fp32_bytes;
  const double total_layers = static_cast<double>(c.m.layers);
  const double on_gpu = std::min(static_cast<double>(c.s.n_gpu_layers), total_layers) / total_layers;
  const bool output_on_gpu = static_cast<double>(c.s.n_gpu_layers) > total_layers;
  weight_split out;
  out.device = on_gpu * layers + (output_on_gpu ? output : 0);
  out.host = sp.embed * embed_type + (1 - on_gpu) * layers + (output_on_gpu ? 0 : output);
  out.formula = n(on_gpu * total_layers) + " of " + n(total_layers) + " layers (" + n(sp.matrices) + " x " +
                n(per_matrix) + " B + norms x 4 B)" +
                (output_on_gpu ? " + output " + n(head) + " x " + n(out_type) + " B" : "") + "; token_embd " +
                n(sp.embed) + " x " + n(embed_type) + " B in host memory";
  return out;
}

// A quantised checkpoint's layout (dtype.hpp layout_linear_bytes): every Linear of every layer as its format stores
// it, what the format leaves alone (routers, q/k norms, sinks; MXFP4: everything but the routed experts) 16-bit.
// As for GGUF, the layers' bytes become an average per matrix parameter, so tensor and pipeline shares and a given
// `params` apply unchanged; embeddings, lm_head and norms stay 16-bit (lm_head is in modules_to_not_convert).
weight_storage store_layout(const context& c, const stage_params& sp) {
  const auto& p = c.m.params;
  const layout_params lp{c.s.quant_bits, c.s.quant_group_size, 2};
  double params = 0, bytes = 0;
  for (const auto* layer : {&p.dense_layer, &p.moe_layer}) {
    const double count = static_cast<double>(layer == &p.dense_layer ? p.dense_layers : p.moe_layers);
    if (count == 0) continue;
    double linear_params = 0, linear_bytes = 0;
    for (const auto& l : layer->linears) {
      const double values = l.in_features * l.out_features + l.bias;
      const auto stored = layout_linear_bytes(c.r.weights, lp, l.in_features, l.out_features, l.bias, l.routed);
      linear_params += values * l.copies;
      linear_bytes += stored.value_or(values * lp.other_bytes) * l.copies;
    }
    const double rest = layer->total() - layer->norms - linear_params;  // router, q/k norms, sinks
    params += count * (linear_params + rest);
    bytes += count * (linear_bytes + rest * lp.other_bytes);
  }
  const double per_matrix = params > 0 ? bytes / params : lp.other_bytes;
  // sp.matrices / params is exactly 1 for the whole model (or a dyadic share), so the bytes stay exact.
  const double layers = params > 0 ? sp.matrices / params * bytes : 0;
  const double others = sp.embed + sp.head + sp.norms;
  return {layers + others * lp.other_bytes, n(sp.matrices) + " layer weights x " + n(per_matrix) + " B (" +
                                                c.s.weights_dtype + " checkpoint layout) + " + n(others) +
                                                " embedding/norm weights x 2 B"};
}

// Bytes of the stored weights in the chosen format (dtype.hpp). Quantised formats compress the linear layers
// only: bitsandbytes and FP8 keep embeddings, lm_head and norms in 16-bit.
weight_storage store_weights(const context& c, const stage_params& sp) {
  const double others = sp.embed + sp.head + sp.norms;
  switch (info(c.r.weights).family) {
    case dtype_family::floating: {
      const double w = bytes_per_value(c.r.weights);
      const double text = sp.total() - sp.vision;  // the vision tower is its own item (vision_storage)
      return {text * w, n(text) + " x " + n(w) + " B"};
    }
    case dtype_family::matrices: {
      const double w = bytes_per_value(c.r.weights, c.s.double_quant);
      // peft's prepare_model_for_kbit_training casts every non-4-bit parameter to fp32.
      const double o = c.train && c.r.adapters() && c.s.qlora_upcast ? fp32_bytes : 2;
      return {sp.matrices * w + others * o, n(sp.matrices) + " matrix weights x " + n(w) + " B + " + n(others) +
                                                " embedding/norm weights x " + n(o) + " B"};
    }
    case dtype_family::matrices_rows:
      return {sp.matrices + sp.matrix_rows * fp32_bytes + others * 2,
              n(sp.matrices) + " x 1 B + " + n(sp.matrix_rows) + " fp32 row scales + " + n(others) + " x 2 B"};
    case dtype_family::layout: return store_layout(c, sp);
    case dtype_family::gguf_mix: break;
  }
  return store_gguf(c, sp);
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
  // The normalised value is multiplied by the weight in the weight's dtype: fp32 under autocast (8 B in all).
  return c.r.adapters() ? fp32_bytes : fp32_bytes + std::max(c.act, bytes_per_value(c.r.weights));
}

// Whether a linear's backward keeps its input: a trained weight or an adapter reads it (and, before bitsandbytes
// 0.43.2, every 4-bit linear kept it anyway).
bool keeps_input(const context& c, const linear_shape& l) {
  return !c.r.adapters() || c.r.lora_targets.contains(l.name) || c.r.frozen_linears_keep_input;
}

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

// Attention: shared q/k/v input, q, k, v, the projection input, the output dropout mask, and the scores (s^2).
void attention_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const auto& s = c.s;
  const auto& m = c.m;
  const double T = c.tokens, h = m.hidden, B = c.act;
  const double a = m.heads, d = m.head_dim;
  const double b = static_cast<double>(s.batch), sq = static_cast<double>(s.seq);
  const bool drop = s.dropout;
  const attention_kernel kernel = c.r.attention;
  double q_width = a * d, kv_width = m.kv_heads * d, v_width = m.kv_heads * d, o_width = a * d;
  if (m.mla) {
    const auto qk = static_cast<double>(s.qk_nope_head_dim + s.qk_rope_head_dim);
    q_width = a * qk, kv_width = a * qk, v_width = a * static_cast<double>(s.v_head_dim), o_width = v_width;
    out.linear_terms += B * T * static_cast<double>(s.q_lora_rank + s.kv_lora_rank);
  } else if (kernel == attention_kernel::eager || kernel == attention_kernel::sdpa) {
    kv_width = v_width = a * d;  // repeat_kv materialises grouped K/V at full width
  }
  // q, k and v are kept by the attention's own backward.
  const double qkv_input = T * input_bytes(c, layer,
                                           {projection::q_proj, projection::k_proj, projection::v_proj,
                                            projection::q_a_proj, projection::kv_a_proj_with_mqa},
                                           h);
  const bool o_input = keeps_attention_output(c, layer);
  out.linear_terms += qkv_input + B * T * (q_width + kv_width + v_width + (o_input ? o_width : 0));
  out.outside_tp += qkv_input;
  if (m.choices.qk_norm != qk_norm_kind::none) out.linear_terms += B * T * (q_width + kv_width);
  if (drop) out.linear_terms += T * h, out.outside_tp += T * h;
  scores_saved(c, a * sq * sq * b, out);
}

// MLP (dense, or routed experts + shared experts): its input (kept for up/gate), what the activation and the gate
// multiply keep (gated: gate, act(gate), up; plain: the activation's input), the down_proj input (kept for down).
// Under LoRA, targets name the routed and shared experts' projections alike.
void mlp_saved(const context& c, const layer_params& layer, bool moe, layer_activations& out) {
  const auto& s = c.s;
  const auto& m = c.m;
  const double T = c.tokens, h = m.hidden, B = c.act;
  const bool mlp_input = trains(c, layer, {projection::gate_proj, projection::up_proj});
  const double own_input = input_bytes(c, layer, {projection::gate_proj, projection::up_proj}, h);  // per token
  const double kept_inner = (m.choices.gated_mlp ? 3 : 1) + (trains(c, layer, {projection::down_proj}) ? 1 : 0);
  auto mlp = [&](double tokens, double inner) { return tokens * (own_input + B * kept_inner * inner); };
  // The router's linear keeps the MLP input when it trains (full fine-tuning; peft's all-linear adapts it).
  const bool router_input =
      mlp_input || !c.r.adapters() || c.r.lora_targets.is_all_linear() || c.r.frozen_linears_keep_input;
  if (!moe) {
    out.linear_terms += mlp(T, m.intermediate);
    out.outside_tp += T * own_input;
    return;
  }
  const auto k = static_cast<double>(s.num_experts_per_tok);
  const auto inner = static_cast<double>(s.moe_intermediate_size > 0 ? s.moe_intermediate_size : s.intermediate_size);
  const double shared = s.shared_expert_intermediate_size > 0 ? static_cast<double>(s.shared_expert_intermediate_size)
                                                              : static_cast<double>(s.n_shared_experts) * inner;
  const double input = router_input ? B * T * h : 0;
  out.linear_terms += input + fp32_bytes * T * static_cast<double>(s.num_experts);  // input, router probs
  out.outside_tp += input + fp32_bytes * T * static_cast<double>(s.num_experts);    // the router is not tp
  out.linear_terms += mlp(k * T, inner);
  if (shared > 0) out.linear_terms += mlp(T, shared) - T * own_input;  // shares the MLP input
}

// Saved-for-backward bytes of one layer for one micro-batch, before tensor parallelism.
// Autograd keeps a linear layer's input only to compute its weight's gradient (the input's gradient needs only
// the weight): under LoRA a frozen linear keeps its input only if it is adapted (lora_A needs the same input;
// lora_dropout = 0 assumed) or another op keeps that tensor anyway.
layer_activations layer_saved(const context& c, const layer_params& layer, bool moe) {
  const auto& s = c.s;
  const double T = c.tokens, h = c.m.hidden;
  layer_activations out;
  // Norm inputs (Korthikanti: 2sbh each).
  out.linear_terms += static_cast<double>(s.norms_per_layer) * norm_saved_bytes(c) * T * h;
  out.outside_tp += static_cast<double>(s.norms_per_layer) * norm_saved_bytes(c) * T * h;
  attention_saved(c, layer, out);
  mlp_saved(c, layer, moe, out);
  if (s.dropout) out.linear_terms += T * h, out.outside_tp += T * h;
  // LoRA: each adapted matrix keeps its rank-r intermediate (lora_A's output) for lora_B's gradient; routed
  // experts' adapters see each token k times.
  if (c.r.adapters()) {
    const auto k = static_cast<double>(s.num_experts_per_tok);
    for (const auto& l : layer.linears)
      if (c.r.lora_targets.contains(l.name))
        out.linear_terms += c.act * (l.routed ? k * T : T) * static_cast<double>(s.lora_rank);
  }
  return out;
}

layer_activations layer_saved(const context& c, bool moe) {
  return layer_saved(c, moe ? c.m.params.moe_layer : c.m.params.dense_layer, moe);
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
  const double q_input = T * input_bytes(c, m.params.dense_layer, {projection::q_proj}, h);
  const bool o_input = keeps_attention_output(c, m.params.dense_layer);
  out.linear_terms += norm + q_input + B * T * (a * d + (o_input ? a * d : 0)) + B * T_enc * 2 * kv_width;
  out.outside_tp += norm + q_input;
  if (c.s.dropout) out.linear_terms += T * h, out.outside_tp += T * h;
  scores_saved(c, a * sq * enc * b, out);
}

// The encoder's output, read by k_proj and v_proj of every cross-attention: one B x T_enc x h tensor.
double encoder_output_bytes(const context& c) {
  if (!trains(c, c.m.params.dense_layer, {projection::k_proj, projection::v_proj})) return 0;
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
  const layer_activations l = layer_saved(e, c.m.params.encoder_layer, false);
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

// Bytes per token per vocabulary entry alive in the loss at the end of forward / the start of backward, per
// implementation (docs/methodology.md, "Logits and loss"; B = bytes of a 16-bit logit).
struct loss_path {
  double forward = 0;   // x T x V
  double backward = 0;  // x T x V
  const char* how = "";
};

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
    case loss_kind::trl_chunked:
    case loss_kind::fused: break;
  }
  return {0, 0, "the full logits are never materialised"};
}

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
  if (kind == loss_kind::unsloth) out.add("logsumexp (fp32)", fp32_bytes * T / t, "4 B x tokens");
}

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
  // Of the layers that run (m.layers), those without experts (dense_layers counts ALBERT's shared weights once).
  const double dense_share = 1 - static_cast<double>(m.params.moe_layers) / static_cast<double>(m.layers);
  layer_activations dense = layer_saved(c, false);
  if (m.cross_attention()) cross_attention_saved(c, dense);
  const layer_activations moe = m.params.moe_layers > 0 ? layer_saved(c, true) : dense;
  const double L = c.layers_on_stage, mb = c.in_flight, t = c.t;
  // Without sequence parallelism the tensors outside the tensor-parallel regions stay whole on every rank
  // (Korthikanti et al. 2022, eq. 3 against eq. 4: sbh(10 + 24/t) against sbh·34/t).
  const double t_seq = s.sequence_parallel ? t : 1;
  auto on_device = [&](const layer_activations& l) {
    return (l.linear_terms - l.outside_tp) / t + l.outside_tp / t_seq;
  };
  const double per_layer_linear = dense_share * on_device(dense) + (1 - dense_share) * on_device(moe);
  const double per_layer_square = (dense_share * dense.square_terms + (1 - dense_share) * moe.square_terms) / t;
  const std::string per_micro = mb > 1 ? " x " + n(mb) + " micro-batches in flight (1F1B)" : "";
  const std::string whole = t > 1 && !s.sequence_parallel ? " (no sequence parallelism: not divided by tp)" : "";
  const double T = c.tokens, h = m.hidden, B = c.act;
  const double layer_bytes = per_layer_linear + per_layer_square;
  if (c.phased() && !c.before_backward()) {
    backward_activations(c, layer_bytes, t_seq, out);
    return out.b;
  }
  if (c.r.recompute == recompute_policy::none) {
    out.add("transformer layers", layer_bytes * L * mb,
            n(L) + " layers x " + n(layer_bytes) + " B per layer" + per_micro);
  } else if (c.r.recompute == recompute_policy::selective) {
    out.add("transformer layers (attention scores recomputed)", per_layer_linear * L * mb,
            n(L) + " layers x " + n(per_layer_linear) + " B per layer" + per_micro);
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
    const std::string kept = s.norm_upcast ? (lora ? "fp32 norm input" : "fp32 norm input + normalised + lm_head input")
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
  return out.b;
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
  const auto expert_tokens = m.params.moe_layers > 0 ? static_cast<double>(s.num_experts_per_tok) : 1.0;
  const double inner = m.params.moe_layers > 0 && s.moe_intermediate_size > 0
                           ? static_cast<double>(s.moe_intermediate_size)
                           : m.intermediate;
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
    for (const layer_params* layer : {&m.params.dense_layer, &m.params.moe_layer})
      for (const auto& l : layer->linears) largest = std::max(largest, l.in_features * l.out_features / t);
    out.add("bitsandbytes dequantisation workspace", largest * B, "largest matrix " + n(largest) + " x " + n(B) + " B");
  }
  return out.b;
}

// TGI keeps an MLA model's keys and values uncompressed: FlashCausalLM with head_size = max(qk_nope_dim +
// qk_rope_dim, v_head_dim), read under keys DeepSeek's configs do not have, so 128 + 64 unless v_head_dim is larger
// (models/__init__.py @v3.3.4), num_key_value_heads / tp heads per shard, a key and a value tensor per layer
// (KVCache, layers/attention/kv_cache.py) [bytes per token and layer on this device].
double tgi_mla_bytes_per_token_layer(const context& c) {
  const double head_size = std::max(128.0 + 64.0, static_cast<double>(c.s.v_head_dim));
  return 2 * kv_heads_per_rank(c.m.kv_heads, c.s.tp) * head_size * bytes_per_value(c.r.kv);
}

bucket kv_cache(const context& c) {
  const auto& s = c.s;
  const auto& m = c.m;
  builder out{{"kv_cache",
               "KV cache",
               0,
               "Keys and values of every cached token in every layer of this device",
               "The cache is allocated for the full context (seq) and batch",
               {}}};
  if (c.train) return out.b;
  if (m.choices.stack == stack_kind::encoder) {
    out.add("no KV cache (encoder only)", 0,
            "bidirectional attention reads the whole input in one pass: nothing is "
            "cached between tokens");
    return out.b;
  }
  const double kv_bytes = bytes_per_value(c.r.kv);
  const double b = static_cast<double>(s.batch), sq = static_cast<double>(s.seq), L = c.layers_on_stage;
  if (m.cross_attention()) {
    // Every decoder layer caches the keys and values of the encoder's output once (modeling_t5.py / modeling_bart.py
    // EncoderDecoderCache's cross_attention_cache), at the encoder length.
    const double heads = std::max(1.0, m.kv_heads / c.t), enc = c.r.encoder_seq;
    out.add("cross-attention keys and values (encoder length)", L * b * enc * 2 * heads * m.head_dim * kv_bytes,
            "2 x " + n(L) + " layers x b " + n(b) + " x encoder_seq " + n(enc) + " x n_kv " + n(heads) +
                " x head_dim " + n(m.head_dim) + " x " + n(kv_bytes) + " B");
  }
  if (m.mla && c.r.runtime == runtime_kind::tgi) {
    const double per_token_layer = tgi_mla_bytes_per_token_layer(c);
    out.add("keys and values, uncompressed (TGI does not cache MLA's latent)", L * b * sq * per_token_layer,
            "2 x " + n(L) + " layers x b x s x n_kv / tp " + n(kv_heads_per_rank(m.kv_heads, s.tp)) +
                " x head_size max(128 + 64, v_head_dim) x " + n(kv_bytes) + " B");
    return out.b;
  }
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
  // TGI pages sliding-window layers at full length (FlashCausalLM.init_kv_cache): they hold the whole context.
  const bool tgi = c.r.runtime == runtime_kind::tgi;
  if (sliding_layers > 0 && tgi) {
    out.add("sliding-window layers (TGI pages them at full length)", sliding_layers * b * sq * per_token_layer,
            "2 x " + n(sliding_layers) + " layers x b x s " + n(sq) + " x n_kv " + n(heads) + " x head_dim " +
                n(m.head_dim) + " x " + n(kv_bytes) + " B");
  } else if (sliding_layers > 0) {
    const double window = std::min(sq, static_cast<double>(s.sliding_window));
    out.add("sliding-window layers", sliding_layers * b * window * per_token_layer,
            "2 x " + n(sliding_layers) + " layers x b x min(s, " + std::to_string(s.sliding_window) + ") x n_kv " +
                n(heads) + " x head_dim " + n(m.head_dim) + " x " + n(kv_bytes) + " B");
  }
  return out.b;
}

// ---- one pipeline stage ----------------------------------------------------------------------------------------

// Trainable parameters and ZeRO sharding on this device, shared by the state buckets.
struct state_layout {
  stage_params sp;                // parameters on this device
  double trainable_fraction = 1;  // of the full model's parameters that train (1 = all)
  double trainable_model = 0;     // trainable parameters of the whole model [parameters]
  double trainable_dev = 0;       // trainable parameters on this device [parameters]
  double zero_params = 1;         // ZeRO divisors: parameters (stage 3), gradients (2), optimizer (1)
  double zero_grads = 1;
  double zero_opt = 1;
  std::string shard;    // " / N data-parallel shards", or "" with one replica
  double ep_other = 0;  // routed-expert parameters the other expert-parallel ranks hold (unsharded buckets only)
  double train_w = 2;   // bytes per trained weight (bf16 adapters over a quantised base)
};

state_layout layout_state(const context& c) {
  const run_spec& r = c.r;
  const auto& p = c.m.params;
  state_layout l;
  l.sp = count_stage(c);
  l.zero_params = r.values.zero >= 3 ? c.dp : 1;
  l.zero_grads = r.values.zero >= 2 ? c.dp : 1;
  l.zero_opt = r.values.zero >= 1 ? c.dp : 1;
  l.shard = c.dp > 1 ? " / " + n(c.dp) + " data-parallel shards" : "";
  if (r.adapters()) {
    l.trainable_model = static_cast<double>(p.dense_layers) * adapter_params(p.dense_layer, r) +
                        static_cast<double>(p.moe_layers) * adapter_params(p.moe_layer, r) +
                        static_cast<double>(p.encoder_layers) * adapter_params(p.encoder_layer, r);
  } else {
    const double given = r.values.trainable_params;
    l.trainable_fraction = given <= 1 ? given : given / r.params;
    l.trainable_model = l.trainable_fraction * r.params;
  }
  if (!c.train) l.trainable_model = 0;
  l.trainable_dev = r.adapters() ? l.sp.adapters : l.trainable_fraction * l.sp.total();
  l.train_w = bytes_per_value(r.trainable);
  // Expert parallelism: each rank holds num_experts / ep routed experts. A ZeRO-sharded bucket shards them over the
  // dp / ep expert-data-parallel ranks instead: routed / ep / (dp / ep) = routed / dp, as without ep.
  l.ep_other = l.sp.routed * (1 - 1 / static_cast<double>(r.values.ep));
  return l;
}

// DeepSpeed's own ZeRO-3 coordinator (framework deepspeed, phased) rather than "2 x largest layer".
bool deepspeed_window(const context& c) { return c.phased() && c.r.framework == framework_kind::deepspeed; }

// DeepSpeed ZeRO-3 gathers parameters per leaf module (nn.Linear, nn.Embedding; accelerate marks an MoE block one
// leaf: set_moe_leaf_modules), so the largest gathered module is the embedding or the lm_head (V x h) or the
// largest matrix (a routed layer's experts together) [parameters on this device].
double largest_leaf_module(const context& c, const state_layout& l) {
  double largest = std::max(l.sp.embed, l.sp.head);
  if (c.last_stage && l.sp.head == 0 && c.s.tie_word_embeddings)
    largest = std::max(largest, c.m.params.embedding / c.t);
  for (const layer_params* layer : {&c.m.params.dense_layer, &c.m.params.moe_layer}) {
    double routed = 0;
    for (const auto& lin : layer->linears) {
      const double w = lin.in_features * lin.out_features / c.t;
      if (lin.routed) routed += w * lin.copies;
      largest = std::max(largest, w);
    }
    largest = std::max(largest, routed);
  }
  return largest;
}

// The gathered window of DeepSpeed ZeRO-3 (partitioned_param_coordinator.py v0.19.5 l.452-454): the module being
// computed plus prefetched parameters up to min(stage3_prefetch_bucket_size, stage3_max_live_parameters - those
// available). The HF Trainer / accelerate fill the "auto" prefetch bucket with 0.9 x h^2 (accelerate
// accelerator.py @16cb6eb8 l.2289-2319); max_live_parameters defaults to 1e9 (runtime/zero/config.py l.238).
// In backward the gathered module's whole 16-bit gradient exists until it is reduce-scattered.
void zero3_window(const context& c, const state_layout& l, builder& params, tally& t) {
  const double gather_w = c.r.quantised() ? 2 : bytes_per_value(c.r.weights);
  const double leaf = largest_leaf_module(c, l), h = c.m.hidden;
  const double prefetch = std::max(0.0, std::min(0.9 * h * h, 1e9 - leaf));
  const double window = (leaf + prefetch) * gather_w;
  t.dynamic += std::ceil(window);
  params.add(
      "ZeRO-3 gathered window (largest leaf module + prefetch bucket)", window,
      "(largest module " + n(leaf) + " + min(0.9 x h^2, 1e9 - module) " + n(prefetch) + ") x " + n(gather_w) + " B");
  if (c.phase == step_phase::forward_end || c.r.adapters()) return;
  const double grad = leaf * l.trainable_fraction * bytes_per_value(c.r.gradients);
  t.dynamic += std::ceil(grad);
  params.add("ZeRO-3 unsharded gradient of that module (before its reduce-scatter)", grad,
             n(leaf) + " x " + n(bytes_per_value(c.r.gradients)) + " B");
}

bucket parameters_bucket(const context& c, const state_layout& l, tally& t) {
  const run_spec& r = c.r;
  builder params{{"parameters",
                  "Parameters",
                  0,
                  "The weights held on this device",
                  r.quantised() ? "Quantised formats compress the linear layers; embeddings, lm_head and norms keep "
                                  "higher precision (16-bit; GGUF: norms fp32, output Q6_K)"
                                : "Weights stored in " + r.values.weights_dtype +
                                      "; tensor parallelism splits matrices and embeddings, norms are replicated",
                  {}}};
  if (!c.train && r.llamacpp()) {
    const weight_split split = split_llamacpp(c, l.sp);
    t.cpu += std::ceil(split.host);
    params.add("weights on the GPU (model buffer)", split.device, split.formula);
    return params.b;
  }
  weight_storage stored = store_weights(c, l.sp);
  if (r.gguf_file && !c.train)  // the file's bytes, whatever the mix rule would give
    stored = {r.gguf_file->total(), "the GGUF file's tensors at their stored types"};
  std::string formula = stored.formula;
  if (c.t > 1) formula += " (tp " + std::to_string(r.values.tp) + ")";
  if (l.zero_params > 1) formula += l.shard;
  double base = stored.bytes / l.zero_params;
  if (l.zero_params == 1 && l.ep_other > 0) {
    const double w = info(r.weights).family == dtype_family::floating
                         ? bytes_per_value(r.weights)
                         : bytes_per_value(r.weights, r.values.double_quant);
    base -= l.ep_other * w;
    formula += " - " + n(l.ep_other) + " routed-expert weights on the other ep " + std::to_string(r.values.ep - 1) +
               " ranks x " + n(w) + " B";
  }
  const std::string name = r.adapters() ? "frozen base weights" : "weights";
  if (r.offload == offload_target::optimizer_and_params) {
    t.cpu += std::ceil(base);
    params.add(name + " (offloaded to CPU)", 0, formula + " on CPU");
  } else {
    params.add(name, base, formula);
  }
  if (l.sp.vision > 0) {
    // The vision tower and projector load with the model in its dtype: quantised checkpoints leave them out
    // (modules_to_not_convert / ignore list them), so they stay 16-bit there.
    const double w = r.quantised() ? 2 : bytes_per_value(r.weights);
    params.add("vision tower", l.sp.vision * w / l.zero_params,
               n(l.sp.vision) + " vision parameters x " + n(w) + " B" + (l.zero_params > 1 ? l.shard : ""));
  }
  if (!c.train && r.runtime == runtime_kind::tgi && r.values.tie_word_embeddings && c.last_stage) {
    // TGI loads a tied head from the embedding's tensor as a tensor of its own, in 16-bit for quantised weights.
    const double rows = tgi_tied_head_rows(c.m.vocab, r.values.tp);
    const double w = info(r.weights).family == dtype_family::floating ? bytes_per_value(r.weights) : 2;
    params.add("tied lm_head's own copy (TGI's TensorParallelHead.load)", rows * c.m.hidden * w,
               n(rows) + " vocabulary rows x h " + n(c.m.hidden) + " x " + n(w) + " B");
  }
  // vLLM's rotary embedding keeps a cos/sin cache of max_position x rotary_dim in the model dtype (rotary_embedding
  // _compute_cos_sin_cache); "Model loading took" includes it.
  if (!c.train && r.runtime == runtime_kind::vllm && r.model.choices.position == position_kind::rope &&
      r.values.max_position_embeddings > 0)
    params.add("rotary cos/sin cache", static_cast<double>(r.values.max_position_embeddings) * c.m.head_dim * c.act,
               "max_position_embeddings " + std::to_string(r.values.max_position_embeddings) + " x head_dim " +
                   n(c.m.head_dim) + " x " + n(c.act) + " B");
  if (r.adapters() && c.train)
    params.add("LoRA adapters", l.sp.adapters * l.train_w / l.zero_params,
               n(l.sp.adapters) + " adapter parameters x " + n(l.train_w) + " B" + (l.zero_params > 1 ? l.shard : ""));
  if (r.values.zero >= 3 && c.dp > 1 && deepspeed_window(c)) {
    zero3_window(c, l, params, t);
  } else if (r.values.zero >= 3 && c.dp > 1) {
    const double gather_w = r.quantised() ? 2 : bytes_per_value(r.weights);
    params.add("ZeRO-3 gathered layers (current + prefetched)", 2 * l.sp.largest_layer * gather_w,
               "2 x largest layer " + n(l.sp.largest_layer) + " x " + n(gather_w) + " B");
  }
  if (c.phased() && c.before_backward() && r.autocast_weights) {
    // torch.autocast caches the 16-bit cast of every fp32 leaf that requires grad until the forward exits, and mm
    // keeps it for backward: the trained matrices (lm_head included, the embedding is not an autocast op).
    const double matrices = r.adapters() ? l.sp.adapters : l.trainable_fraction * (l.sp.matrices + l.sp.head);
    const double bytes = 2 * matrices / l.zero_params;
    t.dynamic += std::ceil(bytes);
    params.add("16-bit autocast copies of the trained matrices", bytes, n(matrices) + " x 2 B (until backward)");
  }
  return params.b;
}

// The largest single trained tensor on this device: with optimizer_in_backward, the only gradient alive at once.
double largest_tensor(const context& c, const state_layout& l) {
  if (c.r.adapters()) return l.trainable_dev;  // adapters are small: all of them, conservatively
  double largest = std::max(l.sp.embed, l.sp.head);
  for (const auto& lin : c.m.params.dense_layer.linears)
    largest = std::max(largest, lin.in_features * lin.out_features / c.t);
  return std::min(l.trainable_dev, l.trainable_fraction * largest);
}

// ZeRO-Offload moves the gradient partitions with the optimizer: stage 3 allocates grad_partitions_flat_buffer on
// the CPU (stage3.py v0.19.5 l.711-715, self.device = cpu when offload_optimizer is set), stages 1/2 copy each
// reduced gradient into the CPU fp32 buffer (stage_1_and_2.py async_inplace_copy_grad_to_fp32_buffer_from_gpu);
// the GPU keeps the reduce bucket (communication buffers).
bool deepspeed_offloads_gradients(const context& c) {
  return c.phased() && c.r.framework == framework_kind::deepspeed && c.r.values.zero >= 1 &&
         c.r.offload != offload_target::none;
}

// A chunked loss keeps every chunk's logits alive while the lm_head's weight gradient accumulates chunk by chunk,
// so at the start of backward that gradient exists beside them (torchtune's chunked output and litgpt's
// lm_head_chunk_size). The trained lm_head's parameters on this device (the embedding when tied); 0 otherwise.
double chunked_head_gradient(const context& c, const state_layout& l) {
  const loss_kind k = c.s.fused_ce ? loss_kind::fused : c.r.loss;
  const bool chunked =
      k == loss_kind::torchtune_chunked || k == loss_kind::torchtune_compiled || k == loss_kind::litgpt;
  if (!chunked || c.phase != step_phase::backward_start || !c.last_stage || c.r.adapters()) return 0;
  const double head = l.sp.head > 0 ? l.sp.head : (c.s.tie_word_embeddings && c.first_stage ? l.sp.embed : 0);
  return l.trainable_fraction * head;
}

bucket gradients_bucket(const context& c, const state_layout& l, tally& t) {
  builder grads{{"gradients",
                 "Gradients",
                 0,
                 "One gradient per trainable parameter",
                 "Gradients of the frozen base are never stored; buckets for reduction are not counted",
                 {}}};
  if (!c.train) return grads.b;
  const double g = bytes_per_value(c.r.gradients);
  const std::string name = std::string(info(c.r.gradients).name) + " gradients";
  const std::string formula = n(l.trainable_dev) + " trainable x " + n(g) + " B" + (l.zero_grads > 1 ? l.shard : "");
  const double own = l.trainable_dev - (l.zero_grads == 1 && !c.r.adapters() ? l.trainable_fraction * l.ep_other : 0);
  const double all = own * g / l.zero_grads;
  if (!c.phased()) {
    grads.add(name, all, formula);
    return grads.b;
  }
  const bool resident = c.r.grad_lifetime == gradient_lifetime::resident;
  if (deepspeed_offloads_gradients(c)) {
    t.cpu += std::ceil(all);
    grads.add(name + " (partitions offloaded to CPU with the optimizer)", 0, formula + " on CPU");
    return grads.b;
  }
  if (resident) {
    grads.add(name + " (resident buffer)", all, formula);
  } else if (c.before_backward() && c.s.grad_accum > 1) {
    grads.add(name + " (accumulated over earlier micro-batches)", all, formula);
  } else if (c.before_backward()) {
    const double head = chunked_head_gradient(c, l);
    if (head > 0)
      grads.add(name + " of the lm_head (accumulated over the loss chunks)", head * g / l.zero_grads,
                n(head) + " lm_head parameters x " + n(g) + " B (the other gradients: none yet)");
    else
      grads.add(name + " (none yet: zero_grad(set_to_none=True))", 0, "0");
  } else if (c.s.optimizer_in_backward) {
    const double one = largest_tensor(c, l);
    grads.add(name + " (one tensor: stepped and freed in backward)", one * g / l.zero_grads,
              "largest tensor " + n(one) + " x " + n(g) + " B");
  } else {
    grads.add(name, all, formula);
  }
  if (!resident) t.dynamic += grads.b.bytes;
  return grads.b;
}

// Adafactor's factored second moment: a row and a column vector per matrix (Shazeer & Stern 2018), for the
// parameters on this device [values].
double adafactor_values(const context& c, const state_layout& l) {
  const run_spec& r = c.r;
  const auto& p = c.m.params;
  auto layer_factored = [&](const layer_params& layer) {
    if (r.adapters()) {
      double f = 0;
      for (const auto& lin : layer.linears)
        if (r.lora_targets.contains(lin.name))
          f += (2 * static_cast<double>(r.values.lora_rank) + lin.in_features + lin.out_features) * lin.copies;
      return f;
    }
    double f = layer.norms + (layer.router > 0 ? c.m.hidden + static_cast<double>(r.values.num_experts) : 0);
    for (const auto& lin : layer.linears) f += (lin.in_features + lin.out_features + lin.bias) * lin.copies;
    return f;
  };
  const double factored = static_cast<double>(p.dense_layers) * layer_factored(p.dense_layer) +
                          static_cast<double>(p.moe_layers) * layer_factored(p.moe_layer);
  const double full = r.adapters() ? 0
                                   : (p.embedding > 0 ? c.m.vocab + c.m.hidden : 0) +
                                         (p.lm_head > 0 ? c.m.vocab + c.m.hidden : 0) + p.final_norm;
  const double share = l.trainable_model > 0 ? l.trainable_dev / l.trainable_model : 0;
  return (factored + full) * share * l.trainable_fraction;
}

bucket optimizer_bucket(const context& c, const state_layout& l, tally& t) {
  const run_spec& r = c.r;
  builder opt{{"optimizer",
               "Optimizer state",
               0,
               "Optimizer states and the fp32 master copy of trainable weights",
               "Per trainable parameter; states of frozen weights do not exist",
               {}}};
  if (!c.train) return opt.b;
  const double o = bytes_per_value(r.optimizer_states);
  const bool to_cpu = r.offload != offload_target::none;
  const bool paged = c.phased() && r.optimizer_impl == optimizer_step_impl::paged;
  auto add_opt = [&](std::string name, double bytes, std::string formula) {
    bytes /= l.zero_opt;
    if (l.zero_opt > 1) formula += l.shard;
    if (to_cpu) {
      t.cpu += std::ceil(bytes);
      opt.add(name + " (offloaded to CPU)", 0, formula + " on CPU");
    } else if (paged) {
      t.paged += std::ceil(bytes);
      opt.add(name + " (paged: managed memory, counted in device only)", 0, formula);
    } else {
      opt.add(std::move(name), bytes, std::move(formula));
    }
  };
  const double dev = l.trainable_dev - (l.zero_opt == 1 && !r.adapters() ? l.trainable_fraction * l.ep_other : 0);
  if (r.values.master_weights && l.train_w < fp32_bytes)
    add_opt("fp32 master weights", dev * fp32_bytes, n(dev) + " x 4 B");
  const std::string od(info(r.optimizer_states).name);
  switch (r.optimizer) {
    case optimizer_kind::adamw:
      add_opt(od + " Adam first moment (m)", dev * o, n(dev) + " x " + n(o) + " B");
      add_opt(od + " Adam second moment (v)", dev * o, n(dev) + " x " + n(o) + " B");
      break;
    case optimizer_kind::adamw_8bit:
      add_opt("8-bit Adam moments (m, v) + block scales", 2 * dev * (1 + fp32_bytes / 256),
              "2 x " + n(dev) + " x (1 B + 4 B absmax per 256-value block)");
      break;
    case optimizer_kind::sgd_momentum: add_opt(od + " momentum", dev * o, n(dev) + " x " + n(o) + " B"); break;
    case optimizer_kind::lion: add_opt(od + " Lion momentum", dev * o, n(dev) + " x " + n(o) + " B"); break;
    case optimizer_kind::adafactor:
      add_opt(od + " Adafactor factored second moment", adafactor_values(c, l) * o,
              "(rows + columns of each matrix) x " + n(o) + " B");
      break;
    case optimizer_kind::sgd: break;
  }
  if (c.phase == step_phase::optimizer_step && r.optimizer_impl == optimizer_step_impl::foreach &&
      r.optimizer == optimizer_kind::adamw && !to_cpu) {
    // _multi_tensor_adamw: torch._foreach_sqrt(exp_avg_sqs) allocates one state-sized list.
    const double bytes = dev * o / l.zero_opt;
    t.dynamic += std::ceil(bytes);
    opt.add("foreach step transient (sqrt of the second moments)", bytes, n(dev) + " x " + n(o) + " B");
  }
  return opt.b;
}

// Gradient communication needs buffers beyond the gradients themselves. PyTorch DDP (zero 0) copies every gradient
// into its flat buckets unless gradient_as_bucket_view=True; DeepSpeed ZeRO reduces through reduce_bucket_size =
// 5e8 elements (and ZeRO-1/2 all-gather updated weights through allgather_bucket_size = 5e8), capped here at the
// size of what they carry.
void add_communication_buffers(const context& c, const state_layout& l, builder& over) {
  const double g = bytes_per_value(c.r.gradients);
  // DeepSpeed's reduce_bucket_size is 5e8 (runtime/zero/config.py l.113); the HF Trainer / accelerate fill its
  // "auto" value with h^2 (accelerator.py @16cb6eb8 l.2316). stage3.py l.701-704 allocates it at init.
  const double bucket_elements =
      c.phased() && c.r.framework == framework_kind::deepspeed ? c.m.hidden * c.m.hidden : 5e8;
  const std::string bucket_text = c.phased() && c.r.framework == framework_kind::deepspeed ? "h^2" : "5e8";
  const int zero = static_cast<int>(c.r.values.zero);
  if (zero == 0) {
    over.add(
        "DDP gradient buckets", l.trainable_dev * g,
        "a flat copy of the " + n(l.trainable_dev) + " gradients x " + n(g) + " B (gradient_as_bucket_view=False)");
    return;
  }
  over.add("ZeRO reduce bucket", std::min(bucket_elements, l.trainable_dev) * g,
           "min(" + bucket_text + ", trainable) x " + n(g) + " B (DeepSpeed reduce_bucket_size)");
  if (zero <= 2)
    over.add("ZeRO all-gather bucket", std::min(5e8, l.trainable_dev) * l.train_w,
             "min(5e8, trainable) x " + n(l.train_w) + " B (DeepSpeed allgather_bucket_size)");
}

void runtime_overhead(const context& c, double allocated, double weights, builder& over);

// Which communication buffers the framework allocates: DDP's and DeepSpeed's (generic, hf, deepspeed); Megatron's
// buckets are views of its gradient buffer and FSDP's reduce-scatter inputs are transient.
bool communication_buffers(const context& c) {
  const framework_kind f = c.r.framework;
  return c.train && c.dp > 1 &&
         (f == framework_kind::generic || f == framework_kind::hf || f == framework_kind::deepspeed);
}

// Overhead; fills `peak` (allocated, reserved, device) from the tensors' bytes.
bucket overhead_bucket(const context& c, const state_layout& l, const tally& t, double tensors, double weights,
                       peak_memory& peak) {
  const setting_values& s = c.s;
  builder over{{"overhead",
                "Overhead",
                0,
                "Memory the runtime takes beyond the tensors above",
                "Estimates of runtime behaviour, not arithmetic: change the defaults to match your stack",
                {}}};
  peak.allocated = tensors;
  if (c.r.overhead == overhead_mode::factor) {
    over.add("overhead factor on the weights", (s.overhead_factor - 1) * weights,
             "(" + n(s.overhead_factor) + " - 1) x weights (seed 2's inference rule)");
  } else if (c.r.overhead == overhead_mode::detailed && !c.train) {
    runtime_overhead(c, tensors, weights, over);
  } else if (c.r.overhead == overhead_mode::detailed && !c.phased()) {
    over.add("CUDA context and framework", s.cuda_context, "cuda_context setting");
    if (communication_buffers(c)) add_communication_buffers(c, l, over);
    peak.allocated += over.b.bytes - std::ceil(s.cuda_context);
    over.add("allocator fragmentation reserve", tensors * s.fragmentation / 100,
             n(s.fragmentation) + " % of " + n(tensors) + " B");
  } else if (c.r.overhead == overhead_mode::detailed) {
    if (communication_buffers(c)) add_communication_buffers(c, l, over);
    peak.allocated += over.b.bytes;
    over.add("caching allocator reserve", s.allocator_reserve * t.dynamic,
             n(s.allocator_reserve) + " x " + n(t.dynamic) + " B allocated and freed within the step");
    if (c.r.optimizer_impl == optimizer_step_impl::paged)
      over.add("paged optimizer states (managed memory, outside PyTorch)", t.paged, "the optimizer states above");
    over.add("CUDA context and framework", s.cuda_context, "cuda_context setting");
  }
  const double reserve =
      c.phased() ? std::ceil(s.allocator_reserve * t.dynamic)
                 : (c.r.overhead == overhead_mode::detailed ? std::ceil(tensors * s.fragmentation / 100) : 0);
  peak.reserved = peak.allocated + reserve;
  peak.device = tensors + over.b.bytes;
  return over.b;
}

// ---- inference runtimes (runtime.hpp) ---------------------------------------------------------------------

// Under overhead = factor the whole inference estimate is weights x factor (seed 2's rule): no other bucket.
bool factor_rule(const context& c) { return !c.train && c.r.overhead == overhead_mode::factor; }

double mlp_inner(const context& c) {
  const auto& s = c.s;
  if (c.m.params.moe_layers == 0) return c.m.intermediate;
  const auto inner = static_cast<double>(s.moe_intermediate_size > 0 ? s.moe_intermediate_size : s.intermediate_size);
  return static_cast<double>(s.num_experts_per_tok) * inner;
}

// The prefill chunk: max_num_batched_tokens, or the whole prompt when 0 [tokens].
double chunk_tokens(const context& c) {
  return c.s.max_num_batched_tokens > 0 ? static_cast<double>(c.s.max_num_batched_tokens) : c.tokens;
}

// vLLM's profiling run: a forward at the chunk, then the sampler over max_num_seqs rows; not at once.
runtime_term vllm_profile_peak(const context& c) {
  const double N = chunk_tokens(c);
  const double seqs = std::min(static_cast<double>(c.s.max_num_seqs), N);
  const double forward = vllm_forward_peak(N, c.act, mlp_inner(c), c.m.hidden, c.t);
  const double held = N * c.m.hidden * c.act;  // profile_run's hidden_states, alive while the sampler runs
  const double sampler = vllm_sampler_peak(c.r.vllm, seqs, c.m.vocab, held);
  if (forward >= sampler)
    return {
        "profiling forward at the prefill chunk", forward,
        n(N) + " tokens x " + n(c.act) + " B x (3 x inner " + n(mlp_inner(c)) + " / tp + 3 x h " + n(c.m.hidden) + ")"};
  return {"profiling sampler over max_num_seqs", sampler,
          n(seqs) + " sequences x V " + n(c.m.vocab) + " x " + n(vllm_sampler_bytes_per_logit(c.r.vllm, seqs)) +
              " B per logit (vllm_version " + c.s.vllm_version + ") + the forward's hidden states " + n(N) +
              " tokens x h " + n(c.m.hidden) + " x " + n(c.act) + " B"};
}

// TGI's warmup prefill of max_batch_prefill_tokens, kept by the caching allocator (no empty_cache before sizing):
// the forward, then the head's logits and their log_softmax: of every prefill token up to 2.4 (the warmup asks
// prefill_logprobs), of each request's last position from 3.0 (prefill logprobs off unless enabled).
runtime_term tgi_prefill_forward(const context& c) {
  const double N = chunk_tokens(c);
  return {"warmup prefill forward", vllm_forward_peak(N, c.act, mlp_inner(c), c.m.hidden, c.t),
          n(N) + " tokens x " + n(c.act) + " B x (3 x inner / tp + 3 x h)"};
}

runtime_term tgi_prefill_logits(const context& c) {
  const auto N = static_cast<std::int64_t>(chunk_tokens(c));
  const auto rows = static_cast<double>(tgi_warmup_logit_rows(c.r.tgi, N, c.s.seq - 1));
  const bool all = rows == static_cast<double>(N);
  return {all ? "warmup prefill logits and log_softmax (prefill_logprobs)"
              : "warmup logits and log_softmax of each request's last position",
          tgi_warmup_logits(rows, c.m.vocab, c.act, c.s.tp),
          n(rows) + (all ? " tokens" : " requests (cdiv(N, seq - 1))") + " x V " + n(c.m.vocab) + " x " + n(c.act) +
              " B x (2" + (c.s.tp > 1 ? " + 1 / tp)" : ")")};
}

// KV bytes of one token in every layer of this device, each layer at full length. TGI pages every layer so,
// sliding-window layers included (FlashCausalLM.init_kv_cache gives each of num_layers a KVCache of num_blocks).
double full_length_kv_bytes_per_token(const context& c) {
  const double kv = bytes_per_value(c.r.kv);
  if (c.m.mla && c.r.runtime == runtime_kind::tgi) return c.layers_on_stage * tgi_mla_bytes_per_token_layer(c);
  if (c.m.mla) return c.layers_on_stage * static_cast<double>(c.s.kv_lora_rank + c.s.qk_rope_head_dim) * kv;
  return c.layers_on_stage * 2 * kv_heads_per_rank(c.m.kv_heads, c.s.tp) * c.m.head_dim * kv;
}

// One TGI block of every layer on this device [bytes].
double tgi_block_bytes(const context& c) {
  return full_length_kv_bytes_per_token(c) * static_cast<double>(c.s.block_size);
}

// What TGI's warmup leaves for the KV cache (tgi_version's rule), and the blocks of its warmup batch.
struct tgi_sizing {
  double free_after = 0;           // cudaMemGetInfo free after the warmup prefill [bytes]
  double kv_memory = 0;            // turned into new blocks [bytes]
  std::int64_t warmup_blocks = 0;  // the warmup batch's blocks, added back [blocks]
};

tgi_sizing size_tgi(const context& c, double weights, double block_bytes) {
  const auto& s = c.s;
  tgi_sizing z;
  z.warmup_blocks = tgi_warmup_blocks(static_cast<std::int64_t>(chunk_tokens(c)), s.seq - 1, s.seq, s.block_size);
  const double warm = static_cast<double>(z.warmup_blocks) * block_bytes;
  z.free_after =
      s.gpu_memory - s.cuda_context - weights - warm - tgi_prefill_forward(c).bytes - tgi_prefill_logits(c).bytes;
  z.kv_memory = tgi_kv_memory(c.r.tgi, std::max(0.0, z.free_after), s.gpu_memory, s.gpu_memory_utilization);
  return z;
}

// llama.cpp's worst-case graph: n_ubatch tokens against the padded cells.
struct llamacpp_layout {
  llamacpp_cells cells;        // of the full-attention layers
  std::int64_t swa_cells = 0;  // of the sliding-window layers
  double gpu_layers = 0;       // repeating layers on the GPU
  bool output_on_gpu = true;   // ngl > n_layer
  llamacpp_graph graph;
  llamacpp_offload offload;  // what -ngl leaves on the CPU
};

// The largest matrix of the first layer (the first CPU layer under -ngl), at its GGUF type [bytes].
double llamacpp_first_layer_matrix(const context& c) {
  const auto& p = c.m.params;
  const layer_params& layer = p.is_moe(0) ? p.moe_layer : p.dense_layer;
  const bool gguf = info(c.r.weights).family == dtype_family::gguf_mix;
  const gguf_model_facts facts = gguf_facts(c);
  double largest = 0;
  for (const auto& l : layer.linears) {
    const double per_value =
        gguf ? info(gguf_matrix_type(c.r.weights, name_of(l.name), gguf_position(0, c.m.layers), facts, l.in_features))
                   .bytes_per_value()
             : bytes_per_value(c.r.weights);
    largest = std::max(largest, l.in_features * l.out_features * l.copies * per_value);
  }
  return largest;
}

// -ngl's split of the layers, and the bytes op offload copies to the GPU.
llamacpp_offload offload_llamacpp(const context& c, double gpu_layers, bool output_on_gpu) {
  const bool gguf = info(c.r.weights).family == dtype_family::gguf_mix;
  const double out_type = gguf ? gguf_edges(c).output : bytes_per_value(c.r.weights);
  const double head = c.s.tie_word_embeddings ? c.m.params.embedding : c.m.params.lm_head;
  return {gpu_layers > 0, gpu_layers < c.layers_on_stage, output_on_gpu, head * out_type,
          llamacpp_first_layer_matrix(c)};
}

llamacpp_layout layout_llamacpp(const context& c) {
  const auto& s = c.s;
  llamacpp_layout l;
  const auto slots = s.batch;  // llama-server -np: one stream per slot, -c = slots x seq, not unified
  l.cells = llamacpp_cell_count(slots * s.seq, slots, false);
  const std::int64_t ub = std::min({s.n_ubatch, s.n_batch, s.seq});
  if (s.sliding_window > 0)
    l.swa_cells = llamacpp_swa_cells(l.cells.per_stream, s.sliding_window, slots, false, ub) * slots;
  l.gpu_layers = std::min(static_cast<double>(s.n_gpu_layers), c.layers_on_stage);
  l.output_on_gpu = static_cast<double>(s.n_gpu_layers) > static_cast<double>(c.m.layers);
  l.graph = {static_cast<double>(ub),
             static_cast<double>(l.cells.per_stream),
             c.m.heads,
             c.m.hidden,
             mlp_inner(c),
             c.m.vocab,
             c.r.attention == attention_kernel::flash};
  l.offload = offload_llamacpp(c, l.gpu_layers, l.output_on_gpu);
  return l;
}

bucket activations_inference(const context& c) {
  builder out{{"activations", "Activations", 0, "The runtime's transient workspace", "", {}}};
  if (factor_rule(c)) {
    out.b.assumes = "overhead = factor: the whole estimate is weights x overhead_factor (seed 2's rule)";
    return out.b;
  }
  switch (c.r.runtime) {
    case runtime_kind::vllm: {
      const runtime_term t = vllm_profile_peak(c);
      out.b.assumes =
          "vLLM's profiling run: the larger of a forward at max_num_batched_tokens (calibrated on Llama 3.1 8B "
          "logs) and the dummy sampler over max_num_seqs rows (its top-k/top-p path by vllm_version)";
      out.add(t.name, t.bytes, t.formula);
      return out.b;
    }
    case runtime_kind::sglang:
      out.b.assumes = "SGLang keeps activations and CUDA graphs in the share outside mem_fraction_static (overhead)";
      return out.b;
    case runtime_kind::tgi: {
      out.b.assumes =
          "TGI sizes its KV cache after a warmup prefill of max_batch_prefill_tokens (the head on every prefill "
          "token up to 2.4, on each request's last position from 3.0)";
      for (const runtime_term& t : {tgi_prefill_forward(c), tgi_prefill_logits(c)}) out.add(t.name, t.bytes, t.formula);
      return out.b;
    }
    case runtime_kind::llamacpp:
    case runtime_kind::ollama: {
      const llamacpp_layout l = layout_llamacpp(c);
      out.b.assumes = "llama.cpp's compute buffer: the largest phase of the worst-case graph (n_ubatch tokens)";
      out.add("compute buffer", llamacpp_compute_buffer(l.graph, l.offload),
              "max(attention, MLP, logits) phases at ubatch " + n(l.graph.ubatch) + ", " + n(l.graph.kv_cells) +
                  " cells" + (l.graph.flash ? ", flash attention" : "") +
                  (l.offload.output_on_gpu ? "" : "; the output matrix copied in for its op (op offload)"));
      return out.b;
    }
    case runtime_kind::transformers:
    case runtime_kind::automatic: break;
  }
  return activations_prefill(c);
}

// llama.cpp's KV buffer: padded cells x (K + V) in the cache types, layers on the GPU only.
bucket llamacpp_kv(const context& c, double& cpu) {
  builder out{{"kv_cache",
               "KV cache",
               0,
               "llama.cpp's KV buffer: every cell of every layer on this device",
               "Cells = n_ctx padded to 256 per slot; K and V in cache_type_k / cache_type_v",
               {}}};
  const llamacpp_layout l = layout_llamacpp(c);
  const auto& m = c.m;
  const double kb = info(c.r.cache_k).bytes_per_value(), vb = info(c.r.cache_v).bytes_per_value();
  const double per_cell =
      m.mla ? static_cast<double>(c.s.kv_lora_rank + c.s.qk_rope_head_dim) * kb : m.kv_heads * m.head_dim * (kb + vb);
  const double L = c.layers_on_stage;
  double global = L;
  if (c.s.sliding_window > 0)
    global = c.s.sliding_window_pattern > 0 ? std::floor(L / static_cast<double>(c.s.sliding_window_pattern)) : 0;
  const double gpu_share = L > 0 ? l.gpu_layers / L : 0;
  const double full = global * static_cast<double>(l.cells.total) * per_cell;
  const double swa = (L - global) * static_cast<double>(l.swa_cells) * per_cell;
  cpu += std::ceil((full + swa) * (1 - gpu_share));
  if (global > 0)
    out.add("full-attention layers", full * gpu_share,
            n(global) + " layers x " + std::to_string(l.cells.total) + " cells x " + n(per_cell) + " B");
  if (L > global)
    out.add("sliding-window layers", swa * gpu_share,
            n(L - global) + " layers x " + std::to_string(l.swa_cells) + " cells x " + n(per_cell) + " B");
  return out.b;
}

bucket inference_kv(const context& c, double& cpu) {
  if (factor_rule(c))
    return {"kv_cache",
            "KV cache",
            0,
            "Keys and values of every cached token",
            "overhead = factor: the whole estimate is weights x overhead_factor (seed 2's rule)",
            {}};
  return c.r.llamacpp() ? llamacpp_kv(c, cpu) : kv_cache(c);
}

// The runtime's own reserved terms beyond the tensors (overhead = detailed).
void runtime_overhead(const context& c, double allocated, double weights, builder& over) {
  const setting_values& s = c.s;
  const double T = s.gpu_memory;
  switch (c.r.runtime) {
    case runtime_kind::vllm: {
      over.add("non-torch memory (NCCL, cuBLAS)", s.non_torch_memory, "non_torch_memory setting");
      over.add("CUDA graphs", s.cuda_graph_memory, "cuda_graph_memory setting (0 = enforce_eager)");
      // Allocated at start-up, before vLLM's memory snapshot: part of what lies outside its budget.
      const double all_reduce = custom_all_reduce_bytes(s.tp);
      if (all_reduce > 0)
        over.add("custom all-reduce buffers (tp " + std::to_string(s.tp) + ", outside the budget)", all_reduce,
                 "3 x max_size 8 MiB (CustomAllreduce: IPC buffer, meta + buffer, rank_data)");
      over.add("outside vLLM's budget (CUDA context, other processes)",
               std::max(0.0, T - vllm_budget(T, s.gpu_memory_utilization) - all_reduce),
               "gpu_memory - ceil(gpu_memory x gpu_memory_utilization " + n(s.gpu_memory_utilization) + ")" +
                   (all_reduce > 0 ? " - the custom all-reduce buffers" : ""));
      return;
    }
    case runtime_kind::sglang: {
      over.add("CUDA context", s.cuda_context, "cuda_context setting");
      const double all_reduce = custom_all_reduce_bytes(s.tp);
      if (all_reduce > 0)
        over.add("custom all-reduce buffers (tp " + std::to_string(s.tp) + ")", all_reduce,
                 "3 x max_size 8 MiB (vLLM's CustomAllreduce, forked), before SGLang measures free memory");
      over.add("outside mem_fraction_static (activations, CUDA graphs)",
               (1 - s.mem_fraction_static) * (T - s.cuda_context - all_reduce),
               "(1 - " + n(s.mem_fraction_static) + ") x (gpu_memory - cuda_context" +
                   (all_reduce > 0 ? " - custom all-reduce)" : ")"));
      return;
    }
    case runtime_kind::tgi: {
      over.add("CUDA context", s.cuda_context, "cuda_context setting");
      // What warmup leaves free: the memory free after the warmup prefill that does not become KV blocks.
      const tgi_sizing z = size_tgi(c, weights, tgi_block_bytes(c));
      over.add("left free by TGI's warmup (tgi_version " + s.tgi_version + ")",
               std::max(0.0, z.free_after) - z.kv_memory,
               "free after warmup - its KV share (TGI_WIGGLE_ROOM, --cuda-memory-fraction " +
                   n(s.gpu_memory_utilization) + ")");
      return;
    }
    case runtime_kind::ollama:
      over.add("Ollama's per-GPU minimum", ollama_minimum_memory, "MinimumMemory() = 457 MiB");
      [[fallthrough]];
    case runtime_kind::llamacpp:
      over.add("beyond the logged buffers (CUDA context, cuBLAS)", s.cuda_context, "cuda_context setting");
      return;
    case runtime_kind::transformers:
    case runtime_kind::automatic: break;
  }
  over.add("CUDA context and framework", s.cuda_context, "cuda_context setting");
  over.add("allocator fragmentation reserve", allocated * s.fragmentation / 100,
           n(s.fragmentation) + " % of " + n(allocated) + " B");
}

// KV bytes of one token in every layer of this device, when every layer attends to the whole context; 0 for
// hybrids (sliding windows), which vLLM groups and SGLang reports as concurrency only (TGI: full length above).
double kv_bytes_per_token(const context& c) { return c.s.sliding_window > 0 ? 0 : full_length_kv_bytes_per_token(c); }

// The KV bytes of one request of `seq` tokens on this device (sliding windows included).
double kv_bytes_per_request(const context& c) {
  const run_spec one = with_workload(c.r, 1, c.s.seq, c.s.devices);
  const context c1 = make_context(one, c.first_stage, c.last_stage, step_phase::inference);
  return kv_cache(c1).bytes;
}

// vLLM with sliding-window and full-attention layers (one page size, hybrid KV cache manager): groups of
// group_size layers, num_blocks = available // page // group_size, the token line num_blocks // groups x block
// (kv_cache_utils.py at 001cabc1be16), the concurrency num_blocks / the blocks one request takes over the groups.
void report_vllm_hybrid(const context& c, runtime_report& out, std::vector<std::string>& notes) {
  const auto& s = c.s;
  if (c.m.mla) {  // no sliding MLA model in the presets: the concurrency from the request's bytes
    out.max_concurrency = out.kv_available / kv_bytes_per_request(c);
    return;
  }
  const auto L = static_cast<std::int64_t>(c.layers_on_stage);
  const std::int64_t full =
      s.sliding_window_pattern > 0 ? L / s.sliding_window_pattern : 0;  // as kv_cache() counts them
  const vllm_hybrid_groups g = vllm_hybrid_grouping(full, L - full);
  const double page =
      vllm_page_bytes(s.block_size, kv_heads_per_rank(c.m.kv_heads, s.tp), c.m.head_dim, bytes_per_value(c.r.kv));
  const auto N = static_cast<std::int64_t>(chunk_tokens(c));
  const std::int64_t blocks = vllm_num_blocks(out.kv_available, page, static_cast<double>(g.group_size));
  out.kv_capacity_tokens = static_cast<double>(vllm_hybrid_tokens(blocks, g, s.block_size));
  out.max_concurrency = static_cast<double>(blocks) / static_cast<double>(vllm_hybrid_blocks_per_request(
                                                          g, s.seq, s.sliding_window, N, s.block_size));
  const setting_def* seq_row = find_setting("seq");
  const auto limit = static_cast<std::int64_t>(seq_row != nullptr ? seq_row->max_value : 0);
  out.max_context =
      vllm_hybrid_max_model_len(out.kv_available, page, full, L - full, s.sliding_window, N, s.block_size, limit);
  if (s.seq > out.max_context)
    notes.push_back("vLLM refuses to start at max_model_len " + std::to_string(s.seq) +
                    ": the estimated maximum model length is " + std::to_string(out.max_context));
}

void report_vllm(const context& c, const runtime_term& weights, runtime_report& out, std::vector<std::string>& notes) {
  const auto& s = c.s;
  out.budget = vllm_budget(s.gpu_memory, s.gpu_memory_utilization);
  out.terms = {weights,
               vllm_profile_peak(c),
               {"non-torch memory", s.non_torch_memory, "non_torch_memory"},
               {"CUDA graphs", s.cuda_graph_memory, "cuda_graph_memory"}};
  double used = 0;
  for (const auto& t : out.terms) used += t.bytes;
  out.kv_available = out.budget - used;
  const double per_token = kv_bytes_per_token(c);
  if (out.kv_available <= 0) {
    notes.emplace_back(
        "vLLM stops: no available memory for the cache blocks; raise gpu_memory_utilization or free memory");
    return;
  }
  if (per_token == 0) {
    report_vllm_hybrid(c, out, notes);
    return;
  }
  const double page = per_token * static_cast<double>(s.block_size) / c.layers_on_stage;
  const std::int64_t blocks = vllm_num_blocks(out.kv_available, page, c.layers_on_stage);
  out.kv_capacity_tokens = static_cast<double>(blocks * s.block_size);
  out.max_concurrency = vllm_concurrency(blocks, s.seq, s.block_size);
  out.max_context = vllm_max_model_len(out.kv_available, page, c.layers_on_stage, s.block_size);
  if (s.seq > out.max_context)
    notes.push_back("vLLM refuses to start at max_model_len " + std::to_string(s.seq) + ": its KV cache holds " +
                    std::to_string(static_cast<std::int64_t>(out.kv_capacity_tokens)) +
                    " tokens; the estimated maximum model length is " + std::to_string(out.max_context));
}

// SGLang: weights + KV cache within mem_fraction_static of the memory free at start.
void report_sglang(const context& c, const runtime_term& weights, runtime_report& out) {
  const auto& s = c.s;
  const double total_free = s.gpu_memory - s.cuda_context - custom_all_reduce_bytes(s.tp);
  out.budget = total_free * s.mem_fraction_static;
  out.terms = {weights};
  out.kv_available = out.budget - weights.bytes;
  const double per_token = kv_bytes_per_token(c);
  if (per_token > 0) {
    out.kv_capacity_tokens =
        static_cast<double>(sglang_tokens(total_free, total_free - weights.bytes, s.mem_fraction_static, per_token));
    out.max_concurrency = out.kv_capacity_tokens / static_cast<double>(s.seq);
    out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
  } else if (out.kv_available > 0) {
    out.max_concurrency = out.kv_available / kv_bytes_per_request(c);
  }
}

// TGI: the warmup prefill runs with its batch's blocks allocated; the KV share of what it leaves free (tgi_version)
// becomes new blocks, and the warmup's blocks are added back (FlashCausalLM.warmup).
void report_tgi(const context& c, const runtime_term& weights, runtime_report& out) {
  const auto& s = c.s;
  out.terms = {weights, tgi_prefill_forward(c), tgi_prefill_logits(c)};
  const double per_token = full_length_kv_bytes_per_token(c);
  const double block_bytes = tgi_block_bytes(c);
  const tgi_sizing z = size_tgi(c, weights.bytes, block_bytes);
  const double warm = static_cast<double>(z.warmup_blocks) * block_bytes;
  out.kv_available = z.kv_memory + warm;
  out.budget = out.kv_available + weights.bytes + out.terms[1].bytes + out.terms[2].bytes;
  if (per_token > 0 && z.kv_memory > 0) {
    out.kv_capacity_tokens = static_cast<double>(tgi_blocks(z.kv_memory, block_bytes, z.warmup_blocks) * s.block_size);
    out.max_concurrency = out.kv_capacity_tokens / static_cast<double>(s.seq);
    out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
  }
}

void report_llamacpp(const context& c, const estimate_result& r, runtime_report& out) {
  const llamacpp_layout l = layout_llamacpp(c);
  const weight_split split = split_llamacpp(c, count_stage(c));
  double cpu = 0;
  out.has_buffers = true;
  out.model_buffer = std::ceil(split.device);
  out.host_buffer = std::ceil(split.host);
  out.kv_buffer = llamacpp_kv(c, cpu).bytes;
  out.compute_buffer = llamacpp_compute_buffer(l.graph, l.offload);
  out.host_compute_buffer = llamacpp_host_compute_buffer(l.graph, l.offload);
  out.kv_cells = l.cells.total;
  out.kv_capacity_tokens = static_cast<double>(l.cells.total);
  out.max_concurrency = static_cast<double>(c.s.batch);
  out.max_context = l.cells.per_stream;
  (void)r;
}

runtime_report report_runtime(const context& c, const estimate_result& r, std::vector<std::string>& notes) {
  runtime_report out;
  out.name = c.r.runtime;
  const runtime_term weights{"weights", r.buckets[0].bytes, "parameters bucket"};
  switch (c.r.runtime) {
    case runtime_kind::vllm: report_vllm(c, weights, out, notes); break;
    case runtime_kind::sglang: report_sglang(c, weights, out); break;
    case runtime_kind::tgi: report_tgi(c, weights, out); break;
    case runtime_kind::llamacpp:
    case runtime_kind::ollama: report_llamacpp(c, r, out); break;
    case runtime_kind::transformers:
    case runtime_kind::automatic: break;
  }
  const bool pooled = c.r.runtime == runtime_kind::sglang || c.r.runtime == runtime_kind::tgi;
  if (pooled && out.kv_capacity_tokens > 0 && out.kv_capacity_tokens < c.tokens)
    notes.push_back("the KV cache holds " + std::to_string(static_cast<std::int64_t>(out.kv_capacity_tokens)) +
                    " tokens, fewer than batch x seq = " + n(c.tokens));
  if (c.s.max_position_embeddings > 0 && c.s.seq > c.s.max_position_embeddings)
    notes.push_back("seq " + std::to_string(c.s.seq) + " exceeds the model's max_position_embeddings " +
                    std::to_string(c.s.max_position_embeddings) +
                    ": runtimes refuse a longer context unless rope scaling extends it");
  return out;
}

std::vector<std::string> stage_notes(const context& c) {
  const run_spec& r = c.r;
  const setting_values& s = c.s;
  std::vector<std::string> notes;
  if (!c.train && r.adapters())
    notes.emplace_back("finetune is ignored for inference: the base weights are estimated as stored");
  if (c.train && r.adapters() && s.trainable_params != 1)
    notes.emplace_back("trainable_params is ignored with LoRA: the adapters' shapes give the trainable count");
  if (c.train && s.pp > 1 && s.grad_accum < s.pp)
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
  if (c.train && !r.phased()) {
    const setting_values& d = detail::default_values();
    if (s.grad_lifetime != d.grad_lifetime || s.optimizer_in_backward != d.optimizer_in_backward ||
        s.optimizer_impl != d.optimizer_impl || s.loss_impl != d.loss_impl ||
        s.activation_offload != d.activation_offload || s.allocator_reserve != d.allocator_reserve)
      notes.emplace_back(
          "framework generic sums every bucket: grad_lifetime, optimizer_in_backward, optimizer_impl, "
          "loss_impl, activation_offload and allocator_reserve are ignored");
  }
  if (c.phased() && s.fragmentation != detail::default_values().fragmentation)
    notes.emplace_back("fragmentation is ignored by the phase model: allocator_reserve sets the allocator's reserve");
  if (info(r.weights).family == dtype_family::gguf_mix)
    notes.emplace_back(
        "GGUF mix typed tensor by tensor as llama.cpp's quantiser does (llama_tensor_get_type), the file made with "
        "an importance matrix; Falcon's own rules are not modelled");
  if (!c.train && r.runtime_auto)
    notes.push_back("runtime auto: estimated as " + std::string(runtime_name(r.runtime)) +
                    (r.llamacpp()                              ? " (GGUF weights)"
                     : r.runtime == runtime_kind::transformers ? " (bitsandbytes weights)"
                                                               : ""));
  if (!c.train && r.llamacpp() && static_cast<double>(s.n_gpu_layers) <= static_cast<double>(c.m.layers))
    notes.emplace_back(
        "n_gpu_layers <= num_hidden_layers: llama.cpp keeps the output layer (and the CPU layers) in host memory");
  return notes;
}

// What each framework's own log prints (docs/methodology.md, "Frameworks").
std::string printed_quantity(framework_kind f) {
  switch (f) {
    case framework_kind::generic:
    case framework_kind::hf: return "device";         // HF's guides print nvidia-smi (nvmlDeviceGetMemoryInfo)
    case framework_kind::unsloth: return "reserved";  // the notebooks print max_memory_reserved()
    default: return "allocated";                      // max_memory_allocated() / torchtune's peak_memory_active
  }
}

estimate_result estimate_stage(const run_spec& spec, bool first, bool last, step_phase phase) {
  const context c = make_context(spec, first, last, phase);
  const state_layout l = layout_state(c);
  estimate_result r;
  r.settings = spec.values;
  r.model = spec.model;
  r.params = spec.params;
  r.trainable_params = l.trainable_model;
  r.data_parallel = spec.data_parallel;
  r.effective_batch = spec.effective_batch;
  r.stage = spec.values.pp == 1 ? "only" : (first ? "first" : "last");
  tally t;
  r.buckets = {parameters_bucket(c, l, t), gradients_bucket(c, l, t), optimizer_bucket(c, l, t),
               c.train ? activations_train(c) : activations_inference(c),
               c.train ? kv_cache(c) : inference_kv(c, t.cpu)};
  double tensors = 0;
  for (const auto& b : r.buckets) tensors += b.bytes;
  t.dynamic += c.train ? r.buckets[3].bytes : 0;
  r.buckets.push_back(overhead_bucket(c, l, t, tensors, r.buckets[0].bytes, r.peak));
  r.peak.phase = phase_name(phase);
  r.peak.printed = c.train ? printed_quantity(spec.framework) : "device";
  r.notes = stage_notes(c);
  r.inference = !c.train;
  if (r.inference) r.runtime = report_runtime(c, r, r.notes);
  r.total_bytes = r.peak.device;
  r.gpu_memory_bytes = spec.values.gpu_memory;
  r.cpu_bytes = t.cpu;
  r.fits = r.total_bytes <= r.gpu_memory_bytes;
  return r;
}

// The phases of a step for this run: one (the sum) for framework generic and for inference.
std::vector<step_phase> phases_of(const run_spec& spec) {
  if (!spec.train()) return {step_phase::inference};
  if (!spec.phased()) return {step_phase::sum};
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

std::vector<estimate_result> estimate_stages(const run_spec& spec) {
  std::vector<estimate_result> out;
  const std::vector<step_phase> phases = phases_of(spec);
  for (const bool first : {true, false}) {
    if (!first && spec.values.pp == 1) break;
    for (const step_phase phase : phases)
      out.push_back(estimate_stage(spec, spec.values.pp == 1 || first, spec.values.pp == 1 || !first, phase));
  }
  return out;
}

estimate_result estimate(const run_spec& spec) {
  std::vector<estimate_result> all = estimate_stages(spec);
  std::size_t best = 0;
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].total_bytes > all[best].total_bytes) best = i;
  // The phases of the reported stage, for the output.
  const std::size_t per_stage = phases_of(spec).size(), from = best / per_stage * per_stage;
  std::vector<phase_bytes> phases;
  for (std::size_t i = from; i < from + per_stage; ++i) phases.push_back({all[i].peak.phase, all[i].peak.allocated});
  estimate_result r = std::move(all[best]);
  r.phases = std::move(phases);
  return r;
}

result<estimate_result> estimate(const settings& explicit_values, const settings& config) {
  auto spec = resolve(explicit_values, config);
  if (!spec.ok()) return spec.errors();
  estimate_result r = estimate(spec.value());
  if (auto refused = beyond_exact_bytes(r)) return *refused;
  return r;
}

}  // namespace llm_memory
