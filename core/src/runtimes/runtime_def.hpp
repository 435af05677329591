// SPDX-License-Identifier: MIT
// The inference runtimes, one struct each: what a runtime sets, checks and adds to the estimate, filled in its own
// file (runtimes/<name>.cpp) and registered in the one table (runtimes/table.cpp). resolve, estimate, solve, sweep
// and the report read a runtime only through runtime_of(). Private to the core.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "estimate/stage.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/runtime.hpp"
#include "llm_memory/settings.hpp"
#include "profile_axes.hpp"

namespace llm_memory::detail {

// ---- the shared inference parts (estimate/inference.cpp) -------------------------------------------------------

/// The MLP's inner width one token passes through: the routed experts' together for a MoE model.
[[nodiscard]] double mlp_inner(const context& c);
/// The prefill chunk: max_num_batched_tokens, or the whole prompt when 0 [tokens].
[[nodiscard]] double chunk_tokens(const context& c);
/// Layers of this device that keep a fixed state per sequence (linear attention, Mamba, short convolution) [layers].
[[nodiscard]] double recurrent_layers(const context& c);
/// Layers of this device that cache keys and values per token: neither recurrent nor MLP-only [layers].
[[nodiscard]] double attention_layers(const context& c);
/// The largest state one recurrent layer of this device keeps per sequence (runtimes page every kind alike) [bytes].
[[nodiscard]] double state_bytes_per_layer(const context& c);
/// KV bytes of one token in every attention layer of this device, each at full length; MLA as its latent [bytes].
[[nodiscard]] double full_length_kv_bytes_per_token(const context& c);
/// KV bytes of one token in every layer of this device, when every layer attends to the whole context; 0 for
/// hybrids (sliding windows), which vLLM groups and SGLang reports as concurrency only [bytes].
[[nodiscard]] double kv_bytes_per_token(const context& c);
/// The KV bytes of one request of `seq` tokens on this device (sliding windows included) [bytes].
[[nodiscard]] double kv_bytes_per_request(const context& c);
/// The activations bucket's header, for a runtime to fill with its workspace.
[[nodiscard]] builder workspace();
/// The KV cache as kv_cache() computes it (every runtime but llama.cpp's): nothing in host memory.
[[nodiscard]] bucket device_kv(const context& c, double& cpu);
/// PyTorch's overhead: the CUDA context and the caching allocator's fragmentation reserve.
void torch_overhead(const context& c, double allocated, double weights, builder& over);

// ---- the struct ------------------------------------------------------------------------------------------------

/// How the solver splits a model over devices when it searches the fewest that fit.
enum class device_split {
  layers,                ///< whole layers per device, tp 1 (llama.cpp -sm layer, transformers device_map="auto")
  tensor,                ///< tensor parallel only: powers of two within a node, dividing the heads
  tensor_then_pipeline,  ///< tensor parallel within a node, then pipeline stages across nodes
};

/// How a runtime runs one architecture where that differs from its config.json (its per-architecture table, by
/// model_type): the settings it changes in the model and why.
struct architecture_rule {
  settings model;    ///< settings the runtime runs the model with (sliding_window "0": full attention everywhere)
  std::string note;  ///< the note saying so, citing the runtime's code; "" when nothing changes
};

/// One inference runtime: every way it differs from the others. A function left null is a step the runtime does
/// not take; the defaults are what transformers (eager PyTorch) does.
struct runtime_def {
  runtime_kind kind = runtime_kind::automatic;  ///< its enum value: its row in the table
  /// The settings `profile` reads for this run: a search that moves one re-resolves the run (vary(),
  /// profile_axes.hpp). nullptr: none.
  profile_reads (*reads)(const run_spec& r) = nullptr;
  /// The defaults profile: behaviour settings -> values, from the settings layered without a profile.
  settings (*profile)(const setting_values& values) = nullptr;
  /// Neither `profile` nor `architecture` reads weights_dtype (nor the quantisation settings): a run varied in its
  /// weights alone keeps its layered settings and model (vary(), resolve.cpp). false: not shown, resolved again.
  bool weights_free_profile = false;
  /// Its caches take llama.cpp's types (cache_type_k / cache_type_v, and kv_dtype's q8_0 ... iq4_nl: -ctk / -ctv,
  /// OLLAMA_KV_CACHE_TYPE); elsewhere those kv_dtype values are refused (resolve.cpp).
  bool ggml_cache_types = false;
  /// n_gpu_layers and n_cpu_moe place its layers and experts in host memory, and only its placement in the estimate
  /// reads them (place_weights, its KV and compute buffers): no profile, default, architecture rule or check does
  /// past their range, so fits.cpp sets them on a resolved run without resolving it again.
  bool places_layers_on_host = false;
  /// Its run reads the device only through its backend (check_device) and the memory the fit compares: no profile
  /// reads the GPU or its memory and no term is sized by it, so fits.cpp keeps its runs across devices.
  bool device_free = false;
  /// runtime = auto picks this runtime for these weights (tried in the table's order; vLLM otherwise).
  bool (*picked_for)(dtype weights) = nullptr;
  std::string_view picked_because;  ///< the auto note's reason, e.g. " (GGUF weights)"; "" for none
  /// The runtime's own checks of a resolved inference run, each error naming its setting.
  void (*check)(const run_spec& r, std::vector<error>& errors) = nullptr;
  /// The runtime places the weights itself (llama.cpp: -ngl layers on the GPU, token_embd in host memory).
  weight_split (*place_weights)(const context& c, const stage_params& sp) = nullptr;
  /// Weights the runtime keeps beside the model's own (tied-head copies, rotary caches): parameters bucket items.
  void (*extra_weights)(const context& c, builder& params) = nullptr;
  /// The MLA cache's item for `layers` MLA layers when the runtime does not cache the latent (layers/mla.cpp).
  void (*mla_cache)(const context& c, double layers, builder& kv) = nullptr;
  bool sliding_at_full_length = false;  ///< pages sliding-window layers at the whole context (layers/)
  /// What it changes in this architecture (its table by model_type: llama.cpp runs Phi-3 without the sliding
  /// window); resolve applies it over every layer of the settings. nullptr: the model as its settings say.
  architecture_rule (*architecture)(const setting_values& v) = nullptr;
  /// The recurrent states' storage when state_dtype is auto; empty: the activation dtype.
  std::optional<dtype> state_dtype;
  /// MiniMax's lightning-attention state (a cache of its own, not the mamba pool's); empty: the activation dtype
  std::optional<dtype> lightning_state_dtype;
  /// Columns a causal convolution's state keeps beyond kernel - 1: transformers pads it to the whole kernel (1)
  /// [columns]
  double conv_state_extra = 0;
  /// Builds every MoE router without the quantisation method (vLLM's and SGLang's gate with quant_config=None, TGI's
  /// FastLinear): a weights format that compresses the linears (fp8, int8, int4, nf4) leaves the router 16-bit
  /// (estimate/weights.cpp). false: the format converts it with the other linears (bitsandbytes' nn.Linear swap).
  bool router_unquantized = false;
  /// Loads a GGUF conversion, not the checkpoint's own files: a preset's shipped format (FP8, MXFP4) is not its
  /// default (resolve.cpp)
  bool converts_checkpoint = false;
  /// The activations bucket: the runtime's transient workspace.
  bucket (*activations)(const context& c) = activations_prefill;
  /// The KV cache bucket; `cpu` gets what stays in host memory [bytes].
  bucket (*kv)(const context& c, double& cpu) = device_kv;
  /// The runtime's own reserved terms beyond the tensors (overhead = detailed).
  void (*overhead)(const context& c, double allocated, double weights, builder& over) = torch_overhead;
  /// What the runtime itself reports (budget, KV capacity, buffers), and its refusals as notes.
  void (*report)(const context& c, const runtime_term& weights, runtime_report& out,
                 std::vector<std::string>& notes) = nullptr;
  bool pooled_kv = false;  ///< one KV pool of tokens: a note when it holds fewer than batch x seq
  /// The runtime's notes on a stage (after the shared ones).
  void (*notes)(const context& c, std::vector<std::string>& notes) = nullptr;
  /// Its own fitting moves whole layers to the host (n_gpu_layers) before another device is needed: the solver
  /// answers with the largest -ngl that fits one device (llama.cpp's llama_params_fit, Ollama's layer fitting)
  bool offloads_layers = false;
  /// Its fitting moves a MoE model's routed experts to the host first (--n-cpu-moe), attention and shared weights
  /// staying on the GPU (llama.cpp's common/fit.cpp); the solver and fits answer with the fewest such layers
  bool offloads_experts = false;
  device_split splits = device_split::layers;  ///< how the solver splits the model
  std::string_view split_limits;               ///< the splits tried, for "no split fits (...)"
  /// Memory is batch x (piecewise quadratic in seq) plus a constant, so a sweep can lower it (sweep.cpp lower());
  /// false: every point of a sweep is estimate() itself.
  bool lowerable = true;
};

/// vLLM's and SGLang's check: tp divides the KV heads or is a multiple of them, the error naming `runtime`.
void check_kv_split(const run_spec& r, std::string_view runtime, std::vector<error>& errors);

/// The runtime's row in the table (runtimes/table.cpp).
[[nodiscard]] const runtime_def& runtime_of(runtime_kind kind);
/// The runtime the settings spell `name` ("vllm"; "auto": automatic), or nothing.
[[nodiscard]] std::optional<runtime_kind> runtime_named(std::string_view name);
/// The runtime auto picks for these weights (resolve.cpp): the first row whose picked_for holds, else vLLM.
[[nodiscard]] runtime_kind auto_runtime(std::optional<dtype> weights);
/// The rule of a runtime that runs `v`'s architecture with full attention in every layer (no sliding window), or
/// nothing when `v` declares no window: the note says "<runtime> runs <model_type> without its sliding window of
/// N tokens: <why>".
[[nodiscard]] architecture_rule without_window(const setting_values& v, std::string_view runtime, std::string_view why);
/// An architecture a runtime runs with full attention although its config.json declares a sliding window.
struct windowless_arch {
  std::string_view model_type;  ///< config.json's model_type
  std::string_view why;         ///< the runtime's code that drops the window, cited
};
/// without_window for the first of `archs` naming `v`'s model_type; nothing when none does.
[[nodiscard]] architecture_rule windowless_rule(const setting_values& v, std::span<const windowless_arch> archs,
                                                std::string_view runtime);

/// The rule of a runtime that caches Llama 4's chunked-attention layers (attention_chunk_size > 0: 3 of every 4) as a
/// window of `chunk` tokens, every 4th layer keeping the whole context: sliding_window = chunk, sliding_window_pattern
/// = 4; nothing when `v` has no chunks or already a window. The note says "<runtime> caches ... (<why>)".
[[nodiscard]] architecture_rule chunks_as_window(const setting_values& v, std::int64_t chunk, std::string_view runtime,
                                                 std::string_view why);

/// The profile vLLM, SGLang, TGI and llama.cpp share: flash/paged attention, no allocator slack (the pool is one
/// allocation), the CUDA context.
[[nodiscard]] settings engine_common();

}  // namespace llm_memory::detail
