// SPDX-License-Identifier: MIT
// Sliding-window attention (Mistral, Gemma 2/3, gpt-oss, Cohere 2): the shapes of full attention, keys and values
// of the last sliding_window tokens cached. Formulas: docs/methodology.md, "KV cache".
#include <algorithm>
#include <string>

#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {

double add_sliding_params(const setting_values& s, const model_spec& m, layer_params& layer) {
  return attention_layer.add_params(s, m, layer);
}

attention_widths sliding_saved_widths(const context& c) { return attention_layer.saved_widths(c); }

void sliding_kv_cache(const context& c, double layers, builder& out) {
  const double b = static_cast<double>(c.s.batch), sq = static_cast<double>(c.s.seq);
  const double heads = std::max(1.0, c.m.kv_heads / c.t), kv_bytes = bytes_per_value(c.r.kv);
  const double per_token_layer = attention_kv_bytes_per_token(c);
  // A runtime may page sliding-window layers at full length (TGI's FlashCausalLM.init_kv_cache).
  if (runtime_of(c.r.runtime).sliding_at_full_length) {
    out.add("sliding-window layers (TGI pages them at full length)", layers * b * sq * per_token_layer,
            "2 x " + n(layers) + " layers x b x s " + n(sq) + " x n_kv " + n(heads) + " x head_dim " + n(c.m.head_dim) +
                " x " + n(kv_bytes) + " B");
    return;
  }
  const double window = std::min(sq, static_cast<double>(c.s.sliding_window));
  out.add("sliding-window layers", layers * b * window * per_token_layer,
          "2 x " + n(layers) + " layers x b x min(s, " + std::to_string(c.s.sliding_window) + ") x n_kv " + n(heads) +
              " x head_dim " + n(c.m.head_dim) + " x " + n(kv_bytes) + " B");
}

}  // namespace

const layer_kind_def sliding_attention_layer{layer_kind::sliding_attention, "sliding_attention", add_sliding_params,
                                             sliding_saved_widths, sliding_kv_cache};

}  // namespace llm_memory::detail
