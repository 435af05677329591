// SPDX-License-Identifier: MIT
// Issue 32's second set of hybrids: Falcon-H1 (attention and Mamba-2 in parallel in every layer) and Jamba (Mamba-1
// and attention layers, experts every other layer). Field names and defaults from transformers
// models/falcon_h1/configuration_falcon_h1.py @ 020a37d (FalconH1Config), modeling_falcon_h1.py @ 001f85b
// (FalconH1Mixer) and models/jamba/configuration_jamba.py @ 008f5c8 (JambaConfig); the derivations are in
// docs/models.md.
#include <cmath>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

// A true/false field with FalconH1Config's default, written as the flag setting.
void falcon_flag(reader& r, const char* name, bool fallback, std::string_view setting) {
  r.out[std::string(setting)] = r.boolean(name, setting).value_or(fallback) ? "on" : "off";
}

// FalconH1Mixer's widths: inner mamba_d_ssm (mamba_expand x hidden_size when null), mamba_n_heads heads of
// mamba_d_head ("auto": inner // heads), which FalconH1Config.validate_architecture requires to multiply to inner
// (read_mamba2_heads, shared with Granite 4.0-H).
void falcon_mamba(reader& r) {
  double inner = 1024;  // FalconH1Config's mamba_d_ssm
  if (const json* d = r.find({"mamba_d_ssm"}); d != nullptr) {
    inner = field(r, "mamba_d_ssm", 1024, "mamba_head_dim");
  } else if (r.find({"mamba_expand"}) != nullptr) {
    const double h = number_in(r.out.count("hidden_size") ? r.out["hidden_size"] : "0");
    inner = field(r, "mamba_expand", 2, "mamba_head_dim") * h;
  }
  read_mamba2_heads(r, inner, "mamba_d_ssm");
}

}  // namespace

// Falcon-H1 (modeling_falcon_h1.py FalconH1DecoderLayer): input_layernorm, then attention and the Mamba-2 mixer side
// by side, pre_ff_layernorm and a gated MLP in every layer; the mixer's in_proj bias is mamba_proj_bias and its
// out_proj bias projectors_bias; the gated RMSNorm only with mamba_rms_norm. The muP multipliers (mup_vector is a
// non-persistent buffer) add no parameter.
void falcon_h1_fields(reader& r, std::string_view) {
  falcon_mamba(r);
  falcon_flag(r, "mamba_conv_bias", true, "mamba_conv_bias");
  falcon_flag(r, "mamba_proj_bias", false, "mamba_proj_bias");
  falcon_flag(r, "mamba_rms_norm", false, "mamba_norm");
  if (r.boolean("projectors_bias", "mamba_proj_bias").value_or(false) != (r.out["mamba_proj_bias"] == "on"))
    r.fail("mamba_proj_bias",
           "config.json projectors_bias (out_proj's bias) differs from mamba_proj_bias "
           "(in_proj's), which llm-memory does not model");
  r.out.erase("sliding_window_pattern");
  r.out["layer_types"] = "attention_mamba";
}

namespace {

// A layer period and offset of JambaConfig (layer i has the kind when i % period == offset; offset < period).
struct period {
  double every = 1;  // [layers]
  double at = 0;     // [layers]
};

period read_period(reader& r, const char* every, double every_default, const char* at, double at_default) {
  const period p{field(r, every, every_default, "layer_types"), field(r, at, at_default, "layer_types")};
  if (p.every < 1 || p.at >= p.every)
    r.fail("layer_types", std::string("config.json ") + at + " must be below " + every + " (JambaConfig)");
  return p;
}

}  // namespace

// Jamba (modeling_jamba.py): JambaConfig.layers_block_type puts attention where i % attn_layer_period ==
// attn_layer_offset and Mamba-1 elsewhere; layers_num_experts puts num_experts experts (each an MLP of
// intermediate_size, a router without bias) where i % expert_layer_period == expert_layer_offset, a dense MLP
// elsewhere. The Mamba-1 mixer's inner width is mamba_expand x hidden_size, its dt rank ceil(hidden_size / 16) when
// "auto"; attention has no position embedding.
void jamba_fields(reader& r, std::string_view) {
  const double h = number_in(r.out.count("hidden_size") ? r.out["hidden_size"] : "0");
  r.out["mamba_d_inner"] = format_number(field(r, "mamba_expand", 2, "mamba_d_inner") * h);
  double rank = std::ceil(h / 16);
  if (const json* d = r.find({"mamba_dt_rank"}); d != nullptr && !(d->is_string() && d->get<std::string>() == "auto"))
    rank = field(r, "mamba_dt_rank", rank, "mamba_dt_rank");
  r.out["mamba_dt_rank"] = format_number(rank);
  r.out["mamba_d_state"] = format_number(field(r, "mamba_d_state", 16, "mamba_d_state"));
  r.out["mamba_d_conv"] = format_number(field(r, "mamba_d_conv", 4, "mamba_d_conv"));
  falcon_flag(r, "mamba_conv_bias", true, "mamba_conv_bias");
  falcon_flag(r, "mamba_proj_bias", false, "mamba_proj_bias");
  r.out.emplace("num_experts", "16");
  r.out.emplace("num_experts_per_tok", "2");
  const period attention = read_period(r, "attn_layer_period", 8, "attn_layer_offset", 4);
  const period experts = read_period(r, "expert_layer_period", 2, "expert_layer_offset", 1);
  const double layers = number_in(r.out.count("num_hidden_layers") ? r.out["num_hidden_layers"] : "0");
  std::vector<std::string> entries;
  for (double i = 0; i < layers && attention.every >= 1 && experts.every >= 1; ++i) {
    const bool attends = std::fmod(i, attention.every) == attention.at;
    const bool routed = std::fmod(i, experts.every) == experts.at;
    entries.push_back(std::string(attends ? "full_attention" : "mamba1") + (routed ? "+moe" : "+dense"));
  }
  r.out.erase("sliding_window_pattern");
  r.out["layer_types"] = joined_layers(entries);
}

}  // namespace llm_memory::detail
