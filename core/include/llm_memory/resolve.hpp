// SPDX-License-Identifier: MIT
// The resolve stage: raw settings (defaults <- model preset <- config.json <- explicit values) become one typed,
// fully checked run_spec — every choice an enum, the model built once with its exact parameter count, and the
// facts derived from several settings computed once. estimate, solve, advise and sweep all take a run_spec;
// docs/architecture.md shows where it sits.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "llm_memory/dtype.hpp"
#include "llm_memory/model.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

enum class run_mode : std::uint8_t { train, inference, eval };
enum class finetune_method : std::uint8_t { full, lora, qlora };
enum class optimizer_kind : std::uint8_t { adamw, adamw_8bit, sgd, sgd_momentum, lion, adafactor };
enum class attention_kernel : std::uint8_t { standard, eager, sdpa, flash, sdpa_gqa };
enum class recompute_policy : std::uint8_t { none, selective, full };
enum class offload_target : std::uint8_t { none, optimizer, optimizer_and_params };
enum class overhead_mode : std::uint8_t { none, factor, detailed };
enum class display_units : std::uint8_t { gb, gib };
/// The inference runtime; `auto` is resolved (GGUF weights: llamacpp, else vllm) before anything reads it.
enum class runtime_kind : std::uint8_t { automatic, transformers, vllm, sglang, tgi, llamacpp, ollama };
enum class framework_kind : std::uint8_t {
  generic,
  hf,
  deepspeed,
  fsdp,
  torchtune,
  litgpt,
  megatron,
  unsloth,
  torchtitan,
  llamafactory,
  axolotl
};
enum class gradient_lifetime : std::uint8_t { freed, resident };
enum class optimizer_step_impl : std::uint8_t { fused, foreach, paged };
enum class loss_kind : std::uint8_t {
  hf,
  hf_legacy,
  trl_chunked,
  torchtune_chunked,
  torchtune_compiled,
  litgpt,
  megatron,
  unsloth,
  fused,
  torchtune_legacy,
  compiled,
};
enum class offload_activations : std::uint8_t { none, prefetched, full };
/// TGI's releases by how warmup turns free memory into KV blocks (tgi_version; docs/methodology.md).
enum class tgi_release : std::uint8_t { v3_3, v3_1, v3_0, v2_4, v1_4_1, v1_0 };
/// vLLM's releases by the dummy sampler's top-k/top-p path and the profile defaults (vllm_version;
/// docs/methodology.md): FlashInfer from 0.21, a Triton kernel in 0.17-0.20, PyTorch's sort in 0.11-0.16; v0_6: the
/// V0 engine (0.6 - 0.10; docs/runtimes.md, "vLLM V0").
enum class vllm_release : std::uint8_t { v0_21, v0_17, v0_11, v0_6 };

/// Everything a run is resolved from: resolving them again gives the same run.
struct resolve_inputs {
  settings explicit_values;  ///< the explicit values (text, as the settings table reads them)
  settings config;           ///< config.json's architecture settings
  /// A GGUF file's tensors and where llama.cpp places them (--gguf): inference weights are its bytes.
  std::shared_ptr<const gguf_placement> gguf_file = nullptr;
};

/// Settings resolved and checked, with the model and the facts derived from them.
struct run_spec {
  setting_values values;  ///< every setting as resolved; the text form of the output comes from here
  model_spec model;       ///< the architecture and its exact parameter count, built once

  run_mode mode = run_mode::train;
  finetune_method finetune = finetune_method::full;
  optimizer_kind optimizer = optimizer_kind::adamw;
  attention_kernel attention = attention_kernel::standard;
  recompute_policy recompute = recompute_policy::none;
  offload_target offload = offload_target::none;
  overhead_mode overhead = overhead_mode::detailed;
  display_units units = display_units::gb;
  runtime_kind runtime = runtime_kind::vllm;  ///< the resolved runtime, never `automatic`
  bool runtime_auto = false;                  ///< runtime = auto chose it
  tgi_release tgi = tgi_release::v3_3;        ///< TGI's KV sizing rule (tgi_version)
  vllm_release vllm = vllm_release::v0_21;    ///< vLLM's sampler path and defaults (vllm_version)
  ggml_type cache_k = ggml_type::f16;         ///< llama.cpp K-cache type (cache_type_k)
  ggml_type cache_v = ggml_type::f16;         ///< llama.cpp V-cache type (cache_type_v)
  framework_kind framework = framework_kind::hf;
  gradient_lifetime grad_lifetime = gradient_lifetime::freed;
  optimizer_step_impl optimizer_impl = optimizer_step_impl::fused;
  loss_kind loss = loss_kind::hf;
  offload_activations activation_offload = offload_activations::none;

  dtype weights = dtype::bf16;           ///< storage of the (base) weights
  dtype trainable = dtype::bf16;         ///< storage of the trained weights: bf16 adapters over a quantised base
  dtype gradients = dtype::bf16;         ///< grads_dtype, auto resolved to `trainable`
  dtype optimizer_states = dtype::fp32;  ///< optimizer_dtype
  dtype kv = dtype::bf16;                ///< kv_dtype, auto resolved to the activation dtype
  dtype state = dtype::bf16;             ///< state_dtype, auto resolved to the runtime's (runtimes/)
  lora_target_set lora_targets;          ///< the adapted projections

  std::int64_t model_parallel = 1;   ///< tp x pp: devices one replica spans [devices]
  std::int64_t data_parallel = 1;    ///< devices / (tp x pp) [devices]
  std::int64_t effective_batch = 1;  ///< batch x grad_accum x data_parallel [sequences per optimizer step]
  double tokens = 0;                 ///< batch x seq of one micro-batch [tokens]
  double encoder_seq = 0;            ///< encoder-decoder: encoder_seq, or seq when 0; else 0 [tokens per sequence]
  double activation_bytes = 2;     ///< bytes per activation value: 4 with fp32 weights and no autocast, else 2 [bytes]
  double residual_bytes = 2;       ///< bytes per value of the residual stream (checkpoints): 4 with fp32 weights or
                                   ///< qlora_upcast (an fp32 embedding output), else activation_bytes [bytes]
  bool per_linear_inputs = false;  ///< input_copies = per_linear: each linear keeps its own copy of its input
  /// bnb_version = before_0.43.2 over a 4-bit base: every frozen 4-bit linear keeps its input, as an adapted one does
  bool frozen_linears_keep_input = false;
  bool autocast_weights = false;  ///< fp32 trained weights under 16-bit autocast: a cached 16-bit copy each
  /// compile = on: inductor fuses the norms and the MLP's activation, which save their 16-bit inputs only
  bool compiled = false;
  /// Layer-level selective checkpointing (torchtitan's selective_ac_option N with recompute = selective): every Nth
  /// block of a stage checkpointed whole, the others keep everything (N 0 counts as 1); 0: not layer-level [layers]
  std::int64_t layer_sac = 0;
  double params = 0;  ///< total parameters: the `params` override when given [parameters]
  /// What the run was resolved from (vary() changes it and resolves it again); never null after resolve().
  std::shared_ptr<const resolve_inputs> inputs;

  /// A framework's step (training, or evaluation's forward pass): no inference runtime, the framework's profile.
  [[nodiscard]] bool train() const { return mode != run_mode::inference; }
  /// mode = eval: the forward pass only (no gradients, optimizer state or KV cache).
  [[nodiscard]] bool eval() const { return mode == run_mode::eval; }
  /// The GGUF file's tensors (--gguf) among the inputs, or null: the inference weights are its bytes where
  /// llama.cpp places them, not the mix rule.
  [[nodiscard]] const gguf_placement* gguf() const { return inputs ? inputs->gguf_file.get() : nullptr; }
  [[nodiscard]] bool adapters() const { return finetune != finetune_method::full; }
  /// The phase model (the framework's row says: every framework but generic): the peak is the largest phase, not
  /// the sum of the buckets.
  [[nodiscard]] bool phased() const;
  [[nodiscard]] bool quantised() const { return info(weights).family != dtype_family::floating; }
};

/// The runtime's name as the settings spell it ("vllm").
[[nodiscard]] std::string_view runtime_name(runtime_kind k);

/// Resolves raw settings: defaults <- model preset <- config.json <- explicit values, then runs every check
/// (ranges, consistency, cross-setting limits). Errors name the setting, all at once. The run records all three
/// as its `inputs`; `gguf_file` (--gguf) makes the inference weights the file's bytes.
[[nodiscard]] result<run_spec> resolve(const settings& explicit_values, const settings& config = {},
                                       std::shared_ptr<const gguf_placement> gguf_file = nullptr);

/// The one way to vary a run: `changes` over its explicit values, resolved as applying them would resolve the run
/// (the GGUF file kept, the profile's defaults following the new values: vLLM's non-torch memory and SGLang's
/// fraction follow tp and pp, TGI 1.4.1's prefill tokens seq, Ollama's context the devices, torchtune's recipe
/// the device count). Fast paths: changes that move only batch, seq or devices where the profile reads none
/// (profile_axes.cpp) derive and check the facts again; weights_dtype alone on a stated runtime that reads no
/// weights setting (runtime_def::weights_free_profile) parses and checks again; both keep the model: the same run.
[[nodiscard]] result<run_spec> vary(const run_spec& base, const settings& changes);

/// The same run with another micro-batch, sequence length and device count, unchecked: the model is kept, the
/// derived facts are derived again. vary()'s fast path; estimate() (one sequence, the encoder pass) and the
/// sweep's lowering (probes at batch 0 and 2^52, outside the settings' range) read the formulas through it.
[[nodiscard]] run_spec with_workload(const run_spec& base, std::int64_t batch, std::int64_t seq, std::int64_t devices);

}  // namespace llm_memory
