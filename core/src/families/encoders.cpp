// SPDX-License-Identifier: MIT
// The encoder-only families: BERT, RoBERTa, XLM-R, DeBERTa-v2, ModernBERT, DistilBERT, ALBERT and ELECTRA
// (transformers models/<family>/modeling_<family>.py @v4.56; docs/models.md, "Encoders and encoder-decoders"), one
// row each, and what every encoder and encoder-decoder reads. The layers map onto the settings; what they do not
// describe (token-type and relative embeddings, the encoder stack's own embeddings, final norms, pooler, task head)
// is summed into extra_params. The head is the one config.json's first `architectures` entry names.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

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

double bert_fields(reader& r, const json& root, const stack_family& family, double h, double) {
  if (const std::string pos = r.text("position_embedding_type"); !pos.empty() && pos != "absolute")
    r.fail("position_embedding", "config.json position_embedding_type \"" + pos + "\" is not modelled (absolute is)");
  r.out["position_embedding"] = "learned";
  const double types = field(r, "type_vocab_size", 2, "extra_params");
  const head_kind head = read_head(r, root, family.class_prefix);
  set_labels(r, head);
  return types * h + bert_head(r, head, h);
}

// DeBERTa-v2/v3 (modeling_deberta_v2.py): BERT's layer shapes; absolute positions only when position_biased_input;
// with relative_attention, rel_embeddings of 2 x position_buckets rows (2 x max_relative_positions without buckets)
// and its LayerNorm (norm_rel_ebd "layer_norm"); pos_key_proj / pos_query_proj per layer (h x all_head + bias) unless
// share_att_key. ContextPooler (pooler_hidden_size^2 + bias) feeds the sequence classifier.
double deberta_fields(reader& r, const json& root, const stack_family& family, double h, double layers) {
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
    const std::string att = types == nullptr ? "" : lower(types->dump());
    if (!r.boolean("share_att_key", "extra_params").value_or(false))
      extra += layers * ((att.find("c2p") != std::string::npos ? h * h + h : 0) +
                         (att.find("p2c") != std::string::npos ? h * h + h : 0));
  }
  const head_kind head = read_head(r, root, family.class_prefix);
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
double modernbert_fields(reader& r, const json& root, const stack_family& family, double h, double) {
  const bool norm_bias = r.boolean("norm_bias", "norm").value_or(false);
  r.out["norm"] = norm_bias ? "layernorm" : "rmsnorm";  // weight-only LayerNorms count as RMSNorms do
  r.out["mlp"] = "gated";
  r.out["attention_bias"] = r.boolean("attention_bias", "attention_bias").value_or(false) ? "all" : "none";
  r.out["mlp_bias"] = r.boolean("mlp_bias", "mlp_bias").value_or(false) ? "on" : "off";
  r.out["position_embedding"] = "rope";
  r.integer({"local_attention"}, "sliding_window");
  r.integer({"global_attn_every_n_layers"}, "sliding_window_pattern");
  const head_kind head = read_head(r, root, family.class_prefix);
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

// DistilBertConfig's own names for the sizes.
void distilbert_names(reader& r) {
  r.require({"dim"}, "hidden_size");
  r.require({"n_layers"}, "num_hidden_layers");
  r.require({"n_heads"}, "num_attention_heads");
  r.integer({"hidden_dim"}, "intermediate_size");
}

// DistilBERT (models/distilbert/modeling_distilbert.py @v4.56): BERT's layer shapes (q_lin, k_lin, v_lin, out_lin,
// lin1, lin2, all biased; sa_layer_norm and output_layer_norm) under DistilBertConfig's names (dim, n_layers,
// n_heads, hidden_dim); Embeddings: word and position tables (P rows; sinusoidal_pos_embds fills the same
// nn.Embedding, a frozen parameter the checkpoint stores) and a LayerNorm, no token types; DistilBertModel has no
// pooler. Heads: ForMaskedLM vocab_transform h^2 + h, vocab_layer_norm 2h, the tied vocab_projector's bias V;
// ForSequenceClassification pre_classifier h^2 + h and classifier h n + n; token classification and QA h n + n.
double distilbert_fields(reader& r, const json& root, const stack_family& family, double h, double) {
  r.out["position_embedding"] = "learned";
  const head_kind head = read_head(r, root, family.class_prefix);
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
double albert_fields(reader& r, const json& root, const stack_family& family, double h, double) {
  r.out["position_embedding"] = "learned";
  const double e = field(r, "embedding_size", 128, "embedding_size");
  r.out["embedding_size"] = format_number(e);
  r.out["num_hidden_groups"] = format_number(field(r, "num_hidden_groups", 1, "num_hidden_groups"));
  if (field(r, "inner_group_num", 1, "num_hidden_groups") != 1)
    r.fail("num_hidden_groups", "config.json inner_group_num other than 1 is not modelled");
  const double extra = field(r, "type_vocab_size", 2, "extra_params") * e + (e == h ? h * h + h : 0);
  const head_kind head = read_head(r, root, family.class_prefix);
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
double electra_fields(reader& r, const json& root, const stack_family& family, double h, double) {
  r.out["position_embedding"] = "learned";
  const double e = field(r, "embedding_size", 128, "embedding_size");
  r.out["embedding_size"] = format_number(e);
  const double extra = field(r, "type_vocab_size", 2, "extra_params") * e;
  const head_kind head = read_head(r, root, family.class_prefix);
  set_labels(r, head);
  const double n = head.labels;
  if (head.suffix == "Model") return extra;
  if (head.suffix == "ForPreTraining") {
    r.set("num_labels", "1");  // a replaced-token logit per token, no vocabulary
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

// clang-format off
constexpr std::array encoders = {
    stack_family{.model_type = "bert", .class_prefix = "Bert", .fields = bert_fields},
    stack_family{.model_type = "roberta", .class_prefix = "Roberta", .fields = bert_fields},
    stack_family{.model_type = "xlm-roberta", .class_prefix = "XLMRoberta", .fields = bert_fields},
    stack_family{.model_type = "deberta-v2", .class_prefix = "DebertaV2", .fields = deberta_fields},
    stack_family{.model_type = "modernbert", .class_prefix = "ModernBert", .fields = modernbert_fields,
                 .dropout = false},  // ModernBERT's dropouts default to 0
    stack_family{.model_type = "distilbert", .class_prefix = "DistilBert", .fields = distilbert_fields,
                 .own_names = distilbert_names},
    stack_family{.model_type = "albert", .class_prefix = "Albert", .fields = albert_fields},
    stack_family{.model_type = "electra", .class_prefix = "Electra", .fields = electra_fields},
};
// clang-format on

// The conventions every encoder and encoder-decoder shares, then the family's own fields.
void stack_conventions(reader& r, const json& root, const stack_family& family) {
  r.out["architecture"] = std::string(family.architecture);
  r.out["norm"] = "layernorm";
  r.out["mlp"] = "plain";
  r.out["attention_bias"] = "all";
  r.out["mlp_bias"] = "on";
  r.set("norms_per_layer", "2");
  r.out["qk_norm"] = "none";
  r.out["embedding_norm"] = family.embedding_norm ? "on" : "off";
  r.out["dropout"] = family.dropout ? "on" : "off";
  r.out["tie_word_embeddings"] = r.boolean("tie_word_embeddings", "tie_word_embeddings").value_or(true) ? "on" : "off";
  const auto hidden = r.out.find("hidden_size");
  const auto layers = r.out.find("num_hidden_layers");
  const double h = hidden != r.out.end() ? number_in(hidden->second) : 0;
  const double L = layers != r.out.end() ? number_in(layers->second) : 0;
  const double extra = family.fields(r, root, family, h, L);
  r.out["extra_params"] = format_number(extra);
}

}  // namespace

head_kind read_head(reader& r, const json& root, std::string_view prefix) {
  head_kind head;
  const auto a = root.find("architectures");
  std::string name = a != root.end() && a->is_array() && !a->empty() && (*a)[0].is_string()
                         ? (*a)[0].get<std::string>()
                         : std::string(prefix) + "Model";
  if (!name.starts_with(prefix)) {
    r.fail("extra_params",
           "config.json architectures[0] " + quoted(name) + " is not a " + std::string(prefix) + " class");
    return head;
  }
  head.suffix = name.substr(prefix.size());
  if (const auto labels = root.find("id2label"); labels != root.end() && labels->is_object())
    head.labels = static_cast<double>(labels->size());
  head.labels = field(r, "num_labels", head.labels, "num_labels");
  return head;
}

void set_labels(reader& r, const head_kind& head) {
  if (head.suffix == "Model" || head.suffix == "EncoderModel") r.set("num_labels", "1");
  if (head.suffix.find("Classification") != std::string::npos || head.suffix == "ForQuestionAnswering")
    r.out["num_labels"] = format_number(std::max(1.0, head.labels));
}

void refuse_head(reader& r, const head_kind& head) {
  r.fail("extra_params", "config.json architectures names the head \"" + head.suffix + "\", which is not modelled");
}

std::span<const stack_family> encoder_families() { return encoders; }

result<settings> parse_encoder(const json& root, const stack_family& family) {
  reader r(root);
  if (family.own_names != nullptr) family.own_names(r);
  r.require({"hidden_size", "d_model"}, "hidden_size");
  if (family.layers_field != nullptr) r.require({family.layers_field}, family.layers_setting);
  r.require({"num_attention_heads", "num_heads", "decoder_attention_heads"}, "num_attention_heads");
  r.require({"vocab_size"}, "vocab_size");
  r.integer({"intermediate_size"}, "intermediate_size");
  r.integer({"max_position_embeddings"}, "max_position_embeddings");
  stack_conventions(r, root, family);
  read_quantization(r, root);
  if (!r.errors.empty()) return r.errors;
  return r.out;
}

}  // namespace llm_memory::detail
