// SPDX-License-Identifier: MIT
// Nemotron-H as the runtimes serve it: the FP8 checkpoints' per-tensor scales, the SSM state's dtype when the
// config does not name it, and LatentMoE's replicated projections and routers under tensor parallelism. Every number is
// summed by hand from the formula its comment cites.
#include <gtest/gtest.h>

#include "run_support.hpp"

#include <string>

#include "llm_memory/estimate.hpp"

namespace {

using namespace llm_memory;
using test::estimated;
using test::resolved;

const llm_memory::item* find_item(const estimate_result& e, const std::string& name) {
  for (const auto& b : e.buckets)
    for (const auto& i : b.items)
      if (i.name == name) return &i;
  return nullptr;
}

// Nemotron 3 Nano 4B FP8 (quant_method fp8, no weight_block_size: one fp32 weight_scale per tensor; the preset's
// model: presets_2026_test.cpp nemotron_3_nano_fp8_and_4b_by_hand). Per block, h 3,136:
//   Mamba-2: in_proj 3,136 x 17,504 + out_proj 7,680 x 3,136 = 54,892,544 + 24,084,480 = 78,977,024 in FP8 + 2 x 4 B
//     of scales; conv1d and its bias 9,728 x 5, A_log, D, dt_bias 3 x 96 and the gated norm 7,680 = 56,608 bf16;
//   attention: q, o 2 x 3,136 x 5,120 + k, v 2 x 3,136 x 1,024 = 38,535,168 in FP8 + 4 x 4 B;
//   MLP (relu2): up and down 2 x 3,136 x 12,544 = 78,675,968 in FP8 + 2 x 4 B.
// Layers: 21 x (78,977,024 + 8 + 2 x 56,608) + 4 x (38,535,168 + 16) + 17 x (78,675,968 + 8)
//   = 1,660,895,208 + 154,140,736 + 1,337,491,592 = 3,152,527,536 B; embedding, untied head and the 43 norms
//   2 x 131,072 x 3,136 + 43 x 3,136 = 822,083,584 + 134,848 = 822,218,432 values x 2 B = 1,644,436,864 B.
// Every block in FP8 here (quant_skip_layers emptied; the preset keeps 8 blocks 16-bit: quant_skip_layers_test.cpp).
TEST(nemotron_h_serving, fp8_per_tensor_scales_by_hand) {
  const double layers = 21 * (78977024.0 + 8 + 2 * 56608) + 4 * (38535168.0 + 16) + 17 * (78675968.0 + 8);
  EXPECT_EQ(layers, 3152527536.0);
  const settings s{{"model", "nvidia-nemotron-3-nano-4b-fp8"},
                   {"mode", "inference"},
                   {"runtime", "vllm"},
                   {"quant_skip_layers", ""}};
  EXPECT_EQ(resolved(s).values.weights_dtype, "fp8_block");
  EXPECT_EQ(resolved(s).values.quant_group_size, 0);
  const estimate_result e = estimated(s);
  EXPECT_EQ(test::item(e, "weights"), layers + 2 * (2 * 131072 * 3136.0 + 43 * 3136));
  const llm_memory::item* w = find_item(e, "weights");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->formula.find("fp8 (per-tensor scales)"), std::string::npos) << w->formula;
  // A block size keeps the block label.
  settings block = s;
  block["quant_group_size"] = "128";
  EXPECT_NE(find_item(estimated(block), "weights")->formula.find("fp8_block checkpoint layout"), std::string::npos);
}

// NVIDIA-Nemotron-Nano-9B-v2's config names no mamba_ssm_cache_dtype. Every runtime keeps its SSM state in fp32:
// vLLM's NemotronHForCausalLMConfig hook (DEFAULT_MAMBA_SSM_CACHE_DTYPE "float32"; transformers' NemotronHConfig
// defaults the field to "float32"), SGLang's mamba2_state_dtype ("float32" unless SGLANG_MAMBA_SSM_DTYPE),
// transformers' cache (the config's float32), llama.cpp's recurrent memory (GGML_TYPE_F32 R and S). Per Mamba layer
// and sequence: SSM 128 heads x 80 x d_state 128 x 4 B = 5,242,880 B; conv state conv_dim (128 x 80 + 2 x 8 x 128 =
// 12,288) x (conv_kernel 4 - 1) x 2 B = 73,728 B (transformers keeps the whole kernel: x 4 = 98,304 B); 27 layers.
TEST(nemotron_h_serving, ssm_state_is_fp32_on_every_runtime_without_the_field) {
  const settings run{{"model", "nvidia-nemotron-nano-9b-v2"}, {"mode", "inference"}, {"batch", "1"}};
  const double ssm = 128 * 80 * 128 * 4.0;
  EXPECT_EQ(ssm, 5242880.0);
  for (const char* runtime : {"vllm", "sglang"}) {
    settings s = run;
    s["runtime"] = runtime;
    EXPECT_EQ(test::item(estimated(s), "Mamba state (SSM + conv, per sequence)"), 27 * (73728 + ssm)) << runtime;
    EXPECT_EQ(resolved(s).state, dtype::fp32) << runtime;
  }
  settings hf = run;
  hf["runtime"] = "transformers";
  EXPECT_EQ(test::item(estimated(hf), "Mamba state (SSM + conv, per sequence)"), 27 * (98304 + ssm));
  // llama.cpp's RS buffer: R (conv_kernel - 1) x conv_dim and S in f32, -np 1: 27 x (3 x 12,288 x 4 + 5,242,880).
  settings cpp = run;
  cpp["runtime"] = "llamacpp";
  EXPECT_EQ(test::item(estimated(cpp), "RS buffer (llama_memory_recurrent: R and S in f32)"),
            27 * (3 * 12288 * 4.0 + ssm));
  // A state named in the config or the settings stays as named.
  settings bf16 = run;
  bf16["runtime"] = "vllm";
  bf16["state_dtype"] = "bf16";
  EXPECT_EQ(test::item(estimated(bf16), "Mamba state (SSM + conv, per sequence)"), 27 * (73728 + ssm / 2));
}

// LatentMoE's fc1_latent_proj and fc2_latent_proj are ReplicatedLinear in vLLM and SGLang (nemotron_h.py), and so is
// the router (its 512 x 4,096 weight and 512 biases, 2,097,664 values per block): at tp 4 each rank holds them whole,
// 40 blocks x (2 x 4,096 x 1,024 + 2,097,664) = 335,544,320 + 83,906,560 values. Nemotron 3 Super BF16 (counts:
// presets_2026_test.cpp nemotron_3_super_by_hand): the split layers 40 x 109,635,968 + 40 x (2,873,098,752 -
// 8,388,608 - 2,097,664) + 8 x 35,651,584 = 119,175,150,592 / 4 = 29,793,787,648; embedding and untied head
// 2 x 131,072 x 4,096 / 4 = 268,435,456; the 88 block norms and the final norm 89 x 4,096 = 364,544 whole:
// 29,793,787,648 + 335,544,320 + 83,906,560 + 268,435,456 + 364,544 = 30,482,038,528 values; tp 4 is above the 2 KV
// heads (head_dim 128), so each rank holds one whole head's k and v (QKVParallelLinear's num_kv_head_replicas 2): of
// the 8 attention blocks' k/v, 8 x 2 x 4,096 x 256 = 16,777,216 values, 1/2 per rank, not 1/4: 4,194,304 more, so
// 30,486,232,832 values x 2 B.
TEST(nemotron_h_serving, latent_projections_are_whole_on_every_tp_rank) {
  const double split = 40 * 109635968.0 + 40 * (2873098752.0 - 8388608 - 2097664) + 8 * 35651584.0;
  EXPECT_EQ(split, 119175150592.0);
  const double kv_replicas = 8 * 2 * 4096 * 256.0 * (1.0 / 2 - 1.0 / 4);
  EXPECT_EQ(kv_replicas, 4194304.0);
  const double per_device =
      split / 4 + 40 * 2 * 4096 * 1024.0 + 40 * 2097664.0 + 2 * 131072 * 4096.0 / 4 + 89 * 4096 + kv_replicas;
  EXPECT_EQ(per_device, 30486232832.0);
  for (const char* runtime : {"vllm", "sglang"}) {
    const settings s{{"model", "nvidia-nemotron-3-super-120b-a12b-bf16"},
                     {"mode", "inference"},
                     {"runtime", runtime},
                     {"devices", "4"},
                     {"tp", "4"}};
    EXPECT_EQ(test::item(estimated(s), "weights"), 2 * per_device) << runtime;
  }
  // Training's tensor parallelism splits the latent projections with the rest and keeps the routers whole (fp32
  // weights, tp 2): the loaded 120,668,707,840 less the 89 x 4,096 norms and the 40 x 2,097,664 routers =
  // 120,584,436,736, halved, plus the norms and routers whole.
  const settings train{{"model", "nvidia-nemotron-3-super-120b-a12b-bf16"}, {"devices", "2"}, {"tp", "2"}};
  EXPECT_EQ(120668707840.0 - 89 * 4096 - 40 * 2097664, 120584436736.0);
  EXPECT_EQ(test::item(estimated(train), "weights"), 4 * (120584436736.0 / 2 + 89 * 4096 + 40 * 2097664));
  // The FP8 checkpoint (one fp32 scale per tensor): per block, Mamba in_proj + out_proj 109,576,192 + 2 x 4 B and
  // its other 59,776 values x 2 B; attention 35,651,584 + 4 x 4 B; MoE 512 x 2 expert matrices 2,818,572,288 +
  // 1,024 x 4 B and the shared expert 44,040,192 + 2 x 4 B; split 4 ways: (40 x 109,695,752 + 8 x 35,651,600 +
  // 40 x 2,862,616,584) / 4 = 119,177,706,240 / 4 = 29,794,426,560 B; the latent projections whole, 40 x (8,388,608 +
  // 2 x 4) = 335,544,640 B, and the routers with their biases (quant_config=None: 16-bit) 40 x 2,097,664 x 2 B =
  // 167,813,120 B; embedding, head and norms 2 x (268,435,456 + 364,544) = 537,600,000 B: 30,835,384,320 B. The
  // replicated KV heads' 4,194,304 k/v values take the k/v linears' rate, (1,048,576 + 4) B per 1,048,576 values
  // (one fp32 scale per tensor): 4,194,304 + 4 x 4 = 4,194,320 B more, 30,839,578,640 B.
  const double fp8_split =
      40 * (109576192.0 + 8 + 2 * 59776) + 8 * (35651584.0 + 16) + 40 * (2818572288.0 + 4096 + 44040192 + 8);
  EXPECT_EQ(fp8_split, 119177706240.0);
  const settings fp8{{"model", "nvidia-nemotron-3-super-120b-a12b-fp8"},
                     {"mode", "inference"},
                     {"runtime", "vllm"},
                     {"devices", "4"},
                     {"tp", "4"}};
  EXPECT_EQ(test::item(estimated(fp8), "weights"),
            fp8_split / 4 + 40 * (8388608.0 + 8) + 40 * 2097664 * 2.0 + 2 * (268435456.0 + 364544) + 4194320);
  EXPECT_EQ(test::item(estimated(fp8), "weights"), 30839578640.0);
}

}  // namespace
