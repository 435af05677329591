// SPDX-License-Identifier: MIT
// Hugging Face transformers' generate(): eager PyTorch, the whole prompt in one pass (activations_prefill), the
// cache for the full context and PyTorch's allocator (the struct's defaults). Sources: docs/methodology.md
// ("Runtimes").
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

settings profile(const setting_values& /*v*/) { return {{"attention", "sdpa"}}; }

// The bitsandbytes formats load with load_in_4bit / load_in_8bit.
bool picked_for(dtype weights) { return weights == dtype::nf4 || weights == dtype::int8; }

// Zamba2's cache keeps its SSM state in the model's dtype, not fp32: Zamba2ForCausalLM builds
// Zamba2HybridDynamicCache(config, batch, dtype=self.dtype) and the kernels copy the state into it
// (models/zamba2/modeling_zamba2.py @00511f5).
architecture_rule zamba2_state(const setting_values& v) {
  if (v.state_dtype != "auto") return {};
  architecture_rule rule;
  rule.model.emplace("state_dtype", v.weights_dtype == "fp32" ? "fp32" : "bf16");
  rule.note =
      "transformers keeps zamba2's Mamba-2 state in the model's dtype (Zamba2HybridDynamicCache(dtype=self.dtype))";
  return rule;
}

// Llama 4: Llama4TextConfig's layer_types say "chunked_attention" for the roped layers, and the cache gives those a
// sliding-window layer of attention_chunk_size tokens ("from a cache point of view, both sliding and chunked are the
// same", cache_utils.py @v4.56 DynamicCache / StaticCache).
architecture_rule architecture(const setting_values& v) {
  if (v.model_type == "zamba2") return zamba2_state(v);
  return chunks_as_window(v, v.attention_chunk_size, "transformers",
                          "cache_utils.py: chunked_attention layers get a sliding-window cache layer");
}

}  // namespace

runtime_def transformers_runtime() {
  runtime_def d;
  d.kind = runtime_kind::transformers;
  d.profile = profile;
  d.picked_for = picked_for;
  d.picked_because = " (bitsandbytes weights)";
  d.architecture = architecture;
  // The caches keep the whole kernel, not kernel - 1: Qwen3NextGatedDeltaNet / NemotronHMamba2Mixer pad the prefill's
  // conv state to conv_kernel_size (F.pad), Lfm2HybridConvCache allocates (batch, hidden, L_cache) (v4.57).
  d.conv_state_extra = 1;
  // The recurrent state in fp32: fla's chunk_gated_delta_rule returns final_state in float32, the torch fallback
  // computes in float32 (modeling_qwen3_next.py); NemotronHConfig.mamba_ssm_cache_dtype defaults to "float32".
  d.state_dtype = dtype::fp32;
  d.architecture = architecture;
  // device_map="auto": layers split over devices.
  d.splits = device_split::layers;
  d.split_limits = "layers split over devices, up to one per layer";
  return d;
}

}  // namespace llm_memory::detail
