// SPDX-License-Identifier: MIT
// What the config.json readers of core/src/families/ share (private to them, config_json.cpp and model.cpp, which
// reads a family's router_parameter). The field names per model_type and the family conventions a config does not
// spell out come from the transformers configuration_*.py / modeling_*.py files of each family; docs/models.md lists
// them. docs/architecture.md, "Families", says where each reader lives and how a family is added.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json_value.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory::detail {

// Reads one JSON object's fields into settings, collecting every error (each naming its setting).
class reader {
 public:
  explicit reader(const json& j) : j_(j) {}

  // The first present key among `names`; null counts as absent.
  [[nodiscard]] const json* find(std::initializer_list<const char*> names, const char** found = nullptr) const;
  // Reads a whole number within the setting's range into out[setting]; false when absent.
  bool integer(std::initializer_list<const char*> names, std::string_view setting);
  // Reads a true/false field; nullopt when absent or not a boolean (reported).
  [[nodiscard]] std::optional<bool> boolean(const char* name, std::string_view setting);
  // A string field in lower case; "" when absent or not a string.
  [[nodiscard]] std::string text(const char* name) const;
  // Like integer(), but a field with no value from config.json or a family default is an error.
  void require(std::initializer_list<const char*> names, std::string_view setting);
  void fail(std::string_view setting, std::string message);
  // A setting the family fixes whatever config.json says (out[setting] = value).
  void set(std::string_view setting, std::string_view value);

  settings out;               ///< the settings read so far, by key
  std::vector<error> errors;  ///< every problem found, in reading order

 private:
  const json& j_;
};

// A whole number from a JSON value, nullopt when it is not one.
[[nodiscard]] std::optional<double> whole(const json* v);
// A number a reader wrote into `out` (format_number's text), read back.
[[nodiscard]] double number_in(const std::string& text);
// A whole, non-negative config field or its default (reported against `setting` when malformed).
[[nodiscard]] double field(reader& r, const char* name, double fallback, std::string_view setting);

// ---- decoders (decoders.cpp: the table; decoder_fields.cpp: what every decoder reads; moe_mla.cpp) --------------

// Reads what only some families have, after the shared fields; `written` is the config's own model_type.
using family_fields = void (*)(reader& r, std::string_view written);

// What a family's modeling code hard-wires; "" leaves the setting to config.json or the default.
struct family {
  std::string_view model_type;           ///< config.json's model_type (the language model's)
  std::string_view norm = "rmsnorm";     ///< rmsnorm | layernorm
  std::string_view mlp = "gated";        ///< gated | plain
  std::string_view position = "rope";    ///< rope | learned | none
  bool tie = false;                      ///< tie_word_embeddings when config.json omits it
  std::string_view attention_bias = "";  ///< none | qkv | all; "" = read "attention_bias"
  std::string_view qk_norm = "none";     ///< none | head | full
  int norms_per_layer = 2;               ///< norms in each layer (count)
  int sliding_pattern = 0;               ///< every Nth layer global when config.json omits it (layers)
  bool shared_expert_gate = false;       ///< a gate on the shared expert's output
  bool mlp_bias = false;                 ///< mlp_bias when config.json omits it
  bool lm_head_bias = false;             ///< lm_head_bias when config.json omits it
  bool embedding_norm = false;           ///< a norm on the token embeddings
  bool attention_sinks = false;          ///< one learned sink logit per head
  bool router_bias = false;              ///< a bias per expert on the router
  bool router_parameter = false;         ///< the router is an nn.Parameter, not an nn.Linear
  family_fields fields = nullptr;        ///< the family's own fields; nullptr when it has none
};

// nullptr when model_type names no decoder family (the caller refuses it rather than guess).
[[nodiscard]] const family* find_family(std::string_view type);
// The multimodal wrappers' text defaults, for a text_config that lists only what differs from them.
void text_defaults(settings& out, std::string_view family_type, std::string_view root_type);
// A decoder's settings: `text` is the language model's object (root's text_config when `nested`, else root).
[[nodiscard]] result<settings> parse_decoder(const json& root, const json& text, bool nested, const family& fam,
                                             std::string_view written);
// The MoE fields (expert counts, widths, placement) and the multi-head latent attention ranks.
void read_moe(reader& r);
void read_mla(reader& r);
// Where MoE layers sit, when config.json says it in a way moe_layer_step cannot.
void check_moe_placement(reader& r);
void require_empty(reader& r, const char* name, std::string_view setting);

// ---- ssm.cpp: the state-space and short-convolution families' readers (issue 32) ------------------------------------

void nemotron_h_fields(reader& r, std::string_view written);
void granitemoehybrid_fields(reader& r, std::string_view written);
void lfm2_fields(reader& r, std::string_view written);
void mamba2_fields(reader& r, std::string_view written);
// What mamba_ssm's configs leave out, before the shared sizes are read.
void ssm_defaults(settings& out, std::string_view family_type);
// A Mamba-2 mixer's heads of `inner` [channels] (config.json's name for it: `inner_name`) as transformers'
// hybrids read them: mamba_n_heads (128) of mamba_d_head ("auto": inner // heads), whose product must be inner;
// then mamba_d_state (256), mamba_n_groups (1) and mamba_d_conv (4).
void read_mamba2_heads(reader& r, double inner, std::string_view inner_name);

// ---- gemma3n.cpp: Gemma 3n's per-layer embeddings, AltUp, LAuReL and per-layer widths (issue 32) --------------------

void gemma3n_fields(reader& r, std::string_view written);
// gemma3n_towers.cpp: the gemma3n wrapper's MobileNet-V5 vision tower, Conformer audio encoder and their embedders
// [parameters].
[[nodiscard]] double gemma3n_towers(reader& r, const json& root, double text_hidden);

// ---- gemma4.cpp: Gemma 4's global heads, shared K/V, double-wide MLP, per-layer inputs and MoE block (issue 32) -----

void gemma4_fields(reader& r, std::string_view written);
// The gemma4 wrapper's vision tower, audio encoder and their embedders [parameters].
[[nodiscard]] double gemma4_tower(reader& r, const json& root, double text_hidden);

// ---- hybrid2.cpp: Falcon-H1 and Jamba (issue 32) -------------------------------------------------------------------

void falcon_h1_fields(reader& r, std::string_view written);
void jamba_fields(reader& r, std::string_view written);
// Per-layer entries as layer_types text, equal neighbours as one "N*entry" (ssm.cpp).
[[nodiscard]] std::string joined_layers(const std::vector<std::string>& entries);

// ---- linear_hybrids.cpp: MiniMax-Text-01 / MiniMax-M1 and Kimi Linear (issue 32) ----------------------------------

void minimax_fields(reader& r, std::string_view written);
void kimi_linear_fields(reader& r, std::string_view written);

// ---- zamba2.cpp: Zamba2's Mamba-2 backbone and shared transformer blocks (issue 32) ---------------------------------

void zamba2_fields(reader& r, std::string_view written);

// ---- degrade.cpp: an unknown model_type read as the family that reads its declared layers (issue 32 item 5) --------

// A Llama-style decoder, or the family of the first declared layer kind; refused (naming the field) when a kind no
// family reads is declared or a field its family needs is missing. `type` is config.json's own model_type.
[[nodiscard]] result<settings> read_unknown(const json& root, const json& text, bool nested, std::string_view type);

// ---- quantization.cpp, vision.cpp ----------------------------------------------------------------------------------

// quantization_config -> weights_dtype, quant_bits, quant_group_size, double_quant.
void read_quantization(reader& r, const json& root);
// vision_config -> vision_params, for the multimodal wrappers root_type names.
void read_vision_tower(reader& r, const json& root, std::string_view root_type);
// Llama 3.2 Vision's cross-attention layers' extras -> extra_params.
void mllama_text(reader& r, const json& text);

// ---- encoders and encoder-decoders (encoders.cpp, encoder_decoders.cpp) --------------------------------------------

struct stack_family;
// Reads what the family adds to the shared encoder fields; returns the parameters extra_params sums (count).
using stack_fields = double (*)(reader& r, const json& root, const stack_family& family, double h, double layers);

// One encoder-only or encoder-decoder model_type and what its reader needs.
struct stack_family {
  std::string_view model_type{};                   ///< config.json's model_type
  std::string_view class_prefix{};                 ///< architectures[0] is this + the head ("Bert" "ForMaskedLM")
  stack_fields fields = nullptr;                   ///< the family's own fields and heads
  std::string_view architecture = "encoder";       ///< encoder | encoder_decoder
  const char* layers_field = "num_hidden_layers";  ///< the layer count read first; nullptr: `fields` reads it
  std::string_view layers_setting = "num_hidden_layers";  ///< the setting layers_field fills
  bool embedding_norm = true;                             ///< a LayerNorm on the embeddings
  bool dropout = true;                                    ///< dropout layers are present by default
  void (*own_names)(reader& r) = nullptr;  ///< the sizes under the family's own names, read before the shared ones
};

[[nodiscard]] std::span<const stack_family> encoder_families();
[[nodiscard]] std::span<const stack_family> encoder_decoder_families();
// The settings of an encoder or encoder-decoder config (no text_config).
[[nodiscard]] result<settings> parse_encoder(const json& root, const stack_family& family);

// What the architecture's head adds: the suffix of architectures[0] after the family's class prefix.
struct head_kind {
  std::string suffix;  ///< Model, ForMaskedLM, ForSequenceClassification, ...
  double labels = 2;   ///< num_labels (or the size of id2label); transformers' default is 2
};

[[nodiscard]] head_kind read_head(reader& r, const json& root, std::string_view prefix);
// Sets num_labels for heads without vocabulary logits (1 for a bare encoder: its output is the hidden states).
void set_labels(reader& r, const head_kind& head);
void refuse_head(reader& r, const head_kind& head);

}  // namespace llm_memory::detail
