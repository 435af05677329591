// SPDX-License-Identifier: MIT
// The encoder-decoder families: T5, mT5, UMT5, BART, mBART and Pegasus (transformers
// models/<family>/modeling_<family>.py @v4.56; docs/models.md, "Encoders and encoder-decoders"), one row each. What
// every encoder and encoder-decoder reads is encoders.cpp's parse_encoder.
#include <array>
#include <string>
#include <utility>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

// T5 / mT5 (modeling_t5.py, modeling_mt5.py): RMS-style T5LayerNorm, no biases, q/k/v/o of num_heads x d_kv,
// DenseReluDense (wi, wo) or the gated wi_0 / wi_1 / wo (feed_forward_proj "gated-gelu"), the relative attention bias
// (relative_attention_num_buckets x num_heads) in the first layer of each stack, a final norm per stack, the shared
// embedding, and lm_head untied when tie_word_embeddings is false (T5 v1.1, mT5).
// `bias_per_layer`: UMT5 (modeling_umt5.py @v4.56), where every self-attention has its own relative_attention_bias
// (has_relative_attention_bias is true in every UMT5Block), the decoder's cross-attention none.
double t5_stack(reader& r, const json& root, const stack_family& family, bool bias_per_layer) {
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
  const head_kind head = read_head(r, root, family.class_prefix);
  set_labels(r, head);
  if (head.suffix != "ForConditionalGeneration" && head.suffix != "Model") refuse_head(r, head);
  if (head.suffix == "Model") r.out["tie_word_embeddings"] = "on";  // T5Model has no lm_head
  const double h = field(r, "d_model", 512, "hidden_size"), heads = field(r, "num_heads", 8, "num_attention_heads");
  const double encoder = field(r, "num_layers", 6, "encoder_layers");
  const double biased = bias_per_layer ? encoder + field(r, "num_decoder_layers", encoder, "num_hidden_layers") : 2;
  return biased * field(r, "relative_attention_num_buckets", 32, "extra_params") * heads + 2 * h;
}

double t5_fields(reader& r, const json& root, const stack_family& family, double, double) {
  return t5_stack(r, root, family, /*bias_per_layer=*/false);
}
double umt5_fields(reader& r, const json& root, const stack_family& family, double, double) {
  return t5_stack(r, root, family, /*bias_per_layer=*/true);
}

// BART (modeling_bart.py): post-LayerNorm layers with biases, learned positions of max_position_embeddings + 2 rows
// (BartLearnedPositionalEmbedding's offset) and layernorm_embedding in each stack, the shared embedding and the tied
// lm_head; final_logits_bias is a buffer, not a parameter. BartForSequenceClassification adds the classification
// head (dense h^2 + h, out_proj h n + n).
// mBART (models/mbart/modeling_mbart.py @v4.56): BART's shapes (pre-norm) with a final layer_norm in each stack,
// always. Pegasus (models/pegasus/modeling_pegasus.py @v4.56): the same layers and final layer_norms, no
// layernorm_embedding, and sinusoidal positions (PegasusSinusoidalPositionalEmbedding: a frozen table that the Hub's
// checkpoints do not store; not counted).
// `learned_positions`: BART's and mBART's table, not Pegasus's sinusoids; `final_norms`: always there (mBART,
// Pegasus), not only when add_final_layer_norm (BART).
double bart_stack(reader& r, const json& root, const stack_family& family, double h, bool learned_positions,
                  bool final_norms) {
  r.require({"encoder_layers"}, "encoder_layers");
  r.require({"decoder_layers"}, "num_hidden_layers");
  r.integer({"decoder_attention_heads"}, "num_attention_heads");
  r.integer({"decoder_ffn_dim"}, "intermediate_size");
  for (const auto& [a, b] : {std::pair{"encoder_attention_heads", "decoder_attention_heads"},
                             std::pair{"encoder_ffn_dim", "decoder_ffn_dim"}})
    if (const json* x = r.find({a}), *y = r.find({b}); x != nullptr && y != nullptr && *x != *y)
      r.fail("encoder_layers", std::string("config.json ") + a + " differs from " + b + ": not modelled");
  double extra = 0;
  if (!learned_positions) {
    r.out["position_embedding"] = "none";
    r.out["embedding_norm"] = "off";
  } else {
    const double positions = field(r, "max_position_embeddings", 1024, "max_position_embeddings") + 2;
    r.out["max_position_embeddings"] = format_number(positions);
    r.out["position_embedding"] = "learned";
    r.out["embedding_norm"] = "on";
    extra = positions * h + 2 * h;  // the encoder's embed_positions and layernorm_embedding
  }
  if (final_norms || r.boolean("add_final_layer_norm", "extra_params").value_or(false)) extra += 2 * 2 * h;
  const head_kind head = read_head(r, root, family.class_prefix);
  set_labels(r, head);
  if (head.suffix == "ForSequenceClassification") return extra + h * h + h + h * head.labels + head.labels;
  if (head.suffix != "ForConditionalGeneration" && head.suffix != "Model") refuse_head(r, head);
  return extra;
}

double bart_fields(reader& r, const json& root, const stack_family& family, double h, double) {
  return bart_stack(r, root, family, h, /*learned_positions=*/true, /*final_norms=*/false);
}
double mbart_fields(reader& r, const json& root, const stack_family& family, double h, double) {
  return bart_stack(r, root, family, h, /*learned_positions=*/true, /*final_norms=*/true);
}
double pegasus_fields(reader& r, const json& root, const stack_family& family, double h, double) {
  return bart_stack(r, root, family, h, /*learned_positions=*/false, /*final_norms=*/true);
}

// T5's stacks read num_layers (encoder layers) first and have no embedding norm; BART's layers are bart_stack's.
// clang-format off
constexpr std::array encoder_decoders = {
    stack_family{.model_type = "t5", .class_prefix = "T5", .fields = t5_fields, .architecture = "encoder_decoder",
                 .layers_field = "num_layers", .layers_setting = "encoder_layers", .embedding_norm = false},
    stack_family{.model_type = "mt5", .class_prefix = "MT5", .fields = t5_fields, .architecture = "encoder_decoder",
                 .layers_field = "num_layers", .layers_setting = "encoder_layers", .embedding_norm = false},
    stack_family{.model_type = "umt5", .class_prefix = "UMT5", .fields = umt5_fields, .architecture = "encoder_decoder",
                 .layers_field = "num_layers", .layers_setting = "encoder_layers", .embedding_norm = false},
    stack_family{.model_type = "bart", .class_prefix = "Bart", .fields = bart_fields, .architecture = "encoder_decoder",
                 .layers_field = nullptr},
    stack_family{.model_type = "mbart", .class_prefix = "MBart", .fields = mbart_fields,
                 .architecture = "encoder_decoder", .layers_field = nullptr},
    stack_family{.model_type = "pegasus", .class_prefix = "Pegasus", .fields = pegasus_fields,
                 .architecture = "encoder_decoder", .layers_field = nullptr},
};
// clang-format on

}  // namespace

std::span<const stack_family> encoder_decoder_families() { return encoder_decoders; }

}  // namespace llm_memory::detail
