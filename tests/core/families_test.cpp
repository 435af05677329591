// SPDX-License-Identifier: MIT
// Issue 18's remaining config.json families (starcoder2, internlm2, cohere2; distilbert, albert, electra; umt5,
// mbart, pegasus): exact parameter counts derived by hand from each modeling file (docs/models.md, "Families" and
// "Encoders and encoder-decoders", with file and version), checked against the Hub totals the llmfit registry
// records (AlexsJones/llmfit@a3e0eb27:llmfit-core/data/hf_models.json, `parameters_raw`), and the memory terms the
// families change (sliding-window KV cache; no KV cache for an encoder; ALBERT's shared layer).
#include <gtest/gtest.h>

#include <string>

#include "config_support.hpp"
#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using namespace llm_memory::test;

double item(const estimate_result& r, std::string_view bucket, std::string_view name) {
  for (const auto& b : r.buckets)
    if (b.key == bucket)
      for (const auto& i : b.items)
        if (i.name == name) return i.bytes;
  ADD_FAILURE() << "no item " << name << " in " << bucket;
  return -1;
}

// bigcode/starcoder2-7b's config.json fields (hand-built: the Hub's values; no public copy was found).
const std::string starcoder2_7b = R"({"architectures": ["Starcoder2ForCausalLM"], "model_type": "starcoder2",
  "hidden_size": 4608, "intermediate_size": 18432, "num_hidden_layers": 32, "num_attention_heads": 36,
  "num_key_value_heads": 4, "vocab_size": 49152, "max_position_embeddings": 16384, "sliding_window": 4096,
  "use_bias": true, "norm_epsilon": 1e-05, "rope_theta": 1000000, "torch_dtype": "bfloat16"})";

// StarCoder2 (modeling_starcoder2.py @v4.56): LayerNorms with bias (2h each), q/k/v/o and c_fc / c_proj all biased
// (use_bias), GQA with d = h / a = 128, tied lm_head.
// starcoder2-7b: h 4608, L 32, a 36, k 4, i 18432, V 49152.
//   q 4608^2 + 4608 = 21,238,272; k, v 4608 x 512 + 512 = 2,359,808 each; o 21,238,272: attention 47,196,160.
//   c_fc 4608 x 18432 + 18432 = 84,953,088; c_proj 18432 x 4608 + 4608 = 84,939,264: MLP 169,892,352.
//   two LayerNorms 4 x 4608 = 18,432. A layer 217,106,944; x 32 = 6,947,422,208.
//   embed_tokens 49152 x 4608 = 226,492,416; final LayerNorm 9,216.
//   Total 7,173,923,840 = llmfit's parameters_raw for bigcode/starcoder2-7b.
// starcoder2-3b (= Starcoder2Config's class defaults, configuration_starcoder2.py @v4.56: h 3072, i 12288, L 30,
// a 24, k 2, V 49152; the docstring calls them "7B style", but the shapes are the 3B's): 3,030,371,328 = llmfit's
// parameters_raw for bigcode/starcoder2-3b.
TEST(families, starcoder2) {
  EXPECT_EQ(config_params(starcoder2_7b), 7173923840);
  const auto s = parsed_config(starcoder2_7b);
  EXPECT_EQ(s.at("norm"), "layernorm");
  EXPECT_EQ(s.at("mlp"), "plain");
  EXPECT_EQ(s.at("attention_bias"), "all");
  EXPECT_EQ(s.at("mlp_bias"), "on");
  EXPECT_EQ(s.at("tie_word_embeddings"), "on");
  EXPECT_EQ(s.at("sliding_window"), "4096");
  EXPECT_FALSE(s.contains("sliding_window_pattern"));  // every layer slides
  const std::string sc3b = R"({"model_type": "starcoder2", "hidden_size": 3072, "intermediate_size": 12288,
    "num_hidden_layers": 30, "num_attention_heads": 24, "num_key_value_heads": 2, "vocab_size": 49152})";
  EXPECT_EQ(config_params(sc3b), 3030371328);
  // use_bias false drops every linear's bias (q, o 4608; k, v 512; c_fc 18432; c_proj 4608): 32 x 33,280 fewer.
  std::string no_bias = starcoder2_7b;
  no_bias.replace(no_bias.find("\"use_bias\": true"), 16, "\"use_bias\": false");
  EXPECT_EQ(config_params(no_bias), 7173923840 - 32 * 33280);
}

// StarCoder2's KV cache: every layer slides over a 4,096-token window (no layer is global: sliding_window_pattern
// 0). Inference at batch 1, seq 16,384, bf16 cache: 2 (k, v) x 32 layers x 1 x min(16384, 4096) x 4 k/v heads x
// 128 x 2 B = 268,435,456 B (a quarter of the 1,073,741,824 B a full cache would hold).
TEST(families, starcoder2_sliding_kv_cache) {
  auto r = estimate({{"mode", "inference"}, {"runtime", "transformers"}, {"seq", "16384"}, {"batch", "1"}},
                    parsed_config(starcoder2_7b));
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  EXPECT_EQ(item(r.value(), "kv_cache", "sliding-window layers"), 268435456);
  EXPECT_EQ(r.value().bytes("kv_cache"), 268435456);
}

// InternLM2 (remote code modeling_internlm2.py of internlm/internlm2_5-7b-chat: InternLM2Attention.wqkv
// Linear(h, (a + 2k) d, bias=config.bias), wo Linear(a d, h, bias=config.bias); InternLM2MLP w1 / w3 (h -> i) and
// w2 (i -> h) without bias; attention_norm and ffn_norm RMSNorms; tok_embeddings and the untied output V x h).
// internlm2_5-7b: h 4096, L 32, a 32, k 8, d 128, i 14336, V 92544, bias false.
//   wqkv 4096 x (32 + 16) x 128 = 25,165,824; wo 16,777,216; MLP 3 x 4096 x 14336 = 176,160,768; norms 8,192:
//   a layer 218,112,000; x 32 = 6,979,584,000; embeddings + output 2 x 92544 x 4096 = 758,120,448; norm 4,096.
//   Total 7,737,708,544 = llmfit's parameters_raw for internlm/internlm2_5-7b-chat.
// internlm2-chat-20b: h 6144, L 48, a 48, k 8, i 16384: a layer 6144 x 64 x 128 + 6144^2 + 3 x 6144 x 16384 +
//   2 x 6144 = 390,082,560; x 48 + 2 x 92544 x 6144 + 6144 = 19,861,149,696 = llmfit's for internlm2-chat-20b.
TEST(families, internlm2) {
  const std::string dims = R"("model_type": "internlm2", "architectures": ["InternLM2ForCausalLM"], "bias": false,
    "num_key_value_heads": 8, "vocab_size": 92544, "rms_norm_eps": 1e-05, "tie_word_embeddings": false, )";
  const std::string b7 = "{" + dims + R"("hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32})";
  EXPECT_EQ(config_params(b7), 7737708544);
  EXPECT_EQ(parsed_config(b7).at("attention_bias"), "none");
  EXPECT_EQ(config_params("{" + dims + R"("hidden_size": 6144, "intermediate_size": 16384, "num_hidden_layers": 48,
    "num_attention_heads": 48})"),
            19861149696);
  // InternLM2Config's default bias is true: wqkv and wo gain (a + 2k) d + h = 6,144 + 4,096 per layer.
  std::string biased = b7;
  biased.replace(biased.find("\"bias\": false"), 13, "\"bias\": true");
  EXPECT_EQ(config_params(biased), 7737708544 + 32 * (6144 + 4096));
}

// Cohere2 (modeling_cohere2.py @v4.56): Cohere's layout (one weight-only CohereLayerNorm per layer before the
// parallel attention and MLP, q/k/v/o and a gated MLP without biases, tied embeddings), three sliding-window layers
// then a global one (sliding_window_pattern 4). c4ai-command-r7b-12-2024: h 4096, L 32, a 32, k 8, d 128,
// i 14336, V 256000.
//   attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040; MLP 3 x 4096 x 14336 = 176,160,768; norm 4,096:
//   a layer 218,107,904; x 32 = 6,979,452,928; embed_tokens 256000 x 4096 = 1,048,576,000; final norm 4,096.
//   Total 8,028,033,024 = llmfit's parameters_raw for CohereLabs/c4ai-command-r7b-12-2024.
// KV cache at batch 1, seq 16,384, bf16: 8 global layers 2 x 8 x 16384 x 8 x 128 x 2 B = 536,870,912;
// 24 sliding layers 2 x 24 x 4096 x 8 x 128 x 2 B = 402,653,184.
TEST(families, cohere2) {
  const std::string r7b = R"({"model_type": "cohere2", "architectures": ["Cohere2ForCausalLM"], "hidden_size": 4096,
    "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    "vocab_size": 256000, "sliding_window": 4096, "sliding_window_pattern": 4, "layer_norm_eps": 1e-05,
    "logit_scale": 0.25, "attention_bias": false})";
  EXPECT_EQ(config_params(r7b), 8028033024);
  const auto s = parsed_config(r7b);
  EXPECT_EQ(s.at("norms_per_layer"), "1");
  EXPECT_EQ(s.at("sliding_window_pattern"), "4");
  EXPECT_EQ(s.at("tie_word_embeddings"), "on");
  auto r = estimate({{"mode", "inference"}, {"runtime", "transformers"}, {"seq", "16384"}, {"batch", "1"}}, s);
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  EXPECT_EQ(item(r.value(), "kv_cache", "full-attention layers"), 536870912);
  EXPECT_EQ(item(r.value(), "kv_cache", "sliding-window layers"), 402653184);
  // Newer configs write layer_types instead; a config without either gets the family's pattern of 4.
  std::string bare = r7b;
  const std::string pattern = ", \"sliding_window_pattern\": 4";
  bare.replace(bare.find(pattern), pattern.size(), "");
  EXPECT_EQ(parsed_config(bare).at("sliding_window_pattern"), "4");
}

// ---- encoders ------------------------------------------------------------------------------------------------------

// DistilBERT (modeling_distilbert.py @v4.56), distilbert-base-uncased: dim 768, 6 layers, 12 heads, hidden_dim 3072,
// V 30522, P 512. Embeddings 30522 x 768 + 512 x 768 + LayerNorm 1,536 = 23,835,648 (no token types); a layer as
// BERT's 7,087,872, x 6 = 42,527,232; no pooler: DistilBertModel 66,362,880 = llmfit's parameters_raw for
// sentence-transformers/distilbert-base-nli-mean-tokens (a DistilBertModel). DistilBertForMaskedLM adds
// vocab_transform 768^2 + 768, vocab_layer_norm 1,536 and the tied projector's bias 30,522: 66,985,530.
const std::string distilbert = R"({"architectures": ["DistilBertForMaskedLM"], "model_type": "distilbert",
  "dim": 768, "n_layers": 6, "n_heads": 12, "hidden_dim": 3072, "vocab_size": 30522, "max_position_embeddings": 512,
  "sinusoidal_pos_embds": false, "tie_weights_": true, "activation": "gelu"})";

TEST(families, distilbert) {
  EXPECT_EQ(config_params(distilbert), 66985530);
  std::string model = distilbert;
  model.replace(model.find("DistilBertForMaskedLM"), 21, "DistilBertModel");
  EXPECT_EQ(config_params(model), 66362880);
  const auto s = parsed_config(model);
  EXPECT_EQ(s.at("architecture"), "encoder");
  EXPECT_EQ(s.at("hidden_size"), "768");
  EXPECT_EQ(s.at("intermediate_size"), "3072");
  EXPECT_EQ(s.at("num_labels"), "1");
  // Sequence classification: pre_classifier 768^2 + 768 and classifier 768 x 2 + 2 on the bare model.
  std::string classifier = distilbert;
  classifier.replace(classifier.find("DistilBertForMaskedLM"), 21, "DistilBertForSequenceClassification");
  EXPECT_EQ(config_params(classifier), 66362880 + 590592 + 1538);
}

// ALBERT (modeling_albert.py @v4.56), albert-base-v2: E 128, h 768, 12 layers sharing one group, i 3072, V 30000,
// P 512, 2 token types. Embeddings 30000 x 128 + 512 x 128 + 2 x 128 + LayerNorm 256 = 3,906,048; mapping
// 128 x 768 + 768 = 99,072; ONE layer 7,087,872 (counted once); pooler 590,592: AlbertModel 11,683,584 = keras-hub
// albert_presets.py albert_base_en_uncased "params" (keras-team/keras-hub@2413f1e9:
// keras_hub/src/models/albert/albert_presets.py). AlbertForMaskedLM: no pooler, AlbertMLMHead 768 x 128 + 128 + 256
// + bias 30000 = 128,688: 11,221,680. albert-xxlarge-v2 (h 4096, i 16384, 12 layers): 222,595,584 = keras-hub's
// albert_extra_extra_large_en_uncased.
const std::string albert_base = R"({"architectures": ["AlbertForMaskedLM"], "model_type": "albert",
  "embedding_size": 128, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
  "intermediate_size": 3072, "num_hidden_groups": 1, "inner_group_num": 1, "vocab_size": 30000,
  "max_position_embeddings": 512, "type_vocab_size": 2, "hidden_act": "gelu_new"})";

TEST(families, albert) {
  EXPECT_EQ(config_params(albert_base), 11221680);
  std::string model = albert_base;
  model.replace(model.find("AlbertForMaskedLM"), 17, "AlbertModel");
  EXPECT_EQ(config_params(model), 11683584);
  std::string xxl = model;
  xxl.replace(xxl.find("\"hidden_size\": 768"), 18, "\"hidden_size\": 4096");
  xxl.replace(xxl.find("\"intermediate_size\": 3072"), 25, "\"intermediate_size\": 16384");
  xxl.replace(xxl.find("\"num_attention_heads\": 12"), 25, "\"num_attention_heads\": 64");
  EXPECT_EQ(config_params(xxl), 222595584);
  const auto s = parsed_config(albert_base);
  EXPECT_EQ(s.at("embedding_size"), "128");
  EXPECT_EQ(s.at("num_hidden_groups"), "1");
  // inner_group_num > 1 (several layers per group) is refused, naming the field.
  std::string inner = albert_base;
  inner.replace(inner.find("\"inner_group_num\": 1"), 20, "\"inner_group_num\": 2");
  EXPECT_FALSE(parse_config(inner).ok());
}

// ALBERT training activations: the 12 layers share one set of weights, but each of the 12 runs keeps its own saved
// tensors. albert-base-v2 (MLM head), generic framework, standard attention, batch 1, seq 128, bf16, full fine-tuning
// (dropout on, as for BERT). One BERT-shaped layer at T = 128, h 768, a 12, i 3072 (the count estimate.cpp uses,
// Korthikanti et al. generalised): norm inputs 2 x 2 B x T h = 393,216; q/k/v input 2 T h = 196,608; q, k, v and
// the o input 2 B x T x 4 x 768 = 786,432; attention dropout mask T h = 98,304; scores 2 x 12 x 128^2 = 393,216
// and dropout mask + dropped scores 3 x 12 x 128^2 = 589,824; MLP T x (2 h + 2 x 2 x 3072) = 1,769,472; residual
// dropout mask 98,304: 4,325,376 per layer, x 12 layers = 51,904,512 (the same as 12 distinct layers), while the
// weights are one layer's: parameters 11,221,680 x 2 B = 22,443,360.
TEST(families, albert_training_activations) {
  auto r = estimate(
      {{"framework", "generic"}, {"attention", "standard"}, {"seq", "128"}, {"batch", "1"}, {"weights_dtype", "bf16"}},
      parsed_config(albert_base));
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  EXPECT_EQ(item(r.value(), "activations", "transformer layers"), 12.0 * 4325376);
  EXPECT_EQ(item(r.value(), "parameters", "weights"), 2.0 * 11221680);
  // Pipeline stages over the shared layer are refused.
  auto staged = resolve({{"pp", "2"}, {"devices", "2"}}, parsed_config(albert_base));
  ASSERT_FALSE(staged.ok());
  EXPECT_EQ(staged.errors().front().setting, "pp");
}

// ELECTRA (modeling_electra.py @v4.56). electra-small-discriminator: E 128, h 256, 12 layers, 4 heads, i 1024,
// V 30522, P 512, 2 token types. Embeddings 30522 x 128 + 512 x 128 + 2 x 128 + 256 = 3,973,120 (token types in
// extra_params); embeddings_project 128 x 256 + 256 = 33,024; a layer 4 (256^2 + 256) + (256 x 1024 + 1024) +
// (1024 x 256 + 256) + 1,024 = 789,760, x 12 = 9,477,120: ElectraModel 13,483,008; keras-hub's
// electra_small_discriminator_uncased_en "params" 13,548,800 is that plus a pooler 256^2 + 256 = 65,792 its backbone
// keeps (keras-team/keras-hub@2413f1e9:keras_hub/src/models/electra/electra_presets.py). ElectraForPreTraining adds
// discriminator_predictions 256^2 + 256 + 256 + 1 = 66,049: 13,549,057. electra-base-discriminator (E = h = 768, no
// projection): ElectraModel 108,891,648 = keras-hub's 109,482,240 less its pooler 590,592.
TEST(families, electra) {
  const std::string small = R"({"architectures": ["ElectraForPreTraining"], "model_type": "electra",
    "embedding_size": 128, "hidden_size": 256, "num_hidden_layers": 12, "num_attention_heads": 4,
    "intermediate_size": 1024, "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2})";
  EXPECT_EQ(config_params(small), 13549057);
  EXPECT_EQ(parsed_config(small).at("num_labels"), "1");  // one replaced-token logit per token
  std::string model = small;
  model.replace(model.find("ElectraForPreTraining"), 21, "ElectraModel");
  EXPECT_EQ(config_params(model), 13483008);
  const std::string base = R"({"architectures": ["ElectraModel"], "model_type": "electra", "embedding_size": 768,
    "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
    "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2})";
  EXPECT_EQ(config_params(base), 108891648);
}

// ---- encoder-decoders ----------------------------------------------------------------------------------------------

// UMT5 (modeling_umt5.py @v4.56), google/umt5-small: d_model 512, d_kv 64, 6 heads (inner 384), d_ff 1024 gated-gelu,
// 8 + 8 layers, V 256384, 32 buckets, lm_head untied. Shared embedding and lm_head 2 x 256384 x 512 = 262,537,216;
// an encoder layer 4 x 512 x 384 + 3 x 512 x 1024 + 2 x 512 = 2,360,320, x 8 = 18,882,560; a decoder layer
// 2 x 786,432 + 1,572,864 + 3 x 512 = 3,147,264, x 8 = 25,178,112; a relative_attention_bias in EVERY self-attention
// 16 x 32 x 6 = 3,072 (T5: 2 x 32 x 6); final norms 1,024. Total 306,601,984 (mT5-small's 300,176,768 with the
// larger vocabulary, + 6,422,528, and 14 more bias tables, + 2,688).
TEST(families, umt5) {
  const std::string small = R"({"architectures": ["UMT5ForConditionalGeneration"], "model_type": "umt5",
    "d_model": 512, "d_kv": 64, "d_ff": 1024, "num_heads": 6, "num_layers": 8, "num_decoder_layers": 8,
    "vocab_size": 256384, "relative_attention_num_buckets": 32, "feed_forward_proj": "gated-gelu",
    "tie_word_embeddings": false})";
  EXPECT_EQ(config_params(small), 306601984);
  const auto s = parsed_config(small);
  EXPECT_EQ(s.at("architecture"), "encoder_decoder");
  EXPECT_EQ(s.at("extra_params"), "4096");  // 3,072 bias tables + 1,024 final norms
}

// mBART (modeling_mbart.py @v4.56), facebook/mbart-large-cc25: d 1024, 12 + 12 layers, 16 heads, FFN 4096,
// V 250027, P 1024. Shared embedding 250027 x 1024 = 256,027,648; positions 2 x 1026 x 1024 = 2,101,248 (offset 2);
// layernorm_embedding 2 x 2,048 and the final layer_norm of each stack 2 x 2,048 = 8,192; encoder layers 12 x
// 12,596,224 = 151,154,688; decoder layers 12 x 16,796,672 = 201,560,064. Total 610,851,840 (BART-large's layer
// shapes, docs/models.md; mbart-large-50's V 250054: 610,879,488).
TEST(families, mbart) {
  const std::string cc25 = R"({"architectures": ["MBartForConditionalGeneration"], "model_type": "mbart",
    "d_model": 1024, "encoder_layers": 12, "decoder_layers": 12, "encoder_attention_heads": 16,
    "decoder_attention_heads": 16, "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096, "vocab_size": 250027,
    "max_position_embeddings": 1024, "scale_embedding": true, "add_final_layer_norm": true})";
  EXPECT_EQ(config_params(cc25), 610851840);
  // The final norms do not depend on add_final_layer_norm (MBartEncoder / MBartDecoder always hold layer_norm).
  std::string without = cc25;
  const std::string flag = ", \"add_final_layer_norm\": true";
  without.replace(without.find(flag), flag.size(), "");
  EXPECT_EQ(config_params(without), 610851840);
}

// Pegasus (modeling_pegasus.py @v4.56), google/pegasus-large: d 1024, 16 + 16 layers, 16 heads, FFN 4096,
// V 96103. Shared embedding 96103 x 1024 = 98,409,472; no layernorm_embedding; sinusoidal positions (not stored);
// final layer_norms 2 x 2,048 = 4,096; encoder 16 x 12,596,224 = 201,539,584; decoder 16 x 16,796,672 =
// 268,746,752. Total 568,699,904 (the "568M" of the Pegasus model cards).
TEST(families, pegasus) {
  const std::string large = R"({"architectures": ["PegasusForConditionalGeneration"], "model_type": "pegasus",
    "d_model": 1024, "encoder_layers": 16, "decoder_layers": 16, "encoder_attention_heads": 16,
    "decoder_attention_heads": 16, "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096, "vocab_size": 96103,
    "max_position_embeddings": 1024, "scale_embedding": true})";
  EXPECT_EQ(config_params(large), 568699904);
  const auto s = parsed_config(large);
  EXPECT_EQ(s.at("position_embedding"), "none");
  EXPECT_EQ(s.at("embedding_norm"), "off");
}

}  // namespace
