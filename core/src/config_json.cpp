// SPDX-License-Identifier: MIT
// Hugging Face config.json -> settings: the document's checks and the dispatch to the family readers of
// core/src/families/ (decoders, encoders, encoder-decoders; docs/architecture.md, "Families").
#include "llm_memory/config_json.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <string>

#include "families/families.hpp"
#include "json_value.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using detail::json;

// Where a too-deep value sits: the top-level field of an object (the last string at depth 1 before it is its
// key) or the entry of an array (commas at depth 1 before it).
std::string json_location(char root, std::string_view key, std::size_t entry) {
  if (root == '{' && !key.empty()) return "field " + detail::quoted(key);
  if (root == '[') return "entry " + std::to_string(entry);
  return "the document";
}

// "a, b and c": the model_types of a family table, for the refusal's list of what is counted.
std::string type_list(std::span<const detail::stack_family> families) {
  std::string list;
  for (std::size_t i = 0; i < families.size(); ++i)
    list += (i == 0 ? "" : i + 1 == families.size() ? " and " : ", ") + std::string(families[i].model_type);
  return list;
}

// Why model_type is refused whatever its fields say: encoder-only, encoder-decoder and non-attention layer types,
// which no family fits, so no count is guessed; "" when it is only unknown (families/degrade.cpp counts it).
std::string refused_kind(std::string_view type) {
  constexpr std::array encoders = {"deberta", "camembert", "mpnet", "xlnet"};
  constexpr std::array seq2seq = {"marian", "whisper", "m2m_100", "bigbird_pegasus", "led", "prophetnet"};
  constexpr std::array recurrent = {"mamba", "rwkv", "recurrent_gemma", "zamba"};
  const auto in = [&](const auto& list) { return std::find(list.begin(), list.end(), type) != list.end(); };
  return in(encoders) ? "an encoder-only model llm-memory does not count (it counts " +
                            type_list(detail::encoder_families()) + ")"
         : in(seq2seq) ? "an encoder-decoder model llm-memory does not count (it counts " +
                             type_list(detail::encoder_decoder_families()) + ")"
         : in(recurrent) ? "a model with state-space or recurrent layers, which llm-memory does not count"
                         : "";
}

error unsupported(std::string_view type, std::string_view why) {
  return error{"model_type", "config.json model_type " + detail::quoted(std::string(type)) + " is " + std::string(why) +
                                 "; docs/models.md lists the families"};
}

// The encoder or encoder-decoder family model_type names; nullptr when it names none.
const detail::stack_family* find_stack(std::string_view type) {
  for (const auto families : {detail::encoder_families(), detail::encoder_decoder_families()})
    for (const auto& f : families)
      if (f.model_type == type) return &f;
  return nullptr;
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

namespace {

// The settings of the family `type` names: an encoder, a decoder, or an unknown type read as the family closest to
// its declared layers (families/degrade.cpp).
result<settings> read_family(const json& root, const json& j, bool has_text, const std::string& type) {
  if (const detail::stack_family* stack = has_text ? nullptr : find_stack(type))
    return detail::parse_encoder(root, *stack);
  const detail::family* found = detail::find_family(type);
  if (found == nullptr) {
    const std::string refused = refused_kind(type);
    if (!refused.empty()) return unsupported(type, refused);
    return detail::read_unknown(root, j, has_text, type);
  }
  return detail::parse_decoder(root, j, has_text, *found, type);
}

}  // namespace

result<settings> parse_config(std::string_view json_text) {
  if (auto refused = check_json_text(json_text, "config.json")) return *refused;
  std::string why;
  json root = detail::parse_json(json_text, &why);
  // A width limit (json_limits) is no syntax error: say it is refused, not that it is not JSON.
  if (root.is_discarded())
    return error{"config.json", (why.starts_with("too wide") ? "is refused: " : "is not valid JSON: ") + why};
  if (!root.is_object()) return error{"config.json", "must be a JSON object"};
  // Multimodal wrappers (Gemma 3, Llama 4, Mistral 3) keep the language model in text_config.
  const auto nested = root.find("text_config");
  const bool has_text = nested != root.end() && nested->is_object();
  const json& j = has_text ? *nested : root;
  std::string type = detail::reader(j).text("model_type");
  if (type.empty()) type = detail::reader(root).text("model_type");
  // state-spaces/mamba* (mamba_ssm's MambaConfig) write no model_type; ssm_cfg's layer says Mamba-2 or Mamba-1.
  if (const auto ssm = root.find("ssm_cfg"); type.empty() && ssm != root.end() && ssm->is_object())
    type = detail::reader(*ssm).text("layer") == "mamba2" ? "mamba2" : "mamba";
  result<settings> read = read_family(root, j, has_text, type);
  // The runtimes' per-architecture rules read it (runtimes/<name>.cpp: llama.cpp runs Phi-3 without its window).
  if (read.ok() && !type.empty()) read.value()["model_type"] = type;
  return read;
}

}  // namespace llm_memory
