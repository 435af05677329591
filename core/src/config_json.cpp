// SPDX-License-Identifier: MIT
// Hugging Face config.json -> settings. The field names per model_type and the family conventions a
// config does not spell out (norm type, gated MLP, biases, q/k norms) come from the transformers
// configuration_*.py / modeling_*.py files of each family; docs/models.md lists them.
#include "llm_memory/config_json.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>

#include "decimal.hpp"
#include "json_value.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using json = detail::json;

// What a family's modeling code hard-wires; "" leaves the setting to config.json or the default.
struct family {
  std::string_view model_type;
  std::string_view norm = "rmsnorm";
  std::string_view mlp = "gated";
  std::string_view position = "rope";
  bool tie = false;                      ///< tie_word_embeddings when config.json omits it
  std::string_view attention_bias = "";  ///< none | qkv | all; "" = read "attention_bias"
  std::string_view qk_norm = "none";
  int norms_per_layer = 2;
  int sliding_pattern = 0;  ///< every Nth layer global when config.json omits it
  bool shared_expert_gate = false;
  bool mlp_bias = false;         ///< mlp_bias when config.json omits it
  bool lm_head_bias = false;     ///< lm_head_bias when config.json omits it
  bool embedding_norm = false;   ///< a norm on the token embeddings
  bool attention_sinks = false;  ///< one learned sink logit per head
  bool router_bias = false;      ///< a bias per expert on the router
};

// clang-format off
constexpr std::array families = {
    family{"gpt2", "layernorm", "plain", "learned", true, "all", "none", 2, 0, false, true},
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
    // Issue 18's families; the derivations are in docs/models.md.
    family{.model_type = "gpt_neox", .norm = "layernorm", .mlp = "plain", .attention_bias = "all", .mlp_bias = true},
    family{.model_type = "gptj", .norm = "layernorm", .mlp = "plain", .attention_bias = "none", .norms_per_layer = 1,
           .mlp_bias = true, .lm_head_bias = true},
    family{.model_type = "gpt_bigcode", .norm = "layernorm", .mlp = "plain", .position = "learned", .tie = true,
           .attention_bias = "all", .mlp_bias = true},
    family{.model_type = "bloom", .norm = "layernorm", .mlp = "plain", .position = "none", .tie = true,
           .attention_bias = "all", .mlp_bias = true, .embedding_norm = true},
    family{.model_type = "opt", .norm = "layernorm", .mlp = "plain", .position = "learned", .tie = true,
           .attention_bias = "all", .mlp_bias = true},
    family{.model_type = "phi", .norm = "layernorm", .mlp = "plain", .attention_bias = "all", .norms_per_layer = 1,
           .mlp_bias = true, .lm_head_bias = true},
    family{.model_type = "phimoe", .norm = "layernorm"},
    family{.model_type = "gpt_oss", .attention_bias = "all", .sliding_pattern = 2, .mlp_bias = true,
           .attention_sinks = true, .router_bias = true},
    family{.model_type = "llama4_text"},
    family{.model_type = "glm4", .attention_bias = "qkv", .norms_per_layer = 4},
    family{.model_type = "glm4_moe", .attention_bias = "qkv", .router_bias = true},
    family{.model_type = "cohere", .tie = true, .attention_bias = "none", .norms_per_layer = 1},
    family{.model_type = "granite", .tie = true}, family{.model_type = "granitemoe", .tie = true},
    family{.model_type = "granitemoeshared", .tie = true},
    family{.model_type = "olmoe", .qk_norm = "full"},
    family{.model_type = "smollm3", .tie = true},
    family{.model_type = "starcoder2", .norm = "layernorm", .mlp = "plain", .tie = true, .attention_bias = "all",
           .mlp_bias = true},
    family{.model_type = "internlm2", .attention_bias = "all"},
    family{.model_type = "cohere2", .tie = true, .norms_per_layer = 1, .sliding_pattern = 4},
};
// clang-format on

// A config without model_type describes a custom architecture: transformers' PretrainedConfig ties embeddings.
constexpr family custom_family{"", "rmsnorm", "gated", "rope", true};

// nullptr when model_type names no family above (the caller refuses it rather than guess).
const family* find_family(std::string_view type) {
  if (type.empty()) return &custom_family;
  if (type == "gemma3") type = "gemma3_text";  // the multimodal wrapper's language model
  if (type == "llama4") type = "llama4_text";
  // Qwen2-VL and Qwen2.5-VL: the language model is Qwen2's (its multimodal rope adds no parameters).
  if (type == "qwen2_vl" || type == "qwen2_5_vl" || type == "qwen2_vl_text" || type == "qwen2_5_vl_text")
    type = "qwen2";
  if (type == "refinedweb" || type == "refinedwebmodel") type = "falcon";
  // Qwen3-VL (-MoE): the language model is Qwen3's (Qwen3-MoE's); DeepStack adds no parameters to it.
  if (type == "qwen3_vl" || type == "qwen3_vl_text") type = "qwen3";
  if (type == "qwen3_vl_moe" || type == "qwen3_vl_moe_text") type = "qwen3_moe";
  // Llama 3.2 Vision: Llama layers, some of them cross-attention layers (mllama_text).
  if (type == "mllama" || type == "mllama_text_model") type = "llama";
  for (const auto& f : families)
    if (f.model_type == type) return &f;
  return nullptr;
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
    const bool whole =
        v->is_number() && std::isfinite(v->get<double>()) && v->get<double>() == std::floor(v->get<double>());
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
      fail(setting,
           std::string("config.json field \"") + name + "\" must be true or false, got " + detail::quoted(v->dump()));
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

  void fail(std::string_view setting, std::string message) {
    errors.push_back({std::string(setting), std::move(message)});
  }

  settings out;
  std::vector<error> errors;

 private:
  const json& j_;
};

// Gemma 3's multimodal configs list only what differs from Gemma3TextConfig's defaults
// (configuration_gemma3.py): fill those in so the text model is complete.
void gemma3_defaults(settings& out) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> defaults = {
      {{"vocab_size", "262208"},
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

// Encoder-only, encoder-decoder and non-attention layer types: no family above fits them, so no count is guessed.
error unsupported(std::string_view type) {
  constexpr std::array encoders = {"deberta", "camembert", "mpnet", "xlnet"};
  constexpr std::array seq2seq = {"marian", "whisper", "m2m_100", "bigbird_pegasus", "led", "prophetnet"};
  constexpr std::array recurrent = {
      "mamba", "mamba2",          "rwkv",  "jamba",  "falcon_h1",  "granitemoehybrid", "qwen3_next",
      "lfm2",  "recurrent_gemma", "zamba", "zamba2", "nemotron_h", "minimax"};
  const auto in = [&](const auto& list) { return std::find(list.begin(), list.end(), type) != list.end(); };
  const std::string why = in(encoders)  ? "an encoder-only model llm-memory does not count (it counts bert, roberta, "
                                          "xlm-roberta, deberta-v2, modernbert, distilbert, albert and electra)"
                          : in(seq2seq) ? "an encoder-decoder model llm-memory does not count (it counts t5, mt5, "
                                          "umt5, bart, mbart and pegasus)"
                          : in(recurrent)
                              ? "a model with state-space or recurrent layers, which llm-memory does not count"
                              : "not a family llm-memory knows";
  return error{"model_type", "config.json model_type " + detail::quoted(std::string(type)) + " is " + why +
                                 "; docs/models.md lists the families. Remove model_type to count the fields as a "
                                 "Llama-like decoder"};
}

// A number this reader wrote into `out` (format_number's text), read back. The core's decimal reader, not
// std::stod: stod would link musl's strtod into the wasm module (docs/performance.md) and throws on bad text.
double number_in(const std::string& text) {
  double value = 0;
  (void)detail::read_double(text, value);
  return value;
}

// A flag the family sets unless config.json has the field.
void read_flag(reader& r, const char* name, bool family_default) {
  const auto v = r.boolean(name, name);
  if (v.value_or(family_default) || v.has_value()) r.out[name] = v.value_or(family_default) ? "on" : "off";
}

// Falcon (modeling_falcon.py): fused qkv with multi-query or grouped k/v, one LayerNorm per layer when
// attention and MLP run in parallel off the same input, two in the new decoder (ln_attn, ln_mlp),
// one "bias" switch for every linear, ALiBi instead of rotary in some checkpoints. The remote-code
// model_type RefinedWeb (Falcon 40B) is the new decoder; RefinedWebModel (Falcon 7B) the old one.
void falcon_fields(reader& r, bool refined_web) {
  const bool new_arch = r.boolean("new_decoder_architecture", "num_key_value_heads").value_or(refined_web);
  const bool parallel = r.boolean("parallel_attn", "norms_per_layer").value_or(true);
  if (!new_arch && r.boolean("multi_query", "num_key_value_heads").value_or(true)) r.out["num_key_value_heads"] = "1";
  int norms = parallel && !new_arch ? 1 : 2;
  if (new_arch) {
    if (const json* n = r.find({"num_ln_in_parallel_attn"});
        n != nullptr && n->is_number_integer() && n->get<int>() == 1)
      norms = 1;
  }
  r.out["norms_per_layer"] = std::to_string(norms);
  const bool bias = r.boolean("bias", "attention_bias").value_or(false);
  r.out["attention_bias"] = bias ? "all" : "none";
  r.out["mlp_bias"] = bias ? "on" : "off";
  if (r.boolean("alibi", "position_embedding").value_or(false)) r.out["position_embedding"] = "none";
}

// OPT (modeling_opt.py): the learned table has 2 extra rows (OPTLearnedPositionalEmbedding's offset). The
// opt-350m layout (word_embed_proj_dim != hidden_size with project_in/out, post-norm, no final norm) is refused.
void opt_fields(reader& r) {
  if (const auto it = r.out.find("max_position_embeddings"); it != r.out.end())
    it->second = std::to_string(std::stoll(it->second) + 2);
  const json* proj = r.find({"word_embed_proj_dim"});
  const json* hidden = r.find({"hidden_size"});
  if (proj != nullptr && hidden != nullptr && *proj != *hidden)
    r.fail("hidden_size",
           "config.json word_embed_proj_dim differs from hidden_size (OPT-350m's projected "
           "embeddings): not modelled");
  if (!r.boolean("do_layer_norm_before", "norm").value_or(true))
    r.fail("norm", "config.json do_layer_norm_before false (post-norm OPT without a final norm): not modelled");
}

// Llama 4 (modeling_llama4.py): intermediate_size is the expert and shared-expert width, intermediate_size_mlp the
// dense layers'; the q/k norm is an L2 norm without weights; the vision tower is read_vision_tower's.
void llama4_fields(reader& r) {
  if (const auto it = r.out.find("intermediate_size"); it != r.out.end()) {
    r.out["moe_intermediate_size"] = it->second;
    r.out["shared_expert_intermediate_size"] = it->second;
    r.out.erase(it);
  }
  r.integer({"intermediate_size_mlp"}, "intermediate_size");
  if (r.find({"moe_layers"}) != nullptr)
    r.fail("moe_layer_step",
           "config.json lists moe_layers explicitly: llm-memory reads interleave_moe_layer_step only");
}

// A list field that must be empty (or absent) for the count to hold.
void require_empty(reader& r, const char* name, std::string_view setting) {
  const json* v = r.find({name});
  if (v != nullptr && !(v->is_array() && v->empty()))
    r.fail(setting, std::string("config.json field \"") + name + "\" is not modelled; only an empty list is");
}

// StarCoder2 (transformers models/starcoder2/modeling_starcoder2.py @v4.56): `use_bias` (default true) on q/k/v/o
// and on the MLP's c_fc / c_proj. InternLM2 (remote modeling_internlm2.py): `bias` (InternLM2Config default true;
// the released configs say false) on the packed wqkv and wo only; w1 / w3 / w2 never have one.
void switch_biases(reader& r, const char* name, bool mlp_too) {
  const bool bias = r.boolean(name, "attention_bias").value_or(true);
  r.out["attention_bias"] = bias ? "all" : "none";
  if (mlp_too) r.out["mlp_bias"] = bias ? "on" : "off";
}

// The fields only some families have; `type` is the family's, `written` the config's own model_type.
void family_fields(std::string_view type, std::string_view written, reader& r) {
  if (type == "falcon") falcon_fields(r, written == "refinedweb");
  if (type == "opt") opt_fields(r);
  if (type == "llama4_text") llama4_fields(r);
  // StarCoder / SantaCoder: one shared k/v head when multi_query (the default).
  if (type == "gpt_bigcode" && r.boolean("multi_query", "num_key_value_heads").value_or(true))
    r.out["num_key_value_heads"] = "1";
  // Phi-1/2: per-head LayerNorms on q and k when qk_layernorm.
  if (type == "phi" && r.boolean("qk_layernorm", "qk_norm").value_or(false)) r.out["qk_norm"] = "head";
  // GLM-4.5: per-head RMSNorms; Command R+: LayerNorm weights over every head ([a, d] and [k, d]).
  if (type == "glm4_moe" && r.boolean("use_qk_norm", "qk_norm").value_or(false)) r.out["qk_norm"] = "head";
  if (type == "cohere" && r.boolean("use_qk_norm", "qk_norm").value_or(false)) r.out["qk_norm"] = "full";
  // StarCoder2 and InternLM2: one switch for the attention (and StarCoder2's MLP) biases.
  if (type == "starcoder2" || type == "internlm2")
    switch_biases(r, type == "starcoder2" ? "use_bias" : "bias", type == "starcoder2");
  if (type == "qwen2_moe" || type == "qwen3_moe") require_empty(r, "mlp_only_layers", "moe_layer_step");
  // DeepSeek places MoE layers by l % moe_layer_freq == 0, which agrees with moe_layer_step only at 1.
  if (const json* freq = r.find({"moe_layer_freq"}); freq != nullptr && *freq != 1)
    r.fail("moe_layer_step", "config.json moe_layer_freq other than 1 is not modelled, got " + freq->dump());
}

// A whole number from a JSON value, nullopt when it is not one.
std::optional<double> whole(const json* v) {
  if (v == nullptr || !v->is_number()) return std::nullopt;
  const double x = v->get<double>();
  if (!std::isfinite(x) || x != std::floor(x)) return std::nullopt;
  return x;
}

// ---- quantization_config ----------------------------------------------------------------------------------------
// What a checkpoint's quantization_config says about how its weights are stored (transformers
// utils/quantization_config.py @v4.56: BitsAndBytesConfig, GPTQConfig, AwqConfig, FineGrainedFP8Config, Mxfp4Config,
// CompressedTensorsConfig), as weights_dtype, quant_bits, quant_group_size and double_quant. The byte layouts are in
// dtype.cpp (layout_linear_bytes) and docs/methodology.md, "Quantised checkpoints".

void quant_fail(reader& r, const std::string& what) {
  r.fail("weights_dtype", "config.json quantization_config: " + what);
}

// bits (2..8) and group_size (-1 = one group per column) into quant_bits / quant_group_size.
void quant_bits_group(reader& r, const json& q, std::initializer_list<const char*> bits_names,
                      std::initializer_list<const char*> group_names) {
  reader qr(q);
  if (const auto bits = whole(qr.find(bits_names))) {
    if (*bits < 2 || *bits > 8) return quant_fail(r, "bits must be 2 to 8, got " + detail::format_number(*bits));
    r.out["quant_bits"] = detail::format_number(*bits);
  }
  if (const json* g = qr.find(group_names)) {
    const auto group = whole(g);
    if (!group || *group < -1 || *group > 1e6) return quant_fail(r, "group_size must be -1 or 0 to 1e6");
    r.out["quant_group_size"] = detail::format_number(std::max(0.0, *group));
  }
}

void bitsandbytes(reader& r, const json& q) {
  reader qr(q);
  if (qr.boolean("load_in_4bit", "weights_dtype").value_or(false)) {
    // NF4 and FP4 store the same tensors (bitsandbytes functional.quantize_4bit): 4-bit codes, absmax per 64.
    r.out["weights_dtype"] = "nf4";
    r.out["double_quant"] = qr.boolean("bnb_4bit_use_double_quant", "double_quant").value_or(false) ? "on" : "off";
  } else if (qr.boolean("load_in_8bit", "weights_dtype").value_or(false)) {
    r.out["weights_dtype"] = "int8";  // LLM.int8: int8 weight + fp32 SCB per output row
  } else {
    quant_fail(r, "bitsandbytes without load_in_4bit or load_in_8bit");
  }
  for (auto& e : qr.errors) r.errors.push_back(std::move(e));
}

// compressed-tensors: one config group of integer weights in pack-quantized format (llm-compressor's W4A16 /
// W8A16) maps to w4a16; other schemes are refused rather than guessed.
void compressed_tensors(reader& r, const json& q) {
  const std::string format = reader(q).text("format");
  const auto groups = q.find("config_groups");
  if (format != "pack-quantized" || groups == q.end() || !groups->is_object() || groups->size() != 1)
    return quant_fail(r, "compressed-tensors format \"" + format +
                             "\" is not modelled (only one pack-quantized integer group: W4A16 / W8A16)");
  const json& group = groups->begin().value();
  const auto w = group.is_object() ? group.find("weights") : group.end();
  if (w == group.end() || !w->is_object() || reader(*w).text("type") != "int" ||
      !reader(*w).boolean("symmetric", "weights_dtype").value_or(true) || reader(*w).text("actorder") == "group")
    return quant_fail(r, "compressed-tensors weights other than symmetric integer without group actorder");
  const std::string strategy = reader(*w).text("strategy");
  if (strategy != "group" && strategy != "channel")
    return quant_fail(r, "compressed-tensors strategy \"" + strategy + "\" is not modelled (group or channel)");
  r.out["weights_dtype"] = "w4a16";
  quant_bits_group(r, *w, {"num_bits"}, {"group_size"});
  if (strategy == "channel") r.out["quant_group_size"] = "0";
}

void fp8(reader& r, const json& q) {
  r.out["weights_dtype"] = "fp8_block";
  const auto block = q.find("weight_block_size");
  if (block == q.end() || block->is_null()) {
    r.out["quant_group_size"] = "0";  // one fp32 scale per tensor
    return;
  }
  if (!block->is_array() || block->size() != 2 || (*block)[0] != (*block)[1] || !whole(&(*block)[0]) ||
      (*block)[0].get<double>() < 1 || (*block)[0].get<double>() > 1e6)
    return quant_fail(r, "weight_block_size must be a square block [b, b], got " + detail::quoted(block->dump()));
  r.out["quant_group_size"] = detail::format_number((*block)[0].get<double>());
}

void read_quantization(reader& r, const json& root) {
  const auto it = root.find("quantization_config");
  if (it == root.end() || it->is_null()) return;
  if (!it->is_object()) return quant_fail(r, "must be an object");
  const json& q = *it;
  reader qr(q);
  std::string method = qr.text("quant_method");
  if (method.empty() && (q.contains("load_in_4bit") || q.contains("load_in_8bit"))) method = "bitsandbytes";
  if (method == "bitsandbytes") return bitsandbytes(r, q);
  if (method == "gptq") {
    r.out["weights_dtype"] = "gptq";
    return quant_bits_group(r, q, {"bits"}, {"group_size"});
  }
  if (method == "awq") {
    const std::string version = qr.text("version");
    if (!version.empty() && version != "gemm" && version != "exllama" && version != "ipex")
      return quant_fail(r, "AWQ version \"" + version + "\" is not modelled (gemm, exllama and ipex share its layout)");
    r.out["weights_dtype"] = "awq";
    return quant_bits_group(r, q, {"bits", "w_bit"}, {"group_size", "q_group_size"});
  }
  if (method == "fp8") return fp8(r, q);
  if (method == "mxfp4") {
    r.out["weights_dtype"] = "mxfp4";
    return;
  }
  if (method == "compressed-tensors") return compressed_tensors(r, q);
  quant_fail(r, "quant_method " + detail::quoted(method) +
                    " is not modelled (bitsandbytes, gptq, awq, fp8, mxfp4 and compressed-tensors pack-quantized are)");
}

// ---- vision towers ----------------------------------------------------------------------------------------------
// A multimodal config's vision_config, counted as transformers builds it (its own part: vision_params).

struct vision_shape {
  double hidden = 0, inner = 0, layers = 0, patch = 0, image = 0, channels = 3;
};

// A whole number from 1 to 1e6 at obj[name] into field (left as it is when absent); `where` names obj in the error.
void read_vision_number(reader& r, const json& obj, std::string_view where, const char* name, double& field) {
  const auto f = obj.find(name);
  if (f == obj.end() || f->is_null()) return;
  const auto x = whole(&*f);
  if (!x || *x < 1 || *x > 1e6) {
    r.fail("vision_params", std::string("config.json ") + std::string(where) + "field \"" + name +
                                "\" must be a whole number from 1 to 1e6, got " + detail::quoted(f->dump()));
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
           "config.json mistral3 vision_config model_type " + detail::quoted(type) + " is not modelled (pixtral is)");
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
std::optional<double> qwen3_vl_tower(reader& r, const json& v) {
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
  const double deepstack = list_length(r, v, "deepstack_visual_indexes", 3);
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
  r.out["extra_params"] = detail::format_number(cross * (2 * std::floor(h / heads) + 2) + 8 * h);
}

void read_vision_tower(reader& r, const json& root, std::string_view root_type) {
  const auto it = root.find("vision_config");
  if (it == root.end() || it->is_null()) return;
  if (!it->is_object()) return r.fail("vision_params", "config.json vision_config must be an object");
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
    count = qwen3_vl_tower(r, *it);
  } else if (root_type == "mllama") {
    count = mllama_tower(r, *it, text_hidden);
  }  // Other towers are not counted: docs/models.md says so, vision_params can be typed.
  if (count) r.out["vision_params"] = detail::format_number(*count);
}

// ---- encoders and encoder-decoders -------------------------------------------------------------------------------
// BERT, RoBERTa, DeBERTa-v2, ModernBERT, T5 / mT5 and BART (transformers models/<family>/modeling_<family>.py @v4.56;
// docs/models.md, "Encoders and encoder-decoders"). The layers map onto the settings; what they do not describe
// (token-type and relative embeddings, the encoder stack's own embeddings, final norms, pooler, task head) is summed
// into extra_params. The head is the one config.json's first `architectures` entry names.

constexpr std::array encoder_types = {"bert",       "roberta",    "xlm-roberta", "deberta-v2",
                                      "modernbert", "distilbert", "albert",      "electra"};
constexpr std::array seq2seq_types = {"t5", "mt5", "umt5", "bart", "mbart", "pegasus"};

bool listed(const auto& list, std::string_view type) { return std::find(list.begin(), list.end(), type) != list.end(); }

// A whole, non-negative config field or its default (reported when malformed).
double field(reader& r, const char* name, double fallback, std::string_view setting) {
  const json* v = r.find({name});
  if (v == nullptr) return fallback;
  const auto x = whole(v);
  if (!x || *x < 0 || *x > 1e9) {
    r.fail(setting, std::string("config.json field \"") + name + "\" must be a whole number from 0 to 1e9, got " +
                        detail::quoted(v->dump()));
    return fallback;
  }
  return *x;
}

// What the architecture's head adds: the suffix of architectures[0] after the family's class prefix.
struct head_kind {
  std::string suffix;  ///< Model, ForMaskedLM, ForSequenceClassification, ...
  double labels = 2;   ///< num_labels (or the size of id2label); transformers' default is 2
};

head_kind read_head(reader& r, const json& root, std::string_view prefix) {
  head_kind head;
  const auto a = root.find("architectures");
  std::string name = a != root.end() && a->is_array() && !a->empty() && (*a)[0].is_string()
                         ? (*a)[0].get<std::string>()
                         : std::string(prefix) + "Model";
  if (!name.starts_with(prefix)) {
    r.fail("extra_params",
           "config.json architectures[0] " + detail::quoted(name) + " is not a " + std::string(prefix) + " class");
    return head;
  }
  head.suffix = name.substr(prefix.size());
  if (const auto labels = root.find("id2label"); labels != root.end() && labels->is_object())
    head.labels = static_cast<double>(labels->size());
  head.labels = field(r, "num_labels", head.labels, "num_labels");
  return head;
}

// Sets num_labels for heads without vocabulary logits (1 for a bare encoder: its output is the hidden states).
void set_labels(reader& r, const head_kind& head) {
  if (head.suffix == "Model" || head.suffix == "EncoderModel") r.out["num_labels"] = "1";
  if (head.suffix.find("Classification") != std::string::npos || head.suffix == "ForQuestionAnswering")
    r.out["num_labels"] = detail::format_number(std::max(1.0, head.labels));
}

void refuse_head(reader& r, const head_kind& head) {
  r.fail("extra_params", "config.json architectures names the head \"" + head.suffix + "\", which is not modelled");
}

// BERT / RoBERTa / XLM-R (modeling_bert.py, modeling_roberta.py): post-LayerNorm layers with biases everywhere,
// learned absolute positions, token-type embeddings and an embedding LayerNorm. Heads: BertModel's pooler (h^2 + h;
// RobertaModel's too), the MLM transform (dense h^2 + h, LayerNorm 2h) with the tied decoder's bias V, BERT's
// sequence classifier on the pooler (h n + n), RoBERTa's classification head (dense h^2 + h, out_proj h n + n: the
// same count),
// token classification and QA on the hidden states (h n + n).
double bert_head(reader& r, const head_kind& head, double h) {
  const double n = head.labels;
  if (head.suffix == "Model") return h * h + h;
  if (head.suffix == "ForMaskedLM") {
    r.out["lm_head_bias"] = "on";
    return h * h + h + 2 * h;
  }
  if (head.suffix == "ForSequenceClassification") return h * h + h + h * n + n;
  if (head.suffix == "ForTokenClassification" || head.suffix == "ForQuestionAnswering") return h * n + n;
  refuse_head(r, head);
  return 0;
}

double bert_fields(reader& r, const json& root, std::string_view type, double h) {
  if (const std::string pos = r.text("position_embedding_type"); !pos.empty() && pos != "absolute")
    r.fail("position_embedding", "config.json position_embedding_type \"" + pos + "\" is not modelled (absolute is)");
  r.out["position_embedding"] = "learned";
  const double types = field(r, "type_vocab_size", 2, "extra_params");
  const head_kind head = read_head(r, root, type == "bert" ? "Bert" : type == "roberta" ? "Roberta" : "XLMRoberta");
  set_labels(r, head);
  return types * h + bert_head(r, head, h);
}

// DeBERTa-v2/v3 (modeling_deberta_v2.py): BERT's layer shapes; absolute positions only when position_biased_input;
// with relative_attention, rel_embeddings of 2 x position_buckets rows (2 x max_relative_positions without buckets)
// and its LayerNorm (norm_rel_ebd "layer_norm"); pos_key_proj / pos_query_proj per layer (h x all_head + bias) unless
// share_att_key. ContextPooler (pooler_hidden_size^2 + bias) feeds the sequence classifier.
double deberta_fields(reader& r, const json& root, double h, double layers) {
  r.out["position_embedding"] =
      r.boolean("position_biased_input", "position_embedding").value_or(true) ? "learned" : "none";
  if (field(r, "embedding_size", h, "hidden_size") != h)
    r.fail("hidden_size", "config.json embedding_size differs from hidden_size (embed_proj): not modelled");
  if (field(r, "conv_kernel_size", 0, "extra_params") > 0)
    r.fail("extra_params", "config.json conv_kernel_size (DeBERTa-v2's ConvLayer) is not modelled");
  double extra = field(r, "type_vocab_size", 0, "extra_params") * h;
  if (r.boolean("relative_attention", "extra_params").value_or(false)) {
    const double buckets = field(r, "position_buckets", 0, "extra_params");
    double relative = 0;
    if (const json* m = r.find({"max_relative_positions"}); m != nullptr && m->is_number() && m->get<double>() >= 1)
      relative = std::floor(m->get<double>());
    else
      relative = field(r, "max_position_embeddings", 512, "max_position_embeddings");
    extra += 2 * (buckets > 0 ? buckets : relative) * h;
    if (r.text("norm_rel_ebd").find("layer_norm") != std::string::npos) extra += 2 * h;
    const json* types = r.find({"pos_att_type"});
    const std::string att = types == nullptr ? "" : detail::lower(types->dump());
    if (!r.boolean("share_att_key", "extra_params").value_or(false))
      extra += layers * ((att.find("c2p") != std::string::npos ? h * h + h : 0) +
                         (att.find("p2c") != std::string::npos ? h * h + h : 0));
  }
  const head_kind head = read_head(r, root, "DebertaV2");
  set_labels(r, head);
  const double n = head.labels, pooler = field(r, "pooler_hidden_size", h, "extra_params");
  if (head.suffix == "Model") return extra;
  if (head.suffix == "ForMaskedLM") {
    r.out["lm_head_bias"] = "on";
    return extra + h * h + h + 2 * h;
  }
  if (head.suffix == "ForSequenceClassification") return extra + pooler * pooler + pooler + pooler * n + n;
  if (head.suffix == "ForTokenClassification" || head.suffix == "ForQuestionAnswering") return extra + h * n + n;
  refuse_head(r, head);
  return extra;
}

// ModernBERT (modeling_modernbert.py): fused Wqkv and Wo (bias = attention_bias), a GLU MLP Wi (h -> 2i) and Wo
// (bias = mlp_bias), LayerNorms with bias = norm_bias (weight-only by default), rotary positions, global attention
// every global_attn_every_n_layers layers and a local window otherwise. Layer 0's attn_norm is an Identity and the
// model ends with final_norm: the two cancel. Heads: ModernBertPredictionHead (dense h^2, bias = classifier_bias;
// a norm) before the tied decoder (bias = decoder_bias) or the classifier (h n + n).
double modernbert_fields(reader& r, const json& root, double h) {
  const bool norm_bias = r.boolean("norm_bias", "norm").value_or(false);
  r.out["norm"] = norm_bias ? "layernorm" : "rmsnorm";  // weight-only LayerNorms count as RMSNorms do
  r.out["mlp"] = "gated";
  r.out["attention_bias"] = r.boolean("attention_bias", "attention_bias").value_or(false) ? "all" : "none";
  r.out["mlp_bias"] = r.boolean("mlp_bias", "mlp_bias").value_or(false) ? "on" : "off";
  r.out["position_embedding"] = "rope";
  r.integer({"local_attention"}, "sliding_window");
  r.integer({"global_attn_every_n_layers"}, "sliding_window_pattern");
  const head_kind head = read_head(r, root, "ModernBert");
  set_labels(r, head);
  const double norm = norm_bias ? 2 * h : h;
  const double transform = h * h + (r.boolean("classifier_bias", "extra_params").value_or(false) ? h : 0) + norm;
  if (head.suffix == "Model") return 0;
  if (head.suffix == "ForMaskedLM") {
    r.out["lm_head_bias"] = r.boolean("decoder_bias", "lm_head_bias").value_or(true) ? "on" : "off";
    return transform;
  }
  if (head.suffix == "ForSequenceClassification" || head.suffix == "ForTokenClassification")
    return transform + h * head.labels + head.labels;
  refuse_head(r, head);
  return 0;
}

// T5 / mT5 (modeling_t5.py, modeling_mt5.py): RMS-style T5LayerNorm, no biases, q/k/v/o of num_heads x d_kv,
// DenseReluDense (wi, wo) or the gated wi_0 / wi_1 / wo (feed_forward_proj "gated-gelu"), the relative attention bias
// (relative_attention_num_buckets x num_heads) in the first layer of each stack, a final norm per stack, the shared
// embedding, and lm_head untied when tie_word_embeddings is false (T5 v1.1, mT5).
double t5_fields(reader& r, const json& root) {
  r.integer({"num_layers"}, "encoder_layers");
  if (!r.integer({"num_decoder_layers"}, "num_hidden_layers")) r.integer({"num_layers"}, "num_hidden_layers");
  r.integer({"d_kv"}, "head_dim");
  r.integer({"d_ff"}, "intermediate_size");
  r.out["norm"] = "rmsnorm";
  r.out["mlp"] = r.text("feed_forward_proj").starts_with("gated-") ? "gated" : "plain";
  r.out["attention_bias"] = "none";
  r.out["mlp_bias"] = "off";
  r.out["position_embedding"] = "none";
  r.out["tie_word_embeddings"] = r.boolean("tie_word_embeddings", "tie_word_embeddings").value_or(true) ? "on" : "off";
  const std::string type = r.text("model_type");
  const head_kind head = read_head(r, root, type == "mt5" ? "MT5" : type == "umt5" ? "UMT5" : "T5");
  set_labels(r, head);
  if (head.suffix != "ForConditionalGeneration" && head.suffix != "Model") refuse_head(r, head);
  if (head.suffix == "Model") r.out["tie_word_embeddings"] = "on";  // T5Model has no lm_head
  const double h = field(r, "d_model", 512, "hidden_size"), heads = field(r, "num_heads", 8, "num_attention_heads");
  // UMT5 (modeling_umt5.py @v4.56): every self-attention has its own relative_attention_bias
  // (has_relative_attention_bias is true in every UMT5Block), the decoder's cross-attention none.
  const double encoder = field(r, "num_layers", 6, "encoder_layers");
  const double biased = type == "umt5" ? encoder + field(r, "num_decoder_layers", encoder, "num_hidden_layers") : 2;
  return biased * field(r, "relative_attention_num_buckets", 32, "extra_params") * heads + 2 * h;
}

// BART (modeling_bart.py): post-LayerNorm layers with biases, learned positions of max_position_embeddings + 2 rows
// (BartLearnedPositionalEmbedding's offset) and layernorm_embedding in each stack, the shared embedding and the tied
// lm_head; final_logits_bias is a buffer, not a parameter. BartForSequenceClassification adds the classification
// head (dense h^2 + h, out_proj h n + n).
// mBART (models/mbart/modeling_mbart.py @v4.56): BART's shapes (pre-norm) with a final layer_norm in each stack,
// always. Pegasus (models/pegasus/modeling_pegasus.py @v4.56): the same layers and final layer_norms, no
// layernorm_embedding, and sinusoidal positions (PegasusSinusoidalPositionalEmbedding: a frozen table that the Hub's
// checkpoints do not store; not counted).
double bart_fields(reader& r, const json& root, double h, std::string_view type) {
  r.require({"encoder_layers"}, "encoder_layers");
  r.require({"decoder_layers"}, "num_hidden_layers");
  r.integer({"decoder_attention_heads"}, "num_attention_heads");
  r.integer({"decoder_ffn_dim"}, "intermediate_size");
  for (const auto& [a, b] : {std::pair{"encoder_attention_heads", "decoder_attention_heads"},
                             std::pair{"encoder_ffn_dim", "decoder_ffn_dim"}})
    if (const json* x = r.find({a}), *y = r.find({b}); x != nullptr && y != nullptr && *x != *y)
      r.fail("encoder_layers", std::string("config.json ") + a + " differs from " + b + ": not modelled");
  double extra = 0;
  if (type == "pegasus") {
    r.out["position_embedding"] = "none";
    r.out["embedding_norm"] = "off";
  } else {
    const double positions = field(r, "max_position_embeddings", 1024, "max_position_embeddings") + 2;
    r.out["max_position_embeddings"] = detail::format_number(positions);
    r.out["position_embedding"] = "learned";
    r.out["embedding_norm"] = "on";
    extra = positions * h + 2 * h;  // the encoder's embed_positions and layernorm_embedding
  }
  if (type != "bart" || r.boolean("add_final_layer_norm", "extra_params").value_or(false)) extra += 2 * 2 * h;
  const head_kind head = read_head(r, root, type == "pegasus" ? "Pegasus" : type == "mbart" ? "MBart" : "Bart");
  set_labels(r, head);
  if (head.suffix == "ForSequenceClassification") return extra + h * h + h + h * head.labels + head.labels;
  if (head.suffix != "ForConditionalGeneration" && head.suffix != "Model") refuse_head(r, head);
  return extra;
}

// DistilBERT (models/distilbert/modeling_distilbert.py @v4.56): BERT's layer shapes (q_lin, k_lin, v_lin, out_lin,
// lin1, lin2, all biased; sa_layer_norm and output_layer_norm) under DistilBertConfig's names (dim, n_layers,
// n_heads, hidden_dim); Embeddings: word and position tables (P rows; sinusoidal_pos_embds fills the same
// nn.Embedding, a frozen parameter the checkpoint stores) and a LayerNorm, no token types; DistilBertModel has no
// pooler. Heads: ForMaskedLM vocab_transform h^2 + h, vocab_layer_norm 2h, the tied vocab_projector's bias V;
// ForSequenceClassification pre_classifier h^2 + h and classifier h n + n; token classification and QA h n + n.
double distilbert_fields(reader& r, const json& root, double h) {
  r.out["position_embedding"] = "learned";
  const head_kind head = read_head(r, root, "DistilBert");
  set_labels(r, head);
  // BERT's heads, counted alike (pre_classifier in the pooler's place), without the pooler on the bare model.
  return head.suffix == "Model" ? 0 : bert_head(r, head, h);
}

// ALBERT (models/albert/modeling_albert.py @v4.56): AlbertEmbeddings at width E = embedding_size (word V E, position
// P E, token types T E, LayerNorm 2E: the embedding_size setting), embedding_hidden_mapping_in E h + h (kept when
// E = h as well), then num_hidden_groups AlbertLayerGroups the L layers share (BERT's layer shapes: attention
// query / key / value / dense and its LayerNorm, ffn and ffn_output, full_layer_layer_norm). Heads: the pooler
// h^2 + h (AlbertModel, ForPreTraining, ForSequenceClassification); AlbertMLMHead dense h E + E, LayerNorm 2E and
// the tied decoder's bias V (ForMaskedLM, ForPreTraining); ForPreTraining's sop_classifier h n + n; classifiers
// h n + n (token classification and QA without the pooler).
double albert_fields(reader& r, const json& root, double h) {
  r.out["position_embedding"] = "learned";
  const double e = field(r, "embedding_size", 128, "embedding_size");
  r.out["embedding_size"] = detail::format_number(e);
  r.out["num_hidden_groups"] = detail::format_number(field(r, "num_hidden_groups", 1, "num_hidden_groups"));
  if (field(r, "inner_group_num", 1, "num_hidden_groups") != 1)
    r.fail("num_hidden_groups", "config.json inner_group_num other than 1 is not modelled");
  const double extra = field(r, "type_vocab_size", 2, "extra_params") * e + (e == h ? h * h + h : 0);
  const head_kind head = read_head(r, root, "Albert");
  set_labels(r, head);
  const double n = head.labels, pooler = h * h + h, mlm = h * e + e + 2 * e;
  if (head.suffix == "ForMaskedLM" || head.suffix == "ForPreTraining") r.out["lm_head_bias"] = "on";
  if (head.suffix == "Model") return extra + pooler;
  if (head.suffix == "ForMaskedLM") return extra + mlm;
  if (head.suffix == "ForPreTraining") return extra + pooler + mlm + h * n + n;
  if (head.suffix == "ForSequenceClassification") return extra + pooler + h * n + n;
  if (head.suffix == "ForTokenClassification" || head.suffix == "ForQuestionAnswering") return extra + h * n + n;
  refuse_head(r, head);
  return extra;
}

// ELECTRA (models/electra/modeling_electra.py @v4.56): ElectraEmbeddings as BERT's at width E = embedding_size
// (token types T E in extra_params), embeddings_project E h + h only when E != h, BERT's layers, no pooler. Heads:
// ForPreTraining (the discriminator) dense h^2 + h and dense_prediction h + 1, one logit per token; ForMaskedLM (the
// generator) LayerNorm 2E, dense h E + E and the tied generator_lm_head's bias V; ForSequenceClassification dense
// h^2 + h and out_proj h n + n; token classification and QA h n + n.
double electra_fields(reader& r, const json& root, double h) {
  r.out["position_embedding"] = "learned";
  const double e = field(r, "embedding_size", 128, "embedding_size");
  r.out["embedding_size"] = detail::format_number(e);
  const double extra = field(r, "type_vocab_size", 2, "extra_params") * e;
  const head_kind head = read_head(r, root, "Electra");
  set_labels(r, head);
  const double n = head.labels;
  if (head.suffix == "Model") return extra;
  if (head.suffix == "ForPreTraining") {
    r.out["num_labels"] = "1";  // a replaced-token logit per token, no vocabulary
    return extra + h * h + h + h + 1;
  }
  if (head.suffix == "ForMaskedLM") {
    r.out["lm_head_bias"] = "on";
    return extra + 2 * e + h * e + e;
  }
  if (head.suffix == "ForSequenceClassification") return extra + h * h + h + h * n + n;
  if (head.suffix == "ForTokenClassification" || head.suffix == "ForQuestionAnswering") return extra + h * n + n;
  refuse_head(r, head);
  return extra;
}

// The settings of an encoder or encoder-decoder family.
void encoder_family(reader& r, const json& root, std::string_view type) {
  const bool seq2seq = listed(seq2seq_types, type);
  r.out["architecture"] = seq2seq ? "encoder_decoder" : "encoder";
  r.out["norm"] = "layernorm";
  r.out["mlp"] = "plain";
  r.out["attention_bias"] = "all";
  r.out["mlp_bias"] = "on";
  r.out["norms_per_layer"] = "2";
  r.out["qk_norm"] = "none";
  r.out["embedding_norm"] = type == "t5" || type == "mt5" || type == "umt5" ? "off" : "on";
  r.out["dropout"] = type == "modernbert" ? "off" : "on";  // ModernBERT's dropouts default to 0
  r.out["tie_word_embeddings"] = r.boolean("tie_word_embeddings", "tie_word_embeddings").value_or(true) ? "on" : "off";
  const auto hidden = r.out.find("hidden_size");
  const auto layers = r.out.find("num_hidden_layers");
  const double h = hidden != r.out.end() ? number_in(hidden->second) : 0;
  const double L = layers != r.out.end() ? number_in(layers->second) : 0;
  double extra = 0;
  if (type == "bert" || type == "roberta" || type == "xlm-roberta") extra = bert_fields(r, root, type, h);
  if (type == "deberta-v2") extra = deberta_fields(r, root, h, L);
  if (type == "modernbert") extra = modernbert_fields(r, root, h);
  if (type == "t5" || type == "mt5" || type == "umt5") extra = t5_fields(r, root);
  if (type == "bart" || type == "mbart" || type == "pegasus") extra = bart_fields(r, root, h, type);
  if (type == "distilbert") extra = distilbert_fields(r, root, h);
  if (type == "albert") extra = albert_fields(r, root, h);
  if (type == "electra") extra = electra_fields(r, root, h);
  r.out["extra_params"] = detail::format_number(extra);
}

result<settings> parse_encoder(const json& root, std::string_view type) {
  reader r(root);
  const bool seq2seq = listed(seq2seq_types, type);
  if (type == "distilbert") {  // DistilBertConfig's own names
    r.require({"dim"}, "hidden_size");
    r.require({"n_layers"}, "num_hidden_layers");
    r.require({"n_heads"}, "num_attention_heads");
    r.integer({"hidden_dim"}, "intermediate_size");
  }
  r.require({"hidden_size", "d_model"}, "hidden_size");
  if (!seq2seq) r.require({"num_hidden_layers"}, "num_hidden_layers");
  if (type == "t5" || type == "mt5" || type == "umt5") r.require({"num_layers"}, "encoder_layers");
  r.require({"num_attention_heads", "num_heads", "decoder_attention_heads"}, "num_attention_heads");
  r.require({"vocab_size"}, "vocab_size");
  r.integer({"intermediate_size"}, "intermediate_size");
  r.integer({"max_position_embeddings"}, "max_position_embeddings");
  encoder_family(r, root, type);
  read_quantization(r, root);
  if (!r.errors.empty()) return r.errors;
  return r.out;
}

// LLaVA keeps LlamaConfig's defaults out of text_config (only what differs is written).
void llama_defaults(settings& out) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 5> defaults = {{{"hidden_size", "4096"},
                                                                                      {"intermediate_size", "11008"},
                                                                                      {"num_hidden_layers", "32"},
                                                                                      {"num_attention_heads", "32"},
                                                                                      {"vocab_size", "32000"}}};
  for (const auto& [key, value] : defaults) out.emplace(key, value);
}

// MllamaTextConfig's defaults (configuration_mllama.py), for a text_config that lists only what differs.
void mllama_defaults(settings& out) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> defaults = {{{"hidden_size", "4096"},
                                                                                      {"intermediate_size", "14336"},
                                                                                      {"num_hidden_layers", "40"},
                                                                                      {"num_attention_heads", "32"},
                                                                                      {"num_key_value_heads", "8"},
                                                                                      {"vocab_size", "128256"}}};
  for (const auto& [key, value] : defaults) out.emplace(key, value);
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
                                            std::to_string(max_json_depth) + " levels deep (byte " + std::to_string(i) +
                                            ")"};
    }
  }
  return std::nullopt;
}

result<settings> parse_config(std::string_view json_text) {
  if (auto refused = check_json_text(json_text, "config.json")) return *refused;
  std::string why;
  json root = detail::parse_json(json_text, &why);
  if (root.is_discarded()) return error{"config.json", "is not valid JSON: " + why};
  if (!root.is_object()) return error{"config.json", "must be a JSON object"};
  // Multimodal wrappers (Gemma 3, Llama 4, Mistral 3) keep the language model in text_config.
  const auto nested = root.find("text_config");
  const bool has_text = nested != root.end() && nested->is_object();
  const json& j = has_text ? *nested : root;
  reader r(j);
  std::string type = r.text("model_type");
  if (type.empty()) type = reader(root).text("model_type");
  if (!has_text && (listed(encoder_types, type) || listed(seq2seq_types, type))) return parse_encoder(root, type);
  const family* found = find_family(type);
  if (found == nullptr) return unsupported(type);
  const family& fam = *found;

  const std::string root_type = reader(root).text("model_type");
  if (fam.model_type == "gemma3_text") gemma3_defaults(r.out);
  if (root_type == "llava" && fam.model_type == "llama") llama_defaults(r.out);
  if (root_type == "mllama") mllama_defaults(r.out);
  r.require({"hidden_size", "n_embd", "d_model", "n_embed"}, "hidden_size");
  r.require({"num_hidden_layers", "n_layer", "num_layers"}, "num_hidden_layers");
  r.require({"num_attention_heads", "n_head", "num_heads"}, "num_attention_heads");
  r.require({"vocab_size"}, "vocab_size");
  r.integer({"num_key_value_heads", "num_kv_heads", "n_head_kv"}, "num_key_value_heads");
  r.integer({"head_dim"}, "head_dim");
  r.integer({"intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"}, "intermediate_size");
  r.integer({"max_position_embeddings", "n_positions"}, "max_position_embeddings");
  r.integer({"num_local_experts", "num_experts", "n_routed_experts"}, "num_experts");
  r.integer({"num_experts_per_tok", "experts_per_token"}, "num_experts_per_tok");
  r.integer({"moe_intermediate_size"}, "moe_intermediate_size");
  r.integer({"n_shared_experts"}, "n_shared_experts");
  r.integer({"shared_expert_intermediate_size", "shared_intermediate_size"}, "shared_expert_intermediate_size");
  r.integer({"first_k_dense_replace"}, "first_k_dense_replace");
  r.integer({"interleave_moe_layer_step", "decoder_sparse_step"}, "moe_layer_step");
  r.integer({"q_lora_rank"}, "q_lora_rank");
  r.integer({"kv_lora_rank"}, "kv_lora_rank");
  r.integer({"qk_nope_head_dim"}, "qk_nope_head_dim");
  r.integer({"qk_rope_head_dim"}, "qk_rope_head_dim");
  r.integer({"v_head_dim"}, "v_head_dim");
  r.integer({"num_nextn_predict_layers"}, "num_nextn_predict_layers");

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
  r.out["dropout"] = fam.model_type == "gpt2" ? "on" : "off";
  r.out["qk_norm"] = std::string(fam.qk_norm);
  r.out["norms_per_layer"] = std::to_string(fam.norms_per_layer);
  r.out["tie_word_embeddings"] = read_tie(r, root, has_text).value_or(fam.tie) ? "on" : "off";
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
  family_fields(fam.model_type, type, r);
  read_quantization(r, root);
  if (root_type == "mllama") mllama_text(r, j);
  read_vision_tower(r, root, root_type);

  if (!r.errors.empty()) return r.errors;
  return r.out;
}

}  // namespace llm_memory
