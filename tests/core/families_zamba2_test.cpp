// SPDX-License-Identifier: MIT
// Issue 32, Zamba2 (Mamba-2 layers and shared attention + MLP blocks applied at the hybrid layers,
// layers/shared_attention_mamba.cpp, families/zamba2.cpp). Every number is summed by hand from transformers
// models/zamba2/modeling_zamba2.py (Zamba2MambaMixer, Zamba2Attention, Zamba2MLP, Zamba2HybridLayer,
// Zamba2HybridDynamicCache) and vLLM model_executor/models/zamba2.py (one Attention per application); docs/models.md.
#include <gtest/gtest.h>

#include "run_support.hpp"

#include <string>

#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::item;
using test::resolved;

// A Zamba2-2.7B-shaped config.json: 54 layers in Zamba2Config's default list (hybrid at 6, 12, ..., 42, 47, 51: nine),
// two shared blocks, MLP adapters of rank 128, no attention adapters.
const std::string zamba2_2_7b = R"({"architectures": ["Zamba2ForCausalLM"], "model_type": "zamba2",
    "hidden_size": 2560, "num_hidden_layers": 54, "num_attention_heads": 32, "num_key_value_heads": 32,
    "intermediate_size": 10240, "vocab_size": 32000, "mamba_d_state": 64, "mamba_d_conv": 4, "mamba_expand": 2,
    "mamba_ngroups": 1, "n_mamba_heads": 80, "mamba_headdim": 64, "num_mem_blocks": 2, "adapter_rank": 128,
    "use_shared_attention_adapter": false, "use_mem_rope": false, "add_bias_linear": false,
    "max_position_embeddings": 4096})";

// Per layer (54): Mamba-2 inner 80 x 64 = 5,120, conv_dim 5,120 + 2 x 64 = 5,248; in_proj 2,560 x (2 x 5,120 + 128 +
// 80) = 26,746,880; conv1d 5,248 x 4 + 5,248 bias = 26,240; dt_bias, A_log, D 3 x 80 = 240; gated norm 5,120;
// out_proj 5,120 x 2,560 = 13,107,200; input_layernorm 2,560: 39,888,240 x 54 = 2,153,964,960. Each hybrid layer's
// linear 2,560^2 = 6,553,600 x 9 = 58,982,400. Each shared block (head_dim 2 x 2,560 / 32 = 160): input_layernorm
// 5,120; q, k, v 3 x 5,120 x 5,120 = 78,643,200; o_proj 5,120 x 2,560 = 13,107,200; pre_ff_layernorm 2,560;
// gate_up 2,560 x 20,480 = 52,428,800; down 10,240 x 2,560 = 26,214,400: 170,401,280 x 2 = 340,802,560. The MLP
// adapter per application 2,560 x 128 + 128 x 20,480 = 2,949,120 x 9 = 26,542,080. Tied embeddings 32,000 x 2,560 =
// 81,920,000; final norm 2,560. Sum: 2,662,214,560.
TEST(families_zamba2, zamba2_2_7b_by_hand) {
  auto config = parse_config(zamba2_2_7b);
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  EXPECT_EQ(config.value().at("head_dim"), "160");
  EXPECT_EQ(config.value().at("extra_params"), "367344640");  // 340,802,560 + 26,542,080
  const run_spec r = resolved({}, config.value());
  EXPECT_EQ(r.model.params.total, 2662214560.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::shared_attention_mamba, 54), 9);
  EXPECT_EQ(r.model.layers_of(layer_kind::mamba, 54), 45);
}

// The same with attention adapters and one shared block (Zamba2-1.2B's layout): 38 layers, hybrid at 5, 11, ..., 35
// (six); h 2,048, inner 4,096 in 64 heads of 64, d_state 128, intermediate 8,192. Per layer: in_proj 2,048 x (8,192
// + 256 + 64) = 17,432,576; conv1d (4,096 + 256) x 5 = 21,760; 3 x 64 = 192; norm 4,096; out_proj 4,096 x 2,048 =
// 8,388,608; input norm 2,048: 25,849,280 x 38 = 982,272,640. Linears 6 x 2,048^2 = 25,165,824. One block (head_dim
// 128): input_layernorm 4,096; q, k, v 3 x 4,096 x 4,096 = 50,331,648; o 4,096 x 2,048 = 8,388,608; pre_ff 2,048;
// gate_up 2,048 x 16,384 = 33,554,432; down 16,777,216: 109,058,048. Adapters per application:
// MLP 2,048 x 128 + 128 x 16,384 = 2,359,296; q, k, v 3 x (4,096 x 128 x 2) = 3,145,728: 5,505,024 x 6 = 33,030,144.
// Tied embeddings 32,000 x 2,048 = 65,536,000; final norm 2,048. Sum: 1,215,064,704.
TEST(families_zamba2, attention_adapters_and_one_block_by_hand) {
  std::string layers = "[";
  for (int i = 0; i < 38; ++i) layers += std::string(i ? "," : "") + (i % 6 == 5 ? "\"hybrid\"" : "\"mamba\"");
  const std::string text = R"({"model_type": "zamba2", "hidden_size": 2048, "num_hidden_layers": 38,
      "num_attention_heads": 32, "num_key_value_heads": 32, "intermediate_size": 8192, "vocab_size": 32000,
      "mamba_d_state": 128, "mamba_ngroups": 1, "n_mamba_heads": 64, "num_mem_blocks": 1, "adapter_rank": 128,
      "use_shared_attention_adapter": true, "use_mem_rope": true, "layers_block_type": )" +
                           layers + "]}";
  auto config = parse_config(text);
  ASSERT_TRUE(config.ok()) << to_string(config.errors().front());
  EXPECT_EQ(config.value().at("position_embedding"), "rope");
  EXPECT_EQ(resolved({}, config.value()).model.params.total, 1215064704.0);
}

// The presets (core/data/models.json) against their published totals. zamba2-1.2b is the layout above:
// 1,215,064,704, the checkpoint header's count and the Hub total of Zyphra/Zamba2-1.2B-instruct. zamba2-7b-instruct
// (h 3,584, 81 layers, 13 hybrid, two blocks, inner 7,168 in 112 heads of 64, 2 groups, d_state 64, I 14,336, MLP
// adapters only): per layer in_proj 3,584 x (14,336 + 256 + 112) = 52,699,136; conv1d (7,168 + 256) x 5 = 37,120;
// 3 x 112 = 336; norm 7,168; out_proj 7,168 x 3,584 = 25,690,112; input norm 3,584: 78,437,456 x 81 =
// 6,353,433,936. Linears 13 x 3,584^2 = 166,985,728. Each block (head_dim 7,168 / 32 = 224): q, k, v 3 x 7,168^2 =
// 154,140,672; o 7,168 x 3,584 = 25,690,112; norms 7,168 + 3,584; gate_up 3,584 x 28,672 = 102,760,448; down
// 14,336 x 3,584 = 51,380,224: 333,982,208 x 2 = 667,964,416. MLP adapters 13 x (3,584 x 128 + 128 x 28,672) =
// 53,673,984. Tied embeddings 32,000 x 3,584 = 114,688,000; final norm 3,584. Sum: 7,356,749,648, the Hub total.
TEST(families_zamba2, presets_match_their_published_totals) {
  EXPECT_EQ(resolved({{"model", "zamba2-1.2b"}}).model.params.total, 1215064704.0);
  EXPECT_EQ(resolved({{"model", "zamba2-1.2b-instruct"}}).model.params.total, 1215064704.0);
  const run_spec seven = resolved({{"model", "zamba2-7b-instruct"}});
  EXPECT_EQ(seven.model.params.total, 7356749648.0);
  EXPECT_EQ(seven.model.layers_of(layer_kind::shared_attention_mamba, 81), 13);
  EXPECT_EQ(seven.model.layers_of(layer_kind::mamba, 81), 68);
  // The checkpoints ship bf16: the first inference try loads them so (vLLM, runtime auto).
  EXPECT_EQ(resolved({{"model", "zamba2-7b-instruct"}, {"mode", "inference"}}).values.weights_dtype, "bf16");
}

// vLLM (bf16, mamba_ssm_cache_dtype auto): keys and values in the nine hybrid layers only, 2 x 32 heads x 160 x 2 B =
// 20,480 B per token and layer; the Mamba-2 state in all 54 layers (45 Mamba, 9 hybrid: two items), conv (4 - 1) x
// 5,248 x 2 B = 31,488 B and SSM 80 x 64 x 64 x 2 B = 655,360 B per sequence.
TEST(families_zamba2, vllm_kv_in_hybrid_layers_state_in_every_layer) {
  auto config = parse_config(zamba2_2_7b);
  ASSERT_TRUE(config.ok());
  const estimate_result e = estimate(
      resolved({{"mode", "inference"}, {"runtime", "vllm"}, {"batch", "2"}, {"seq", "1000"}, {"weights_dtype", "bf16"}},
               config.value()));
  EXPECT_EQ(item(e, "full-attention layers"), 2 * 1000 * 9 * 20480.0);
  EXPECT_EQ(item(e, "Mamba state (SSM + conv, per sequence)"), 2 * 45 * (3.0 * 5248 * 2 + 80.0 * 64 * 64 * 2));
  EXPECT_EQ(item(e, "Mamba state of the hybrid layers (per sequence)"), 2 * 9 * (3.0 * 5248 * 2 + 80.0 * 64 * 64 * 2));
}

// transformers' Zamba2HybridDynamicCache keeps conv_states of d_conv (4) columns, not d_conv - 1: 4 x 5,248 x 2 B =
// 41,984 B per layer and sequence, and the SSM state in the model's dtype (dtype=self.dtype: bf16 here, where the
// runtime's other recurrent caches keep fp32), 80 x 64 x 64 x 2 B = 655,360 B, in all 54 layers (45 + 9).
TEST(families_zamba2, transformers_conv_state_keeps_d_conv_columns) {
  auto config = parse_config(zamba2_2_7b);
  ASSERT_TRUE(config.ok());
  const estimate_result e = estimate(resolved(
      {{"mode", "inference"}, {"runtime", "transformers"}, {"batch", "1"}, {"seq", "512"}, {"weights_dtype", "bf16"}},
      config.value()));
  EXPECT_EQ(item(e, "Mamba state (SSM + conv, per sequence)"), 45 * (4.0 * 5248 * 2 + 80.0 * 64 * 64 * 2));
  EXPECT_EQ(item(e, "Mamba state of the hybrid layers (per sequence)"), 9 * (4.0 * 5248 * 2 + 80.0 * 64 * 64 * 2));
}

// llama.cpp has no Zamba2 architecture, and TGI refuses every kind with a recurrent state: both name the runtime.
TEST(families_zamba2, llamacpp_and_tgi_refuse) {
  auto config = parse_config(zamba2_2_7b);
  ASSERT_TRUE(config.ok());
  for (const char* runtime : {"llamacpp", "tgi"}) {
    const auto r = estimate({{"mode", "inference"}, {"runtime", runtime}}, config.value());
    ASSERT_FALSE(r.ok()) << runtime;
    EXPECT_EQ(r.errors()[0].setting, "runtime") << runtime;
  }
}

// LoRA on the Mamba-2 mixers: in_proj 2,560 x 10,448 and out_proj 5,120 x 2,560 in all 54 layers at rank 8 (PEFT:
// r x (in + out) each): 8 x (2,560 + 10,448 + 5,120 + 2,560) = 165,504 x 54 = 8,937,216. A target in the shared
// blocks (q_proj, all-linear) is refused naming lora_targets: no layer holds those modules. The adapters are kept in
// fp32 (4 B each).
TEST(families_zamba2, lora_on_the_mixers_only) {
  auto config = parse_config(zamba2_2_7b);
  ASSERT_TRUE(config.ok());
  const run_spec r =
      resolved({{"mode", "train"}, {"finetune", "lora"}, {"lora_rank", "8"}, {"lora_targets", "in_proj,out_proj"}},
               config.value());
  EXPECT_EQ(item(estimate(r), "LoRA adapters"), 8937216.0 * 4);
  for (const char* targets : {"q_proj,v_proj", "all-linear"}) {
    const auto refused = resolve({{"mode", "train"}, {"finetune", "lora"}, {"lora_targets", targets}}, config.value());
    ASSERT_FALSE(refused.ok()) << targets;
    EXPECT_EQ(refused.errors()[0].setting, "lora_targets") << targets;
  }
}

// A layers_block_type entry other than mamba or hybrid, and a list of the wrong length, are refused naming layer_types.
TEST(families_zamba2, bad_layer_lists_are_refused) {
  const auto wrong = parse_config(R"({"model_type": "zamba2", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "n_mamba_heads": 2, "layers_block_type": ["mamba", "attention"]})");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.errors()[0].setting, "layer_types");
  const auto short_list = parse_config(R"({"model_type": "zamba2", "hidden_size": 64, "num_hidden_layers": 3,
      "num_attention_heads": 4, "vocab_size": 100, "n_mamba_heads": 2, "layers_block_type": ["mamba", "hybrid"]})");
  ASSERT_FALSE(short_list.ok());
  EXPECT_EQ(short_list.errors()[0].setting, "layer_types");
}

}  // namespace
