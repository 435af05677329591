// SPDX-License-Identifier: MIT
// The KV cache: bytes per token and layer for each attention kind, on this device.
// Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "estimate/stage.hpp"
#include "layers/layer_kinds.hpp"
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
  if (c.train) return std::move(out.b);
  if (m.choices.stack == stack_kind::encoder) {
    out.add("no KV cache (encoder only)", 0,
            "bidirectional attention reads the whole input in one pass: nothing is "
            "cached between tokens");
    return std::move(out.b);
  }
  const double kv_bytes = bytes_per_value(c.r.kv);
  const double b = static_cast<double>(s.batch), L = c.layers_on_stage;
  if (m.cross_attention()) {
    // Every decoder layer caches the keys and values of the encoder's output once (modeling_t5.py / modeling_bart.py
    // EncoderDecoderCache's cross_attention_cache), at the encoder length.
    const double heads = std::max(1.0, m.kv_heads / c.t), enc = c.r.encoder_seq;
    out.add("cross-attention keys and values (encoder length)", L * b * enc * 2 * heads * m.head_dim * kv_bytes,
            "2 x " + n(L) + " layers x b " + n(b) + " x encoder_seq " + n(enc) + " x n_kv " + n(heads) +
                " x head_dim " + n(m.head_dim) + " x " + n(kv_bytes) + " B");
  }
  // Each kind of layer caches its own way (layers/): the stage's layers counted by kind, less the KV-shared ones.
  for (const layer_kind_def* kind : layer_kinds()) {
    const double layers = m.cached_layers_of(kind->kind, L);
    if (layers > 0) kind->kv_cache(c, layers, out);
  }
  return std::move(out.b);
}

}  // namespace llm_memory::detail
