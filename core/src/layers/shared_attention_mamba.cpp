// SPDX-License-Identifier: MIT
// Zamba2's hybrid layer (transformers models/zamba2/modeling_zamba2.py @00511f5 Zamba2HybridLayer): one application
// of a shared transformer block (Zamba2AttentionDecoderLayer: RMSNorm over the concatenation of the hidden state and
// the original embeddings, 2 x hidden wide; attention from that 2h input with head_dim 2h / heads; pre_ff RMSNorm;
// the gated MLP), the layer's own `linear` (h x h) back into the residual stream, then the layer's Mamba-2 mixer. The
// shared blocks' weights and their per-application adapters are counted once by the family reader (extra_params,
// families/zamba2.cpp); this layer adds its Mamba-2 mixer and its `linear`. It keeps both caches: its application's
// keys and values of every token (transformers Zamba2HybridDynamicCache.update by the hybrid layer's index; vLLM
// model_executor/models/zamba2.py registers one Attention per application in dpa_list, "KV cache is unique for every
// attention layer") and its Mamba-2 state per sequence. Formulas: docs/models.md, docs/methodology.md.
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

// The Mamba-2 mixer's matrices and vectors (layers/mamba.cpp); the `linear` (h x h, no bias) as another parameter:
// PEFT's target names never reach it.
double add_shared_mamba_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  return add_mamba_params(s, m, layer) + m.hidden * m.hidden;
}

// The application's keys and values as full attention's item; the Mamba-2 state as an item of its own, beside the
// Mamba layers' (the same per-sequence formula, layers/mamba.cpp).
void shared_mamba_kv_cache(const context& c, double layers, builder& out) {
  attention_layer.kv_cache(c, layers, out);
  const double b = static_cast<double>(c.s.batch), per = mamba_layer.state_bytes(c);
  out.add("Mamba state of the hybrid layers (per sequence)", layers * b * per,
          n(layers) + " hybrid layers x b " + n(b) + " x " + n(per) + " B (conv + SSM, as the Mamba layers')");
}

// Per token of one application, beside the Mamba-2 mixer's saves: the concatenated input the 2h-wide norm keeps and
// its normed output q/k/v (and their adapters) read, 2h each; attention's own saves (q, k, v, the output, the
// scores: attention_saved over head_dim = 2h / heads); the pre_ff norm's input and the gated MLP's input, h each,
// and its gate, act(gate), up and down_proj's input, intermediate_size each; the `linear`'s input, h. The adapters'
// rank-wide intermediates (at most 4 x adapter_rank values) are left out.
void shared_mamba_saved(const context& c, const layer_params& layer, layer_activations& out) {
  mamba_layer.saved(c, layer, out);
  attention_saved(c, attention_layer, layer, out);
  const double h = c.m.hidden;
  const double shared = c.act * c.tokens * (2 * h + 2 * h + h + h + 4 * c.m.intermediate + h);
  out.linear_terms += shared;
  out.outside_tp += c.act * c.tokens * (2 * h + 2 * h + h + h + h);
}

double shared_mamba_state_bytes(const context& c) { return mamba_layer.state_bytes(c); }

}  // namespace

const layer_kind_def shared_attention_mamba_layer{
    .kind = layer_kind::shared_attention_mamba,
    .name = "shared_attention_mamba",
    .add_params = add_shared_mamba_params,
    .saved_widths = nullptr,
    .kv_cache = shared_mamba_kv_cache,
    .saved = shared_mamba_saved,
    .state_bytes = shared_mamba_state_bytes,
    .attends = true,
    .llamacpp_refusal =
        "llama.cpp (which Ollama runs) has no Zamba2 architecture: no zamba2 in its "
        "src/llama-arch.cpp nor convert_hf_to_gguf.py (ggml-org/llama.cpp PR 21412 adding it is not "
        "merged)"};

}  // namespace llm_memory::detail
