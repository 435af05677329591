// SPDX-License-Identifier: MIT
// The KV cache: bytes per token and layer for each attention kind, on this device.
// Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "estimate/stage.hpp"
#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {

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
  const runtime_def& rt = runtime_of(c.r.runtime);
  if (m.mla && rt.mla_cache != nullptr) {
    rt.mla_cache(c, out);
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
  if (sliding_layers > 0 && rt.sliding_at_full_length) {
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

}  // namespace llm_memory::detail
