// SPDX-License-Identifier: MIT
// What every decoder's config.json is read for: the sizes, the sliding windows, the family's conventions and the
// fields that override them, then the family's own fields (its row in decoders.cpp), quantization_config and the
// vision tower.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "families/families.hpp"
#include "layers/layer_kinds.hpp"

namespace llm_memory::detail {
namespace {

// The runs of a layer list over its shortest period, in the layer_types setting's form: Qwen3-Next's 48 layers
// ["linear_attention" x 3, "full_attention"] x 12 -> "3*linear_attention,full_attention".
std::string layer_runs(const std::vector<std::string>& kinds) {
  std::size_t period = kinds.size();
  for (std::size_t p = 1; p < kinds.size(); ++p) {
    bool repeats = kinds.size() % p == 0;
    for (std::size_t i = p; i < kinds.size() && repeats; ++i) repeats = kinds[i] == kinds[i % p];
    if (repeats) {
      period = p;
      break;
    }
  }
  std::string runs;
  for (std::size_t i = 0, j = 0; i < period; i = j) {
    while (j < period && kinds[j] == kinds[i]) ++j;
    runs += (runs.empty() ? "" : ",") + (j - i > 1 ? std::to_string(j - i) + "*" : "") + kinds[i];
  }
  return runs;
}

// ["sliding_attention", ..., "full_attention"] -> sliding_window_pattern (every Nth layer global); irregular lists
// are summarised by their ratio of layers to global layers.
void read_attention_types(const std::vector<std::string>& kinds, reader& r) {
  std::int64_t layers = 0, global = 0, period = 0;
  bool periodic = true;
  for (const auto& t : kinds) {
    ++layers;
    if (t == "full_attention" || t == "chunked_attention") {  // Llama 4's chunks: attention_chunk_size
      ++global;
      if (period == 0) period = layers;
      periodic = periodic && layers % period == 0;
    } else if (period > 0 && layers % period == 0) {
      periodic = false;
    }
  }
  if (global == layers) {
    r.set("sliding_window", "0");  // no layer slides
  } else if (global == 0) {
    r.set("sliding_window_pattern", "0");
  } else {
    const auto pattern = periodic ? period : std::llround(static_cast<double>(layers) / static_cast<double>(global));
    r.out["sliding_window_pattern"] = std::to_string(pattern);
  }
}

// layer_types: a list of sliding/full attention -> sliding_window_pattern (unless `windows` is false: the config
// turned sliding windows off); one with other kinds (linear_attention, mamba, conv...) -> the layer_types setting in
// run form (layers/table.cpp's syntax). False when absent.
bool read_layer_types(reader& r, bool windows) {
  const json* it = r.find({"layer_types"});
  if (it == nullptr) return false;
  std::vector<std::string> kinds;
  if (it->is_array())
    for (const auto& t : *it)
      if (t.is_string()) kinds.push_back(t.get<std::string>());
  if (!it->is_array() || kinds.size() != it->size()) {
    r.fail("sliding_window_pattern", "config.json field \"layer_types\" must be a list of strings");
    return true;
  }
  const bool attention_only = std::all_of(kinds.begin(), kinds.end(), [](const std::string& t) {
    return t == "full_attention" || t == "sliding_attention" || t == "chunked_attention";
  });
  if (attention_only) {
    if (windows) read_attention_types(kinds, r);
  } else if (const std::string runs = layer_runs(kinds); parse_layer_types(runs).ok()) {
    r.out["layer_types"] = runs;
  } else {
    r.fail("layer_types",
           "config.json layer_types holds a kind llm-memory does not count (it counts full_attention, "
           "sliding_attention, linear_attention, mamba and conv)");
  }
  return true;
}

// A flag the family sets unless config.json has the field.
void read_flag(reader& r, const char* name, bool family_default) {
  const auto v = r.boolean(name, name);
  if (v.value_or(family_default) || v.has_value()) r.out[name] = v.value_or(family_default) ? "on" : "off";
}

// tie_word_embeddings: text_config's own field, else (nested configs that write it once, at the top level) the top
// level's; nullopt leaves the family's default.
std::optional<bool> read_tie(reader& r, const json& root, bool has_text) {
  if (r.find({"tie_word_embeddings"}) != nullptr || !has_text)
    return r.boolean("tie_word_embeddings", "tie_word_embeddings");
  reader top(root);
  const auto tie = top.boolean("tie_word_embeddings", "tie_word_embeddings");
  for (auto& e : top.errors) r.errors.push_back(std::move(e));
  return tie;
}

// The sizes every decoder has, under the names the families give them.
void read_sizes(reader& r) {
  r.require({"hidden_size", "n_embd", "d_model", "n_embed"}, "hidden_size");
  r.require({"num_hidden_layers", "n_layer", "num_layers"}, "num_hidden_layers");
  r.require({"num_attention_heads", "n_head", "num_heads"}, "num_attention_heads");
  r.require({"vocab_size"}, "vocab_size");
  r.integer({"num_key_value_heads", "num_kv_heads", "n_head_kv"}, "num_key_value_heads");
  r.integer({"head_dim"}, "head_dim");
  // Gemma 3n lists one width per layer: its family reads the list (gemma3n.cpp), any other is refused below.
  // The setting's 0 means 4 x hidden_size; a config.json that writes 0 means something else, so it is refused.
  if (const json* i = r.find({"intermediate_size"}); i == nullptr || !i->is_array())
    if (r.integer({"intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"}, "intermediate_size") &&
        r.out["intermediate_size"] == "0")
      r.errors.push_back({"intermediate_size",
                          "config.json gives 0; an MLP needs its width (leave the field out for "
                          "4 x hidden_size)"});
  r.integer({"max_position_embeddings", "n_positions"}, "max_position_embeddings");
}

// Sliding windows: Qwen2 carries a window it does not use unless use_sliding_window is true.
void read_windows(reader& r, const family& fam) {
  const auto use_window = r.boolean("use_sliding_window", "sliding_window");
  if (use_window.value_or(true)) {
    r.integer({"sliding_window"}, "sliding_window");
    if (!read_layer_types(r, true) && !r.integer({"sliding_window_pattern"}, "sliding_window_pattern") &&
        fam.sliding_pattern > 0)
      r.out["sliding_window_pattern"] = std::to_string(fam.sliding_pattern);
  } else {
    r.set("sliding_window", "0");
    read_layer_types(r, false);
  }
}

// Family conventions, then the fields that override them.
void read_conventions(reader& r, const json& root, bool nested, const family& fam) {
  r.out["norm"] = std::string(fam.norm);
  r.out["mlp"] = std::string(fam.mlp);
  r.out["position_embedding"] = std::string(fam.position);
  r.out["dropout"] = fam.model_type == "gpt2" ? "on" : "off";
  r.out["qk_norm"] = std::string(fam.qk_norm);
  r.out["norms_per_layer"] = std::to_string(fam.norms_per_layer);
  r.out["tie_word_embeddings"] = read_tie(r, root, nested).value_or(fam.tie) ? "on" : "off";
  if (!fam.attention_bias.empty()) {
    r.out["attention_bias"] = std::string(fam.attention_bias);
  } else if (const auto bias = r.boolean("attention_bias", "attention_bias")) {
    r.out["attention_bias"] = *bias ? "all" : "none";
  }
  read_flag(r, "mlp_bias", fam.mlp_bias);
  read_flag(r, "lm_head_bias", fam.lm_head_bias);
  if (fam.embedding_norm) r.out["embedding_norm"] = "on";
  if (fam.attention_sinks) r.out["attention_sinks"] = "on";
  if (fam.shared_expert_gate && r.out.contains("shared_expert_intermediate_size")) r.out["shared_expert_gate"] = "on";
  if (fam.router_bias || r.text("topk_method") == "noaux_tc") r.out["router_bias"] = "on";
}

}  // namespace

result<settings> parse_decoder(const json& root, const json& text, bool nested, const family& fam,
                               std::string_view written) {
  reader r(text);
  const std::string root_type = reader(root).text("model_type");
  text_defaults(r.out, fam.model_type, root_type);
  read_sizes(r);
  read_moe(r);
  read_mla(r);
  read_windows(r, fam);
  read_conventions(r, root, nested, fam);
  if (fam.fields != nullptr) fam.fields(r, written);
  if (const json* i = r.find({"intermediate_size"});
      i != nullptr && i->is_array() && !r.out.contains("intermediate_size"))
    r.fail("intermediate_size", "config.json lists intermediate_size per layer: llm-memory reads one width");
  check_moe_placement(r);
  read_quantization(r, root);
  if (root_type == "mllama") mllama_text(r, text);
  read_vision_tower(r, root, root_type);
  if (!r.errors.empty()) return r.errors;
  return r.out;
}

}  // namespace llm_memory::detail
