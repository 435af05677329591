// SPDX-License-Identifier: MIT
// Vision towers: a multimodal config's vision_config, counted as transformers builds it (its own part:
// vision_params), and Llama 3.2 Vision's cross-attention extras.
#include <cmath>
#include <optional>
#include <utility>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

struct vision_shape {
  double hidden = 0;    ///< hv, the tower's width (features)
  double inner = 0;     ///< the MLP's width (features)
  double layers = 0;    ///< encoder layers (count)
  double patch = 0;     ///< a patch's side (pixels)
  double image = 0;     ///< the image's side (pixels)
  double channels = 3;  ///< input channels (count)
};

// A whole number from 1 to 1e6 at obj[name] into field (left as it is when absent); `where` names obj in the error.
void read_vision_number(reader& r, const json& obj, std::string_view where, const char* name, double& field) {
  const auto f = obj.find(name);
  if (f == obj.end() || f->is_null()) return;
  const auto x = whole(&*f);
  if (!x || *x < 1 || *x > 1e6) {
    r.fail("vision_params", std::string("config.json ") + std::string(where) + "field \"" + name +
                                "\" must be a whole number from 1 to 1e6, got " + quoted(f->dump()));
    return;
  }
  field = *x;
}

std::optional<vision_shape> read_vision(reader& r, const json& v, const vision_shape& defaults) {
  vision_shape out = defaults;
  const auto errors = r.errors.size();
  for (const auto& [name, field] : {std::pair<const char*, double*>{"hidden_size", &out.hidden},
                                    {"intermediate_size", &out.inner},
                                    {"num_hidden_layers", &out.layers},
                                    {"patch_size", &out.patch},
                                    {"image_size", &out.image},
                                    {"num_channels", &out.channels}})
    read_vision_number(r, v, "vision_config ", name, *field);
  if (r.errors.size() != errors) return std::nullopt;
  return out;
}

// One ViT encoder layer with biased q/k/v/out and fc1/fc2 and two LayerNorms (SigLIP and CLIP encoder layers).
double vit_layer(const vision_shape& v) {
  const double h = v.hidden, i = v.inner;
  return 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * 2 * h;
}

// Gemma 3 (modeling_gemma3.py, modeling_siglip.py): SiglipVisionModel without its head: patch Conv2d with bias,
// a position table of (image / patch)^2 rows, the layers and a post-LayerNorm; the projector
// (Gemma3MultiModalProjector) is mm_input_projection_weight (hv x text h) and mm_soft_emb_norm (an RMSNorm of hv).
// Gemma3Config's SiglipVisionConfig defaults: hv 1152, 4304, 27 layers, patch 14, image 896.
double siglip_gemma3(const vision_shape& v, double text_hidden) {
  const double h = v.hidden, grid = std::floor(v.image / v.patch);
  const double embeddings = h * v.channels * v.patch * v.patch + h + grid * grid * h;
  return embeddings + v.layers * vit_layer(v) + 2 * h + h * text_hidden + h;
}

// LLaVA's projector (LlavaMultiModalProjector): linear_1 (hv x n_features -> h) and linear_2 (h -> h), biased unless
// multimodal_projector_bias is false.
double llava_projector(double hv, double text_hidden, double features, bool bias) {
  return hv * features * text_hidden + text_hidden * text_hidden + (bias ? 2 * text_hidden : 0);
}

// LLaVA (modeling_llava.py, modeling_clip.py): CLIPVisionModel: class_embedding hv, patch Conv2d without bias,
// (grid^2 + 1) position rows, pre_layrnorm and post_layernorm (LayerNorms), the layers, then the LLaVA projector.
// CLIPVisionConfig defaults: hv 768, 3072, 12 layers, patch 32, image 224.
double clip_llava(const vision_shape& v, double text_hidden, double features, bool bias) {
  const double h = v.hidden, grid = std::floor(v.image / v.patch);
  const double embeddings = h + h * v.channels * v.patch * v.patch + (grid * grid + 1) * h;
  return embeddings + 2 * 2 * h + v.layers * vit_layer(v) + llava_projector(h, text_hidden, features, bias);
}

// Pixtral (transformers models/pixtral/modeling_pixtral.py @v4.56): PixtralVisionModel is patch_conv (Conv2d without
// bias), ln_pre (RMSNorm hv) and layers of attention_norm and ffn_norm (RMSNorms), q/k/v/o (hv x hv, no bias) and a
// gated MLP (gate/up/down, no bias); its 2-D rotary table is a buffer, so image_size adds nothing.
// PixtralVisionConfig defaults: hv 1024, 4096, 24 layers, patch 16, image 1024, 3 channels.
double pixtral(const vision_shape& v) {
  const double h = v.hidden, i = v.inner;
  return h * v.channels * v.patch * v.patch + h + v.layers * (4 * h * h + 3 * h * i + 2 * h);
}

// Mistral 3 (models/mistral3/modeling_mistral3.py @v4.56): Mistral3MultiModalProjector is norm (RMSNorm hv),
// patch_merger.merging_layer (hv x merge^2 -> hv, no bias), linear_1 (hv x n_features -> h) and linear_2 (h -> h),
// biased when multimodal_projector_bias is true (Mistral3Config default false; spatial_merge_size default 2).
double mistral3_projector(double hv, double text_hidden, double features, double merge, bool bias) {
  return hv + hv * merge * merge * hv + llava_projector(hv, text_hidden, features, bias);
}

// How many vision layers' features the projector concatenates: vision_feature_layer, an index or a list.
double feature_layers(const json& root) {
  const auto f = root.find("vision_feature_layer");
  return f != root.end() && f->is_array() ? static_cast<double>(f->size()) : 1;
}

constexpr vision_shape pixtral_defaults{1024, 4096, 24, 16, 1024, 3};

std::optional<double> mistral3_tower(reader& r, const json& root, const json& vision, double text_hidden) {
  if (const std::string type = reader(vision).text("model_type"); !type.empty() && type != "pixtral") {
    r.fail("vision_params",
           "config.json mistral3 vision_config model_type " + quoted(type) + " is not modelled (pixtral is)");
    return std::nullopt;
  }
  double merge = 2;
  read_vision_number(r, root, "", "spatial_merge_size", merge);
  const bool bias = reader(root).boolean("multimodal_projector_bias", "vision_params").value_or(false);
  const auto v = read_vision(r, vision, pixtral_defaults);
  if (!v) return std::nullopt;
  return pixtral(*v) + mistral3_projector(v->hidden, text_hidden, feature_layers(root), merge, bias);
}

// Qwen2-VL (models/qwen2_vl/modeling_qwen2_vl.py @v4.56): Conv3d patch embedding without bias (e x c x t x p x p),
// blocks of two LayerNorms (4e), qkv (e -> 3e) and proj (e -> e) with biases, and an MLP fc1 / fc2 with biases of
// width e x mlp_ratio; PatchMerger: ln_q (a LayerNorm of e), then Linear(e s^2 -> e s^2) and Linear(e s^2 -> out),
// both biased, out being vision_config.hidden_size. Qwen2VLVisionConfig defaults: embed_dim 1280, depth 32,
// mlp_ratio 4, hidden_size 3584, patch 14, temporal patch 2, merge 2, 3 channels.
// Qwen2.5-VL (models/qwen2_5_vl/modeling_qwen2_5_vl.py @v4.56): the same patch embedding and attention, RMSNorms
// (2e per block, e for ln_q) and a gated MLP gate / up (e -> i) and down (i -> e), all biased; the merger's output
// is out_hidden_size. Qwen2_5_VLVisionConfig defaults: hidden_size 3584, intermediate 3420, depth 32,
// out_hidden_size 3584, the same patches and merge.
std::optional<double> qwen2_vl_tower(reader& r, const json& v, bool v2_5) {
  double e = v2_5 ? 3584 : 1280, depth = 32, ratio = 4, inner = 3420, out = 3584;
  double channels = 3, patch = 14, temporal = 2, merge = 2;
  const auto errors = r.errors.size();
  const auto number = [&](const char* name, double& field) { read_vision_number(r, v, "vision_config ", name, field); };
  number(v2_5 ? "hidden_size" : "embed_dim", e);
  number(v2_5 ? "out_hidden_size" : "hidden_size", out);
  number("depth", depth);
  number(v2_5 ? "intermediate_size" : "mlp_ratio", v2_5 ? inner : ratio);
  number("in_channels", channels);
  number("in_chans", channels);
  number("patch_size", patch);
  number("temporal_patch_size", temporal);
  number("spatial_merge_size", merge);
  if (r.errors.size() != errors) return std::nullopt;
  const double attention = 3 * e * e + 3 * e + e * e + e;
  const double block = v2_5 ? 2 * e + attention + 2 * (e * inner + inner) + inner * e + e
                            : 4 * e + attention + 2 * e * (e * ratio) + e * ratio + e;
  const double wide = e * merge * merge;
  const double merger = (v2_5 ? e : 2 * e) + wide * wide + wide + wide * out + out;
  return e * channels * temporal * patch * patch + depth * block + merger;
}

// Llama 4 (models/llama4/modeling_llama4.py @v4.56): Llama4VisionModel is an unfold patch Linear without bias
// (c x p^2 -> hv), class_embedding hv, positional_embedding_vlm of (image / p)^2 + 1 rows, layernorm_pre and
// layernorm_post (LayerNorms), layers with biased q/k/v/o (hv x hv) and fc1 / fc2 (hv <-> iv) and two LayerNorms;
// vision_adapter (Llama4VisionPixelShuffleMLP) fc1 (iv -> projector_input_dim) and fc2 (projector_output_dim,
// square), no biases; Llama4MultiModalProjector linear_1 (vision_output_dim -> h, no bias). Llama4VisionConfig
// defaults: hv 768, iv 5632, 34 layers, patch 14, image 448, vision_output_dim 7680, projector dims 4096.
std::optional<double> llama4_tower(reader& r, const json& v, double text_hidden) {
  const auto shape = read_vision(r, v, {768, 5632, 34, 14, 448, 3});
  double output = 7680, projector_in = 4096, projector_out = 4096;
  const auto errors = r.errors.size();
  read_vision_number(r, v, "vision_config ", "vision_output_dim", output);
  read_vision_number(r, v, "vision_config ", "projector_input_dim", projector_in);
  read_vision_number(r, v, "vision_config ", "projector_output_dim", projector_out);
  if (!shape || r.errors.size() != errors) return std::nullopt;
  const double h = shape->hidden, i = shape->inner, grid = std::floor(shape->image / shape->patch);
  const double embeddings = shape->channels * shape->patch * shape->patch * h + h + (grid * grid + 1) * h + 4 * h;
  const double layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h;
  const double adapter = i * projector_in + projector_out * projector_out;
  return embeddings + shape->layers * layer + adapter + output * text_hidden;
}

// The length of a list field of obj (`fallback` when absent); a non-list is reported against `setting`, naming
// obj as `where`.
double list_length(reader& r, const json& obj, const char* name, double fallback,
                   std::string_view setting = "vision_params", std::string_view where = "vision_config ") {
  const auto f = obj.find(name);
  if (f == obj.end() || f->is_null()) return fallback;
  if (!f->is_array()) {
    r.fail(setting, "config.json " + std::string(where) + "field \"" + name + "\" must be a list");
    return fallback;
  }
  return static_cast<double>(f->size());
}

// Qwen3-VL (models/qwen3_vl/modeling_qwen3_vl.py @00709b86; Qwen3-VL-MoE's vision model is the same): Conv3d patch
// embedding with bias (e x c x t x p x p + e), a learned pos_embed of num_position_embeddings x e, blocks of two
// LayerNorms (4e), qkv (e -> 3e) and proj (e -> e) with biases and a plain MLP linear_fc1 / linear_fc2 (e <-> i) with
// biases; Qwen3VLVisionPatchMerger: a LayerNorm (of e, or of w = e s^2 after the shuffle), linear_fc1 (w -> w) and
// linear_fc2 (w -> out_hidden_size), biased; the merger normalises before the shuffle, and each of the
// deepstack_merger_list (one per deepstack_visual_indexes entry) after it. Qwen3VLVisionConfig defaults: hidden 1152,
// intermediate 4304, depth 27, out 3584, 2304 positions, patch 16, temporal patch 2, merge 2, deepstack [8, 16, 24].
// Qwen3.5 / 3.6 (models/qwen3_5/modular_qwen3_5.py @009e78d6): Qwen3-VL's tower without deepstack_merger_list.
std::optional<double> qwen3_vl_tower(reader& r, const json& v, bool deepstack_mergers) {
  double e = 1152, inner = 4304, depth = 27, out = 3584, positions = 2304;
  double channels = 3, patch = 16, temporal = 2, merge = 2;
  const auto errors = r.errors.size();
  const auto number = [&](const char* name, double& field) { read_vision_number(r, v, "vision_config ", name, field); };
  number("hidden_size", e);
  number("intermediate_size", inner);
  number("depth", depth);
  number("out_hidden_size", out);
  number("num_position_embeddings", positions);
  number("in_channels", channels);
  number("patch_size", patch);
  number("temporal_patch_size", temporal);
  number("spatial_merge_size", merge);
  const double deepstack = deepstack_mergers ? list_length(r, v, "deepstack_visual_indexes", 3) : 0;
  if (r.errors.size() != errors) return std::nullopt;
  const double block = 4 * e + 3 * e * e + 3 * e + e * e + e + e * inner + inner + inner * e + e;
  const double wide = e * merge * merge;
  const double merger = wide * wide + wide + wide * out + out;  // linear_fc1 and linear_fc2
  const double embeddings = e * channels * temporal * patch * patch + e + positions * e;
  return embeddings + depth * block + (2 * e + merger) + deepstack * (2 * wide + merger);
}

// Llama 3.2 Vision (models/mllama/modeling_mllama.py @00368133): MllamaVisionModel is a patch Conv2d without bias
// (c x p^2 -> h), class_embedding h, gated_positional_embedding (gate 1, embedding n x h with n = (image / p)^2 + 1,
// tile_embedding (ratios + 1) x tiles x n x h), pre_ and post_tile_pos_embed ((ratios + 1) x tiles x h and a gate
// each), layernorm_pre and layernorm_post (LayerNorms), the local transformer (num_hidden_layers) and the global one
// (num_global_layers, two gates more per layer) of layers with q/k/v/o (h x h, no bias), fc1 / fc2 (h <-> i, biased)
// and two LayerNorms; multi_modal_projector is Linear(vision_output_dim -> text h) with bias. ratios is the number of
// supported_aspect_ratios. MllamaVisionConfig defaults: h 1280, i 5120, 32 + 8 layers, patch 14, image 448, 4 tiles,
// 8 aspect ratios, vision_output_dim 7680.
std::optional<double> mllama_tower(reader& r, const json& v, double text_hidden) {
  const auto shape = read_vision(r, v, {1280, 5120, 32, 14, 448, 3});
  double global = 8, tiles = 4, output = 7680;
  const auto errors = r.errors.size();
  read_vision_number(r, v, "vision_config ", "num_global_layers", global);
  read_vision_number(r, v, "vision_config ", "max_num_tiles", tiles);
  read_vision_number(r, v, "vision_config ", "vision_output_dim", output);
  const double ratios = list_length(r, v, "supported_aspect_ratios", 8);
  if (!shape || r.errors.size() != errors) return std::nullopt;
  const double h = shape->hidden, i = shape->inner, grid = std::floor(shape->image / shape->patch);
  const double n = grid * grid + 1;
  const double positions = 1 + n * h + (ratios + 1) * tiles * n * h;
  const double tile_embeddings = 2 * ((ratios + 1) * tiles * h + 1);
  const double embeddings = shape->channels * shape->patch * shape->patch * h + h + positions + tile_embeddings + 4 * h;
  const double layer = 4 * h * h + h * i + i + i * h + h + 4 * h;
  return embeddings + shape->layers * layer + global * (layer + 2) + output * text_hidden + text_hidden;
}

}  // namespace

// Llama 3.2 Vision's language model (MllamaTextModel): num_hidden_layers counts the cross_attention_layers too, each a
// Llama layer whose attention reads the image states (q/k/v/o of a self-attention's shapes) and adds q_norm and k_norm
// (RMSNorms of head_dim = h / heads) and two scalar gates; embed_tokens has vocab_size + 8 rows, lm_head vocab_size.
// Those extras are extra_params; the layers count as decoder layers (docs/models.md says what the KV cache does).
void mllama_text(reader& r, const json& text) {
  const auto errors = r.errors.size();
  const double cross = list_length(r, text, "cross_attention_layers", 8, "extra_params", "text_config ");
  if (r.errors.size() != errors) return;
  const auto value = [&](const char* name) {
    const auto it = r.out.find(name);
    return it == r.out.end() ? 0.0 : number_in(it->second);
  };
  const double h = value("hidden_size"), heads = value("num_attention_heads");
  if (h <= 0 || heads <= 0) return;  // reported as missing already
  r.out["extra_params"] = format_number(cross * (2 * std::floor(h / heads) + 2) + 8 * h);
}

void read_vision_tower(reader& r, const json& root, std::string_view root_type) {
  const auto it = root.find("vision_config");
  // Gemma 3n's and Gemma 4's wrappers also count an audio_config without a vision_config.
  const bool audio = (root_type == "gemma3n" || root_type == "gemma4") && root.contains("audio_config");
  if ((it == root.end() || it->is_null()) && !audio) return;
  if (it != root.end() && !it->is_null() && !it->is_object())
    return r.fail("vision_params", "config.json vision_config must be an object");
  const auto hidden = r.out.find("hidden_size");
  if (hidden == r.out.end()) return;  // reported as missing already
  const double text_hidden = number_in(hidden->second);
  std::optional<double> count;
  if (root_type == "gemma3") {
    if (reader(*it).boolean("vision_use_head", "vision_params").value_or(false))
      return r.fail("vision_params", "config.json vision_config vision_use_head true is not modelled");
    if (const auto v = read_vision(r, *it, {1152, 4304, 27, 14, 896, 3})) count = siglip_gemma3(*v, text_hidden);
  } else if (root_type == "llava") {
    // LLaVA wraps CLIP by default; Pixtral 12B's transformers port wraps a Pixtral encoder.
    const bool bias = reader(root).boolean("multimodal_projector_bias", "vision_params").value_or(true);
    const double features = feature_layers(root);
    if (reader(*it).text("model_type") == "pixtral") {
      if (const auto v = read_vision(r, *it, pixtral_defaults))
        count = pixtral(*v) + llava_projector(v->hidden, text_hidden, features, bias);
    } else if (const auto v = read_vision(r, *it, {768, 3072, 12, 32, 224, 3})) {
      count = clip_llava(*v, text_hidden, features, bias);
    }
  } else if (root_type == "mistral3") {
    count = mistral3_tower(r, root, *it, text_hidden);
  } else if (root_type == "llama4") {
    count = llama4_tower(r, *it, text_hidden);
  } else if (root_type == "qwen2_vl" || root_type == "qwen2_5_vl") {
    count = qwen2_vl_tower(r, *it, root_type == "qwen2_5_vl");
  } else if (root_type == "qwen3_vl" || root_type == "qwen3_vl_moe") {
    count = qwen3_vl_tower(r, *it, true);
  } else if (root_type == "qwen3_5" || root_type == "qwen3_5_moe") {
    count = qwen3_vl_tower(r, *it, false);
  } else if (root_type == "mllama") {
    count = mllama_tower(r, *it, text_hidden);
  } else if (root_type == "gemma3n") {
    count = gemma3n_towers(r, root, text_hidden);
  } else if (root_type == "gemma4") {
    count = gemma4_tower(r, root, text_hidden);
  }  // Other towers are not counted: docs/models.md says so, vision_params can be typed.
  if (count) r.out["vision_params"] = format_number(*count);
}

}  // namespace llm_memory::detail
