// SPDX-License-Identifier: MIT
// Encoders and encoder-decoders (issue 18): exact parameter counts from config.json against official totals, and
// the memory terms they change (no KV cache for an encoder; cross-attention keys and values at the encoder length;
// the encoder stack's activations). Derivations: docs/models.md and docs/methodology.md, "Encoders and
// encoder-decoders". Fixtures: tests/data/configs/families (sources in tests/data/config-sources.tsv).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config_support.hpp"
#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using namespace llm_memory::test;

std::string fixture(const std::string& name) {
  return file_text(std::filesystem::path(LLM_MEMORY_TESTS_DIR) / "data" / "configs" / "families" / name);
}

// The fixture with its first architectures entry replaced.
std::string with_head(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

double item(const estimate_result& r, std::string_view bucket, std::string_view name) {
  for (const auto& b : r.buckets)
    if (b.key == bucket)
      for (const auto& i : b.items)
        if (i.name == name) return i.bytes;
  ADD_FAILURE() << "no item " << name << " in " << bucket;
  return -1;
}

// BERT base (V 30522, h 768, L 12, i 3072, P 512, 2 token types). Embeddings 30522 x 768 + 512 x 768 + 2 x 768 +
// LayerNorm 1,536 = 23,837,184; a layer 4 (768^2 + 768) + (768 x 3072 + 3072) + (3072 x 768 + 768) + 2 x 1,536 =
// 7,087,872, x 12 = 85,054,464; pooler 768^2 + 768 = 590,592. BertModel = 109,482,240 (keras-hub bert_presets.py
// bert_base_en_uncased "params"; transformers AutoModel.num_parameters() for bert-base-uncased).
// BertForMaskedLM drops the pooler and adds the transform 768^2 + 768 + 1,536 = 592,128 and the decoder bias 30,522
// (the decoder weight is tied): 109,514,298 (AutoModelForMaskedLM's count for bert-base-uncased).
TEST(encoders, bert_heads) {
  const std::string bert = fixture("bert-base-uncased.json");
  EXPECT_EQ(config_params(bert), 109482240);
  EXPECT_EQ(config_params(with_head(bert, "\"BertModel\"", "\"BertForMaskedLM\"")), 109514298);
}

TEST(encoders, classification_heads_count_num_labels) {
  std::string bert = fixture("bert-base-uncased.json");
  bert = with_head(bert, "\"BertModel\"", "\"BertForSequenceClassification\"");
  bert = with_head(bert, "\"vocab_size\"", "\"num_labels\": 3, \"vocab_size\"");
  EXPECT_EQ(config_params(bert), 109482240 + 768 * 3 + 3);
  const auto s = parsed_config(bert);
  EXPECT_EQ(s.at("num_labels"), "3");
  EXPECT_EQ(s.at("architecture"), "encoder");
  // Token classification: no pooler, h x n + n on every token.
  EXPECT_EQ(config_params(with_head(bert, "ForSequenceClassification", "ForTokenClassification")),
            109482240 - 590592 + 768 * 3 + 3);
}

// RoBERTa base (roberta-base config.json: V 50265, P 514, type_vocab_size 1). Embeddings 50265 x 768 + 514 x 768 +
// 768 + 1,536 = 39,000,576; layers as BERT's 85,054,464; pooler 590,592: RobertaModel 124,645,632 (transformers
// AutoModel listing). RobertaForMaskedLM: 39,000,576 + 85,054,464 + 592,128 + 50,265 = 124,697,433.
TEST(encoders, roberta) {
  const std::string roberta = R"({"architectures": ["RobertaModel"], "model_type": "roberta", "hidden_size": 768,
      "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 50265,
      "max_position_embeddings": 514, "type_vocab_size": 1})";
  EXPECT_EQ(config_params(roberta), 124645632);
  EXPECT_EQ(config_params(with_head(roberta, "RobertaModel", "RobertaForMaskedLM")), 124697433);
}

// DeBERTa-v3 base (V 128100, h 768, no absolute positions, no token types, relative attention with 256 buckets,
// share_att_key). Embeddings 128100 x 768 + LayerNorm 1,536 = 98,382,336; layers 85,054,464; rel_embeddings
// 2 x 256 x 768 = 393,216 and their LayerNorm 1,536. DebertaV2Model = 183,831,552 (keras-hub deberta_v3_presets.py
// deberta_v3_base_en "params"). The fixture's DebertaV2ForQuestionAnswering adds qa_outputs 768 x 2 + 2.
TEST(encoders, deberta_v3) {
  const std::string deberta = fixture("deberta-v3-base.json");
  EXPECT_EQ(config_params(deberta), 183831552 + 1538);
  EXPECT_EQ(config_params(with_head(deberta, "ForQuestionAnswering", "Model")), 183831552);
  // Without share_att_key each layer adds pos_key_proj and pos_query_proj (768^2 + 768 each): 12 x 1,181,184.
  EXPECT_EQ(config_params(with_head(with_head(deberta, "ForQuestionAnswering", "Model"), "\"share_att_key\": true",
                                    "\"share_att_key\": false")),
            183831552 + 12 * 1181184);
}

// ModernBERT base (V 50368, h 768, L 22, i 1152, no biases, weight-only LayerNorms). Embedding 50368 x 768 + norm 768;
// a layer Wqkv 768 x 2304 + Wo 768^2 + Wi 768 x 2304 + Wo 1152 x 768 + 2 norms 1,536 = 5,015,040, x 22, minus layer
// 0's Identity attn_norm (768) = 110,330,112; final_norm 768. ModernBertModel = 149,014,272 (keras-hub
// modern_bert presets; MTEB's n_parameters for nomic-ai/modernbert-embed-base). ForMaskedLM adds the head's dense
// 768^2 and norm 768 and the tied decoder's bias 50,368: 149,655,232.
TEST(encoders, modernbert) {
  const std::string modern = R"({"architectures": ["ModernBertModel"], "model_type": "modernbert",
      "hidden_size": 768, "num_hidden_layers": 22, "num_attention_heads": 12, "intermediate_size": 1152,
      "vocab_size": 50368, "max_position_embeddings": 8192, "global_attn_every_n_layers": 3, "local_attention": 128,
      "norm_bias": false, "attention_bias": false, "mlp_bias": false, "classifier_bias": false, "decoder_bias": true})";
  EXPECT_EQ(config_params(modern), 149014272);
  EXPECT_EQ(config_params(with_head(modern, "ModernBertModel", "ModernBertForMaskedLM")), 149655232);
  const auto s = parsed_config(modern);
  EXPECT_EQ(s.at("sliding_window"), "128");
  EXPECT_EQ(s.at("sliding_window_pattern"), "3");
}

// T5-small (fixture): shared 32128 x 512 = 16,449,536 (tied lm_head); encoder layer 4 x 512^2 + 2 x 512 x 2048 + 2 x
// 512 = 3,146,752, x 6; decoder layer + cross-attention 4 x 512^2 + 512 = 4,195,840, x 6; relative attention bias
// 2 x 32 x 8; final norms 2 x 512. = 60,506,624 (keras-hub t5 presets "t5_small" params).
// T5 v1.1 base (gated-gelu, untied, d_ff 2048, 12 + 12 layers): 2 x 32128 x 768 + 12 x (4 x 768^2 + 3 x 768 x 2048
// + 1,536) + 12 x (that + 4 x 768^2 + 768) + 2 x 32 x 12 + 1,536 = 247,577,856.
// mT5-small (V 250112, d 512, 6 heads of 64, d_ff 1024, 8 + 8, untied): 2 x 128,057,344 + 8 x 2,360,320 +
// 8 x 3,147,264 + 384 + 1,024 = 300,176,768 (lm-vocab-trimmer's param_size_full for mt5-small).
TEST(encoders, t5_and_mt5) {
  EXPECT_EQ(config_params(fixture("t5-small.json")), 60506624);
  EXPECT_EQ(config_params(R"({"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "d_model": 768,
      "d_kv": 64, "d_ff": 2048, "num_layers": 12, "num_decoder_layers": 12, "num_heads": 12, "vocab_size": 32128,
      "feed_forward_proj": "gated-gelu", "tie_word_embeddings": false, "relative_attention_num_buckets": 32})"),
            247577856);
  const std::string mt5 = R"({"architectures": ["MT5ForConditionalGeneration"], "model_type": "mt5", "d_model": 512,
      "d_kv": 64, "d_ff": 1024, "num_layers": 8, "num_decoder_layers": 8, "num_heads": 6, "vocab_size": 250112,
      "feed_forward_proj": "gated-gelu", "tie_word_embeddings": false, "relative_attention_num_buckets": 32})";
  EXPECT_EQ(config_params(mt5), 300176768);
  const auto s = parsed_config(mt5);
  EXPECT_EQ(s.at("architecture"), "encoder_decoder");
  EXPECT_EQ(s.at("encoder_layers"), "8");
  EXPECT_EQ(s.at("head_dim"), "64");
}

// BART large (fixture): shared 50265 x 1024; per stack positions 1026 x 1024 and layernorm_embedding 2,048; encoder
// layer 4 (1024^2 + 1024) + (1024 x 4096 + 4096) + (4096 x 1024 + 1024) + 2 x 2,048 = 12,596,224, x 12; decoder
// layer + cross-attention 4,198,400 + 2,048 = 16,796,672, x 12. = 406,291,456 (transformers AutoModel listing;
// keras-hub's 406,287,360 is 4,096 less: 1,024 positions per stack instead of 1,026). BART base: 139,420,416.
TEST(encoders, bart) {
  const std::string bart = fixture("bart-large.json");
  EXPECT_EQ(config_params(bart), 406291456);
  EXPECT_EQ(config_params(R"({"architectures": ["BartForConditionalGeneration"], "model_type": "bart", "d_model": 768,
      "encoder_layers": 6, "decoder_layers": 6, "encoder_attention_heads": 12, "decoder_attention_heads": 12,
      "encoder_ffn_dim": 3072, "decoder_ffn_dim": 3072, "vocab_size": 50265, "max_position_embeddings": 1024})"),
            139420416);
  // BartForSequenceClassification with the fixture's 3 labels: + 1024^2 + 1024 + 1024 x 3 + 3.
  EXPECT_EQ(config_params(with_head(bart, "\"BartModel\",", "\"BartForSequenceClassification\",")),
            406291456 + 1048576 + 1024 + 3072 + 3);
}

TEST(encoders, unmodelled_layouts_are_refused) {
  const std::string bert = fixture("bert-base-uncased.json");
  EXPECT_FALSE(parse_config(with_head(bert, "\"absolute\"", "\"relative_key\"")).ok());
  EXPECT_FALSE(parse_config(with_head(bert, "\"BertModel\"", "\"BertForNextSentencePrediction\"")).ok());
  EXPECT_FALSE(
      parse_config(with_head(bert, "\"BertModel\"", "\"BertForSequenceClassification\"], \"num_labels\": [3")).ok());
  EXPECT_FALSE(parse_config(R"({"model_type": "bart", "d_model": 64, "encoder_layers": 2, "decoder_layers": 2,
      "decoder_attention_heads": 4, "encoder_ffn_dim": 128, "decoder_ffn_dim": 256, "vocab_size": 100})")
                   .ok());
  // A stack depth config.json does not give is an error naming the setting, never the table's default.
  const auto missing = parse_config(R"({"model_type": "bart", "d_model": 64, "encoder_layers": 2,
      "decoder_attention_heads": 4, "vocab_size": 100})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.errors().front().setting, "num_hidden_layers");
}

// T5-small inference, batch 1, seq (decoder) 256, encoder_seq 512, bf16 cache: the decoder's self-attention cache
// 2 x 6 layers x 256 x 8 heads x 64 x 2 B = 3,145,728 and the cross-attention cache of the encoder's output
// 2 x 6 x 512 x 8 x 64 x 2 B = 6,291,456. An encoder has no KV cache.
TEST(encoders, kv_cache) {
  auto t5 = estimate({{"mode", "inference"}, {"runtime", "transformers"}, {"seq", "256"}, {"encoder_seq", "512"}},
                     parsed_config(fixture("t5-small.json")));
  ASSERT_TRUE(t5.ok());
  EXPECT_EQ(item(t5.value(), "kv_cache", "full-attention layers"), 3145728);
  EXPECT_EQ(item(t5.value(), "kv_cache", "cross-attention keys and values (encoder length)"), 6291456);
  auto bert = estimate({{"mode", "inference"}, {"runtime", "transformers"}, {"seq", "512"}},
                       parsed_config(fixture("bert-base-uncased.json")));
  ASSERT_TRUE(bert.ok());
  EXPECT_EQ(bert.value().bytes("kv_cache"), 0);
  EXPECT_EQ(item(bert.value(), "kv_cache", "no KV cache (encoder only)"), 0);
  // The weights hold every parameter, encoder stack and heads included: 60,506,624 x 2 B.
  EXPECT_EQ(item(t5.value(), "parameters", "weights"), 2.0 * 60506624);
}

// T5-small training (framework generic, standard attention, dropout on, bf16, full fine-tuning), batch 1, decoder
// seq 256 (T = 256), encoder_seq 512; h 512, a 8, d 64, inner 2048 (plain), 2 RMSNorms a layer.
// Decoder layer, self part (Korthikanti's count as estimate.cpp generalises it): norm inputs 2 x 2 B x T h = 524,288;
// q/k/v input 2 T h = 262,144; q, k, v, o input 2 B x T x 4 x 512 = 1,048,576; attention dropout mask T h =
// 131,072; scores 2 x 8 x 256^2 = 1,048,576 + dropout mask and dropped scores 3 x 8 x 256^2 = 1,572,864; MLP
// T x (2 h + 2 x 2 x 2048) = 2,359,296; residual dropout mask 131,072: 7,077,888.
// Cross-attention: norm input 2 T h = 262,144; q input 262,144; q and o input 2 x T x (512 + 512) = 524,288; k and v
// at the encoder length 2 x 512 x 2 x 512 = 1,048,576; dropout mask 131,072; scores 2 x 8 x 256 x 512 = 2,097,152
// + 3 x 8 x 256 x 512 = 3,145,728: 7,471,104. A decoder layer: 14,548,992.
// Encoder layer at 512 tokens: 1,048,576 + 524,288 + 2,097,152 + 262,144 + (4,194,304 + 6,291,456) + 4,718,592 +
// 262,144 = 19,398,656. Encoder output kept for k/v: 2 B x 512 x 512 = 524,288.
TEST(encoders, training_activations) {
  auto r = estimate({{"framework", "generic"},
                     {"attention", "standard"},
                     {"seq", "256"},
                     {"encoder_seq", "512"},
                     {"weights_dtype", "bf16"}},
                    parsed_config(fixture("t5-small.json")));
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  EXPECT_EQ(item(r.value(), "activations", "transformer layers"), 6.0 * 14548992);
  EXPECT_EQ(item(r.value(), "activations", "encoder layers"), 6.0 * 19398656);
  EXPECT_EQ(item(r.value(), "activations", "encoder output (keys and values of every cross-attention)"), 524288);
}

// A classifier has no vocabulary logits: BertForSequenceClassification with 2 labels, batch 1, seq 128 keeps
// (2 B + 3 x 4 B) x 128 x 2 = 3,584 bytes of logits and loss.
TEST(encoders, classifier_logits) {
  std::string bert = with_head(fixture("bert-base-uncased.json"), "\"BertModel\"", "\"BertForSequenceClassification\"");
  auto r = estimate({{"framework", "generic"}, {"seq", "128"}}, parsed_config(bert));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(item(r.value(), "activations", "task-head logits (num_labels 2, no vocabulary logits)"), 3584);
}

}  // namespace
