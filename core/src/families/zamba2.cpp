// SPDX-License-Identifier: MIT
// Zamba2 (Zyphra): a Mamba-2 backbone in which every "hybrid" layer first applies one of num_mem_blocks shared
// transformer blocks (attention from the 2 x hidden concatenation of the hidden state and the original embeddings,
// then a gated MLP), cycled block 0, 1, ..., each application with its own LoRA-shaped adapters, and the layer's own
// `linear` back to hidden. Field names, defaults and shapes from transformers models/zamba2/configuration_zamba2.py
// @02f5807 (Zamba2Config) and modeling_zamba2.py @00511f5 (Zamba2Attention, Zamba2MLP, Zamba2MambaMixer,
// Zamba2HybridLayer, Zamba2Model.get_layers); the derivation is in docs/models.md.
#include <cmath>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

double out_number(reader& r, const char* setting, double fallback) {
  const auto it = r.out.find(setting);
  return it == r.out.end() ? fallback : number_in(it->second);
}

// layers_block_type ("mamba" | "hybrid" per layer), else Zamba2Config's default list (54 layers, hybrid at 6k - 1 up
// to 41, then 46 and 50). Empty when malformed (reported).
std::vector<std::string> zamba2_blocks(reader& r, double layers) {
  std::vector<std::string> kinds;
  if (const json* list = r.find({"layers_block_type"}); list != nullptr) {
    bool ok = list->is_array();
    if (ok)
      for (const json& e : *list) {
        ok = ok && e.is_string() && (e.get<std::string>() == "mamba" || e.get<std::string>() == "hybrid");
        if (ok) kinds.push_back(e.get<std::string>());
      }
    if (!ok) {
      r.fail("layer_types", "config.json layers_block_type must list \"mamba\" or \"hybrid\" per layer (Zamba2)");
      return {};
    }
  } else {
    kinds.emplace_back("mamba");
    for (int i = 0; i < 7; ++i) kinds.insert(kinds.end(), {"mamba", "mamba", "mamba", "mamba", "mamba", "hybrid"});
    kinds.insert(kinds.end(),
                 {"mamba", "mamba", "mamba", "mamba", "hybrid", "mamba", "mamba", "mamba", "hybrid", "mamba", "mamba"});
  }
  if (static_cast<double>(kinds.size()) != layers) {
    r.fail("layer_types", "config.json layers_block_type lists " + std::to_string(kinds.size()) +
                              " layers where num_hidden_layers is " + format_number(layers));
    return {};
  }
  return kinds;
}

// The parameters the layer list does not hold [parameters]: num_mem_blocks shared blocks, each with
// input_layernorm (2h), q/k/v (2h -> heads or kv heads x head_dim, head_dim = 2h / heads, no bias), o_proj
// (heads x head_dim -> h), pre_ff_layernorm (h), gate_up_proj (h -> 2 x intermediate) and down_proj
// (intermediate -> h), biased with add_bias_linear; and per application (one per hybrid layer, owned by block
// i % num_mem_blocks) the MLP adapter h -> rank -> 2 x intermediate (Zamba2MLP builds it whatever
// use_shared_mlp_adapter says) and, with use_shared_attention_adapter, the q, k and v adapters 2h -> rank -> 2h.
double zamba2_shared(reader& r, double hybrids) {
  const double h = out_number(r, "hidden_size", 0), a = out_number(r, "num_attention_heads", 1);
  const double kv = out_number(r, "num_key_value_heads", a), inner = out_number(r, "intermediate_size", 4 * h);
  const double head = a > 0 ? std::floor(2 * h / a) : 0;
  const double blocks = field(r, "num_mem_blocks", 1, "extra_params");
  const double rank = field(r, "adapter_rank", 128, "extra_params");
  const bool bias = r.boolean("add_bias_linear", "mamba_proj_bias").value_or(false);
  const bool attention_adapters = r.boolean("use_shared_attention_adapter", "extra_params").value_or(false);
  const double block = 2 * h + 2 * h * a * head + 2 * (2 * h * kv * head) + a * head * h + h + h * 2 * inner +
                       inner * h + (bias ? 2 * inner + h : 0);
  const double adapters = (h * rank + rank * 2 * inner) + (attention_adapters ? 3 * (2 * h * rank + rank * 2 * h) : 0);
  if (hybrids > 0 && blocks < 1) r.fail("extra_params", "config.json num_mem_blocks must be at least 1 (Zamba2)");
  r.out["head_dim"] = format_number(head);
  return blocks * block + hybrids * adapters;
}

}  // namespace

// Zamba2 (Zamba2Model): every layer a Mamba-2 mixer behind one RMSNorm (Zamba2MambaDecoderLayer: in_proj h -> 2 x
// inner + 2 x groups x d_state + heads, conv1d with its bias whatever use_conv_bias says, dt_bias, A_log, D, the
// gated RMSNorm over inner, out_proj; inner = mamba_expand x h in n_mamba_heads heads of inner // heads), a hybrid
// layer also a shared block's application and its `linear` (layers/shared_attention_mamba.cpp); the final
// RMSNorm; the lm_head tied to the embeddings (Zamba2ForCausalLM._tied_weights_keys).
void zamba2_fields(reader& r, std::string_view) {
  const double h = out_number(r, "hidden_size", 0);
  const double inner = field(r, "mamba_expand", 2, "mamba_num_heads") * h;
  const double heads = field(r, "n_mamba_heads", 8, "mamba_num_heads");
  r.out["mamba_num_heads"] = format_number(heads);
  r.out["mamba_head_dim"] = format_number(heads > 0 ? std::floor(inner / heads) : 0);
  if (heads > 0 && std::fmod(inner, heads) != 0)
    r.fail("mamba_head_dim", "config.json n_mamba_heads must divide mamba_expand x hidden_size (Zamba2)");
  r.out["mamba_d_state"] = format_number(field(r, "mamba_d_state", 64, "mamba_d_state"));
  r.out["mamba_n_groups"] = format_number(field(r, "mamba_ngroups", 1, "mamba_n_groups"));
  r.out["mamba_d_conv"] = format_number(field(r, "mamba_d_conv", 4, "mamba_d_conv"));
  r.out["mamba_conv_bias"] = "on";  // Zamba2MambaMixer: nn.Conv1d(..., bias=True)
  r.out["mamba_proj_bias"] = r.boolean("add_bias_linear", "mamba_proj_bias").value_or(false) ? "on" : "off";
  r.out["mamba_norm"] = "on";
  r.out["position_embedding"] = r.boolean("use_mem_rope", "position_embedding").value_or(false) ? "rope" : "none";
  const double layers = out_number(r, "num_hidden_layers", 0);
  const std::vector<std::string> kinds = zamba2_blocks(r, layers);
  double hybrids = 0;
  std::vector<std::string> entries;
  for (const auto& k : kinds) {
    hybrids += k == "hybrid" ? 1 : 0;
    entries.push_back(k == "hybrid" ? "shared_attention_mamba+none" : "mamba+none");
  }
  r.out["extra_params"] = format_number(zamba2_shared(r, hybrids));
  r.out.erase("sliding_window_pattern");
  if (!entries.empty()) r.out["layer_types"] = joined_layers(entries);
  r.out["model_notes"] =
      "Zamba2: the shared transformer blocks (num_mem_blocks) and every application's adapters are counted once, "
      "beside the layers (extra_params); each hybrid layer caches its own keys and values (head_dim 2 x hidden / "
      "heads) and every layer keeps a Mamba-2 state per sequence";
}

}  // namespace llm_memory::detail
