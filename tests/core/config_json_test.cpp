// SPDX-License-Identifier: MIT
// config.json import: the shipped configs (tests/data/configs/<preset id>.json) reproduce their presets; field
// names per model_type; malformed or hostile documents give errors naming the setting, never a crash.
#include "llm_memory/config_json.hpp"
#include "config_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "llm_memory/model.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using namespace llm_memory::test;

double preset_params(const std::string& id) {
  auto r = resolve({{"model", id}});
  EXPECT_TRUE(r.ok()) << id;
  return r.ok() ? r.value().model.params.total : 0;
}

// Some message of `errors` names `setting` and contains `text`.
bool has_error(const result<settings>& r, std::string_view setting, std::string_view text = "") {
  if (r.ok()) return false;
  for (const auto& e : r.errors())
    if (e.setting == setting && e.message.find(text) != std::string::npos) return true;
  return false;
}

TEST(config_json, shipped_configs_reproduce_their_presets) {
  const std::filesystem::path dir = std::filesystem::path(LLM_MEMORY_TESTS_DIR) / "data" / "configs";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;  // families/: configs of families without a preset (encoders_test)
    const std::string id = entry.path().stem().string();
    ASSERT_NE(find_model(id), nullptr) << id << ".json has no preset";
    EXPECT_EQ(config_params(file_text(entry.path())), preset_params(id)) << id;
    ++count;
  }
  EXPECT_GE(count, 6);
}

// GPT-2 names: n_embd, n_layer, n_head, n_positions; n_inner null = 4 x n_embd. LayerNorms with bias, biases on
// every linear, learned positions, tied head: 124,439,808 (model_test derives it).
TEST(config_json, intermediate_size_zero_is_refused) {
  // Issue 37: the setting's 0 means 4 x hidden_size; a config.json's 0 is not silently read that way.
  const auto r = parse_config(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                                  "num_attention_heads": 32, "intermediate_size": 0, "vocab_size": 32000})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "intermediate_size");
}

TEST(config_json, gpt2_field_names) {
  const auto s =
      parsed_config(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024,
                           "n_inner": null, "vocab_size": 50257})");
  EXPECT_EQ(s.at("hidden_size"), "768");
  EXPECT_EQ(s.at("max_position_embeddings"), "1024");
  EXPECT_EQ(s.at("norm"), "layernorm");
  EXPECT_EQ(s.at("attention_bias"), "all");
  EXPECT_EQ(s.at("tie_word_embeddings"), "on");
  EXPECT_FALSE(s.contains("intermediate_size"));
  EXPECT_EQ(config_params(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12,
                                "n_positions": 1024, "vocab_size": 50257})"),
            124439808);
}

TEST(config_json, expert_count_names) {
  for (const char* name : {"num_local_experts", "num_experts", "n_routed_experts"}) {
    const auto s = parsed_config(std::string(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                                          "vocab_size": 100, "num_experts_per_tok": 2, ")") +
                                 name + "\": 8}");
    EXPECT_EQ(s.at("num_experts"), "8") << name;
  }
}

// Falcon: multi_query means one k/v head; parallel attention shares one LayerNorm; the new decoder has
// num_kv_heads and two LayerNorms (ln_attn, ln_mlp); "bias" switches every linear's bias.
TEST(config_json, falcon_flags) {
  auto s = parsed_config(R"({"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71,
                      "num_hidden_layers": 32, "vocab_size": 65024, "multi_query": true, "parallel_attn": true,
                      "new_decoder_architecture": false, "bias": false})");
  EXPECT_EQ(s.at("num_key_value_heads"), "1");
  EXPECT_EQ(s.at("norms_per_layer"), "1");
  EXPECT_EQ(s.at("mlp"), "plain");
  EXPECT_EQ(s.at("attention_bias"), "none");
  s = parsed_config(R"({"model_type": "falcon", "hidden_size": 8192, "num_attention_heads": 128, "num_kv_heads": 8,
                 "num_hidden_layers": 60, "vocab_size": 65024, "new_decoder_architecture": true, "bias": true})");
  EXPECT_EQ(s.at("num_key_value_heads"), "8");
  EXPECT_EQ(s.at("norms_per_layer"), "2");
  EXPECT_EQ(s.at("attention_bias"), "all");
  EXPECT_EQ(s.at("mlp_bias"), "on");
}

// Multimodal wrappers: the language model is text_config; Gemma 3 fills what it omits from Gemma3TextConfig.
TEST(config_json, nested_text_config) {
  const auto s = parsed_config(R"({"model_type": "gemma3", "vision_config": {"hidden_size": 1152},
                            "text_config": {"model_type": "gemma3_text", "hidden_size": 2560,
                                            "intermediate_size": 10240, "num_hidden_layers": 34}})");
  EXPECT_EQ(s.at("hidden_size"), "2560");
  EXPECT_EQ(s.at("num_attention_heads"), "8");
  EXPECT_EQ(s.at("head_dim"), "256");
  EXPECT_EQ(s.at("vocab_size"), "262208");
  EXPECT_EQ(s.at("qk_norm"), "head");
  EXPECT_EQ(s.at("norms_per_layer"), "4");
  EXPECT_EQ(s.at("sliding_window_pattern"), "6");
}

TEST(config_json, layer_types_and_sliding_windows) {
  const std::string base = R"({"hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4, "vocab_size": 100,
                               "sliding_window": 512, )";
  // Five sliding layers, then a global one: every 6th layer is global.
  auto s = parsed_config(base + R"("layer_types": ["sliding_attention", "sliding_attention", "sliding_attention",
                          "sliding_attention", "sliding_attention", "full_attention"]})");
  EXPECT_EQ(s.at("sliding_window"), "512");
  EXPECT_EQ(s.at("sliding_window_pattern"), "6");
  // Alternating (Gemma 2 style, global second).
  s = parsed_config(base + R"("layer_types": ["sliding_attention", "full_attention", "sliding_attention",
                       "full_attention", "sliding_attention", "full_attention"]})");
  EXPECT_EQ(s.at("sliding_window_pattern"), "2");
  // Every layer global: the window is not used.
  s = parsed_config(base + R"("layer_types": ["full_attention", "full_attention", "full_attention", "full_attention",
                       "full_attention", "full_attention"]})");
  EXPECT_EQ(s.at("sliding_window"), "0");
  // Qwen2 keeps a sliding_window it does not use.
  s = parsed_config(base + R"("use_sliding_window": false})");
  EXPECT_EQ(s.at("sliding_window"), "0");
  EXPECT_TRUE(has_error(parse_config(base + R"("layer_types": [1, 2]})"), "sliding_window_pattern"));
}

TEST(config_json, family_conventions) {
  const std::string dims = R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100)";
  EXPECT_EQ(parsed_config(R"({"model_type": "qwen2", )" + dims + "}").at("attention_bias"), "qkv");
  EXPECT_EQ(parsed_config(R"({"model_type": "qwen3", )" + dims + "}").at("qk_norm"), "head");
  EXPECT_EQ(parsed_config(R"({"model_type": "olmo2", )" + dims + "}").at("qk_norm"), "full");
  EXPECT_EQ(parsed_config(R"({"model_type": "llama", )" + dims + "}").at("tie_word_embeddings"), "off");
  EXPECT_EQ(parsed_config(R"({"model_type": "gemma2", )" + dims + "}").at("tie_word_embeddings"), "on");
  EXPECT_EQ(parsed_config(R"({"model_type": "llama", "attention_bias": true, )" + dims + "}").at("attention_bias"),
            "all");
  EXPECT_EQ(
      parsed_config(R"({"model_type": "deepseek_v3", "topk_method": "noaux_tc", )" + dims + "}").at("router_bias"),
      "on");
}

TEST(config_json, unknown_fields_are_ignored_missing_ones_named) {
  const auto s =
      parsed_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
                            "some_future_field": {"nested": [1, 2, 3]}, "rope_scaling": null})");
  EXPECT_FALSE(s.contains("some_future_field"));
  const auto r = parse_config(R"({"model_type": "llama", "hidden_size": 64})");
  EXPECT_TRUE(has_error(r, "num_hidden_layers", "num_hidden_layers"));
  EXPECT_TRUE(has_error(r, "num_attention_heads"));
  EXPECT_TRUE(has_error(r, "vocab_size"));
}

TEST(config_json, malformed_documents_are_errors) {
  const std::string full =
      file_text(std::filesystem::path(LLM_MEMORY_TESTS_DIR) / "data" / "configs" / "deepseek-v3.json");
  // Every truncation of a real config is rejected with a message, never a crash.
  for (std::size_t n = 0; n + 1 < full.size(); n += 7) {
    const auto r = parse_config(std::string_view(full).substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.errors().front().setting, "config.json");
  }
  EXPECT_TRUE(has_error(parse_config("{\"hidden_size\": 64,"), "config.json", "byte"));
  EXPECT_TRUE(has_error(parse_config("[1, 2]"), "config.json", "object"));
  EXPECT_TRUE(has_error(parse_config(""), "config.json"));
  EXPECT_TRUE(has_error(parse_config("{\"a\": 1} trailing"), "config.json"));
}

TEST(config_json, wrong_types_and_ranges_name_the_setting) {
  const std::string rest = R"("num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100})";
  EXPECT_TRUE(has_error(parse_config(R"({"hidden_size": "4096", )" + rest), "hidden_size", "whole number"));
  EXPECT_TRUE(has_error(parse_config(R"({"hidden_size": -1, )" + rest), "hidden_size"));
  EXPECT_TRUE(has_error(parse_config(R"({"hidden_size": 1e300, )" + rest), "hidden_size"));
  EXPECT_TRUE(has_error(parse_config(R"({"hidden_size": 64.5, )" + rest), "hidden_size"));
  EXPECT_TRUE(has_error(parse_config(R"({"hidden_size": true, )" + rest), "hidden_size"));
  EXPECT_TRUE(has_error(parse_config(R"({"hidden_size": [64], )" + rest), "hidden_size"));
  EXPECT_TRUE(
      has_error(parse_config(R"({"hidden_size": 64, "tie_word_embeddings": "yes", )" + rest), "tie_word_embeddings"));
  EXPECT_TRUE(
      has_error(parse_config(R"({"hidden_size": 64, "num_key_value_heads": 1e9, )" + rest), "num_key_value_heads"));
}

// Issue 20: a value nested 90,000 deep crashed the CLI (nlohmann's dump() recurses once per level while
// quoting the bad value). check_json_text() refuses such text before any parser sees it.
std::string nested(std::size_t levels, char open = '[', char close = ']') {
  if (open == '{') {  // {"a":{"a":...{}...}}: levels objects
    std::string text;
    for (std::size_t i = 1; i < levels; ++i) text += "{\"a\":";
    return text + "{}" + std::string(levels - 1, '}');
  }
  return std::string(levels, open) + std::string(levels, close);
}

TEST(config_json, deep_nesting_is_refused_naming_the_field) {
  const std::string rest = R"(, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100})";
  for (const std::size_t levels : {std::size_t{100000}, max_json_depth}) {  // the document is one level more
    const auto r = parse_config(R"({"hidden_size": )" + nested(levels) + rest);
    EXPECT_TRUE(has_error(r, "config.json", "field \"hidden_size\" nests arrays and objects more than 64 levels"))
        << levels;
  }
  const auto objects = parse_config(R"({"rope_scaling": )" + nested(100000, '{') + rest);
  EXPECT_TRUE(has_error(objects, "config.json", "field \"rope_scaling\""));
  // A later field is named, past string values that hold brackets, quotes and backslashes.
  const auto later = parse_config(R"({"name": "[[{\"[\\", "hidden_size": 64, "x": )" + nested(70) + rest);
  EXPECT_TRUE(has_error(later, "config.json", "field \"x\""));
  EXPECT_TRUE(has_error(parse_config(nested(100000)), "config.json", "entry 0"));
  EXPECT_TRUE(has_error(parse_config(std::string(100000, '{')), "config.json", "more than 64 levels"));
}

TEST(config_json, nesting_up_to_the_limit_and_brackets_in_strings_are_read) {
  // 63 levels under the document's own: the nesting is accepted, and hidden_size's type is the problem.
  const std::string rest = R"(, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100})";
  const auto at_limit = parse_config(R"({"hidden_size": )" + nested(max_json_depth - 1) + rest);
  EXPECT_TRUE(has_error(at_limit, "hidden_size", "whole number"));
  EXPECT_FALSE(has_error(at_limit, "config.json"));
  const auto in_string = parse_config(R"({"name": ")" + std::string(1000, '[') + R"(\"", "hidden_size": 64)" + rest);
  EXPECT_TRUE(in_string.ok());
}

TEST(config_json, documents_over_the_size_limit_are_refused) {
  const std::string head =
      R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "pad": ")";
  const auto document = [&](std::size_t size) {  // a valid config.json of exactly `size` bytes
    std::string text = head;
    text.append(size - head.size() - 2, 'x');
    text += "\"}";
    return text;
  };
  ASSERT_EQ(document(max_json_bytes).size(), max_json_bytes);
  EXPECT_TRUE(parse_config(document(max_json_bytes)).ok());
  EXPECT_TRUE(has_error(parse_config(document(max_json_bytes + 1)), "config.json", "larger than 16 MiB"));
}

// Issue 18: an encoder, encoder-decoder or recurrent model_type no family counts is refused, naming it; since issue
// 32 an unknown decoder with the standard fields is counted as a Llama-style one with a note
// (families_gemma3n_test.cpp), and refused without them.
TEST(config_json, unknown_model_types_are_refused_by_name) {
  const std::string dims = R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100})";
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "camembert", )" + dims), "model_type",
                        "\"camembert\" is an encoder-only"));
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "marian", )" + dims), "model_type", "encoder-decoder"));
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "mamba", )" + dims), "model_type", "state-space"));
  EXPECT_TRUE(parse_config(R"({"model_type": "my_new_arch", )" + dims).ok());
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "my_new_arch", "vocab_size": 100})"), "model_type",
                        "\"my_new_arch\" is not a family"));
  // The multimodal wrapper's type is read when text_config has none.
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "whisper", "text_config": {)" + dims + "}"), "model_type"));
  // Without a model_type the fields describe a custom Llama-like decoder (tied, as PretrainedConfig).
  EXPECT_EQ(parsed_config("{" + dims).at("tie_word_embeddings"), "on");
}

// Issue 18's families: the fields their modeling files hard-wire (docs/models.md, "Families").
TEST(config_json, issue_18_family_conventions) {
  const std::string dims = R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100)";
  auto s = parsed_config(R"({"model_type": "gpt_bigcode", "n_positions": 1024, )" + dims + "}");
  EXPECT_EQ(s.at("num_key_value_heads"), "1");  // multi_query defaults to true
  EXPECT_EQ(s.at("position_embedding"), "learned");
  EXPECT_FALSE(parsed_config(R"({"model_type": "gpt_bigcode", "multi_query": false, )" + dims + "}")
                   .contains("num_key_value_heads"));
  s = parsed_config(
      R"({"model_type": "bloom", "n_embed": 64, "n_layer": 2, "num_attention_heads": 4, "vocab_size": 100})");
  EXPECT_EQ(s.at("hidden_size"), "64");
  EXPECT_EQ(s.at("embedding_norm"), "on");
  EXPECT_EQ(s.at("position_embedding"), "none");
  // OPT's learned table has P + 2 rows (OPTLearnedPositionalEmbedding); ffn_dim is the MLP width.
  s = parsed_config(R"({"model_type": "opt", "max_position_embeddings": 2048, "ffn_dim": 256, )" + dims + "}");
  EXPECT_EQ(s.at("max_position_embeddings"), "2050");
  EXPECT_EQ(s.at("intermediate_size"), "256");
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "opt", "word_embed_proj_dim": 32, )" + dims + "}"),
                        "hidden_size", "word_embed_proj_dim"));
  s = parsed_config(R"({"model_type": "phi", "qk_layernorm": true, )" + dims + "}");
  EXPECT_EQ(s.at("lm_head_bias"), "on");
  EXPECT_EQ(s.at("norms_per_layer"), "1");
  EXPECT_EQ(s.at("qk_norm"), "head");
  s = parsed_config(R"({"model_type": "gpt_oss", "experts_per_token": 4, "num_local_experts": 32, )" + dims + "}");
  EXPECT_EQ(s.at("num_experts_per_tok"), "4");
  EXPECT_EQ(s.at("attention_sinks"), "on");
  EXPECT_EQ(s.at("router_bias"), "on");
  EXPECT_EQ(s.at("mlp_bias"), "on");
  // gpt-oss without layer_types: GptOssConfig's default alternates, layer i sliding when (i + 1) % 2 (every 2nd layer
  // full attention; configuration_gpt_oss.py), as every published gpt-oss config.json lists it.
  s = parsed_config(R"({"model_type": "gpt_oss", "sliding_window": 128, )" + dims + "}");
  EXPECT_EQ(s.at("sliding_window"), "128");
  EXPECT_EQ(s.at("sliding_window_pattern"), "2");
  // Llama 4: intermediate_size is the expert (and shared-expert) width, intermediate_size_mlp the dense one.
  s = parsed_config(R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text", "intermediate_size": 32,
                 "intermediate_size_mlp": 256, "interleave_moe_layer_step": 2, "num_local_experts": 4, )" +
                    dims + "}}");
  EXPECT_EQ(s.at("moe_intermediate_size"), "32");
  EXPECT_EQ(s.at("shared_expert_intermediate_size"), "32");
  EXPECT_EQ(s.at("intermediate_size"), "256");
  EXPECT_EQ(s.at("moe_layer_step"), "2");
  EXPECT_EQ(parsed_config(R"({"model_type": "smollm3", )" + dims + "}").at("tie_word_embeddings"), "on");
  EXPECT_EQ(parsed_config(R"({"model_type": "cohere", "use_qk_norm": true, )" + dims + "}").at("qk_norm"), "full");
  // Layouts the settings cannot express are refused, naming the field.
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "qwen2_moe", "mlp_only_layers": [1], )" + dims + "}"),
                        "moe_layer_step", "mlp_only_layers"));
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "deepseek_v2", "moe_layer_freq": 2, )" + dims + "}"),
                        "moe_layer_step", "moe_layer_freq"));
}

}  // namespace
