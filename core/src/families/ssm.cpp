// SPDX-License-Identifier: MIT
// The state-space and short-convolution families (issue 32): Nemotron-H, Granite 4.0-H, LFM2 / LFM2-MoE and Mamba-2.
// Each reader turns the family's own layer list into the layer_types setting and its mixer's fields into the mamba_*
// / conv_* settings. Field names from transformers models/nemotron_h/configuration_nemotron_h.py,
// models/granitemoehybrid/configuration_granitemoehybrid.py, models/lfm2/configuration_lfm2.py,
// models/lfm2_moe/modeling_lfm2_moe.py, models/mamba2/configuration_mamba2.py and state-spaces/mamba
// mamba_ssm/models/config_mamba.py; the derivations are in docs/models.md.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {

// Per-layer entries as layer_types text, equal neighbours as one "N*entry".
std::string joined_layers(const std::vector<std::string>& entries) {
  std::string text;
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t j = i;
    while (j < entries.size() && entries[j] == entries[i]) ++j;
    text += (text.empty() ? "" : ",") + (j - i > 1 ? std::to_string(j - i) + "*" : "") + entries[i];
    i = j;
  }
  return text;
}

namespace {

// A list of strings under one of `names`; nullopt when absent, reported when not a list of strings.
std::optional<std::vector<std::string>> string_list(reader& r, std::initializer_list<const char*> names) {
  const char* found = nullptr;
  const json* v = r.find(names, &found);
  if (v == nullptr) return std::nullopt;
  std::vector<std::string> out;
  bool ok = v->is_array();
  if (ok)
    for (const auto& e : *v) {
      ok = ok && e.is_string();
      if (e.is_string()) out.push_back(e.get<std::string>());
    }
  if (!ok) {
    r.fail("layer_types", std::string("config.json field \"") + found + "\" must be a list of strings");
    return std::nullopt;
  }
  return out;
}

// Writes layer_types from per-layer entries, which must number num_hidden_layers; the sliding-window pattern the
// shared reader took from layer_types means nothing here.
void set_layers(reader& r, const std::vector<std::string>& entries, const char* field) {
  r.out.erase("sliding_window_pattern");
  const auto layers = r.out.find("num_hidden_layers");
  if (layers != r.out.end() && number_in(layers->second) != static_cast<double>(entries.size())) {
    r.fail("layer_types", std::string("config.json field \"") + field + "\" lists " + std::to_string(entries.size()) +
                              " layers where num_hidden_layers is " + layers->second);
    return;
  }
  r.out["layer_types"] = joined_layers(entries);
}

void flag(reader& r, const char* name, std::string_view setting) {
  if (const auto v = r.boolean(name, setting)) r.out[std::string(setting)] = *v ? "on" : "off";
}

// mamba_ssm_cache_dtype (Nemotron-H): the SSM state's dtype vLLM keeps for the model (its NemotronHForCausalLMConfig
// hook reads it when mamba_ssm_cache_dtype is "auto").
void read_state_dtype(reader& r) {
  const std::string t = r.text("mamba_ssm_cache_dtype");
  if (t == "float32") r.out["state_dtype"] = "fp32";
  if (t == "bfloat16") r.out["state_dtype"] = "bf16";
  if (t == "float16") r.out["state_dtype"] = "fp16";
}

// Nemotron-H's layer letters (configuration_nemotron_h.py _pattern_to_list): M Mamba-2, * attention, - MLP, E MoE,
// each a block with one norm and one mixer or one MLP.
std::optional<std::string> nemotron_entry(std::string_view kind) {
  if (kind == "M" || kind == "mamba") return "mamba+none";
  if (kind == "*" || kind == "attention") return "full_attention+none";
  if (kind == "-" || kind == "mlp") return "mlp";
  if (kind == "E" || kind == "moe") return "moe";
  return std::nullopt;
}

void nemotron_layers(reader& r) {
  std::vector<std::string> kinds;
  const char* field = "hybrid_override_pattern";
  if (const auto list = string_list(r, {"layers_block_type"})) {
    kinds = *list;
    field = "layers_block_type";
  } else if (const json* p = r.find({"hybrid_override_pattern"}); p != nullptr && p->is_string()) {
    for (const char c : p->get<std::string>()) kinds.emplace_back(1, c);
  } else {
    r.fail("layer_types", "config.json has no hybrid_override_pattern (nor layers_block_type)");
    return;
  }
  std::vector<std::string> entries;
  for (const auto& k : kinds) {
    const auto e = nemotron_entry(k);
    if (!e) {
      r.fail("layer_types", std::string("config.json field \"") + field + "\" has the layer kind " + quoted(k) +
                                "; Nemotron-H's are M, *, - and E");
      return;
    }
    entries.push_back(*e);
  }
  set_layers(r, entries, field);
}

// Nemotron 3's multi-token prediction (NemotronHConfig num_nextn_predict_layers, default 0): each step is the blocks
// of mtp_hybrid_override_pattern (or mtp_layers_block_type), and vLLM's nemotron_h_mtp.py builds "*" and "E" only;
// the attention-then-MoE step every checkpoint ships is the one counted (model.cpp mtp_layer).
void nemotron_mtp(reader& r) {
  if (!r.integer({"num_nextn_predict_layers"}, "num_nextn_predict_layers")) return;
  r.out["mtp_own_embedding"] = "off";  // the step reads the model's embedding and head (vLLM: no embed_tokens stored)
  const auto steps = r.out.find("num_nextn_predict_layers");
  if (steps == r.out.end() || number_in(steps->second) == 0) return;
  std::string pattern;
  const char* field = "mtp_hybrid_override_pattern";
  if (const auto list = string_list(r, {"mtp_layers_block_type"})) {
    field = "mtp_layers_block_type";
    for (const auto& k : *list) pattern += k == "attention" ? "*" : k == "moe" ? "E" : "?";
  } else if (const json* p = r.find({"mtp_hybrid_override_pattern"}); p != nullptr && p->is_string()) {
    pattern = p->get<std::string>();
  } else {
    r.fail("num_nextn_predict_layers", "config.json has num_nextn_predict_layers but no mtp_hybrid_override_pattern");
    return;
  }
  const bool experts = r.out.contains("num_experts") && number_in(r.out["num_experts"]) > 0;
  if (pattern != "*E" || !experts)
    r.fail("num_nextn_predict_layers", std::string("config.json field \"") + field +
                                           "\": only an attention block then a MoE block (\"*E\") is modelled");
}

// NVIDIA Nemotron-H / Nemotron 3 (modeling_nemotron_h.py): the Mamba-2 fields under their own names, relu2 MLPs
// of intermediate_size, experts of moe_intermediate_size with one shared expert of
// moe_shared_expert_intermediate_size and a sigmoid router with e_score_correction_bias; moe_latent_size puts the
// routed experts in a latent (layers/moe_mlp.cpp).
}  // namespace

void nemotron_h_fields(reader& r, std::string_view) {
  r.out.emplace("head_dim", "128");  // NemotronHConfig's default
  r.integer({"mamba_num_heads"}, "mamba_num_heads");
  r.integer({"mamba_head_dim"}, "mamba_head_dim");
  r.integer({"ssm_state_size"}, "mamba_d_state");
  r.integer({"n_groups", "mamba_n_groups"}, "mamba_n_groups");
  r.integer({"conv_kernel", "mamba_d_conv"}, "mamba_d_conv");
  flag(r, "use_conv_bias", "mamba_conv_bias");
  flag(r, "use_bias", "mamba_proj_bias");
  r.integer({"moe_shared_expert_intermediate_size"}, "shared_expert_intermediate_size");
  if (const json* latent = r.find({"moe_latent_size"}); latent != nullptr && !latent->is_null())
    r.integer({"moe_latent_size"}, "moe_latent_size");
  read_state_dtype(r);
  nemotron_layers(r);
  nemotron_mtp(r);
}

// GraniteMoeHybridConfig (@008f5c8) and FalconH1Config (@020a37d) alike: "auto" is mamba_intermediate //
// mamba_n_heads, and a head width whose product with the heads is not the inner width is refused.
void read_mamba2_heads(reader& r, double inner, std::string_view inner_name) {
  const double heads = field(r, "mamba_n_heads", 128, "mamba_num_heads");
  double width = heads > 0 ? std::floor(inner / heads) : 0;
  if (const json* d = r.find({"mamba_d_head"}); d != nullptr && !(d->is_string() && d->get<std::string>() == "auto"))
    width = field(r, "mamba_d_head", 0, "mamba_head_dim");
  if (heads * width != inner)
    r.fail("mamba_head_dim", "config.json mamba_n_heads x mamba_d_head must equal " + std::string(inner_name) + " (" +
                                 format_number(inner) + ")");
  r.out["mamba_num_heads"] = format_number(heads);
  r.out["mamba_head_dim"] = format_number(width);
  r.out["mamba_d_state"] = format_number(field(r, "mamba_d_state", 256, "mamba_d_state"));
  r.out["mamba_n_groups"] = format_number(field(r, "mamba_n_groups", 1, "mamba_n_groups"));
  r.out["mamba_d_conv"] = format_number(field(r, "mamba_d_conv", 4, "mamba_d_conv"));
}

namespace {

// Granite 4.0-H (modeling_granitemoehybrid.py): inner width mamba_expand x hidden_size split into mamba_n_heads
// heads ("auto" head width: inner / heads); GraniteMoeHybridConfig's defaults where config.json is silent.
void granite_mamba(reader& r) {
  const double h = number_in(r.out.count("hidden_size") ? r.out["hidden_size"] : "0");
  const json* e = r.find({"mamba_expand"});
  read_mamba2_heads(r, std::floor((e != nullptr && e->is_number() ? e->get<double>() : 2.0) * h),
                    "mamba_expand x hidden_size");
  flag(r, "mamba_conv_bias", "mamba_conv_bias");
  flag(r, "mamba_proj_bias", "mamba_proj_bias");
}

}  // namespace

// Every Granite 4.0-H layer has its mixer, the shared MLP (SwiGLU of shared_intermediate_size) and, when
// num_local_experts > 0, the experts (intermediate_size each); without experts the shared MLP is the layer's MLP.
void granitemoehybrid_fields(reader& r, std::string_view) {
  granite_mamba(r);
  const bool experts = r.out.contains("num_experts") && number_in(r.out["num_experts"]) > 0;
  if (!experts) {
    if (const auto it = r.out.find("shared_expert_intermediate_size"); it != r.out.end()) {
      r.out["intermediate_size"] = it->second;
      r.out.erase(it);
    }
  }
  const std::string mlp = experts ? "+moe" : "+dense";
  std::vector<std::string> entries;
  const auto list = string_list(r, {"layer_types", "layers_block_type"});
  const double layers = number_in(r.out.count("num_hidden_layers") ? r.out["num_hidden_layers"] : "0");
  if (!list)
    entries.assign(static_cast<std::size_t>(layers), "mamba");  // GraniteMoeHybridConfig: all mamba
  else
    entries = *list;
  for (auto& e : entries) {
    if (e != "mamba" && e != "attention") {
      r.fail("layer_types", "config.json layer_types entry " + quoted(e) + " is neither mamba nor attention");
      return;
    }
    e = (e == "attention" ? "full_attention" : e) + mlp;
  }
  set_layers(r, entries, "layer_types");
}

namespace {

// LFM2's feed-forward width (modeling_lfm2.py Lfm2MLP): two thirds of intermediate_size when
// block_auto_adjust_ff_dim, then times block_ffn_dim_multiplier rounded up to block_multiple_of (when the
// multiplier is set).
void lfm2_width(reader& r) {
  if (!r.out.contains("intermediate_size")) r.integer({"block_ff_dim"}, "intermediate_size");
  if (!r.boolean("block_auto_adjust_ff_dim", "intermediate_size").value_or(true)) return;
  const auto it = r.out.find("intermediate_size");
  if (it == r.out.end()) return;
  // Lfm2Config's block_ffn_dim_multiplier defaults to 1.0; a null multiplier (no rounding) reads as absent here.
  auto f = static_cast<std::int64_t>(2 * number_in(it->second) / 3);
  const json* mult = r.find({"block_ffn_dim_multiplier"});
  f = static_cast<std::int64_t>((mult != nullptr && mult->is_number() ? mult->get<double>() : 1.0) *
                                static_cast<double>(f));
  const auto multiple = static_cast<std::int64_t>(field(r, "block_multiple_of", 256, "intermediate_size"));
  if (multiple > 0) f = multiple * ((f + multiple - 1) / multiple);
  it->second = std::to_string(f);
}

}  // namespace

// LFM2 (modeling_lfm2.py): layer_types conv | full_attention (older configs: full_attn_idxs), gated short
// convolutions of conv_L_cache taps, per-head q/k norms, SwiGLU feed-forwards; tie_embedding is the older name of
// tie_word_embeddings. LFM2-MoE (modeling_lfm2_moe.py): the first num_dense_layers dense, the rest experts with
// use_expert_bias, and no width rule.
void lfm2_fields(reader& r, std::string_view written) {
  r.integer({"conv_L_cache"}, "conv_l_cache");
  flag(r, "conv_bias", "conv_bias");
  if (r.find({"tie_word_embeddings"}) == nullptr)
    if (const auto tie = r.boolean("tie_embedding", "tie_word_embeddings"))
      r.out["tie_word_embeddings"] = *tie ? "on" : "off";
  if (written == "lfm2_moe") {
    r.integer({"num_dense_layers"}, "first_k_dense_replace");
    if (r.boolean("use_expert_bias", "router_bias").value_or(true)) r.out["router_bias"] = "on";
  } else {
    lfm2_width(r);
  }
  const double layers = number_in(r.out.count("num_hidden_layers") ? r.out["num_hidden_layers"] : "0");
  std::vector<std::string> entries;
  if (const auto list = string_list(r, {"layer_types"})) {
    entries = *list;
  } else if (const json* idx = r.find({"full_attn_idxs"}); idx != nullptr && idx->is_array()) {
    entries.assign(static_cast<std::size_t>(layers), "conv");
    for (const auto& i : *idx)
      if (const auto at = whole(&i); at && *at >= 0 && *at < layers)
        entries[static_cast<std::size_t>(*at)] = "full_attention";
  } else {
    r.fail("layer_types", "config.json has no layer_types (nor full_attn_idxs)");
    return;
  }
  for (const auto& e : entries)
    if (e != "conv" && e != "full_attention") {
      r.fail("layer_types", "config.json layer_types entry " + quoted(e) + " is neither conv nor full_attention");
      return;
    }
  set_layers(r, entries, "layer_types");
}

// Mamba-2 alone (transformers models/mamba2: num_heads, head_dim, state_size, n_groups, conv_kernel, use_bias,
// use_conv_bias; state-spaces' mamba_ssm configs: d_model, n_layer, ssm_cfg with the Mamba2 defaults headdim 64,
// d_state 128, ngroups 1, d_conv 4, expand 2, and vocab_size padded to pad_vocab_size_multiple). One norm and one
// mixer per block, no attention: the heads settings take the Mamba heads.
void mamba2_fields(reader& r, std::string_view) {
  const json* ssm = r.find({"ssm_cfg"});
  const double h = number_in(r.out.count("hidden_size") ? r.out["hidden_size"] : "0");
  if (ssm != nullptr && ssm->is_object()) {
    reader s(*ssm);
    const double inner = field(s, "expand", 2, "mamba_num_heads") * h;
    const double width = field(s, "headdim", 64, "mamba_head_dim");
    r.out["mamba_num_heads"] = format_number(width > 0 ? std::floor(inner / width) : 0);
    r.out["mamba_head_dim"] = format_number(width);
    r.out["mamba_d_state"] = format_number(field(s, "d_state", 128, "mamba_d_state"));
    r.out["mamba_n_groups"] = format_number(field(s, "ngroups", 1, "mamba_n_groups"));
    r.out["mamba_d_conv"] = format_number(field(s, "d_conv", 4, "mamba_d_conv"));
    if (const auto b = s.boolean("conv_bias", "mamba_conv_bias")) r.out["mamba_conv_bias"] = *b ? "on" : "off";
    if (const auto b = s.boolean("bias", "mamba_proj_bias")) r.out["mamba_proj_bias"] = *b ? "on" : "off";
    for (auto& e : s.errors) r.errors.push_back(std::move(e));
    const double pad = field(r, "pad_vocab_size_multiple", 8, "vocab_size");
    const double v = number_in(r.out.count("vocab_size") ? r.out["vocab_size"] : "0");
    if (pad > 0 && std::fmod(v, pad) != 0) r.out["vocab_size"] = format_number(v + pad - std::fmod(v, pad));
    r.out["tie_word_embeddings"] = r.boolean("tie_embeddings", "tie_word_embeddings").value_or(true) ? "on" : "off";
    if (!r.boolean("rms_norm", "norm").value_or(true)) r.out["norm"] = "layernorm";
    if (field(r, "d_intermediate", 0, "intermediate_size") > 0)
      r.fail("intermediate_size", "config.json d_intermediate > 0 (an MLP after each Mamba block) is not modelled");
    if (const json* attn = r.find({"attn_layer_idx"}); attn != nullptr && !(attn->is_array() && attn->empty()))
      r.fail("layer_types", "config.json attn_layer_idx (attention layers in mamba_ssm's model) is not modelled");
  } else {
    r.integer({"num_heads"}, "mamba_num_heads");
    r.integer({"head_dim"}, "mamba_head_dim");
    r.integer({"state_size"}, "mamba_d_state");
    r.integer({"n_groups"}, "mamba_n_groups");
    r.integer({"conv_kernel"}, "mamba_d_conv");
    flag(r, "use_conv_bias", "mamba_conv_bias");
    flag(r, "use_bias", "mamba_proj_bias");
  }
  const std::string heads = r.out.count("mamba_num_heads") ? r.out["mamba_num_heads"] : "1";
  r.out["num_attention_heads"] = heads;
  r.out["num_key_value_heads"] = heads;
  r.out["head_dim"] = r.out.count("mamba_head_dim") ? r.out["mamba_head_dim"] : "1";
  r.out["position_embedding"] = "none";
  r.out.erase("sliding_window_pattern");
  r.out["layer_types"] = "mamba+none";
}

// mamba_ssm's configs carry no model_type and no head count: the reader takes them from ssm_cfg.
void ssm_defaults(settings& out, std::string_view family_type) {
  if (family_type == "mamba2") out.emplace("num_attention_heads", "1");
}

}  // namespace llm_memory::detail
