// SPDX-License-Identifier: MIT
// Issue 32 item 6: Gemma 3n's vision tower (timm's MobileNet-V5 encoder) and audio encoder (transformers'
// Gemma3nAudioEncoder), counted from vision_config and audio_config into vision_params. Every number is summed by
// hand from timm/models/mobilenetv5.py (@aa4b5850) and modeling_gemma3n.py (@00aa0f5d) as docs/models.md derives it.
#include <gtest/gtest.h>

#include "config_support.hpp"

#include <string>
#include <string_view>

#include "llm_memory/config_json.hpp"

namespace {

using namespace llm_memory;

// A small gemma3n text model (its count is families_gemma3n_test.cpp's business) with the given towers.
std::string with_towers(std::string_view towers) {
  return R"({"model_type": "gemma3n", "text_config": {"model_type": "gemma3n_text", "hidden_size": 2048,
      "num_hidden_layers": 5, "intermediate_size": [64, 64, 64, 64, 64], "num_attention_heads": 8,
      "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 1000, "vocab_size_per_layer_input": 1000,
      "num_kv_shared_layers": 0}, )" +
         std::string(towers) + "}";
}

bool has_error(std::string_view config, std::string_view text) {
  const auto r = parse_config(config);
  if (r.ok()) return false;
  for (const auto& e : r.errors())
    if (e.setting == "vision_params" && e.message.find(text) != std::string::npos) return true;
  return false;
}

// mobilenetv5_300m_enc (RmsNorm2d: one weight per channel; no conv biases but the stem's; layer scale c per UIR and
// MQA block; mid = in x e):
//   stem 3 x 64 x 9 + 64 bias + 64 norm = 1,856;
//   stage 0: ER 64 -> 128 (mid 256) 64 x 256 x 9 + 256 + 256 x 128 + 128 = 180,608, two ER 128 -> 128 (mid 512)
//     656,000 each: 1,492,608;
//   stage 1: UIR a3 k5 e6 128 -> 256: 128 x 9 + 128 + 128 x 768 + 768 + 768 x 25 + 768 + 768 x 256 + 256 + 256 =
//     317,440; two a5 e4 256 x 25 + 256 + 256 x 1,024 + 1,024 + 1,024 x 256 + 256 + 256 = 532,480; two a3 e4
//     528,384: 2,439,168;
//   stage 2: UIR a5 k5 e6 256 -> 640 1,425,664; seven a5 e4 3,297,280; one e1 640 x 640 x 2 + 640 x 3 = 821,120;
//     14 MQA (12 heads, d 64, kv stride 2: down-convs 640 x 9 + 640) 640 + 640 x 768 + 2 x (6,400 + 640 x 64) +
//     768 x 640 + 640 = 1,079,040; 14 UIR e2 640 x 1,280 + 1,280 + 1,280 x 640 + 640 + 640 = 1,640,960:
//     63,407,744;
//   stage 3: UIR a5 k5 e6 640 -> 1,280 7,495,680; 19 MQA (16 heads, d 96, no stride) 1,280 + 1,280 x 1,536 +
//     2 x 1,280 x 96 + 1,536 x 1,280 + 1,280 = 4,180,480; 19 UIR e2 6,558,720: 211,540,480;
//   fusion adapter over 640 + 1,280 = 1,920 channels: 1,920 x 3,840 + 3,840 + 3,840 x 2,048 + 2,048 + norm 2,048 =
//     15,245,056.
// Tower 294,126,912 (= keras-hub's MobileNetV5 preset, 294,284,096, less its 157,184 zero conv biases); embed_vision
// 128 x 2,048 + 2 x 2,048 + 2,048 x 2,048 = 4,460,544: 298,587,456.
TEST(families_gemma3n_towers, mobilenet_v5_by_hand) {
  const settings s = test::parsed_config(with_towers(
      R"("vision_config": {"model_type": "gemma3n_vision", "architecture": "mobilenetv5_300m_enc",
          "hidden_size": 2048, "vocab_size": 128, "model_args": null})"));
  EXPECT_EQ(s.at("vision_params"), "298587456");
  // The architecture is Gemma3nVisionConfig's default when omitted.
  EXPECT_EQ(test::parsed_config(with_towers(R"("vision_config": {"hidden_size": 2048})")).at("vision_params"),
            "298587456");
}

// Gemma3nAudioEncoder at Gemma3nAudioConfig's defaults (h 1,536, 12 layers, 8 heads of 192, kernel 5, sscp channels
// 128 and 32, 3 x 3 kernels, stride 2, 128 mel bins): subsampling conv_0 1 x 128 x 9 + 128 + conv_1 128 x 32 x 9 +
// 32 = 38,048, frequency 128 -> 64 -> 32, input_proj_linear 32 x 32 x 1,536 = 1,572,864: 1,611,040; a Conformer
// block 24 x 1,536^2 + 14 x 1,536 + 192 = 56,644,800, x 12 = 679,737,600. Tower 681,348,640 (= keras-hub's Gemma 3n
// total less the text, the embedders and its MobileNetV5 preset); embed_audio 128 x 1,536 + 2 x 1,536 + 1,536 x
// 2,048 = 3,345,408: 684,694,048.
TEST(families_gemma3n_towers, conformer_by_hand) {
  EXPECT_EQ(test::parsed_config(with_towers(R"("audio_config": {"model_type": "gemma3n_audio"})")).at("vision_params"),
            "684694048");
  // Every field read: h 1,024, 6 layers, 8 heads (d 128), kernel 3, channels 64 and 16, 80 mel bins. Block 24 x
  // 1,024^2 + 12 x 1,024 + 128 = 25,178,240, x 6 = 151,069,440; conv_0 64 x 9 + 64 = 640, conv_1 64 x 16 x 9 + 16 =
  // 9,232, frequency 80 -> (80 + 2 - 3) // 2 + 1 = 40 -> 20, input_proj_linear 16 x 20 x 1,024 = 327,680; embedder
  // 128 x 1,024 + 2,048 + 1,024 x 2,048 = 2,230,272. 151,069,440 + 337,552 + 2,230,272 = 153,637,264.
  EXPECT_EQ(test::parsed_config(with_towers(R"("audio_config": {"hidden_size": 1024, "conf_num_hidden_layers": 6,
                "conf_num_attention_heads": 8, "conf_conv_kernel_size": 3, "sscp_conv_channel_size": [64, 16],
                "sscp_conv_kernel_size": [[3, 3], [3, 3]], "sscp_conv_stride_size": [[2, 2], [2, 2]],
                "input_feat_size": 80})"))
                .at("vision_params"),
            "153637264");
}

// What is not modelled is refused by field name, not guessed.
TEST(families_gemma3n_towers, unmodelled_fields_are_named) {
  EXPECT_TRUE(has_error(with_towers(R"("vision_config": {"architecture": "mobilenetv5_base"})"),
                        "architecture \"mobilenetv5_base\" is not modelled (mobilenetv5_300m_enc is)"));
  EXPECT_TRUE(has_error(with_towers(R"("vision_config": {"architecture": 5})"), "architecture must be a timm"));
  EXPECT_TRUE(has_error(with_towers(R"("vision_config": {"model_args": {"depth": 3}})"), "model_args"));
  EXPECT_TRUE(has_error(with_towers(R"("audio_config": {"sscp_conv_kernel_size": [3, 3]})"),
                        "sscp_conv_kernel_size must list two [height, width] pairs"));
  EXPECT_TRUE(has_error(with_towers(R"("audio_config": {"sscp_conv_channel_size": [128]})"),
                        "sscp_conv_channel_size must list two whole widths"));
  EXPECT_TRUE(has_error(with_towers(R"("audio_config": {"conf_num_attention_heads": 0})"), "at least 1"));
  EXPECT_TRUE(has_error(with_towers(R"("audio_config": {"input_feat_size": 1, "sscp_conv_kernel_size":
                            [[3, 9], [3, 3]]})"),
                        "no frequency bins"));
}

}  // namespace
