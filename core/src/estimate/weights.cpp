// SPDX-License-Identifier: MIT
// The parameters on one device and their stored bytes: exact counts per stage, storage formats (dtype.hpp) and
// GGUF mixes (llama.cpp's placement of them: runtimes/llamacpp.cpp).
// Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "estimate/stage.hpp"
#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {

double adapter_params(const layer_params& layer, const run_spec& r) {
  double total = 0;
  for (const auto& l : layer.linears)
    if (r.lora_targets.contains(l.name))
      total += static_cast<double>(r.values.lora_rank) * (l.in_features + l.out_features) * l.copies;
  return total;
}

// peft's all-linear targets every nn.Linear but the output layer (peft/tuners/tuners_utils.py
// _maybe_include_all_linear_layers): a router that is one (Mixtral's gate, h -> E) and Qwen2-MoE's shared_expert_gate
// (h -> 1) get adapters; a router that is an nn.Parameter (c.m.router_parameter) is no module peft can wrap.
std::vector<linear_shape> adapted_router_linears(const context& c, const layer_params& layer) {
  std::vector<linear_shape> out;
  if (layer.router == 0 || !c.r.adapters() || !c.r.lora_targets.is_all_linear() || c.m.router_parameter) return out;
  out.push_back({.in_features = c.m.hidden, .out_features = static_cast<double>(c.s.num_experts)});
  if (c.s.shared_expert_gate) out.push_back({.in_features = c.m.hidden, .out_features = 1});
  return out;
}
double router_adapter_params(const context& c, const layer_params& layer) {
  double total = 0;
  for (const auto& l : adapted_router_linears(c, layer))
    total += static_cast<double>(c.r.values.lora_rank) * (l.in_features + l.out_features);
  return total;
}

double rows(const layer_params& layer) {
  double n = 0;
  for (const auto& l : layer.linears) n += l.out_features * l.copies;
  return n;
}

namespace {

// Whether every tensor-parallel rank holds the linear whole: vLLM and SGLang build LatentMoE's projections and MLA's
// down-projections as ReplicatedLinear (vllm/model_executor/models/nemotron_h.py NemotronHMoE, deepseek_v2.py
// DeepseekV2Attention; python/sglang/srt/models/nemotron_h.py, deepseek_v2.py fused_qkv_a_proj_with_mqa); a
// trainer's tensor parallelism is taken to split them (no trainer's sharding of them was read).
bool replicated(const context& c, const linear_shape& l) {
  switch (l.name) {
    case projection::fc1_latent_proj:
    case projection::fc2_latent_proj:
    case projection::q_a_proj:
    case projection::kv_a_proj_with_mqa: return !c.train;
    default: return false;
  }
}

// The weights (and biases) of a layer's replicated linears and its MoE router, and the linears' output rows.
double replicated_params(const context& c, const layer_params& layer) {
  double n = layer.router;
  for (const auto& l : layer.linears)
    if (replicated(c, l)) n += (l.in_features * l.out_features + l.bias) * l.copies;
  return n;
}
double replicated_rows(const context& c, const layer_params& layer) {
  double n = 0;
  for (const auto& l : layer.linears)
    if (replicated(c, l)) n += l.out_features * l.copies;
  return n;
}

// Whether the linear is an attention layer's k_proj or v_proj, whose rows are num_key_value_heads heads of head_dim.
bool kv_headed(const layer_group& g, const linear_shape& l) {
  const bool attention = g.mixer == layer_kind::attention || g.mixer == layer_kind::sliding_attention ||
                         g.mixer == layer_kind::attention_mamba;
  return attention && (l.name == projection::k_proj || l.name == projection::v_proj);
}

// The k/v weights (and biases), and their rows, that replicated KV heads add to each rank's tp split: a runtime's
// QKV split gives every rank max(1, kv_heads / tp) whole KV heads (vLLM's and SGLang's QKVParallelLinear:
// num_kv_head_replicas = tp / kv_heads when tp >= kv_heads; TGI only a single MQA head, runtimes/tgi.cpp's check),
// as their KV caches (kv_heads_per_rank). At tp > kv_heads each rank holds 1 / kv_heads of k and v, not 1 / tp.
// Trainers split the query groups (Megatron asserts num_query_groups % tp == 0; not refused here).
struct kv_extra {
  double values = 0;  ///< weights and biases per rank beyond the split, whole model
  double rows = 0;    ///< their output rows
};
kv_extra kv_replicas(const context& c) {
  const double kv = c.m.kv_heads;
  kv_extra e;
  if (c.train || kv <= 0 || c.t <= kv) return e;
  const double beyond = 1 / kv - 1 / c.t;  // each rank's share of k and v beyond the split
  for (const layer_group& g : c.m.params.groups)
    for (const auto& l : g.params.linears)
      if (kv_headed(g, l)) {
        const auto count = static_cast<double>(g.count) * l.copies;
        e.values += count * (l.in_features * l.out_features + l.bias) * beyond;
        e.rows += count * l.out_features * beyond;
      }
  return e;
}

}  // namespace

stage_params count_stage(const context& c) {
  const auto& p = c.m.params;
  const double share = c.layers_on_stage / static_cast<double>(c.m.layers);
  const double layer_norms = p.over_layers([](const layer_params& l) { return l.norms; });
  const double layer_all = p.over_layers([](const layer_params& l) { return l.total(); });
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
  // A runtime's ReplicatedLinear (LatentMoE's latent projections) and every MoE router stay whole on every rank
  // (docs/models.md, "Replicated weights": vLLM, SGLang and TGI build the router unsplit, Megatron's TopKRouter and
  // torchtitan's NoParallel keep it whole); a given `params` has no shape.
  const bool shaped = c.s.params == 0;
  const double whole =
      shaped ? share * p.over_layers([&](const layer_params& l) { return replicated_params(c, l); }) : 0;
  const double whole_rows =
      shaped ? share * p.over_layers([&](const layer_params& l) { return replicated_rows(c, l); }) : 0;
  const kv_extra kv = shaped ? kv_replicas(c) : kv_extra{};
  sp.replicated = whole;
  sp.router = shaped ? share * p.over_layers([](const layer_params& l) { return l.router; }) : 0;
  sp.kv_replicas = share * kv.values;
  sp.matrices = (matrices - whole) / c.t + whole + sp.kv_replicas;
  const double encoder_rows = c.first_stage ? static_cast<double>(p.encoder_layers) * rows(p.encoder_layer) : 0;
  sp.matrix_rows = (share * p.over_layers(rows) + encoder_rows - whole_rows) / c.t + whole_rows + share * kv.rows;
  sp.embed = embed / c.t;
  sp.head = head / c.t;
  sp.norms = norms;
  const double adapters_all = p.over_layers([&](const layer_params& l) { return adapter_params(l, c.r); });
  const double encoder_adapters =
      c.first_stage ? static_cast<double>(p.encoder_layers) * adapter_params(p.encoder_layer, c.r) : 0;
  const double router_adapters =
      share * p.over_layers([&](const layer_params& l) { return router_adapter_params(c, l); });
  sp.adapters = c.r.adapters() ? (share * adapters_all + encoder_adapters) / c.t + router_adapters : 0;
  // ZeRO-3 gathers a layer's shard of each rank's own tp part: the router is whole there, as above.
  double largest = 0;
  for (const layer_group& g : p.groups)
    largest = std::max(largest, (g.params.total() - g.params.router) / c.t + g.params.router);
  sp.largest_layer = largest;
  const double routed = p.over_layers([](const layer_params& layer) {
    double n = 0;
    for (const auto& l : layer.linears)
      if (l.routed) n += l.in_features * l.out_features * l.copies;
    return n;
  });
  sp.routed = c.s.params > 0 ? 0 : share * routed / c.t;
  return sp;
}

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
  const auto keys = static_cast<std::size_t>(gguf_position_keys);
  std::vector<layer_class> classes(p.groups.size() * keys);
  for (std::int64_t i = 0; i < layers; ++i) {
    const gguf_layer_position at = gguf_position(i, layers);
    layer_class& k = classes[c.m.group_of(i) * keys + static_cast<std::size_t>(at.key())];
    if (k.count++ == 0) k.position = at;
  }
  const gguf_model_facts facts = gguf_facts(c);
  double weights = 0, bytes = 0;
  for (std::size_t key = 0; key < classes.size(); ++key) {
    const layer_class& k = classes[key];
    if (k.count == 0) continue;
    const layer_params& layer = p.groups[key / keys].params;
    for (const auto& l : layer.linears) {
      const double count = l.in_features * l.out_features * l.copies * static_cast<double>(k.count);
      weights += count;
      bytes += count *
               info(gguf_matrix_type(c.r.weights, name_of(l.name), k.position, facts, l.in_features)).bytes_per_value();
    }
  }
  return weights > 0 ? bytes / weights : info(ggml_type::q4_0).bytes_per_value();
}

gguf_edge_types gguf_edges(const context& c) {
  const dtype f = c.r.weights;
  const double out = info(gguf_output_type(f, c.m.hidden)).bytes_per_value();
  return {c.s.tie_word_embeddings ? out : info(gguf_embedding_type(f, c.m.hidden)).bytes_per_value(), out};
}

namespace {

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

// A quantised checkpoint's layout (dtype.hpp layout_linear_bytes): every Linear of every layer as its format stores
// it, what the format leaves alone (routers, q/k norms, sinks; MXFP4: everything but the routed experts) 16-bit, and
// the layers the checkpoint keeps 16-bit whole (quant_skip_layers: 2 B a value, no scales).
// As for GGUF, the layers' bytes become an average per matrix parameter, so tensor and pipeline shares and a given
// `params` apply unchanged (a pipeline stage takes the model's average, not its own layers' mix); embeddings,
// lm_head and norms stay 16-bit (lm_head is in modules_to_not_convert).
weight_storage store_layout(const context& c, const stage_params& sp) {
  const auto& p = c.m.params;
  const layout_params lp{c.s.quant_bits, c.s.quant_group_size, 2};
  // The split linears and the rest, and apart the replicated linears (every rank holds them whole).
  double params = 0, bytes = 0, whole_params = 0, whole_bytes = 0, kv_params = 0, kv_bytes = 0, kept = 0;
  for (std::size_t gi = 0; gi < p.groups.size(); ++gi) {
    const layer_group& g = p.groups[gi];
    const auto count = static_cast<double>(g.count);
    const layer_params* layer = &g.params;
    if (count == 0) continue;
    // The group's layers the checkpoint keeps 16-bit whole (quant_skip_layers; MXFP4 quantises the experts alone).
    const double skipped = c.r.weights == dtype::mxfp4 || gi >= c.m.quant_skipped.size()
                               ? 0
                               : std::min(count, static_cast<double>(c.m.quant_skipped[gi]));
    kept += skipped;
    double linear_params = 0, linear_bytes = 0, layer_whole = 0;  // per layer; the bytes: the group's
    for (const auto& l : layer->linears) {
      const double values = l.in_features * l.out_features + l.bias;
      const auto stored = layout_linear_bytes(c.r.weights, lp, l.in_features, l.out_features, l.bias, l.routed);
      const double b =
          ((count - skipped) * stored.value_or(values * lp.other_bytes) + skipped * values * lp.other_bytes) * l.copies;
      if (kv_headed(g, l)) kv_params += count * values * l.copies, kv_bytes += b;
      if (replicated(c, l)) {
        layer_whole += values * l.copies;
        whole_params += count * values * l.copies;
        whole_bytes += b;
        continue;
      }
      linear_params += values * l.copies;
      linear_bytes += b;
    }
    // The router is whole on every rank and 16-bit (vLLM builds it with quant_config=None); the rest (q/k norms,
    // sinks) splits.
    whole_params += count * layer->router;
    whole_bytes += count * layer->router * lp.other_bytes;
    const double rest = layer->total() - layer->norms - linear_params - layer_whole - layer->router;
    params += count * (linear_params + rest);
    bytes += linear_bytes + count * rest * lp.other_bytes;
  }
  // The split part's share of `params` is exactly 1 at tp 1 for the whole model (or a dyadic share), so the bytes
  // stay exact; at tp 1 nothing is split and a given `params` has no shape (sp.replicated 0): the model's average.
  // Replicated KV heads' extra k/v rows take the k/v linears' own bytes per value.
  const double all = params + whole_params, matrices = sp.matrices - sp.kv_replicas;
  const bool split = c.t > 1 && sp.replicated > 0 && params > 0;
  const double layers =
      (all == 0 ? 0
       : !split ? matrices / all * (bytes + whole_bytes)
                : (matrices - sp.replicated) / params * bytes + sp.replicated / whole_params * whole_bytes) +
      (sp.kv_replicas > 0 ? sp.kv_replicas / kv_params * kv_bytes : 0);
  const double per_matrix =
      !split && sp.kv_replicas == 0 ? (all > 0 ? (bytes + whole_bytes) / all : lp.other_bytes) : layers / sp.matrices;
  const double others = sp.embed + sp.head + sp.norms;
  const bool per_tensor = c.r.weights == dtype::fp8_block && c.s.quant_group_size == 0;
  const std::string layout = (per_tensor ? "fp8 (per-tensor scales)" : c.s.weights_dtype + " checkpoint layout") +
                             (kept > 0 ? ", " + n(kept) + " layers 16-bit" : "");
  return {layers + others * lp.other_bytes, n(sp.matrices) + " layer weights x " + n(per_matrix) + " B (" + layout +
                                                ") + " + n(others) + " embedding/norm weights x 2 B"};
}

// The MoE routers a format that compresses every linear leaves unquantised: an inference runtime that builds them
// without the quantisation method (runtime_def::router_unquantized: vLLM's and SGLang's quant_config=None, TGI's
// FastLinear), and a router that is an nn.Parameter, which bitsandbytes' _replace_with_bnb_linear (for transformers
// and the trainers) does not swap; it converts a router that is an nn.Linear with the rest.
double router_unquantized(const context& c, const stage_params& sp) {
  return c.m.router_parameter || (!c.train && runtime_of(c.r.runtime).router_unquantized) ? sp.router : 0;
}
std::string routers_text(double router, double bytes) {
  return router > 0 ? "routers " + n(router) + " x " + n(bytes) + " B + " : "";
}

}  // namespace

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
      // A Parameter router is one of those (o B); in inference o is 2.
      const double router = router_unquantized(c, sp), linears = sp.matrices - router;
      return {linears * w + router * o + others * o, n(linears) + " matrix weights x " + n(w) + " B + " +
                                                         routers_text(router, o) + n(others) +
                                                         " embedding/norm weights x " + n(o) + " B"};
    }
    case dtype_family::matrices_rows: {
      const double router = router_unquantized(c, sp), linears = sp.matrices - router;
      return {linears + router * 2 + sp.matrix_rows * fp32_bytes + others * 2,
              n(linears) + " x 1 B + " + n(sp.matrix_rows) + " fp32 row scales + " + routers_text(router, 2) +
                  n(others) + " x 2 B"};
    }
    case dtype_family::layout: return store_layout(c, sp);
    case dtype_family::gguf_mix: break;
  }
  return store_gguf(c, sp);
}

}  // namespace llm_memory::detail
