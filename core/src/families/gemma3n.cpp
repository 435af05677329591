// SPDX-License-Identifier: MIT
// Gemma 3n (transformers models/gemma3n/modeling_gemma3n.py and configuration_gemma3n.py @00aa0f5d): Gemma 3's
// attention and gated MLP (4 norms, q/k head norms; v_norm has no weight), the MLP width given per layer, and what
// it adds around them, counted here into extra_params:
//   per layer: AltUp (correct_output_scale h, correction_coefs n x n, prediction_coefs n x n^2, modality_router
//     h x n, router_norm h), LAuReL (linear_left h x r, linear_right r x h, post_laurel_norm h), the per-layer
//     input (per_layer_input_gate h x p, per_layer_projection p x h, post_per_layer_input_norm h);
//   once: embed_tokens_per_layer (vocab_size_per_layer_input x L p), per_layer_model_projection (h x L p),
//     per_layer_projection_norm (p), altup_projections and altup_unembed_projections ((n - 1) h x h each);
// with n = altup_num_inputs, r = laurel_rank, p = hidden_size_per_layer_input. The last num_kv_shared_layers layers
// reuse an earlier layer's keys and values (Gemma3nTextAttention.is_kv_shared_layer): they keep no cache, but their
// k_proj and v_proj are in the checkpoint and counted. docs/models.md has the derivation.
#include <algorithm>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

// A setting a reader wrote, read back (0 when absent: reported as missing already).
double written_value(const reader& r, const char* key) {
  const auto it = r.out.find(key);
  return it == r.out.end() ? 0.0 : number_in(it->second);
}

// intermediate_size as Gemma 3n writes it, one width per layer (MatFormer slices mix them): the narrowest is the
// model's width, each wider layer's difference is counted exactly (3 h x (width - narrowest)) into `extra`. False
// when malformed.
bool read_widths(reader& r, double h, double layers, double& extra) {
  const json* list = r.find({"intermediate_size"});
  if (list == nullptr || !list->is_array()) return r.integer({"intermediate_size"}, "intermediate_size");
  if (static_cast<double>(list->size()) != layers) {
    r.fail("intermediate_size", "config.json intermediate_size lists " + std::to_string(list->size()) + " widths for " +
                                    format_number(layers) + " layers");
    return false;
  }
  std::vector<double> widths;
  for (const json& width : *list) {
    const auto w = whole(&width);
    if (!w || *w < 1 || *w > 1e7) {
      r.fail("intermediate_size", "config.json intermediate_size must list whole widths, got " + quoted(width.dump()));
      return false;
    }
    widths.push_back(*w);
  }
  const double narrowest = *std::min_element(widths.begin(), widths.end());
  for (const double w : widths) extra += 3 * h * (w - narrowest);
  r.out["intermediate_size"] = format_number(narrowest);
  return true;
}

}  // namespace

void gemma3n_fields(reader& r, std::string_view) {
  r.integer({"num_kv_shared_layers"}, "num_kv_shared_layers");
  const double h = written_value(r, "hidden_size"), L = written_value(r, "num_hidden_layers");
  double extra = 0;
  if (!read_widths(r, h, L, extra)) return;
  const double n = field(r, "altup_num_inputs", 4, "extra_params");
  const double rank = field(r, "laurel_rank", 64, "extra_params");
  const double p = field(r, "hidden_size_per_layer_input", 256, "extra_params");
  const double per_layer_vocab = field(r, "vocab_size_per_layer_input", 262144, "extra_params");
  const double altup = h + n * n + n * n * n + h * n + h;
  const double laurel = 2 * h * rank + h;
  const double per_layer_input = 2 * h * p + h;
  extra += L * (altup + laurel + per_layer_input);
  extra += per_layer_vocab * L * p + h * L * p + p + 2 * (n - 1) * h * h;
  r.out["extra_params"] = format_number(extra);
}

}  // namespace llm_memory::detail
