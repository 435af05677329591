// SPDX-License-Identifier: MIT
// Issue 32: Gemma 3n (per-layer embeddings, AltUp, LAuReL, KV shared across the last layers) and an unknown
// model_type read as a Llama-style decoder. Every number is summed by hand from transformers'
// models/gemma3n/modeling_gemma3n.py (@00aa0f5d; docs/models.md).
#include <gtest/gtest.h>

#include "config_support.hpp"
#include "run_support.hpp"

#include <cmath>
#include <string>
#include <string_view>

#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::item;
using test::resolved;

// Whether `r` failed with an error on `setting` whose message holds `text`.
template <class T>
bool has_error(const result<T>& r, std::string_view setting, std::string_view text) {
  if (r.ok()) return false;
  for (const auto& e : r.errors())
    if (e.setting == setting && e.message.find(text) != std::string::npos) return true;
  return false;
}

double number(const std::string& text) { return std::stod(text); }

// google/gemma-3n-E2B-it's config.json, the fields the count reads (text_config as Gemma3nTextConfig writes it).
std::string gemma3n_config(int layers, int width, int shared) {
  std::string widths, types;
  for (int l = 0; l < layers; ++l) {
    widths += (l == 0 ? "" : ", ") + std::to_string(width);
    types += std::string(l == 0 ? "" : ", ") + (l % 5 == 4 ? "\"full_attention\"" : "\"sliding_attention\"");
  }
  return R"({"model_type": "gemma3n", "text_config": {"model_type": "gemma3n_text", "hidden_size": 2048,
      "num_hidden_layers": )" +
         std::to_string(layers) + R"(, "intermediate_size": [)" + widths + R"(], "num_attention_heads": 8,
      "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 262400, "vocab_size_per_layer_input": 262144,
      "hidden_size_per_layer_input": 256, "altup_num_inputs": 4, "laurel_rank": 64, "num_kv_shared_layers": )" +
         std::to_string(shared) + R"(, "sliding_window": 512, "max_position_embeddings": 32768,
      "layer_types": [)" +
         types +
         R"(]}, "vision_config": {"model_type": "gemma3n_vision", "hidden_size": 2048, "vocab_size": 128},
      "audio_config": {"model_type": "gemma3n_audio", "hidden_size": 1536, "vocab_size": 128}})";
}

// E2B (h 2,048, L 30, 8 heads, 2 KV heads of 256, MLP 8,192): per layer q and o 2 x 2,048 x 2,048 + k and v
// 2 x 2,048 x 512 = 10,485,760, q/k norms 512, MLP 3 x 2,048 x 8,192 = 50,331,648, four norms 8,192: 60,826,112;
// AltUp h + n^2 + n^3 + h n + h = 2,048 + 16 + 64 + 8,192 + 2,048 = 12,368; LAuReL 2 x 2,048 x 64 + 2,048 =
// 264,192; per-layer input 2 x 2,048 x 256 + 2,048 = 1,050,624: 62,153,296, x 30 = 1,864,598,880. Tied embedding
// 262,400 x 2,048 = 537,395,200, final norm 2,048. Once: embed_tokens_per_layer 262,144 x 30 x 256 = 2,013,265,920,
// per_layer_model_projection 2,048 x 7,680 = 15,728,640, its norm 256, AltUp projections 2 x 3 x 2,048^2 =
// 25,165,824. Text: 4,456,156,768 (LM Studio's text-only GGUF: 4.5B). Embedders: vision 128 x 2,048 + 2 x 2,048 +
// 2,048 x 2,048 = 4,460,544, audio 128 x 1,536 + 2 x 1,536 + 1,536 x 2,048 = 3,345,408. The towers at their
// defaults (families_gemma3n_towers_test.cpp derives them): MobileNet-V5 294,126,912, Conformer 681,348,640.
// vision_params 7,805,952 + 294,126,912 + 681,348,640 = 983,281,504.
TEST(families_gemma3n, e2b_by_hand) {
  const settings s = test::parsed_config(gemma3n_config(30, 8192, 10));
  EXPECT_EQ(s.at("intermediate_size"), "8192");
  EXPECT_EQ(s.at("sliding_window_pattern"), "5");
  EXPECT_EQ(s.at("num_kv_shared_layers"), "10");
  EXPECT_EQ(s.at("vision_params"), "983281504");
  EXPECT_NE(s.at("model_notes").find("Conformer audio encoder and their embedders (vision_params) are counted"),
            std::string::npos);
  const run_spec r = resolved({{"mode", "inference"}}, s);
  EXPECT_EQ(r.model.params.total, 4456156768.0 + 983281504.0);
}

// E4B: 35 layers of MLP 16,384 (3 x 2,048 x 16,384 = 100,663,296): per layer 111,157,760 + 1,327,184 extras,
// x 35 = 3,936,973,040; embedding and final norm 537,397,248; once 262,144 x 35 x 256 + 2,048 x 8,960 + 256 +
// 25,165,824 = 2,392,326,400. Text 6,866,696,688 (LM Studio: 6.9B).
TEST(families_gemma3n, e4b_by_hand) {
  const run_spec r = resolved({{"mode", "inference"}}, test::parsed_config(gemma3n_config(35, 16384, 15)));
  EXPECT_EQ(r.model.params.total, 6866696688.0 + 983281504.0);
}

// The published totals. E4B: lmstudio-community/gemma-3n-E4B-it-MLX-bf16, a bf16 copy of the checkpoint, totals
// 7,849,978,192 on the Hub (llmfit's registry, AlexsJones/llmfit@5bdc9df9 llmfit-core/data/hf_models.json) =
// 6,866,696,688 + 983,281,504 exactly. keras-hub's counts of the converted checkpoints (keras-team/keras-hub@71453d08
// gemma3n_presets.py "params"): E2B 5,439,595,456, E4B 7,850,135,376, each 157,184 above the count: keras-hub's
// port gives every ER/UIR conv a bias (mobilenetv5_blocks.py: use_bias when norm_layer is rms_norm) that timm's
// checkpoint lacks, one per output channel: ER (256 + 128) + 2 x (512 + 128) = 1,664; UIR blocks (dw_start in +
// pw_exp mid + dw_mid mid + pw_proj out) 149,632; the fusion adapter's 3,840 + 2,048 = 5,888: 157,184. The same
// difference in both sizes checks the text counts too: a wrong per-layer or once-only term would differ.
TEST(families_gemma3n, published_totals) {
  const double e2b =
      resolved({{"mode", "inference"}}, test::parsed_config(gemma3n_config(30, 8192, 10))).model.params.total;
  const double e4b =
      resolved({{"mode", "inference"}}, test::parsed_config(gemma3n_config(35, 16384, 15))).model.params.total;
  EXPECT_EQ(e4b, 7849978192.0);
  EXPECT_EQ(5439595456.0 - e2b, 1664.0 + 149632 + 5888);
  EXPECT_EQ(7850135376.0 - e4b, 157184.0);
}

// A MatFormer slice mixes widths: the narrowest is the model's, each wider layer adds 3 h (w - narrowest).
TEST(families_gemma3n, per_layer_widths) {
  std::string config = gemma3n_config(5, 8192, 0);
  config.replace(config.find("[8192"), 5, "[16384");
  const settings s = test::parsed_config(config);
  EXPECT_EQ(s.at("intermediate_size"), "8192");
  const settings narrow = test::parsed_config(gemma3n_config(5, 8192, 0));
  EXPECT_EQ(number(s.at("extra_params")) - number(narrow.at("extra_params")), 3.0 * 2048 * 8192);
  std::string short_list = gemma3n_config(5, 8192, 0);
  short_list.replace(short_list.find("8192, "), 6, "");
  EXPECT_TRUE(has_error(parse_config(short_list), "intermediate_size", "lists 4 widths for 5 layers"));
  // Another family with a list is refused, naming the field.
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": [128, 128]})"),
                        "intermediate_size", "per layer"));
}

// The last 10 of E2B's 30 layers read the KV of layers 18 and 19 (modeling_gemma3n.py is_kv_shared_layer): the
// first 20 cache, four sliding to one full: 4 full and 16 sliding layers. Batch 1, 4,096 tokens, bf16:
// full 2 x 4 x 4,096 x 2 x 256 x 2 B = 33,554,432; sliding 2 x 16 x 512 x 2 x 256 x 2 B = 16,777,216.
TEST(families_gemma3n, shared_layers_keep_no_cache) {
  const settings config = test::parsed_config(gemma3n_config(30, 8192, 10));
  const auto e =
      estimate({{"mode", "inference"}, {"runtime", "transformers"}, {"batch", "1"}, {"seq", "4096"}}, config);
  ASSERT_TRUE(e.ok()) << to_string(e.errors().front());
  EXPECT_EQ(item(e.value(), "full-attention layers"), 33554432.0);
  EXPECT_EQ(item(e.value(), "sliding-window layers"), 16777216.0);
  // llama.cpp (has_kv: n_layer_kv_from_start) keeps cells for the same 4 full layers: 4,096 cells x 2 x 256 x
  // (2 + 2) B (f16 K and V) = 4 x 4,096 x 2,048 B.
  const auto l = estimate({{"mode", "inference"}, {"runtime", "llamacpp"}, {"batch", "1"}, {"seq", "4096"}}, config);
  ASSERT_TRUE(l.ok()) << to_string(l.errors().front());
  EXPECT_EQ(item(l.value(), "full-attention layers"), 4.0 * 4096 * 2048);
  // vLLM groups the 20 cached layers (4 full, 16 sliding) in groups of 4 (vllm_hybrid_grouping: the smaller count,
  // 16 >= 1.5 x 4): 1 + 4 groups of one page size, 16 tokens x 2 x 2 KV heads x 256 x 2 B = 32,768 B; blocks =
  // floor(floor(available / page) / 4), the token line blocks // 5 x 16 (kv_cache_utils.py). Unshared, 6 and 24
  // layers would make groups of 6.
  const auto v = estimate({{"mode", "inference"}, {"runtime", "vllm"}, {"gpu", "h100"}, {"seq", "32768"}}, config);
  ASSERT_TRUE(v.ok()) << to_string(v.errors().front());
  const double available = v.value().runtime.kv_available, page = 16.0 * 2 * 2 * 256 * 2;
  const double blocks = std::floor(std::floor(available / page) / 4);
  EXPECT_GT(blocks, 0);
  EXPECT_EQ(v.value().runtime.kv_capacity_tokens, std::floor(blocks / 5) * 16);
  // A pipeline stage's share: the first 15 layers hold no shared layer, the first 25 five of them.
  const run_spec r = resolved({{"mode", "inference"}}, config);
  EXPECT_EQ(r.model.shared_layers_in(15), 0);
  EXPECT_EQ(r.model.shared_layers_in(25), 5);
  EXPECT_EQ(r.model.cached_layers_of(layer_kind::attention, 30), 4);
  EXPECT_EQ(r.model.cached_layers_of(layer_kind::sliding_attention, 30), 16);
  // Sharing every layer leaves none to share from.
  EXPECT_TRUE(has_error(resolve({{"num_kv_shared_layers", "30"}}, config), "num_kv_shared_layers", "below"));
}

// Issue 32 item 5: an unknown model_type with the standard decoder fields is counted as a Llama-style decoder, the
// assumptions named in a note; fields of layers a plain decoder would miscount are refused by name.
TEST(families_gemma3n, unknown_model_type_degrades_to_a_llama_style_decoder) {
  const std::string dims = R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 100)";
  const settings s = test::parsed_config(R"({"model_type": "my_new_arch", )" + dims + "}");
  EXPECT_NE(s.at("model_notes").find("\"my_new_arch\" is not known: counted as a Llama-style decoder"),
            std::string::npos);
  EXPECT_EQ(s.at("tie_word_embeddings"), "off");
  // Llama by hand: attention 4 x 64^2 = 16,384, MLP 3 x 64 x 128 = 24,576, two norms 128: 41,088 per layer, x 2;
  // embedding and lm_head 2 x 100 x 64 = 12,800; final norm 64: 95,040.
  EXPECT_EQ(resolved({}, s).model.params.total, 95040.0);
  const auto e = estimate({{"mode", "inference"}}, s);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value().notes.front(), s.at("model_notes"));
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "my_ssm", "mamba_d_state": 16, )" + dims + "}"), "model_type",
                        "its field \"mamba_d_state\""));
  EXPECT_TRUE(
      has_error(parse_config(R"({"model_type": "my_hybrid", "layer_types": ["full_attention", "linear_attention"], )" +
                             dims + "}"),
                "model_type", "\"layer_types\""));
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "my_new_arch", "hidden_size": 64})"), "model_type", "standard"));
  // A type this reader does not know with Gemma 4's fields would be miscounted as a Llama: the field is named.
  EXPECT_TRUE(has_error(parse_config(R"({"model_type": "my_gemma", "global_head_dim": 512, )" + dims + "}"),
                        "model_type", "\"global_head_dim\""));
}

}  // namespace
