// SPDX-License-Identifier: MIT
// Gemma 4 (transformers models/gemma4/modeling_gemma4.py @c308a309 and configuration_gemma4.py @008e5743): Gemma 3's
// layer (q/k/v/o, per-head q_norm and k_norm, v_norm without a weight, four RMSNorms, a gated MLP) where
//   - full-attention layers have heads of global_head_dim (default 512) and, with attention_k_eq_v, their own
//     num_global_key_value_heads and no v_proj (the keys are the values:
//     Gemma4TextAttention.use_alternative_attention);
//   - the last num_kv_shared_layers layers read an earlier layer's keys and values and have no k_proj, v_proj or
//     k_norm (the modeling file drops them from the checkpoint on load: _keys_to_ignore_on_load_unexpected);
//   - with use_double_wide_mlp, those shared layers' MLP is twice intermediate_size wide (Gemma4TextMLP);
//   - each layer stores a one-element layer_scalar (a persistent buffer: in the checkpoint);
//   - hidden_size_per_layer_input p > 0 adds Gemma 3n's per-layer inputs (per layer: per_layer_input_gate h x p,
//     per_layer_projection p x h, post_per_layer_input_norm h; once: embed_tokens_per_layer
//     vocab_size_per_layer_input x L p, per_layer_model_projection h x L p, per_layer_projection_norm p);
//   - enable_moe_block keeps the dense MLP beside the experts (counted as the shared expert, width
//     intermediate_size) and adds the router's scale h and per_expert_scale E and three RMSNorms h per layer.
// The model's own count takes every layer at the sliding layers' shape; the difference, layer by layer, goes into
// extra_params. docs/models.md has the derivation.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

// The sizes the count needs, as config.json gives them (0 where absent: reported as missing already).
struct gemma4_sizes {
  double h = 0;              ///< hidden_size [width]
  double layers = 0;         ///< num_hidden_layers [layers]
  double heads = 0;          ///< num_attention_heads [heads]
  double kv_heads = 0;       ///< num_key_value_heads, the sliding layers' [heads]
  double head_dim = 0;       ///< head_dim, the sliding layers' [width]
  double global_kv = 0;      ///< the full-attention layers' key/value heads [heads]
  double global_dim = 0;     ///< global_head_dim [width]
  double inner = 0;          ///< intermediate_size [width]
  double shared = 0;         ///< num_kv_shared_layers [layers]
  bool k_eq_v = false;       ///< attention_k_eq_v: full-attention layers have no v_proj
  bool double_wide = false;  ///< use_double_wide_mlp: the shared layers' MLP is 2 x intermediate_size
};

[[nodiscard]] double written_value(const reader& r, const char* key) {
  const auto it = r.out.find(key);
  return it == r.out.end() ? 0.0 : number_in(it->second);
}

// Which layers attend to the full context: layer_types, else every 6th (Gemma4TextConfig.__post_init__); the last
// layer is always full there.
[[nodiscard]] std::vector<bool> full_layers(const reader& r, double layers) {
  std::vector<bool> full(static_cast<std::size_t>(layers), false);
  const json* types = r.find({"layer_types"});
  for (std::size_t l = 0; l < full.size(); ++l) {
    const bool listed = types != nullptr && types->is_array() && l < types->size() && (*types)[l].is_string();
    full[l] = listed ? (*types)[l].get<std::string>() == "full_attention" : (l + 1) % 6 == 0;
  }
  if (!full.empty()) full.back() = true;
  return full;
}

// One layer's attention less what the model's count gives it (q, k, v, o and two head norms at the sliding shape).
[[nodiscard]] double attention_difference(const gemma4_sizes& s, bool full, bool kv_shared) {
  const double d = full ? s.global_dim : s.head_dim;
  const double kv = full && s.k_eq_v ? s.global_kv : s.kv_heads;
  const double kv_projections = full && s.k_eq_v ? 1 : 2;
  const double real = 2 * s.h * s.heads * d + d + (kv_shared ? 0 : kv_projections * s.h * kv * d + d);
  const double counted = 2 * s.h * s.heads * s.head_dim + 2 * s.h * s.kv_heads * s.head_dim + 2 * s.head_dim;
  return real - counted;
}

// The per-layer input embeddings and projections (p = hidden_size_per_layer_input, 256 when omitted as in
// Gemma4TextConfig; the 31B and 26B A4B configs write 0 = none).
double per_layer_inputs(reader& r, const gemma4_sizes& s) {
  const double p = field(r, "hidden_size_per_layer_input", 256, "extra_params");
  if (p == 0) return 0;
  const double vocab = field(r, "vocab_size_per_layer_input", 262144, "extra_params");
  return s.layers * (2 * s.h * p + s.h) + vocab * s.layers * p + s.h * s.layers * p + p;
}

// enable_moe_block: the dense MLP is the shared expert; top_k_experts is the routing width. Without it, no experts.
double moe_block(reader& r, const gemma4_sizes& s) {
  if (!r.boolean("enable_moe_block", "num_experts").value_or(false)) {
    for (const char* key : {"num_experts", "num_experts_per_tok", "moe_intermediate_size"}) r.out.erase(key);
    return 0;
  }
  r.integer({"top_k_experts"}, "num_experts_per_tok");
  r.out["shared_expert_intermediate_size"] = format_number(s.inner);
  const double experts = written_value(r, "num_experts");
  return s.layers * (s.h + experts + 3 * s.h);
}

gemma4_sizes read_sizes_of(reader& r) {
  gemma4_sizes s;
  s.h = written_value(r, "hidden_size");
  s.layers = written_value(r, "num_hidden_layers");
  s.heads = written_value(r, "num_attention_heads");
  if (!r.out.contains("num_key_value_heads")) r.out["num_key_value_heads"] = "4";  // Gemma4TextConfig's default
  s.kv_heads = written_value(r, "num_key_value_heads");
  s.head_dim = r.out.contains("head_dim") ? written_value(r, "head_dim") : 256;  // Gemma4TextConfig's default
  r.out["head_dim"] = format_number(s.head_dim);
  s.global_dim = field(r, "global_head_dim", 512, "extra_params");
  s.k_eq_v = r.boolean("attention_k_eq_v", "extra_params").value_or(false);
  s.global_kv = field(r, "num_global_key_value_heads", s.kv_heads, "extra_params");
  s.inner = written_value(r, "intermediate_size");
  s.shared = written_value(r, "num_kv_shared_layers");
  s.double_wide = r.boolean("use_double_wide_mlp", "extra_params").value_or(false);
  return s;
}

}  // namespace

void gemma4_fields(reader& r, std::string_view) {
  r.integer({"num_kv_shared_layers"}, "num_kv_shared_layers");
  if (r.boolean("attention_bias", "attention_bias").value_or(false))
    return r.fail("attention_bias", "config.json attention_bias true is not modelled for gemma4");
  const gemma4_sizes s = read_sizes_of(r);
  const std::vector<bool> full = full_layers(r, s.layers);
  const double first_shared = s.layers - s.shared;
  double extra = s.layers;  // layer_scalar
  for (std::size_t l = 0; l < full.size(); ++l) {
    const bool kv_shared = s.shared > 0 && first_shared > 0 && static_cast<double>(l) >= first_shared;
    extra += attention_difference(s, full[l], kv_shared);
    if (kv_shared && s.double_wide) extra += 3 * s.h * s.inner;
  }
  extra += per_layer_inputs(r, s) + moe_block(r, s);
  if (extra < 0)
    return r.fail("extra_params",
                  "config.json gemma4 layers smaller than their sliding layers' shape are not modelled");
  r.out["extra_params"] = format_number(extra);
  // The full-attention layers cache keys and values of their own heads (layers/attention.cpp): global_head_dim wide,
  // num_global_key_value_heads of them only with attention_k_eq_v (vLLM gemma4.py @eee7972f Gemma4DecoderLayer).
  r.out["global_head_dim"] = format_number(s.global_dim);
  if (s.k_eq_v) r.out["num_global_key_value_heads"] = format_number(s.global_kv);
  r.out["model_notes"] =
      "gemma4: the text model (full-attention layers' wider heads, per-layer embeddings, experts) and the vision and "
      "audio towers of vision_config and audio_config are counted";
}

namespace {

// The vision tower (Gemma4VisionModel): per encoder layer q, o h x heads d, k, v h x kv d, q_norm and k_norm d, four
// RMSNorms h, the gated MLP 3 h i, and with use_clipped_linears four scalar clip buffers on each of the 7 linears.
// Once: patch_embedder input_proj (3 patch^2) x h, position_embedding_table 2 x position_embedding_size x h, std_bias
// and std_scale h each when standardize; embed_vision's projection h x text h (its norm has no weight).
double gemma4_vision(reader& r, const json& v, double text_hidden) {
  reader sub(v);
  const double h = field(sub, "hidden_size", 768, "vision_params");
  const double i = field(sub, "intermediate_size", 3072, "vision_params");
  const double layers = field(sub, "num_hidden_layers", 16, "vision_params");
  const double heads = field(sub, "num_attention_heads", 12, "vision_params");
  const double kv = field(sub, "num_key_value_heads", heads, "vision_params");
  const double d = field(sub, "head_dim", 64, "vision_params"), patch = field(sub, "patch_size", 16, "vision_params");
  const double positions = field(sub, "position_embedding_size", 10240, "vision_params");
  const bool clipped = sub.boolean("use_clipped_linears", "vision_params").value_or(false);
  const bool standardize = sub.boolean("standardize", "vision_params").value_or(false);
  for (auto& e : sub.errors) r.errors.push_back(std::move(e));
  const double layer = 2 * h * heads * d + 2 * h * kv * d + 2 * d + 4 * h + 3 * h * i + (clipped ? 7 * 4 : 0);
  return layers * layer + 3 * patch * patch * h + 2 * positions * h + (standardize ? 2 * h : 0) + h * text_hidden;
}

// The audio encoder (Gemma4AudioModel, a Conformer): per layer two feed-forward blocks (h x 4h and 4h x h, two
// RMSNorms h), attention (q, k, v, post h x h, relative_k_proj h x h, per_dim_scale h / heads), the light conv
// (linear_start h x 2h, linear_end h x h, depthwise conv h x conv_kernel_size, two RMSNorms h), three RMSNorms h, and
// with use_clipped_linears four clip scalars on each of its 10 clipped linears. Once: the subsampling convs (3 x 3,
// 1 -> c0 -> c1, no bias, a LayerNorm without bias after each), input_proj_linear (c0 / 4) c1 x h, output_proj h x
// out + out; embed_audio's projection out x text h.
double gemma4_audio(reader& r, const json& a, double text_hidden) {
  reader sub(a);
  const double h = field(sub, "hidden_size", 1024, "vision_params");
  const double layers = field(sub, "num_hidden_layers", 12, "vision_params");
  const double heads = field(sub, "num_attention_heads", 8, "vision_params");
  const double kernel = field(sub, "conv_kernel_size", 5, "vision_params");
  const double out = field(sub, "output_proj_dims", 1536, "vision_params");
  const bool clipped = sub.boolean("use_clipped_linears", "vision_params").value_or(true);
  double c0 = 128, c1 = 32;
  if (const json* ch = sub.find({"subsampling_conv_channels"}); ch != nullptr) {
    const bool pair =
        ch->is_array() && ch->size() == 2 && whole(&(*ch)[0]).value_or(0) >= 4 && whole(&(*ch)[1]).value_or(0) >= 1;
    if (pair) {
      c0 = (*ch)[0].get<double>();
      c1 = (*ch)[1].get<double>();
    } else {
      sub.fail("vision_params", "config.json audio_config subsampling_conv_channels must list two whole widths, got " +
                                    quoted(ch->dump()));
    }
  }
  for (auto& e : sub.errors) r.errors.push_back(std::move(e));
  if (heads < 1) return 0;
  const double layer = 24 * h * h + 9 * h + h * kernel + std::floor(h / heads) + (clipped ? 10 * 4 : 0);
  const double subsample = 9 * c0 + c0 + 9 * c0 * c1 + c1 + std::floor(c0 / 4) * c1 * h;
  return layers * layer + subsample + h * out + out + out * text_hidden;
}

}  // namespace

// The wrapper's towers and embedders (modeling_gemma4.py @c308a309): vision_config and audio_config, each when present.
double gemma4_tower(reader& r, const json& root, double text_hidden) {
  double count = 0;
  if (const auto v = root.find("vision_config"); v != root.end() && v->is_object())
    count += gemma4_vision(r, *v, text_hidden);
  if (const auto a = root.find("audio_config"); a != root.end() && a->is_object())
    count += gemma4_audio(r, *a, text_hidden);
  return count;
}

}  // namespace llm_memory::detail
