// SPDX-License-Identifier: MIT
// An unknown model_type (issue 32 item 5): counted as a Llama-style decoder from its standard fields, or, when its
// fields declare recurrent, convolution or linear-attention layers, as the known family whose reader reads those
// fields (one row of `kinds` per declared kind). Every assumption is named in the model_notes setting; a kind no
// row reads, or a row's required field missing, is refused naming the field. docs/models.md, "Unknown model_type".
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

// Whether config.json has `key` with a value (null counts as absent).
bool has(const json& text, const char* key) {
  const auto it = text.find(key);
  return it != text.end() && !it->is_null();
}

bool has_any(const json& text, std::initializer_list<const char*> keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const char* k) { return has(text, k); });
}

// The string entries of the first list among `names` (empty when none is a list of strings).
std::vector<std::string> entries(const json& text, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto it = text.find(name);
    if (it == text.end() || !it->is_array()) continue;
    std::vector<std::string> out;
    for (const json& e : *it) {
      if (!e.is_string()) return {};
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  return {};
}

// A non-empty list of entries all in `allowed`, with `needed` among them.
bool lists(const std::vector<std::string>& list, std::initializer_list<std::string_view> allowed,
           std::string_view needed) {
  const auto in = [&](const std::string& e) { return std::find(allowed.begin(), allowed.end(), e) != allowed.end(); };
  return !list.empty() && std::all_of(list.begin(), list.end(), in) &&
         std::find(list.begin(), list.end(), needed) != list.end();
}

bool experts(const json& text) { return has_any(text, {"num_experts", "num_local_experts"}); }

// Gated DeltaNet (Qwen3-Next / Qwen3.5's names): layer_types of linear and full attention with the GDN widths.
bool gdn_layers(const json& t) {
  return lists(entries(t, {"layer_types"}), {"full_attention", "linear_attention"}, "linear_attention") &&
         has_any(t, {"linear_num_value_heads", "linear_num_key_heads", "linear_key_head_dim", "linear_value_head_dim"});
}
bool gdn_dense(const json& t) { return gdn_layers(t) && !experts(t); }
bool gdn_moe(const json& t) { return gdn_layers(t) && experts(t); }

// Lightning attention (MiniMax's names): attn_type_list, or layer_types of linear and full attention with MiniMax's
// residual factors and none of the GDN widths.
bool lightning(const json& t) {
  return has(t, "attn_type_list") ||
         (lists(entries(t, {"layer_types"}), {"full_attention", "linear_attention"}, "linear_attention") &&
          !gdn_layers(t) && has_any(t, {"linear_attn_alpha_factor", "linear_attn_beta_factor"}));
}

// KDA (Kimi Linear's names): a linear_attn_config object.
bool kda(const json& t) {
  const auto it = t.find("linear_attn_config");
  return it != t.end() && it->is_object();
}

// Short convolutions (LFM2's names): layer_types of conv and full attention, or full_attn_idxs.
bool conv_layers(const json& t) {
  return lists(entries(t, {"layer_types"}), {"conv", "full_attention"}, "conv") ||
         (!has(t, "layer_types") && has(t, "full_attn_idxs"));
}
bool conv_dense(const json& t) { return conv_layers(t) && !experts(t); }
bool conv_moe(const json& t) { return conv_layers(t) && experts(t); }

// Mamba-2 in Nemotron-H's names: hybrid_override_pattern, or a layers_block_type list with mamba_num_heads /
// ssm_state_size or Nemotron's MLP-only blocks.
bool nemotron_layers(const json& t) {
  if (has(t, "hybrid_override_pattern")) return true;
  const auto list = entries(t, {"layers_block_type"});
  return !list.empty() && (has_any(t, {"mamba_num_heads", "ssm_state_size"}) ||
                           lists(list, {"mamba", "attention", "mlp", "moe"}, "mlp") ||
                           lists(list, {"mamba", "attention", "mlp", "moe"}, "moe"));
}

// Mamba-2 in Granite 4.0-H's names: layer_types (or layers_block_type) of mamba and attention with mamba_n_heads.
bool granite_layers(const json& t) {
  return lists(entries(t, {"layer_types", "layers_block_type"}), {"mamba", "attention"}, "mamba") &&
         has(t, "mamba_n_heads") && !nemotron_layers(t);
}

// Mamba-1 in Jamba's names: attention every attn_layer_period-th layer, Mamba-1 (mamba_expand, mamba_dt_rank,
// mamba_d_state) elsewhere.
bool jamba_layers(const json& t) {
  return has(t, "attn_layer_period") && has_any(t, {"mamba_expand", "mamba_dt_rank", "mamba_d_state"});
}

// One kind of layer an unknown config may declare and the family whose reader counts it.
struct declared_kind {
  bool (*declares)(const json& text);  ///< whether config.json declares it in the family's names
  std::string_view as;                 ///< the family read (decoders.cpp's table)
  std::string_view family;             ///< its name in the note
  std::string_view evidence;           ///< the fields that declare it, for the note
  std::string_view reads;              ///< key prefixes the family reads (not refused), ";"-separated
  std::string_view required;           ///< fields without which nothing is guessed, ";"-separated
  std::string_view assumed;            ///< "field=value;..." the reader fills in when config.json omits the field
  std::string_view counted;            ///< what the family's layers are taken to be
};

// clang-format off
const std::array kinds = {
    declared_kind{gdn_dense, "qwen3_5", "Qwen3.5", "its layer_types and linear_* fields",
        "linear_", "linear_num_value_heads;linear_num_key_heads;linear_key_head_dim;linear_value_head_dim",
        "linear_conv_kernel_dim=4;attn_output_gate=true;mtp_num_hidden_layers=0",
        "Gated DeltaNet where layer_types says linear_attention (in_proj_qkvz, in_proj_ba, a depthwise conv, no bias; "
        "gated RMSNorm; out_proj), full attention with the output gate and per-head q/k RMSNorms, RMSNorm, every MLP "
        "a dense gated one, no biases, untied embeddings unless tie_word_embeddings; the recurrent state as "
        "Qwen3.5's (mamba_ssm_dtype)"},
    declared_kind{gdn_moe, "qwen3_5_moe", "Qwen3.5", "its layer_types and linear_* fields",
        "linear_", "linear_num_value_heads;linear_num_key_heads;linear_key_head_dim;linear_value_head_dim",
        "linear_conv_kernel_dim=4;attn_output_gate=true;mtp_num_hidden_layers=0",
        "Gated DeltaNet where layer_types says linear_attention (in_proj_qkvz, in_proj_ba, a depthwise conv, no bias; "
        "gated RMSNorm; out_proj), full attention with the output gate and per-head q/k RMSNorms, RMSNorm, every MLP "
        "a MoE of num_experts with a gated shared expert, no biases, untied embeddings unless tie_word_embeddings; "
        "the recurrent state as Qwen3.5's (mamba_ssm_dtype)"},
    declared_kind{lightning, "minimax", "MiniMax-Text-01", "its lightning-attention layer list",
        "linear_attn_;lightning;attn_type_list", "", "",
        "lightning attention where the list says linear_attention (or 0), softmax attention (GQA of head_dim) "
        "elsewhere, two RMSNorms per layer, Mixtral's experts in every layer as num_local_experts says, no biases"},
    declared_kind{kda, "kimi_linear", "Kimi Linear", "its linear_attn_config",
        "linear_attn_config", "kv_lora_rank", "short_conv_kernel_size=4",
        "KDA in linear_attn_config.kda_layers (keys as wide as values), MLA without rotary (kv_lora_rank) in "
        "full_attn_layers, two RMSNorms per layer, dense gated MLPs in the first first_k_dense_replace layers then "
        "DeepSeek-V3's experts, untied embeddings unless tie_word_embeddings"},
    declared_kind{conv_dense, "lfm2", "LFM2", "its conv layers and conv_L_cache",
        "conv_;full_attn_", "conv_L_cache",
        "conv_bias=false;block_auto_adjust_ff_dim=true: the MLP is 2/3 of intermediate_size;block_multiple_of=256;"
        "block_ffn_dim_multiplier=1.0",
        "gated short convolutions (in_proj 3 x hidden_size, conv_L_cache taps, out_proj) where layer_types says conv, "
        "attention with per-head q/k RMSNorms elsewhere, two RMSNorms per layer, gated MLPs (w1, w3, w2), no "
        "attention biases, tied embeddings unless tie_word_embeddings says otherwise"},
    declared_kind{conv_moe, "lfm2_moe", "LFM2-MoE", "its conv layers and conv_L_cache",
        "conv_;full_attn_", "conv_L_cache", "conv_bias=false;num_dense_layers=0",
        "gated short convolutions (in_proj 3 x hidden_size, conv_L_cache taps, out_proj) where layer_types says conv, "
        "attention with per-head q/k RMSNorms elsewhere, two RMSNorms per layer, dense gated MLPs in the first "
        "num_dense_layers layers then experts with a router bias, tied embeddings unless tie_word_embeddings says "
        "otherwise"},
    declared_kind{nemotron_layers, "nemotron_h", "Nemotron-H", "its Mamba-2 layer list and mamba_* / ssm_* fields",
        "mamba;ssm;conv_kernel;hybrid_override_pattern;layers_block_type",
        "mamba_num_heads;mamba_head_dim;ssm_state_size",
        "n_groups=1;conv_kernel=4;use_conv_bias=true;use_bias=false;head_dim=128",
        "blocks of one RMSNorm and one mixer or MLP: Mamba-2 (M), attention (*), a relu2 MLP (-) or experts with a "
        "shared expert (E), no attention biases, untied embeddings unless tie_word_embeddings"},
    declared_kind{granite_layers, "granitemoehybrid", "Granite 4.0-H", "its Mamba-2 layer list and mamba_* fields",
        "mamba;layers_block_type", "mamba_n_heads;mamba_d_state",
        "mamba_d_head=auto (mamba_expand x hidden_size / mamba_n_heads);mamba_expand=2;mamba_n_groups=1;"
        "mamba_d_conv=4;mamba_conv_bias=true;mamba_proj_bias=false",
        "Mamba-2 or attention in each layer, each with two RMSNorms and a gated shared MLP (experts too when "
        "num_local_experts > 0), untied embeddings unless tie_word_embeddings"},
    declared_kind{jamba_layers, "jamba", "Jamba", "its attn_layer_* periods and Mamba-1 mamba_* fields",
        "mamba;attn_layer_",
        "attn_layer_period;attn_layer_offset;expert_layer_period;expert_layer_offset;num_experts;mamba_d_state;"
        "mamba_expand",
        "mamba_dt_rank=ceil(hidden_size / 16);mamba_d_conv=4;mamba_conv_bias=true;mamba_proj_bias=false",
        "Mamba-1 layers (x_proj, dt_proj, A_log, D, the dt/B/C RMSNorms) with attention every attn_layer_period-th "
        "layer and no position embedding, experts every expert_layer_period-th layer, two RMSNorms per layer, "
        "untied embeddings unless tie_word_embeddings"},
};
// clang-format on

// Keys a Llama-style reading would miscount: state-space, recurrent and linear-attention fields, hybrid layer lists,
// Gemma 4's per-layer embeddings, wider global heads and shared K/V projection (only model_type gemma4 counts
// them: families/gemma4.cpp).
constexpr std::array unread_prefixes = {"ssm",
                                        "mamba",
                                        "linear_",
                                        "rwkv",
                                        "time_mix",
                                        "conv_",
                                        "lightning",
                                        "layers_block_type",
                                        "hybrid_override_pattern",
                                        "attn_layer_",
                                        "full_attn_",
                                        "block_types",
                                        "attn_type_list",
                                        "hidden_size_per_layer_input",
                                        "global_head_dim",
                                        "attention_k_eq_v"};

// The first key no reading of this config counts (`kind`'s reader reads its own prefixes); "" when none.
std::string unread_field(const json& text, const declared_kind* kind) {
  const std::vector<std::string_view> own = kind != nullptr ? split(kind->reads, ';') : std::vector<std::string_view>{};
  for (const auto& [name, value] : text.members()) {
    if (value.is_null()) continue;
    const std::string& key = name;  // clang 14 (Emscripten) lets no lambda capture a structured binding
    const auto starts = [&](std::string_view prefix) { return key.starts_with(prefix); };
    if (std::any_of(own.begin(), own.end(), starts)) continue;
    if (std::any_of(unread_prefixes.begin(), unread_prefixes.end(), starts)) return key;
  }
  return "";
}

std::string refusal(std::string_view type, const std::string& why) {
  return "config.json model_type " + quoted(std::string(type)) + " is not a family llm-memory knows: " + why +
         "; docs/models.md (\"Unknown model_type\") lists the layer kinds and the fields each is read from";
}

// The note: what was read as which family, every field assumed.
std::string degraded_note(std::string_view type, const json& text, const declared_kind& k) {
  std::string absent;
  for (const std::string_view a : split(k.assumed, ';')) {
    const std::string field(a.substr(0, a.find('=')));
    if (field.empty()) continue;
    if (!has(text, field.c_str()))
      absent += (absent.empty() ? "" : ", ") + field + " " + std::string(a.substr(a.find('=') + 1));
  }
  return "model_type " + quoted(std::string(type)) + " is not known: " + std::string(k.evidence) + " counted as " +
         std::string(k.family) + "'s layers (" + std::string(k.as) + "): " + std::string(k.counted) +
         (absent.empty() ? "" : "; absent, taken as " + std::string(k.as) + "'s reader takes them: " + absent) +
         "; check against the checkpoint's size";
}

}  // namespace

result<settings> read_unknown(const json& root, const json& text, bool nested, std::string_view type) {
  const reader r(text);
  const bool standard = r.find({"hidden_size", "n_embd", "d_model"}) != nullptr &&
                        r.find({"num_hidden_layers", "n_layer", "num_layers"}) != nullptr &&
                        r.find({"num_attention_heads", "n_head", "num_heads"}) != nullptr &&
                        r.find({"vocab_size"}) != nullptr;
  if (!standard)
    return error{"model_type", "config.json model_type " + quoted(std::string(type)) +
                                   " is not a family llm-memory knows, nor a decoder with its standard fields "
                                   "(hidden_size, num_hidden_layers, num_attention_heads, vocab_size); "
                                   "docs/models.md lists the families"};
  const auto found = std::find_if(kinds.begin(), kinds.end(), [&](const declared_kind& k) { return k.declares(text); });
  const declared_kind* kind = found == kinds.end() ? nullptr : &*found;
  if (kind != nullptr)
    for (const std::string_view required : split(kind->required, ';'))
      if (const std::string field(required); !field.empty() && !has(text, field.c_str()))
        return error{"model_type",
                     refusal(type, "counted as " + std::string(kind->family) + "'s layers for " +
                                       std::string(kind->evidence) + ", it needs config.json field " + quoted(field))};
  if (const std::string field = unread_field(text, kind); !field.empty())
    return error{"model_type",
                 refusal(type, "its field " + quoted(field) + " describes layers no known family reads in this form")};
  if (kind == nullptr)
    for (const std::string& e : entries(text, {"layer_types"}))
      if (e != "full_attention" && e != "sliding_attention")
        return error{"model_type", refusal(type, "its field \"layer_types\" lists " + quoted(e) +
                                                     ", a layer kind no known family reads in this form")};
  auto read = parse_decoder(root, text, nested, *find_family(kind != nullptr ? kind->as : "llama"),
                            kind != nullptr ? kind->as : type);
  if (!read.ok()) return read;
  std::string& note = read.value()["model_notes"];
  const std::string family_note = note;
  note = kind != nullptr ? degraded_note(type, text, *kind)
                         : "model_type " + quoted(std::string(type)) +
                               " is not known: counted as a Llama-style decoder from its standard fields (RMSNorm, "
                               "gated MLP, rotary positions, no biases and untied embeddings unless attention_bias, "
                               "mlp_bias or tie_word_embeddings say otherwise; experts and sliding windows as their "
                               "usual fields say); check against the checkpoint's size";
  if (!family_note.empty()) note += ". " + family_note;
  return read;
}

}  // namespace llm_memory::detail
