// SPDX-License-Identifier: MIT
// Issue 32's linear-attention hybrids outside the Qwen family: MiniMax-Text-01 / MiniMax-M1 (lightning attention
// and softmax attention, experts in every layer) and Kimi Linear (KDA and MLA layers). Field names and defaults from
// transformers models/minimax/configuration_minimax.py and modular_minimax.py @008e5743 (MiniMaxConfig) and the
// remote-code configs the MiniMaxAI repos ship (model_type minimax_text_01 / minimax_m1, attn_type_list); vLLM
// model_executor/models/minimax_text_01.py reads both spellings. The derivations are in docs/models.md.
#include <algorithm>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

// One entry per layer of MiniMax's list: layer_types ("linear_attention" is lightning attention here, whatever the
// Qwen hybrids mean by it) or attn_type_list (0 lightning, 1 softmax); neither: MiniMaxConfig's default, full
// attention on even layers and lightning on odd ones.
std::vector<std::string> minimax_layers(reader& r, double layers) {
  std::vector<std::string> entries;
  const char* found = nullptr;
  const json* list = r.find({"layer_types", "attn_type_list"}, &found);
  if (list == nullptr) {
    for (double i = 0; i < layers; ++i)
      entries.emplace_back(static_cast<int>(i) % 2 == 0 ? "full_attention" : "lightning_attention");
    return entries;
  }
  const bool names = std::string_view(found) == "layer_types";
  if (!list->is_array()) {
    r.fail("layer_types", std::string("config.json field \"") + found + "\" must be a list");
    return {};
  }
  for (const json& e : *list) {
    const bool lightning = names ? e.is_string() && e.get<std::string>() == "linear_attention" : whole(&e) == 0.0;
    const bool full = names ? e.is_string() && e.get<std::string>() == "full_attention" : whole(&e) == 1.0;
    if (!lightning && !full) {
      r.fail("layer_types", std::string("config.json ") + found + " must list " +
                                (names ? "\"linear_attention\" or \"full_attention\"" : "0 or 1") +
                                " per layer (MiniMax: lightning or softmax attention)");
      return {};
    }
    entries.emplace_back(lightning ? "lightning_attention" : "full_attention");
  }
  if (static_cast<double>(entries.size()) != layers)
    r.fail("layer_types", std::string("config.json ") + found + " lists " + std::to_string(entries.size()) +
                              " layers where num_hidden_layers is " + format_number(layers));
  return entries;
}

}  // namespace

// MiniMax-Text-01 / MiniMax-M1 (MiniMaxDecoderLayer): input_layernorm and post_attention_layernorm around the mixer
// (lightning: layers/lightning_attention.cpp; softmax: Mixtral's attention, GQA with head_dim) and Mixtral's sparse
// MoE block in every layer (num_local_experts experts of intermediate_size, a router without bias). The remote code's
// shared expert (shared_intermediate_size > 0, with its sigmoid coefficient) is in no released checkpoint and is
// refused rather than miscounted; partial rotary (rotary_dim) and the residual scales add no parameter.
void minimax_fields(reader& r, std::string_view) {
  if (const json* shared = r.find({"shared_intermediate_size"}); shared != nullptr && whole(shared) != 0.0)
    r.fail("shared_expert_intermediate_size",
           "config.json shared_intermediate_size (MiniMax's shared expert and its coefficient) is not modelled; "
           "the released MiniMax-Text-01 and MiniMax-M1 set 0");
  const double layers = number_in(r.out.count("num_hidden_layers") ? r.out["num_hidden_layers"] : "0");
  const std::vector<std::string> entries = minimax_layers(r, layers);
  r.out.erase("sliding_window_pattern");
  if (!entries.empty()) r.out["layer_types"] = joined_layers(entries);
  r.out["model_notes"] =
      "MiniMax: the lightning-attention state is kept per sequence, heads / tp x head_dim x head_dim per layer, in "
      "the model's dtype (vLLM linear_attention_state_dtype with mamba_cache_dtype auto; transformers) or float32 "
      "(SGLang's MinimaxCacheManager)";
}

namespace {

// A 1-based layer list of linear_attn_config (KimiLinearConfig.is_kda_layer: layer_idx + 1 in kda_layers).
std::vector<double> one_based(reader& sub, const char* name) {
  std::vector<double> out;
  const json* list = sub.find({name});
  if (list == nullptr || !list->is_array()) {
    sub.fail("layer_types", std::string("config.json linear_attn_config.") + name + " must be a list of layer numbers");
    return out;
  }
  for (const json& e : *list) out.push_back(whole(&e).value_or(0));
  return out;
}

// KDA where linear_attn_config.kda_layers names the layer, MLA where full_attn_layers does; each layer once.
std::vector<std::string> kimi_layers(reader& sub, double layers) {
  const std::vector<double> kda = one_based(sub, "kda_layers"), full = one_based(sub, "full_attn_layers");
  std::vector<std::string> entries;
  for (double i = 1; i <= layers && sub.errors.empty(); ++i) {
    const bool k = std::find(kda.begin(), kda.end(), i) != kda.end();
    const bool f = std::find(full.begin(), full.end(), i) != full.end();
    if (k == f)
      sub.fail("layer_types", "config.json linear_attn_config must name layer " + format_number(i) +
                                  " in exactly one of kda_layers and full_attn_layers");
    entries.emplace_back(k ? "kda" : "full_attention");
  }
  if (static_cast<double>(kda.size() + full.size()) != layers && sub.errors.empty())
    sub.fail("layer_types", "config.json linear_attn_config lists " + std::to_string(kda.size() + full.size()) +
                                " layers where num_hidden_layers is " + format_number(layers));
  return entries;
}

}  // namespace

// Kimi Linear (modeling_kimi.py KimiDecoderLayer): KDA (layers/kda.cpp: num_heads heads of head_dim, keys as wide as
// values, short_conv_kernel_size) or MLA without q_lora_rank (DeepSeek-V3's attention, mla_use_nope: no rotary) in
// each layer; input_layernorm and post_attention_layernorm; a dense SwiGLU of intermediate_size in the first
// first_k_dense_replace layers, then DeepSeek-V3's MoE: num_experts experts of moe_intermediate_size, top
// num_experts_per_token, num_shared_experts shared, a sigmoid router with e_score_correction_bias.
void kimi_linear_fields(reader& r, std::string_view) {
  r.integer({"num_experts_per_token"}, "num_experts_per_tok");
  r.integer({"num_shared_experts"}, "n_shared_experts");
  const json* cfg = r.find({"linear_attn_config"});
  if (cfg == nullptr || !cfg->is_object())
    return r.fail("layer_types", "config.json has no linear_attn_config object (Kimi Linear's KDA layers)");
  reader sub(*cfg);
  sub.require({"num_heads"}, "linear_num_value_heads");
  sub.require({"head_dim"}, "linear_value_head_dim");
  sub.integer({"short_conv_kernel_size"}, "linear_conv_kernel_dim");
  const double layers = number_in(r.out.count("num_hidden_layers") ? r.out["num_hidden_layers"] : "0");
  const std::vector<std::string> entries = kimi_layers(sub, layers);
  for (auto& [key, value] : sub.out) r.out[key] = value;
  for (auto& e : sub.errors) r.errors.push_back(std::move(e));
  r.out["linear_num_key_heads"] = r.out["linear_num_value_heads"];
  r.out["linear_key_head_dim"] = r.out["linear_value_head_dim"];
  r.out.erase("sliding_window_pattern");
  if (sub.errors.empty()) r.out["layer_types"] = joined_layers(entries);
  r.out["model_notes"] =
      "Kimi Linear: the KDA recurrent state is kept in fp32 (vLLM kda_state_dtype), the q/k/v convolution states in "
      "the model's dtype; the MLA layers cache the latent (kv_lora_rank + qk_rope_head_dim) per token";
}

}  // namespace llm_memory::detail
