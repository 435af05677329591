// SPDX-License-Identifier: MIT
// Issue 32 item 6: the 2025-26 presets of docs/research/presets-2026-12.md, each counted by hand from its config
// (core/data/models.json) and equal to its published total (the preset's source; tests/validation/published.json).
// The Qwen3.5 0.8B / 2B / 4B sizes are in families_gdn_test.cpp (qwen3_5_family_by_hand), their formats and the
// other presets' first tries in shipped_formats_test.cpp.
#include <gtest/gtest.h>

#include "run_support.hpp"

#include "layers/layer_kinds.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;
using test::resolved;

double total_of(const char* id) { return resolved({{"model", id}}).model.params.total; }

// Granite 4.0-H Micro (granitemoehybrid, dense): per Mamba-2 layer in_proj 2,048 x (2 x 4,096 + 2 x 128 + 64) =
// 17,432,576, conv1d (4,096 + 256) x (4 + 1) = 21,760, A_log, D, dt_bias 3 x 64, gated norm 4,096, out_proj 4,096 x
// 2,048 = 8,388,608: 25,847,232; per attention layer q, o 2,048^2 and k, v 2,048 x 512: 10,485,760; every layer a
// SwiGLU of 8,192 (3 x 2,048 x 8,192 = 50,331,648) and two norms 4,096. Tied embedding 100,352 x 2,048 = 205,520,896,
// final norm 2,048: 205,522,944 + 36 x 76,182,976 + 4 x 60,821,504 = 3,191,396,096 (the Hub's safetensors.total).
TEST(presets_2026, granite_4_0_h_micro_by_hand) {
  const double mamba = 2048.0 * (2 * 4096 + 2 * 128 + 64) + (4096 + 256) * 5 + 3 * 64 + 4096 + 4096.0 * 2048;
  const double attention = 2 * 2048.0 * 2048 + 2 * 2048.0 * 512;
  const double mlp_norms = 3 * 2048.0 * 8192 + 2 * 2048;
  EXPECT_EQ(mamba, 25847232.0);
  EXPECT_EQ(100352.0 * 2048 + 2048 + 36 * (mamba + mlp_norms) + 4 * (attention + mlp_norms), 3191396096.0);
  const run_spec r = resolved({{"model", "granite-4.0-h-micro"}});
  EXPECT_EQ(r.model.params.total, 3191396096.0);
  EXPECT_EQ(r.model.layers_of(layer_kind::attention, 40), 4);
  EXPECT_EQ(r.model.params.moe_layers(), 0);
  EXPECT_EQ(r.values.max_position_embeddings, 131072);
}

// Nemotron-H-8B-Base-8K (nemotron_h; Megatron-Bridge's NemotronHModelProvider8B): 24 Mamba-2 blocks of in_proj
// 4,096 x (2 x 8,192 + 2 x 8 x 128 + 128) = 76,021,760, conv1d (8,192 + 2,048) x 5 = 51,200, 3 x 128, gated norm
// 8,192, out_proj 8,192 x 4,096 = 33,554,432: 109,635,968; 4 attention blocks 2 x 4,096^2 + 2 x 4,096 x 1,024 =
// 41,943,040; 24 relu2 MLP blocks 2 x 4,096 x 21,504 = 176,160,768; one norm per block (52 x 4,096); untied embedding
// and head 2 x 131,072 x 4,096 and the final norm: 8,100,852,736 (the Hub's safetensors.total).
TEST(presets_2026, nemotron_h_8b_base_by_hand) {
  const double mamba = 4096.0 * (2 * 8192 + 2 * 8 * 128 + 128) + (8192 + 2048) * 5 + 3 * 128 + 8192 + 8192.0 * 4096;
  EXPECT_EQ(mamba, 109635968.0);
  const double expected = 24 * mamba + 4 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024) + 24 * (2 * 4096.0 * 21504) +
                          52 * 4096.0 + 2 * 131072.0 * 4096 + 4096;
  EXPECT_EQ(expected, 8100852736.0);
  const run_spec r = resolved({{"model", "nemotron-h-8b-base-8k"}});
  EXPECT_EQ(r.model.params.total, 8100852736.0);
  EXPECT_EQ(r.values.max_position_embeddings, 8192);
}

// GLM-4.7-Flash (glm4_moe_lite: DeepSeek-V3's MLA in GLM-4.5's MoE layers). MLA per layer q_a 2,048 x 768 + its norm
// 768 + q_b 768 x 20 x 256 + kv_a 2,048 x 576 + its norm 512 + kv_b 512 x 20 x 448 + o 20 x 256 x 2,048 =
// 21,759,232; the dense layer's SwiGLU 3 x 2,048 x 10,240; each of the 46 MoE layers 65 experts (64 routed and the
// shared one) x 3 x 2,048 x 1,536 + router 2,048 x 64 + e_score_correction_bias 64 = 613,548,096; two norms per
// layer; untied embedding and head 2 x 154,880 x 2,048; final norm: 29,943,393,920. The MTP layer as stored: one MoE
// layer (21,759,232 + 613,548,096 + 2 x 2,048), enorm and hnorm, eh_proj 4,096 x 2,048, shared_head.norm, its own
// embedding and head 2 x 154,880 x 2,048: 1,278,094,656. Sum 31,221,488,576 (the Hub's safetensors.total).
TEST(presets_2026, glm_4_7_flash_by_hand) {
  const double mla = 2048.0 * 768 + 768 + 768.0 * 20 * 256 + 2048.0 * 576 + 512 + 512.0 * 20 * 448 + 20.0 * 256 * 2048;
  const double moe = 65 * 3 * 2048.0 * 1536 + 2048.0 * 64 + 64;
  EXPECT_EQ(mla, 21759232.0);
  EXPECT_EQ(moe, 613548096.0);
  const double text = 47 * (mla + 2 * 2048) + 3 * 2048.0 * 10240 + 46 * moe + 2 * 154880.0 * 2048 + 2048;
  const double mtp = mla + moe + 2 * 2048 + 2 * 2048 + 4096.0 * 2048 + 2048 + 2 * 154880.0 * 2048;
  EXPECT_EQ(text, 29943393920.0);
  EXPECT_EQ(mtp, 1278094656.0);
  const run_spec r = resolved({{"model", "glm-4.7-flash"}});
  EXPECT_EQ(r.model.params.total, text + mtp);
  EXPECT_EQ(r.model.params.total, 31221488576.0);
  EXPECT_EQ(r.model.params.mtp, mtp);
  EXPECT_EQ(r.model.params.moe_layers(), 46);
  EXPECT_EQ(r.values.max_position_embeddings, 202752);
}

// Ministral 3 (mistral3 wrapper, ministral3 text model = Mistral's layers): per layer q, o 2 x 32 x 128 x h, k, v
// 2 x 8 x 128 x h, SwiGLU 3 x h x I, two norms. The Pixtral tower 403,305,472 (patch conv 3 x 14 x 14 x 1,024 =
// 602,112, ln_pre 1,024, 24 layers x 16,779,264) and the Mistral 3 projector (norm 1,024, patch merger 4,096 x 1,024,
// linear_1 1,024 x h, linear_2 h x h, no biases).
//   3B (h 3,072, I 9,216, 26 layers, tied): 26 x 116,398,080 + 131,072 x 3,072 + 3,072 = 3,429,006,336; projector
//   16,778,240: 3,849,090,048 = the Hub total of the FP8 Instruct repo (no scales in it).
//   8B (h 4,096, I 14,336, 34 layers, untied): 34 x 218,112,000 + 2 x 131,072 x 4,096 + 4,096 = 8,489,553,920;
//   projector 25,166,848: 8,918,026,240 = the Hub total 8,918,026,716 less the FP8 checkpoint's 34 x 7 x 2 = 476
//   per-tensor scales (presets_test's documented difference).
TEST(presets_2026, ministral_3_by_hand) {
  const auto text = [](double h, double inter, double layers, bool tied) {
    return layers * (2 * 32 * 128 * h + 2 * 8 * 128 * h + 3 * h * inter + 2 * h) + 131072 * h * (tied ? 1 : 2) + h;
  };
  const double pixtral = 3 * 14 * 14 * 1024.0 + 1024 + 24 * 16779264.0;
  const auto projector = [](double h) { return 1024 + 4096 * 1024.0 + 1024 * h + h * h; };
  EXPECT_EQ(pixtral, 403305472.0);
  EXPECT_EQ(text(3072, 9216, 26, true), 3429006336.0);
  EXPECT_EQ(text(4096, 14336, 34, false), 8489553920.0);
  const run_spec small = resolved({{"model", "ministral-3-3b-instruct-2512"}});
  EXPECT_EQ(small.model.params.total, 3849090048.0);
  EXPECT_EQ(small.model.params.vision, pixtral + projector(3072));
  EXPECT_TRUE(small.values.tie_word_embeddings);
  const run_spec eight = resolved({{"model", "ministral-3-8b-instruct-2512"}});
  EXPECT_EQ(eight.model.params.total, text(4096, 14336, 34, false) + pixtral + projector(4096));
  EXPECT_EQ(eight.model.params.total + 34 * 7 * 2, find_model("ministral-3-8b-instruct-2512")->official_params);
  EXPECT_FALSE(eight.values.tie_word_embeddings);
  EXPECT_EQ(eight.values.max_position_embeddings, 262144);
  EXPECT_EQ(eight.values.sliding_window, 0);
}

// Magistral Small 2506 / 2507 (Devstral's shape, text only): attention 5,120 x 4,096 x 2 + 5,120 x 1,024 x 2 =
// 52,428,800, SwiGLU 3 x 5,120 x 32,768 = 503,316,480, norms 10,240 per layer; untied 2 x 131,072 x 5,120, final norm:
// 2 x 671,088,640 + 5,120 + 40 x 555,755,520 = 23,572,403,200 (keras-hub's count_params of either checkpoint).
// Mistral Small 3.1 2503 adds the Pixtral tower 403,305,472 and the projector 1,024 + 4,194,304 + 1,024 x 5,120 +
// 5,120^2 = 35,652,608: 24,011,361,280 (keras-hub, base and instruct alike).
TEST(presets_2026, magistral_and_mistral_small_3_1_by_hand) {
  const double text =
      2 * 131072.0 * 5120 + 5120 + 40 * (2 * 5120.0 * 4096 + 2 * 5120.0 * 1024 + 3 * 5120.0 * 32768 + 2 * 5120);
  EXPECT_EQ(text, 23572403200.0);
  EXPECT_EQ(total_of("magistral-small-2506"), text);
  EXPECT_EQ(total_of("magistral-small-2507"), text);
  const double vision = 403305472.0 + 1024 + 4194304 + 1024 * 5120.0 + 5120.0 * 5120;
  EXPECT_EQ(total_of("mistral-small-3.1-24b-instruct-2503"), text + vision);
  EXPECT_EQ(total_of("mistral-small-3.1-24b-base-2503"), 24011361280.0);
  // Contexts: Magistral's as its converted copies carry it (the preset's note), Mistral Small 3.1's 128K.
  EXPECT_EQ(resolved({{"model", "magistral-small-2506"}}).values.max_position_embeddings, 49152);
  EXPECT_EQ(resolved({{"model", "mistral-small-3.1-24b-instruct-2503"}}).values.max_position_embeddings, 131072);
}

// Qwen3.6 (and Qwen3.5) 27B and 35B-A3B FP8: the bf16 presets' models (their counts: families_gdn_test.cpp) in e4m3
// with one fp32 scale per 128 x 128 block, which the Hub totals count. Scales per quantised linear [out, in] are
// ceil(out / 128) x ceil(in / 128). 27B (h 5,120, 48 value heads of 128 and 16 key heads: qkv 10,240, z 6,144; 24 Q
// heads of 256 with the output gate: q 12,288; 4 KV heads: k, v 1,024; MLP 17,408): per GDN layer 80 x 40 + 48 x 40 +
// 40 x 48 = 7,040, per attention layer 96 x 40 + 2 x 8 x 40 + 40 x 48 = 6,400, per MLP 3 x 136 x 40 = 16,320; 48 GDN
// layers, 17 attention layers (the MTP layer's included), 65 MLPs: 1,507,520. 35B-A3B (h 2,048, qkv 8,192, z 4,096,
// q 8,192, k, v 512, 257 experts of 512 counting the shared one): 64 x 16 + 32 x 16 + 16 x 32 = 2,048; 64 x 16 +
// 2 x 4 x 16 + 16 x 32 = 1,664; 257 x (2 x 4 x 16 + 16 x 4) = 49,344; 30 x 2,048 + 11 x 1,664 + 41 x 49,344 =
// 2,102,848. in_proj_a / in_proj_b, routers, mtp.fc, embeddings, head and vision carry none: only that set gives
// the published totals 27,782,935,472 and 35,953,925,552 (llmfit's registry, both commits).
TEST(presets_2026, qwen3_6_fp8_by_hand) {
  const double scales_27b =
      48 * (80 * 40 + 48 * 40 + 40 * 48.0) + 17 * (96 * 40 + 2 * 8 * 40 + 40 * 48.0) + 65 * (3 * 136 * 40.0);
  const double scales_35b = 30 * (64 * 16 + 32 * 16 + 16 * 32.0) + 11 * (64 * 16 + 2 * 4 * 16 + 16 * 32.0) +
                            41 * (257 * (2 * 4 * 16 + 16 * 4.0));
  EXPECT_EQ(scales_27b, 1507520.0);
  EXPECT_EQ(scales_35b, 2102848.0);
  const run_spec dense = resolved({{"model", "qwen3.6-27b-fp8"}});
  EXPECT_EQ(dense.model.params.total, 27781427952.0);  // the bf16 checkpoint's total, the same model
  EXPECT_EQ(dense.model.params.total + scales_27b, 27782935472.0);
  EXPECT_EQ(dense.values.max_position_embeddings, 262144);
  EXPECT_EQ(dense.values.sliding_window, 0);
  const run_spec moe = resolved({{"model", "qwen3.6-35b-a3b-fp8"}});
  EXPECT_EQ(moe.model.params.total, 35951822704.0);
  EXPECT_EQ(moe.model.params.total + scales_35b, 35953925552.0);
  EXPECT_EQ(moe.model.params.moe_layers(), 40);
  // The Qwen3.5 FP8 repos publish the same totals: aliases.
  ASSERT_NE(find_model("qwen3.5-27b-fp8"), nullptr);
  EXPECT_EQ(find_model("qwen3.5-27b-fp8"), find_model("qwen3.6-27b-fp8"));
  EXPECT_EQ(find_model("qwen3.5-35b-a3b-fp8"), find_model("qwen3.6-35b-a3b-fp8"));
}

// NVIDIA Nemotron 3 Nano 30B-A3B: the preset's count is llama.cpp's n-params, 31,577,940,288 (docs/models.md derives
// it: 23 Mamba-2 blocks of 38,744,896, 23 MoE blocks of 1,297,468,160, 6 attention blocks of 23,399,040, embedding and
// head 2 x 131,072 x 2,688, final norm 2,688). The Hub totals of the BF16, Base-BF16, unsloth and Nemotron-Cascade-2
// repos are all 31,577,937,344: the count less the 23 MoE blocks' e_score_correction_bias, 23 x 128 = 2,944.
TEST(presets_2026, nemotron_3_nano_hub_total) {
  const double count = 23 * 38744896.0 + 23 * 1297468160.0 + 6 * 23399040.0 + 2 * 131072.0 * 2688 + 2688;
  EXPECT_EQ(count, 31577940288.0);
  EXPECT_EQ(total_of("nvidia-nemotron-3-nano-30b-a3b-bf16"), count);
  EXPECT_EQ(count - 23 * 128, 31577937344.0);
  for (const char* alias :
       {"nvidia-nemotron-3-nano-30b-a3b-base-bf16", "nemotron-3-nano-30b-a3b", "nemotron-cascade-2-30b-a3b"})
    EXPECT_EQ(find_model(alias), find_model("nvidia-nemotron-3-nano-30b-a3b-bf16")) << alias;
  EXPECT_NE(find_model("nemotron-cascade-2-30b-a3b"), nullptr);
}

// Gemma 3n E2B and E4B (docs/models.md, Gemma 3n): the text counts of families_gemma3n_test.cpp (E2B 4,456,156,768,
// E4B 6,866,696,688) and the same multimodal parts (families_gemma3n_towers_test.cpp): MobileNet-V5 294,126,912 +
// Conformer 681,348,640 + embedders 7,805,952 = 983,281,504. E4B 7,849,978,192 = the Hub total of a bf16 copy; E2B
// 5,439,438,272 = keras-hub's 5,439,595,456 less its 157,184 zero conv biases (presets_test.cpp).
TEST(presets_2026, gemma_3n_by_hand) {
  EXPECT_EQ(4456156768.0 + 983281504.0, 5439438272.0);
  EXPECT_EQ(total_of("gemma-3n-e2b"), 5439438272.0);
  EXPECT_EQ(total_of("gemma-3n-e4b"), 7849978192.0);
  EXPECT_EQ(find_model("gemma-3n-e2b-it"), find_model("gemma-3n-e2b"));
  EXPECT_EQ(find_model("gemma-3n-e4b-it"), find_model("gemma-3n-e4b"));
  EXPECT_EQ(total_of("google/gemma-3n-E2B-it"), 5439438272.0);  // a Hub repo id names its preset
  const run_spec r = resolved({{"model", "gemma-3n-e4b"}, {"mode", "inference"}});
  EXPECT_EQ(r.model.params.vision, 983281504.0);
  EXPECT_EQ(r.values.max_position_embeddings, 32768);
  EXPECT_EQ(r.values.sliding_window, 512);
  EXPECT_EQ(r.values.weights_dtype, "bf16");
  // vLLM (and transformers) load the whole Gemma3nForConditionalGeneration: the text weights and, as their own item,
  // the towers and embedders, bf16: 6,866,696,688 x 2 B and 983,281,504 x 2 B.
  const estimate_result v = test::estimated({{"model", "gemma-3n-e4b"}, {"mode", "inference"}, {"runtime", "vllm"}});
  EXPECT_EQ(test::item(v, "weights"), 2 * 6866696688.0);
  EXPECT_EQ(test::item(v, "vision tower"), 2 * 983281504.0);
  // llama.cpp and Ollama load the text GGUF; the towers are the separate mmproj file, not loaded here.
  for (const char* runtime : {"llamacpp", "ollama"})
    EXPECT_EQ(test::item(test::estimated({{"model", "gemma-3n-e4b"}, {"mode", "inference"}, {"runtime", runtime}}),
                         "vision tower"),
              -1)
        << runtime;
}

// NVIDIA Nemotron 3 Super 120B-A12B (nemotron_h with moe_latent_size 1,024 and one MTP step; the FP8 repo's
// config.json, docs/research/presets-2026-12b.md section 2). Per block one RMSNorm of 4,096 and its mixer:
//   Mamba-2 (d_inner 128 x 64 = 8,192, conv_dim 8,192 + 2 x 8 x 128 = 10,240): in_proj 4,096 x (8,192 + 10,240 + 128)
//     + conv1d 10,240 x 4 + its bias 10,240 + A_log, D, dt_bias 3 x 128 + gated norm 8,192 + out_proj 8,192 x 4,096
//     = 109,635,968;
//   attention: q, o 2 x 4,096 x 4,096 + k, v 2 x 4,096 x 256 = 35,651,584;
//   LatentMoE (modeling_nemotron_h.py NemotronHMoE / vLLM nemotron_h.py): router 512 x 4,096 = 2,097,152 and its
//     e_score_correction_bias 512; 512 experts x (up 1,024 x 2,688 + down 2,688 x 1,024) = 2,818,572,288 (the experts
//     read the 1,024-wide latent); shared expert 2 x 4,096 x 5,376 = 44,040,192; fc1_latent_proj and fc2_latent_proj
//     2 x 4,096 x 1,024 = 8,388,608: 2,873,098,240 + 512.
// Main model: 40 Mamba, 40 MoE, 8 attention blocks + embedding and untied head 2 x 131,072 x 4,096 + final norm =
// 120,668,687,360 + 40 x 512. MTP (vLLM nemotron_h_mtp.py, pattern "*E"): the attention block and the MoE block with
// their norms, enorm, hnorm, final_layernorm 3 x 4,096 and eh_proj 8,192 x 4,096 = 2,942,324,736 + 512. The Hub
// total 123,611,012,096 (BF16, Base and FP8 repos) is the count less the 41 x 512 router biases.
TEST(presets_2026, nemotron_3_super_by_hand) {
  const double h = 4096;
  const double mamba = h * (8192 + 10240 + 128) + 10240 * 4 + 10240 + 3 * 128 + 8192 + 8192 * h;
  const double attention = 2 * h * 4096 + 2 * h * 256;
  const double moe = 512 * h + 512 * 2 * 2688.0 * 1024 + 2 * h * 5376 + 2 * h * 1024;
  EXPECT_EQ(mamba, 109635968.0);
  EXPECT_EQ(attention, 35651584.0);
  EXPECT_EQ(moe, 2873098240.0);
  const double main = 40 * (mamba + h) + 40 * (moe + h) + 8 * (attention + h) + 2 * 131072 * h + h;
  const double mtp = (attention + h) + (moe + h) + 3 * h + 2 * h * h;
  EXPECT_EQ(main, 120668687360.0);
  EXPECT_EQ(mtp, 2942324736.0);
  EXPECT_EQ(main + mtp, 123611012096.0);
  for (const char* id : {"nvidia-nemotron-3-super-120b-a12b-bf16", "nvidia-nemotron-3-super-120b-a12b-fp8"}) {
    const run_spec r = resolved({{"model", id}});
    EXPECT_EQ(r.model.params.total, main + mtp + 41 * 512) << id;
    EXPECT_EQ(r.model.params.mtp, mtp + 512) << id;
    EXPECT_EQ(r.model.params.loaded(), main + 40 * 512) << id;  // no runtime loads the MTP step by default
    EXPECT_EQ(r.model.params.moe_layers(), 40) << id;
    // Active: the 490 experts a token skips in each of the 40 MoE blocks, 2 x 2,688 x 1,024 each, are out.
    EXPECT_EQ(r.model.params.active, main + 40 * 512 - 40 * 490 * (2 * 2688.0 * 1024)) << id;
    EXPECT_EQ(r.values.max_position_embeddings, 262144) << id;
  }
  EXPECT_EQ(find_model("nvidia-nemotron-3-super-120b-a12b-base-bf16"),
            find_model("nvidia-nemotron-3-super-120b-a12b-bf16"));
  EXPECT_EQ(find_model("nvidia-nemotron-3-super-120b-a12b-fp8")->official_params, 123611012096);
  // peft can name the latent projections: LoRA of rank 16 on both adds 16 x (4,096 + 1,024) per projection, x 2 x 40.
  const estimate_result lora = test::estimated({{"model", "nvidia-nemotron-3-super-120b-a12b-bf16"},
                                                {"finetune", "lora"},
                                                {"lora_rank", "16"},
                                                {"lora_targets", "fc1_latent_proj,fc2_latent_proj"}});
  EXPECT_EQ(lora.trainable_params, 40 * 2 * 16 * (4096 + 1024.0));
}

// Nemotron 3 Nano 30B-A3B FP8: the BF16 preset's model; its Hub total 31,577,946,256 is the count (31,577,940,288,
// nemotron_3_nano_hub_total) plus 5,968 = 23 x 128 x 2 routed + 23 x 2 shared-expert linears + in_proj and
// out_proj of the 17 Mamba blocks not followed by attention (2 x 17), one scale each (inferred). Nano 4B (dense,
// Megatron-Bridge's recipe fields): Mamba-2 (d_inner 96 x 80 = 7,680, conv_dim 7,680 + 2 x 8 x 128 = 9,728)
// in_proj 3,136 x (7,680 + 9,728 + 96) + conv1d and bias 9,728 x 5 + 3 x 96 + gated norm 7,680 + out_proj 7,680 x
// 3,136 = 79,033,632; attention 2 x 3,136 x 5,120 + 2 x 3,136 x 1,024 = 38,535,168; MLP 2 x 3,136 x 12,544 =
// 78,675,968; 21, 4 and 17 blocks with a norm each, untied 2 x 131,072 x 3,136, final norm: 3,973,556,832 = the FP8
// repo's 3,973,556,900 less 68 = 92 linears - 4 x 4 attention - 4 x 2 Mamba before attention (one scale each).
TEST(presets_2026, nemotron_3_nano_fp8_and_4b_by_hand) {
  const double nano = 31577940288.0;
  EXPECT_EQ(total_of("nvidia-nemotron-3-nano-30b-a3b-fp8"), nano);
  EXPECT_EQ(nano + 23 * 128 * 2 + 23 * 2 + 17 * 2, 31577946256.0);
  const double h = 3136;
  const double mamba = h * (7680 + 9728 + 96) + 9728 * 5 + 3 * 96 + 7680 + 7680 * h;
  const double attention = 2 * h * 5120 + 2 * h * 1024;
  const double mlp = 2 * h * 12544;
  EXPECT_EQ(mamba, 79033632.0);
  const double count = 21 * (mamba + h) + 4 * (attention + h) + 17 * (mlp + h) + 2 * 131072 * h + h;
  EXPECT_EQ(count, 3973556832.0);
  EXPECT_EQ(total_of("nvidia-nemotron-3-nano-4b-fp8"), count);
  EXPECT_EQ(count + (21 * 2 + 4 * 4 + 17 * 2) - 4 * 4 - 4 * 2, 3973556900.0);
}

}  // namespace
