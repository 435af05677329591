// SPDX-License-Identifier: MIT
// Hugging Face config.json -> settings. The field names per model_type and the family conventions a
// config does not spell out (norm type, gated MLP, biases, q/k norms) come from the transformers
// configuration_*.py / modeling_*.py files of each family; docs/models.md lists them.
#include "llm_memory/config_json.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>

#include "text.hpp"

namespace llm_memory {
namespace {

using json = nlohmann::json;

// What a family's modeling code hard-wires; "" leaves the setting to config.json or the default.
struct family {
  std::string_view model_type;
  std::string_view norm = "rmsnorm";
  std::string_view mlp = "gated";
  std::string_view position = "rope";
  bool tie = false;                        ///< tie_word_embeddings when config.json omits it
  std::string_view attention_bias = "";    ///< none | qkv | all; "" = read "attention_bias"
  std::string_view qk_norm = "none";
  int norms_per_layer = 2;
  int sliding_pattern = 0;                 ///< every Nth layer global when config.json omits it
  bool shared_expert_gate = false;
};

// clang-format off
constexpr std::array families = {
    family{"gpt2", "layernorm", "plain", "learned", true, "all"},
    family{"llama"}, family{"mistral"}, family{"mixtral"}, family{"phi3"},
    family{"qwen2", "rmsnorm", "gated", "rope", false, "qkv"},
    family{"qwen2_moe", "rmsnorm", "gated", "rope", false, "qkv", "none", 2, 0, true},
    family{"qwen3", "rmsnorm", "gated", "rope", false, "", "head"},
    family{"qwen3_moe", "rmsnorm", "gated", "rope", false, "", "head"},
    family{"gemma", "rmsnorm", "gated", "rope", true},
    family{"gemma2", "rmsnorm", "gated", "rope", true, "", "none", 4, 2},
    family{"gemma3_text", "rmsnorm", "gated", "rope", true, "", "head", 4, 6},
    family{"olmo2", "rmsnorm", "gated", "rope", false, "", "full"},
    family{"deepseek_v2"}, family{"deepseek_v3"},
    family{"falcon", "layernorm", "plain", "rope", true, "none"},
};
// clang-format on

// transformers' PretrainedConfig ties embeddings unless a family says otherwise.
constexpr family unknown_family{"", "rmsnorm", "gated", "rope", true};

const family& find_family(std::string_view type) {
  if (type == "gemma3") type = "gemma3_text";  // the multimodal wrapper's language model
  if (type == "refinedweb" || type == "refinedwebmodel") type = "falcon";
  for (const auto& f : families)
    if (f.model_type == type) return f;
  return unknown_family;
}

class reader {
 public:
  explicit reader(const json& j) : j_(j) {}

  // The first present key among `names`; null counts as absent.
  [[nodiscard]] const json* find(std::initializer_list<const char*> names, const char** found = nullptr) const {
    for (const char* name : names) {
      const auto it = j_.find(name);
      if (it != j_.end() && !it->is_null()) {
        if (found != nullptr) *found = name;
        return &*it;
      }
    }
    return nullptr;
  }

  // Reads a whole number within the setting's range into out[setting]; false when absent.
  bool integer(std::initializer_list<const char*> names, std::string_view setting) {
    const char* name = nullptr;
    const json* v = find(names, &name);
    if (v == nullptr) return false;
    const setting_def* def = find_setting(setting);
    const double max = def != nullptr ? def->max_value : 1e15;
    const bool whole = v->is_number() && std::isfinite(v->get<double>()) && v->get<double>() == std::floor(v->get<double>());
    if (!whole || v->get<double>() < 0 || v->get<double>() > max) {
      fail(setting, std::string("config.json field \"") + name + "\" must be a whole number from 0 to " +
                        detail::format_number(max) + ", got " + detail::quoted(v->dump()));
      return true;
    }
    out[std::string(setting)] = detail::format_number(v->get<double>());
    return true;
  }

  // Reads a true/false field; nullopt when absent or not a boolean (reported).
  [[nodiscard]] std::optional<bool> boolean(const char* name, std::string_view setting) {
    const json* v = find({name});
    if (v == nullptr) return std::nullopt;
    if (!v->is_boolean()) {
      fail(setting, std::string("config.json field \"") + name + "\" must be true or false, got " +
                        detail::quoted(v->dump()));
      return std::nullopt;
    }
    return v->get<bool>();
  }

  [[nodiscard]] std::string text(const char* name) const {
    const json* v = find({name});
    return v != nullptr && v->is_string() ? detail::lower(v->get<std::string>()) : std::string();
  }

  // Like integer(), but a field with no value from config.json or a family default is an error.
  void require(std::initializer_list<const char*> names, std::string_view setting) {
    if (!integer(names, setting) && !out.contains(std::string(setting))) {
      std::string list;
      for (const char* n : names) list += std::string(list.empty() ? "" : " or ") + n;
      fail(setting, "config.json has no " + list);
    }
  }

  void fail(std::string_view setting, std::string message) { errors.push_back({std::string(setting), std::move(message)}); }

  settings out;
  std::vector<error> errors;

 private:
  const json& j_;
};

// Records where and why parsing failed (nlohmann's SAX interface; no exceptions are thrown).
struct syntax_error {
  std::string message = "syntax error";
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const std::string&) { return true; }
  bool string(std::string&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool key(std::string&) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 1: syntax error ..." -> after "] ".
    if (const auto close = what.find("] "); close != std::string::npos) what.erase(0, close + 2);
    message = what + " (byte " + std::to_string(byte) + ")";
    return false;
  }
};

// Gemma 3's multimodal configs list only what differs from Gemma3TextConfig's defaults
// (configuration_gemma3.py): fill those in so the text model is complete.
void gemma3_defaults(settings& out) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> defaults = {{{"vocab_size", "262208"},
                                                                                       {"num_attention_heads", "8"},
                                                                                       {"num_key_value_heads", "4"},
                                                                                       {"head_dim", "256"},
                                                                                       {"sliding_window", "4096"},
                                                                                       {"max_position_embeddings", "131072"}}};
  for (const auto& [key, value] : defaults) out.emplace(key, value);
}

// layer_types ["sliding_attention", ..., "full_attention"] -> sliding_window_pattern (every Nth layer global).
// Irregular lists are summarised by their ratio of layers to global layers. False when absent.
bool read_layer_types(const json& j, reader& r) {
  const auto it = j.find("layer_types");
  if (it == j.end() || it->is_null()) return false;
  if (!it->is_array()) {
    r.fail("sliding_window_pattern", "config.json field \"layer_types\" must be a list of strings");
    return true;
  }
  std::int64_t layers = 0, global = 0, period = 0;
  bool periodic = true;
  for (const auto& t : *it) {
    if (!t.is_string()) {
      r.fail("sliding_window_pattern", "config.json field \"layer_types\" must be a list of strings");
      return true;
    }
    ++layers;
    if (t.get<std::string>() == "full_attention") {
      ++global;
      if (period == 0) period = layers;
      periodic = periodic && layers % period == 0;
    } else if (period > 0 && layers % period == 0) {
      periodic = false;
    }
  }
  if (global == layers) {
    r.out["sliding_window"] = "0";  // no layer slides
  } else if (global == 0) {
    r.out["sliding_window_pattern"] = "0";
  } else {
    const auto pattern = periodic ? period : std::llround(static_cast<double>(layers) / static_cast<double>(global));
    r.out["sliding_window_pattern"] = std::to_string(pattern);
  }
  return true;
}

// Where a too-deep value sits: the top-level field of an object (the last string at depth 1 before it is its
// key) or the entry of an array (commas at depth 1 before it).
std::string json_location(char root, std::string_view key, std::size_t entry) {
  if (root == '{' && !key.empty()) return "field " + detail::quoted(key);
  if (root == '[') return "entry " + std::to_string(entry);
  return "the document";
}

}  // namespace

std::optional<error> check_json_text(std::string_view text, std::string_view what) {
  if (text.size() > max_json_bytes)
    return error{std::string(what), "is larger than " + std::to_string(max_json_bytes >> 20) + " MiB (" +
                                        std::to_string(text.size()) + " bytes)"};
  std::size_t depth = 0, entry = 0, key_start = 0;
  std::string_view key;
  bool in_string = false, escaped = false;
  char root = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
        if (depth == 1) key = text.substr(key_start, i - key_start);
      }
    } else if (c == '"') {
      in_string = true;
      key_start = i + 1;
    } else if (c == ',' && depth == 1) {
      ++entry;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == '[' || c == '{') {
      if (root == 0) root = c;
      if (++depth > max_json_depth)
        return error{std::string(what), json_location(root, key, entry) + " nests arrays and objects more than " +
                                            std::to_string(max_json_depth) + " levels deep (byte " +
                                            std::to_string(i) + ")"};
    }
  }
  return std::nullopt;
}

result<settings> parse_config(std::string_view json_text) {
  if (auto refused = check_json_text(json_text, "config.json")) return *refused;
  json root = json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (root.is_discarded()) {
    syntax_error where;
    json::sax_parse(json_text.begin(), json_text.end(), &where);
    return error{"config.json", "is not valid JSON: " + where.message};
  }
  if (!root.is_object()) return error{"config.json", "must be a JSON object"};
  // Multimodal wrappers (Gemma 3, Llama 4, Mistral 3) keep the language model in text_config.
  const auto nested = root.find("text_config");
  const bool has_text = nested != root.end() && nested->is_object();
  const json& j = has_text ? *nested : root;
  reader r(j);
  std::string type = r.text("model_type");
  if (type.empty()) type = reader(root).text("model_type");
  const family& fam = find_family(type);
  const bool gpt2 = fam.model_type == "gpt2";
  const bool falcon = fam.model_type == "falcon";

  if (fam.model_type == "gemma3_text") gemma3_defaults(r.out);
  r.require({"hidden_size", "n_embd", "d_model"}, "hidden_size");
  r.require({"num_hidden_layers", "n_layer", "num_layers"}, "num_hidden_layers");
  r.require({"num_attention_heads", "n_head", "num_heads"}, "num_attention_heads");
  r.require({"vocab_size"}, "vocab_size");
  r.integer({"num_key_value_heads", "num_kv_heads", "n_head_kv"}, "num_key_value_heads");
  r.integer({"head_dim"}, "head_dim");
  r.integer({"intermediate_size", "n_inner", "ffn_hidden_size"}, "intermediate_size");
  r.integer({"max_position_embeddings", "n_positions"}, "max_position_embeddings");
  r.integer({"num_local_experts", "num_experts", "n_routed_experts"}, "num_experts");
  r.integer({"num_experts_per_tok"}, "num_experts_per_tok");
  r.integer({"moe_intermediate_size"}, "moe_intermediate_size");
  r.integer({"n_shared_experts"}, "n_shared_experts");
  r.integer({"shared_expert_intermediate_size"}, "shared_expert_intermediate_size");
  r.integer({"first_k_dense_replace"}, "first_k_dense_replace");
  r.integer({"q_lora_rank"}, "q_lora_rank");
  r.integer({"kv_lora_rank"}, "kv_lora_rank");
  r.integer({"qk_nope_head_dim"}, "qk_nope_head_dim");
  r.integer({"qk_rope_head_dim"}, "qk_rope_head_dim");
  r.integer({"v_head_dim"}, "v_head_dim");

  // Sliding windows: Qwen2 carries a window it does not use unless use_sliding_window is true.
  const auto use_window = r.boolean("use_sliding_window", "sliding_window");
  if (use_window.value_or(true)) {
    r.integer({"sliding_window"}, "sliding_window");
    if (!read_layer_types(j, r) && !r.integer({"sliding_window_pattern"}, "sliding_window_pattern") &&
        fam.sliding_pattern > 0)
      r.out["sliding_window_pattern"] = std::to_string(fam.sliding_pattern);
  } else {
    r.out["sliding_window"] = "0";
  }

  // Family conventions, then the fields that override them.
  r.out["norm"] = std::string(fam.norm);
  r.out["mlp"] = std::string(fam.mlp);
  r.out["position_embedding"] = std::string(fam.position);
  r.out["dropout"] = gpt2 ? "on" : "off";
  r.out["qk_norm"] = std::string(fam.qk_norm);
  r.out["norms_per_layer"] = std::to_string(fam.norms_per_layer);
  r.out["tie_word_embeddings"] = r.boolean("tie_word_embeddings", "tie_word_embeddings").value_or(fam.tie) ? "on" : "off";
  if (!fam.attention_bias.empty()) {
    r.out["attention_bias"] = std::string(fam.attention_bias);
  } else if (const auto bias = r.boolean("attention_bias", "attention_bias")) {
    r.out["attention_bias"] = *bias ? "all" : "none";
  }
  if (gpt2) r.out["mlp_bias"] = "on";
  else if (const auto bias = r.boolean("mlp_bias", "mlp_bias")) r.out["mlp_bias"] = *bias ? "on" : "off";
  if (fam.shared_expert_gate && r.out.contains("shared_expert_intermediate_size")) r.out["shared_expert_gate"] = "on";
  if (r.text("topk_method") == "noaux_tc") r.out["router_bias"] = "on";

  // Falcon (modeling_falcon.py): fused qkv with multi-query or grouped k/v, one LayerNorm per layer when
  // attention and MLP run in parallel off the same input, two in the new decoder (ln_attn, ln_mlp),
  // one "bias" switch for every linear, ALiBi instead of rotary in some checkpoints.
  if (falcon) {
    const bool new_arch = r.boolean("new_decoder_architecture", "num_key_value_heads").value_or(false);
    const bool parallel = r.boolean("parallel_attn", "norms_per_layer").value_or(true);
    if (!new_arch && r.boolean("multi_query", "num_key_value_heads").value_or(true)) r.out["num_key_value_heads"] = "1";
    int norms = parallel && !new_arch ? 1 : 2;
    if (new_arch) {
      if (const json* n = r.find({"num_ln_in_parallel_attn"}); n != nullptr && n->is_number_integer() && n->get<int>() == 1)
        norms = 1;
    }
    r.out["norms_per_layer"] = std::to_string(norms);
    const bool bias = r.boolean("bias", "attention_bias").value_or(false);
    r.out["attention_bias"] = bias ? "all" : "none";
    r.out["mlp_bias"] = bias ? "on" : "off";
    if (r.boolean("alibi", "position_embedding").value_or(false)) r.out["position_embedding"] = "none";
  }

  if (!r.errors.empty()) return r.errors;
  return r.out;
}

}  // namespace llm_memory
