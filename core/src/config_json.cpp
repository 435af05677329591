// SPDX-License-Identifier: MIT
#include "llm_memory/config_json.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

#include "text.hpp"

namespace llm_memory {
namespace {

using json = nlohmann::json;

// Reads the first present key among `names` as a whole number; null counts as absent.
bool read_int(const json& j, std::initializer_list<const char*> names, std::string_view setting, settings& out,
              std::vector<error>& errors) {
  for (const char* name : names) {
    const auto it = j.find(name);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() != std::floor(it->get<double>()) ||
        it->get<double>() < 0) {
      errors.push_back({std::string(setting), std::string("config.json field \"") + name +
                                                  "\" must be a non-negative integer, got " + it->dump()});
      return true;
    }
    out[std::string(setting)] = detail::format_number(it->get<double>());
    return true;
  }
  return false;
}

bool read_bool(const json& j, const char* name, std::string_view setting, settings& out, std::vector<error>& errors) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) return false;
  if (!it->is_boolean()) {
    errors.push_back({std::string(setting), std::string("config.json field \"") + name + "\" must be true or false, got " +
                                                it->dump()});
    return true;
  }
  out[std::string(setting)] = it->get<bool>() ? "on" : "off";
  return true;
}

std::string model_type(const json& j) {
  const auto it = j.find("model_type");
  return it != j.end() && it->is_string() ? detail::lower(it->get<std::string>()) : std::string();
}

}  // namespace

result<settings> parse_config(std::string_view json_text) {
  json root = json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (root.is_discarded()) return error{"config.json", "is not valid JSON"};
  if (!root.is_object()) return error{"config.json", "must be a JSON object"};
  // Multimodal wrappers keep the language model in text_config.
  const auto text = root.find("text_config");
  const json& j = text != root.end() && text->is_object() ? *text : root;
  std::string type = model_type(j);
  if (type.empty()) type = model_type(root);

  settings out;
  std::vector<error> errors;
  if (!read_int(j, {"hidden_size", "n_embd", "d_model"}, "hidden_size", out, errors))
    errors.push_back({"hidden_size", "config.json has no hidden_size (or n_embd, d_model)"});
  if (!read_int(j, {"num_hidden_layers", "n_layer", "num_layers"}, "num_hidden_layers", out, errors))
    errors.push_back({"num_hidden_layers", "config.json has no num_hidden_layers (or n_layer)"});
  if (!read_int(j, {"num_attention_heads", "n_head"}, "num_attention_heads", out, errors))
    errors.push_back({"num_attention_heads", "config.json has no num_attention_heads (or n_head)"});
  if (!read_int(j, {"vocab_size"}, "vocab_size", out, errors))
    errors.push_back({"vocab_size", "config.json has no vocab_size"});
  read_int(j, {"num_key_value_heads", "num_kv_heads"}, "num_key_value_heads", out, errors);
  read_int(j, {"head_dim"}, "head_dim", out, errors);
  read_int(j, {"intermediate_size", "n_inner", "ffn_hidden_size"}, "intermediate_size", out, errors);
  read_int(j, {"max_position_embeddings", "n_positions"}, "max_position_embeddings", out, errors);
  read_int(j, {"num_local_experts", "num_experts", "n_routed_experts"}, "num_experts", out, errors);
  read_int(j, {"num_experts_per_tok"}, "num_experts_per_tok", out, errors);
  read_int(j, {"moe_intermediate_size"}, "moe_intermediate_size", out, errors);
  read_int(j, {"n_shared_experts"}, "n_shared_experts", out, errors);
  read_int(j, {"shared_expert_intermediate_size"}, "shared_expert_intermediate_size", out, errors);
  read_int(j, {"first_k_dense_replace"}, "first_k_dense_replace", out, errors);
  read_int(j, {"q_lora_rank"}, "q_lora_rank", out, errors);
  read_int(j, {"kv_lora_rank"}, "kv_lora_rank", out, errors);
  read_int(j, {"qk_nope_head_dim"}, "qk_nope_head_dim", out, errors);
  read_int(j, {"qk_rope_head_dim"}, "qk_rope_head_dim", out, errors);
  read_int(j, {"v_head_dim"}, "v_head_dim", out, errors);
  read_int(j, {"sliding_window_pattern"}, "sliding_window_pattern", out, errors);
  const auto use_window = j.find("use_sliding_window");
  if (use_window == j.end() || !use_window->is_boolean() || use_window->get<bool>())
    read_int(j, {"sliding_window"}, "sliding_window", out, errors);

  // Family conventions that config.json does not spell out (docs/methodology.md, "Families").
  const bool gpt2 = type == "gpt2";
  out["norm"] = gpt2 ? "layernorm" : "rmsnorm";
  out["mlp"] = gpt2 ? "plain" : "gated";
  out["position_embedding"] = gpt2 ? "learned" : "rope";
  out["dropout"] = gpt2 ? "on" : "off";
  out["tie_word_embeddings"] = gpt2 || type.starts_with("gemma") ? "on" : "off";
  read_bool(j, "tie_word_embeddings", "tie_word_embeddings", out, errors);
  if (gpt2) {
    out["attention_bias"] = "all";
    out["mlp_bias"] = "on";
  } else if (type == "qwen2" || type == "qwen2_moe") {
    out["attention_bias"] = "qkv";
  } else {
    const auto bias = j.find("attention_bias");
    if (bias != j.end() && bias->is_boolean()) out["attention_bias"] = bias->get<bool>() ? "all" : "none";
  }
  if (type == "qwen3" || type == "qwen3_moe" || type == "gemma3" || type == "gemma3_text") out["qk_norm"] = "head";
  if (type == "olmo2") out["qk_norm"] = "full";
  if (type.starts_with("gemma2") || type.starts_with("gemma3")) out["norms_per_layer"] = "4";
  if (type.starts_with("gemma2") && !out.contains("sliding_window_pattern")) out["sliding_window_pattern"] = "2";

  if (!errors.empty()) return errors;
  return out;
}

}  // namespace llm_memory
