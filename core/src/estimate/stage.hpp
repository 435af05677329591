// SPDX-License-Identifier: MIT
// The parts of one pipeline stage's estimate (estimate.cpp puts them together): the context every formula reads,
// the item builder, and the bucket functions, one file per part under estimate/. Private to the core.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "text.hpp"

namespace llm_memory::detail {

constexpr double fp32_bytes = 4;

inline std::string n(double v) { return format_number(v); }

/// What --n-cpu-moe moves off one device of the mix rule's layers (runtimes/llamacpp.cpp experts_on_cpu).
struct experts_moved {
  double bytes = 0;         ///< expert matrices and biases left on the host [bytes]
  double largest = 0;       ///< the largest of those tensors (every expert of one projection) [bytes]
  std::int64_t layers = 0;  ///< MoE layers whose experts moved [layers]
};

/// The weights' split llama.cpp's report reads (runtimes/llamacpp.cpp split_llamacpp).
struct placed_weights {
  double device = 0;  ///< on the GPU (its model buffer) [bytes]
  double host = 0;    ///< in host memory (its CPU model buffer) [bytes]
};

/// The KV buffer's numbers llama.cpp's report reads (runtimes/llamacpp.cpp kv_buffer).
struct kv_buffer_bytes {
  double bucket = 0;                ///< the KV cache bucket on this device, the RS buffer included [bytes]
  std::optional<double> recurrent;  ///< the RS buffer's item on this device; nothing: no recurrent layer [bytes]
};

/// What several buckets of one context read of llama.cpp's placement, computed on the first read
/// (runtimes/llamacpp.cpp): the weights' split, the KV buffer, the compute buffer and the report would otherwise
/// each walk every layer's tensor types, and the report build the split and the KV buffer again. Valid because a
/// context's fields are set once, in make_context (or right after it), before any bucket reads them. Each field:
/// nothing until computed.
struct layer_walk_memo {
  std::optional<double> per_matrix;      ///< the GGUF mix's average bytes per matrix weight [bytes]
  std::optional<experts_moved> experts;  ///< the routed experts --n-cpu-moe leaves on the host
  std::optional<double> first_matrix;    ///< the first layer's largest matrix at its type [bytes]
  std::optional<placed_weights> split;   ///< the weights' split of count_stage(c) between the GPU and host
  std::optional<kv_buffer_bytes> kv;     ///< the KV buffer's bucket
};

/// Everything the formulas need about one pipeline stage, derived once.
struct context {
  const run_spec& r;
  const setting_values& s;  ///< r.values
  const model_spec& m;      ///< r.model
  bool train = true;
  bool eval = false;                   ///< mode = eval: the framework's forward pass, nothing trains
  double t = 1;                        ///< tensor-parallel degree
  double dp = 1;                       ///< data-parallel degree
  double layers_on_stage = 0;          ///< layers held by the reported pipeline stage
  double in_flight = 1;                ///< micro-batches whose activations the stage holds (1F1B)
  bool first_stage = true;             ///< holds the embedding
  bool last_stage = true;              ///< holds the final norm, lm_head and the loss
  double act = 2;                      ///< bytes per activation value
  double tokens = 0;                   ///< b x s of one micro-batch on this device (/ cp)
  double cp = 1;                       ///< context-parallel degree (training)
  step_phase phase = step_phase::sum;  ///< the phase estimated (sum: framework generic, every bucket summed)
  mutable layer_walk_memo walks{};     ///< llama.cpp's per-layer walks, each done once (layer_walk_memo)
  [[nodiscard]] bool phased() const { return phase != step_phase::sum && phase != step_phase::inference; }
  [[nodiscard]] bool before_backward() const {
    return phase == step_phase::forward_end || phase == step_phase::backward_start;
  }
};

/// What the bucket functions report besides their buckets.
struct tally {
  double cpu = 0;      ///< host RAM for offloaded state [bytes]
  double dynamic = 0;  ///< allocated and freed within the step (the allocator's reserve grows with it) [bytes]
  double paged = 0;    ///< paged optimizer states: managed memory outside PyTorch's allocator [bytes]
};

/// The context of one stage in one phase.
[[nodiscard]] context make_context(const run_spec& r, bool first, bool last, step_phase phase);

// A bucket put together item by item; functions return std::move(out.b) (a member is not moved by `return` on its
// own: each bucket and its items' strings were copied once more).
struct builder {
  bucket b;
  void add(std::string name, double bytes, std::string formula) {
    bytes = std::ceil(bytes);
    b.bytes += bytes;
    b.items.push_back({std::move(name), bytes, std::move(formula)});
  }
};

struct stage_params {
  double matrices = 0;       ///< linear-layer weights (and their biases) on this device, after tp
  double matrix_rows = 0;    ///< output rows of those matrices (per-row quantisation scales)
  double embed = 0;          ///< input embedding on this device
  double head = 0;           ///< lm_head on this device (0 when tied and on the same stage)
  double norms = 0;          ///< norm weights (replicated across tp)
  double adapters = 0;       ///< LoRA parameters on this device
  double largest_layer = 0;  ///< one layer's parameters on this device (ZeRO-3 gathers)
  double routed = 0;         ///< routed-expert matrix weights on this device, before expert parallelism
  double vision = 0;         ///< vision tower + projector on this device (first stage, split by tp), 16-bit
  double replicated = 0;     ///< of `matrices`, the linear weights tp does not split (ReplicatedLinear)
  double router = 0;         ///< of `replicated`, the MoE routers (weights, biases, shared_expert_gate)
  double kv_replicas = 0;    ///< of `matrices`, the k/v weights a runtime's replicated KV heads add to a tp split
  [[nodiscard]] double total() const { return matrices + embed + head + norms + vision; }
};

struct weight_storage {
  double bytes = 0;     ///< per device, before ZeRO sharding
  std::string formula;  ///< how
};

// Bytes per value of the token embedding and of the output matrix in a GGUF mix: a tied embedding is quantised as
// the output (llama-quant.cpp: has_tied_embeddings).
struct gguf_edge_types {
  double embed = 0;   ///< token_embd [bytes per value]
  double output = 0;  ///< output [bytes per value]
};

// The weights a runtime places itself between the device and host memory (runtime_def::place_weights).
struct weight_split {
  double device = 0;    ///< bytes on the GPU ("CUDA0 model buffer")
  double host = 0;      ///< bytes in host memory ("CPU model buffer")
  std::string formula;  ///< how
};

// Trainable parameters and ZeRO sharding on this device, shared by the state buckets.
struct state_layout {
  stage_params sp;                ///< parameters on this device
  double trainable_fraction = 1;  ///< of the full model's parameters that train (1 = all)
  double trainable_model = 0;     ///< trainable parameters of the whole model [parameters]
  double trainable_dev = 0;       ///< trainable parameters on this device [parameters]
  double zero_params = 1;         ///< ZeRO divisors: parameters (stage 3), gradients (2), optimizer (1)
  double zero_grads = 1;
  double zero_opt = 1;
  std::string shard;    ///< " / N data-parallel shards", or "" with one replica
  double ep_other = 0;  ///< routed-expert parameters the other expert-parallel ranks hold (unsharded buckets only)
  double train_w = 2;   ///< bytes per trained weight (bf16 adapters over a quantised base)
};

// ---- estimate/weights.cpp ----

[[nodiscard]] double adapter_params(const layer_params& layer, const run_spec& r);
// The nn.Linear modules of a MoE layer's router that peft's all-linear adapts (none for a Parameter router).
[[nodiscard]] std::vector<linear_shape> adapted_router_linears(const context& c, const layer_params& layer);
// Their adapters' parameters, whole on every tensor-parallel rank as the router is.
[[nodiscard]] double router_adapter_params(const context& c, const layer_params& layer);

[[nodiscard]] double rows(const layer_params& layer);

[[nodiscard]] stage_params count_stage(const context& c);

// What llama.cpp's quantiser reads about the model (dtype.hpp gguf_model_facts).
[[nodiscard]] gguf_model_facts gguf_facts(const context& c);

[[nodiscard]] gguf_edge_types gguf_edges(const context& c);

// GGUF: average bytes per matrix weight over every layer's tensor types (the mix rule).
[[nodiscard]] double gguf_bytes_per_matrix_weight(const context& c);

// Bytes of the stored weights in the chosen format (dtype.hpp). Quantised formats compress the linear layers
// only: bitsandbytes and FP8 keep embeddings, lm_head and norms in 16-bit.
[[nodiscard]] weight_storage store_weights(const context& c, const stage_params& sp);

// ---- estimate/activations.cpp ----

/// What one layer saves for backward, per micro-batch on this device.
struct layer_activations {
  double linear_terms = 0;  ///< terms linear in s [bytes]
  double square_terms = 0;  ///< terms in s^2 (attention scores) [bytes]
  double outside_tp = 0;    ///< part of linear_terms outside the tensor-parallel regions (bytes): norm inputs, the
                            ///< attention and MLP inputs, residual dropout masks (Korthikanti et al. eq. 3: 10sbh)
};

/// Whether any of `layer`'s linears with one of these names keeps its input.
[[nodiscard]] bool trains(const context& c, const layer_params& layer, std::initializer_list<projection> names);

/// Saved copies of one input read by the linears `names` (one shared, or one per keeping linear; LoRA dropout's
/// masks and dropped copies) [bytes per token].
[[nodiscard]] double input_bytes(const context& c, const layer_params& layer, std::initializer_list<projection> names,
                                 double width);

// Checkpoints alive through forward: every layer's input in the residual stream's dtype, fewer when offloaded.
void checkpoints(const context& c, double layers, double t_seq, builder& out);

[[nodiscard]] bucket activations_train(const context& c);

// transformers generate(): the whole prompt in one pass.
[[nodiscard]] bucket activations_prefill(const context& c);

// ---- estimate/eval.cpp ----

// mode = eval under torch.no_grad: the largest live set of one layer, or of the final norm, logits and loss.
[[nodiscard]] bucket activations_eval(const context& c);

// The loss path's bytes per token per vocabulary entry (activations.cpp: forward / backward, per loss_impl).
struct loss_path {
  double forward = 0;    ///< alive at the end of forward [bytes per token per vocabulary entry]
  double backward = 0;   ///< alive at the start of backward [bytes per token per vocabulary entry]
  const char* how = "";  ///< what the bytes are
};
[[nodiscard]] loss_path loss_coefficients(loss_kind kind, double B);

// ---- estimate/kv_cache.cpp ----

[[nodiscard]] bucket kv_cache(const context& c);

// ---- estimate/state.cpp ----

[[nodiscard]] state_layout layout_state(const context& c);

[[nodiscard]] bucket parameters_bucket(const context& c, const state_layout& l, tally& t);

// The gradients' and the optimizer state's buckets with nothing in them (an inference run's).
[[nodiscard]] bucket no_gradients();

[[nodiscard]] bucket no_optimizer_state();

[[nodiscard]] bucket gradients_bucket(const context& c, const state_layout& l, tally& t);

[[nodiscard]] bucket optimizer_bucket(const context& c, const state_layout& l, tally& t);

// ---- estimate/overhead.cpp ----

// Overhead; fills `peak` (allocated, reserved, device) from the tensors' bytes.
[[nodiscard]] bucket overhead_bucket(const context& c, const state_layout& l, const tally& t, double tensors,
                                     double weights, peak_memory& peak);

// ---- estimate/inference.cpp (each runtime's terms from its row in runtimes/table.cpp) ----

[[nodiscard]] bucket activations_inference(const context& c);

[[nodiscard]] bucket inference_kv(const context& c, double& cpu);

// The runtime's own reserved terms beyond the tensors (overhead = detailed).
void runtime_overhead(const context& c, double allocated, double weights, builder& over);

[[nodiscard]] runtime_report report_runtime(const context& c, const estimate_result& r,
                                            std::vector<std::string>& notes);

}  // namespace llm_memory::detail
