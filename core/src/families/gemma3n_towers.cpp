// SPDX-License-Identifier: MIT
// Gemma 3n's multimodal parts (transformers models/gemma3n/modeling_gemma3n.py @00aa0f5d, Gemma3nModel), counted
// into vision_params from vision_config and audio_config:
//   - the vision tower, timm's MobileNet-V5 encoder that TimmWrapperModel builds from vision_config.architecture
//     (huggingface/pytorch-image-models@aa4b5850 timm/models/mobilenetv5.py _gen_mobilenet_v5), counted block by
//     block from timm's arch_def strings;
//   - the audio encoder (Gemma3nAudioEncoder, a USM Conformer), counted from audio_config's fields;
//   - embed_vision and embed_audio (Gemma3nMultimodalEmbedder).
// docs/models.md has the derivations and the checks against the published totals.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

// One block of timm's arch_def notation (timm/models/_efficientnet_builder.py _decode_block_str): a type, then
// options of one letter and a number ("uir_r1_a5_k0_s1_e4_c640"). The repeat (r) and stride (s) add no parameters.
struct block_spec {
  std::string_view type;  ///< er | uir | mqa
  double kernel = 0;      ///< k: ER's conv, UIR's middle depthwise, MQA's key/value down-conv kernel (0 = none) [px]
  double start = 0;       ///< a: UIR's starting depthwise kernel (0 = none) [px]
  double expand = 1;      ///< e: expansion ratio of the middle width [ratio]
  double out = 0;         ///< c: output channels [channels]
  double heads = 0;       ///< h: MQA query heads [heads]
  double kv_stride = 1;   ///< v: MQA key/value stride; above 1 adds a depthwise down-conv and a norm [px]
  double dim = 0;         ///< d: MQA key and value width (one shared head) [channels]
};

[[nodiscard]] block_spec decode_block(std::string_view text) {
  block_spec b;
  std::size_t at = text.find('_');
  b.type = text.substr(0, at);
  while (at != std::string_view::npos) {
    const std::size_t next = text.find('_', at + 1);
    const std::string_view option = text.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
    const double value = number_in(std::string(option.substr(1)));
    switch (option.front()) {
      case 'k': b.kernel = value; break;
      case 'a': b.start = value; break;
      case 'e': b.expand = value; break;
      case 'c': b.out = value; break;
      case 'h': b.heads = value; break;
      case 'v': b.kv_stride = value; break;
      case 'd': b.dim = value; break;
      default: break;  // r, s
    }
    at = next;
  }
  return b;
}

// timm's make_divisible (timm/layers/helpers.py): the middle width rounded to a multiple of 8, never 10 % below.
[[nodiscard]] double make_divisible(double v) {
  double rounded = std::max(8.0, std::floor((v + 4) / 8) * 8);
  if (rounded < 0.9 * v) rounded += 8;
  return rounded;
}

// One block's parameters from `in` channels, as timm's constructors build them (timm/models/_efficientnet_blocks.py,
// timm/layers/attention2d.py) with norm_layer RmsNorm2d (one weight per channel), no conv biases and layer scale on:
//   er  EdgeResidual: conv_exp in x mid x k^2, bn1 mid, conv_pwl mid x c, bn2 c (no layer scale);
//   uir UniversalInvertedResidual: dw_start in x a^2 + in (if a), pw_exp in x mid + mid, dw_mid mid x k^2 + mid
//       (if k), pw_proj mid x c + c, layer_scale c;
//   mqa MobileAttention over MultiQueryAttention2d: norm in, query.proj in x h d, key and value each (v > 1:
//       down_conv in x k^2 + norm in) + proj in x d, output.proj h d x c, layer_scale c.
[[nodiscard]] double block_params(const block_spec& b, double in) {
  const double mid = make_divisible(in * b.expand), c = b.out;
  if (b.type == "er") return in * mid * b.kernel * b.kernel + mid + mid * c + c;
  if (b.type == "uir") {
    const double start = b.start > 0 ? in * b.start * b.start + in : 0;
    const double middle = b.kernel > 0 ? mid * b.kernel * b.kernel + mid : 0;
    return start + in * mid + mid + middle + mid * c + c + c;
  }
  const double down = b.kv_stride > 1 ? in * b.kernel * b.kernel + in : 0;
  return in + in * b.heads * b.dim + 2 * (down + in * b.dim) + b.heads * b.dim * c + c;
}

// A run of `times` identical consecutive blocks of an arch_def stage.
struct block_run {
  std::string_view block;  ///< timm's block string
  int times = 1;           ///< how many in a row [blocks]
};

// mobilenetv5_300m_enc: the `else` branch of _gen_mobilenet_v5's arch_def, stem_size 64, four stages. Stages 2 and 3
// alternate an mqa block and a uir block 14 and 19 times after their first blocks; each of those keeps its
// stage's width, so the runs below count them without changing any block's input.
constexpr block_run stage0[] = {{"er_r1_k3_s2_e4_c128"}, {"er_r1_k3_s1_e4_c128", 2}};
constexpr block_run stage1[] = {{"uir_r1_a3_k5_s2_e6_c256"},
                                {"uir_r1_a5_k0_s1_e4_c256"},
                                {"uir_r1_a3_k0_s1_e4_c256"},
                                {"uir_r1_a5_k0_s1_e4_c256"},
                                {"uir_r1_a3_k0_s1_e4_c256"}};
constexpr block_run stage2[] = {{"uir_r1_a5_k5_s2_e6_c640"},
                                {"uir_r1_a5_k0_s1_e4_c640", 7},
                                {"uir_r1_a0_k0_s1_e1_c640"},
                                {"mqa_r1_k3_h12_v2_s1_d64_c640", 14},
                                {"uir_r1_a0_k0_s1_e2_c640", 14}};
constexpr block_run stage3[] = {
    {"uir_r1_a5_k5_s2_e6_c1280"}, {"mqa_r1_k3_h16_s1_d96_c1280", 19}, {"uir_r1_a0_k0_s1_e2_c1280", 19}};

// The stem (ConvNormAct 3 -> stem, 3 x 3, stem_bias: conv weight and bias, RmsNorm2d), the four stages, then the
// MobileNetV5MultiScaleFusionAdapter over the last two stages' outputs (msfa_indices (-2, -1)): its ffn is a UIR
// without depthwise convs or layer scale (in -> num_features 2,048, expansion 2) and a norm of 2,048.
[[nodiscard]] double mobilenetv5_300m_enc() {
  constexpr double stem = 64, features = 2048;
  double in = stem, total = 3 * stem * 9 + stem + stem;
  std::array<double, 4> stage_out{};
  std::size_t s = 0;
  const auto add = [&](const auto& stage) {
    for (const block_run& run : stage)
      for (int i = 0; i < run.times; ++i) {
        const block_spec b = decode_block(run.block);
        total += block_params(b, in);
        in = b.out;
      }
    stage_out[s++] = in;
  };
  add(stage0);
  add(stage1);
  add(stage2);
  add(stage3);
  const double fused = stage_out[2] + stage_out[3], mid = make_divisible(fused * 2);
  return total + fused * mid + mid + mid * features + features + features;
}

// vision_config's tower: a timm architecture by name (Gemma3nVisionConfig's default mobilenetv5_300m_enc; timm's
// create_model also takes model_args, which would change it, so they are refused).
std::optional<double> vision_tower(reader& sub) {
  std::string name = "mobilenetv5_300m_enc";
  if (const json* a = sub.find({"architecture"}); a != nullptr) {
    if (!a->is_string()) {
      sub.fail("vision_params", "config.json vision_config architecture must be a timm model name");
      return std::nullopt;
    }
    name = a->get<std::string>();
  }
  if (const json* args = sub.find({"model_args"}); args != nullptr && !(args->is_object() && args->empty())) {
    sub.fail("vision_params", "config.json vision_config model_args " + quoted(args->dump()) +
                                  " are not modelled (they change timm's " + name + ")");
    return std::nullopt;
  }
  if (name != "mobilenetv5_300m_enc") {
    sub.fail("vision_params",
             "config.json vision_config architecture " + quoted(name) + " is not modelled (mobilenetv5_300m_enc is)");
    return std::nullopt;
  }
  return mobilenetv5_300m_enc();
}

// A [height, width] pair of whole numbers from 1 to 1e4 at list[index] (config.json's nested kernel and stride
// lists); nullopt when malformed.
std::optional<std::pair<double, double>> pair_at(const json& list, std::size_t index) {
  if (!list.is_array() || index >= list.size() || !list[index].is_array() || list[index].size() != 2)
    return std::nullopt;
  const auto h = whole(&list[index][0]), w = whole(&list[index][1]);
  if (!h || !w || *h < 1 || *w < 1 || *h > 1e4 || *w > 1e4) return std::nullopt;
  return std::pair{*h, *w};
}

// Gemma3nAudioEncoder. subsample_conv_projection: two Conv2d blocks (1 -> c0 -> c1 channels, kernels and strides of
// sscp_conv_kernel_size / sscp_conv_stride_size, no bias) each with a CumulativeGroupNorm weight per channel; the
// frequency axis, padded 1 + 1, shrinks to f' = (f + 2 - kernel_w) // stride_w + 1 from input_feat_size; then
// input_proj_linear (c1 f') x h. Each of conf_num_hidden_layers Conformer blocks (no biases anywhere) is
//   two feed-forwards (pre and post norms h, ffw_layer_1 h x 4h, ffw_layer_2 4h x h): 2 (8h^2 + 2h);
//   attention: pre_attn_norm h, relative_position_embedding.pos_proj h x h, per_dim_scale h // heads, q, k, v
//     h x h each, post h x h, post_norm h: 5h^2 + 2h + h // heads;
//   lconv1d: pre_layer_norm h, linear_start h x 2h, depthwise_conv1d h x conf_conv_kernel_size, conv_norm h,
//     linear_end h x h: 3h^2 + (kernel + 2) h;
//   norm h;
// that is 24h^2 + (kernel + 9) h + h // heads.
std::optional<double> audio_tower(reader& sub) {
  const double h = field(sub, "hidden_size", 1536, "vision_params");
  const double layers = field(sub, "conf_num_hidden_layers", 12, "vision_params");
  const double heads = field(sub, "conf_num_attention_heads", 8, "vision_params");
  const double kernel = field(sub, "conf_conv_kernel_size", 5, "vision_params");
  double freq = field(sub, "input_feat_size", 128, "vision_params");
  std::array<double, 2> channels{128, 32};
  std::array<std::pair<double, double>, 2> kernels{{{3, 3}, {3, 3}}}, strides{{{2, 2}, {2, 2}}};
  if (const json* c = sub.find({"sscp_conv_channel_size"}); c != nullptr) {
    const bool pair = c->is_array() && c->size() == 2 && whole(&(*c)[0]).value_or(0) >= 1 &&
                      whole(&(*c)[1]).value_or(0) >= 1 && (*c)[0].get<double>() <= 1e5 && (*c)[1].get<double>() <= 1e5;
    if (!pair) {
      sub.fail("vision_params",
               "config.json audio_config sscp_conv_channel_size must list two whole widths, got " + quoted(c->dump()));
      return std::nullopt;
    }
    channels = {(*c)[0].get<double>(), (*c)[1].get<double>()};
  }
  for (const auto& [name, target] :
       {std::pair{"sscp_conv_kernel_size", &kernels}, {"sscp_conv_stride_size", &strides}}) {
    const json* list = sub.find({name});
    if (list == nullptr) continue;
    const auto first = pair_at(*list, 0), second = pair_at(*list, 1);
    if (!first || !second || list->size() != 2) {
      sub.fail("vision_params", std::string("config.json audio_config ") + name +
                                    " must list two [height, width] pairs of whole numbers, got " +
                                    quoted(list->dump()));
      return std::nullopt;
    }
    *target = {*first, *second};
  }
  if (heads < 1) {
    sub.fail("vision_params", "config.json audio_config conf_num_attention_heads must be at least 1");
    return std::nullopt;
  }
  double subsample = 0, in = 1;
  for (std::size_t i = 0; i < 2; ++i) {
    subsample += in * channels[i] * kernels[i].first * kernels[i].second + channels[i];
    freq = std::floor((freq + 2 - kernels[i].second) / strides[i].second) + 1;
    in = channels[i];
    if (freq < 1) {
      sub.fail("vision_params",
               "config.json audio_config input_feat_size leaves no frequency bins after the sscp "
               "convolutions");
      return std::nullopt;
    }
  }
  subsample += channels[1] * freq * h;
  return subsample + layers * (24 * h * h + (kernel + 9) * h + std::floor(h / heads));
}

// Gemma3nMultimodalEmbedder: embedding vocab_size x m, hard and soft embedding norms m each, embedding_projection
// m x text h (embedding_post_projection_norm has no weight).
double embedder(reader& sub, double m, double text_hidden) {
  const double vocab = field(sub, "vocab_size", 128, "vision_params");
  return vocab * m + 2 * m + m * text_hidden;
}

}  // namespace

double gemma3n_towers(reader& r, const json& root, double text_hidden) {
  double count = 0;
  for (const bool vision : {true, false}) {
    const auto it = root.find(vision ? "vision_config" : "audio_config");
    if (it == root.end() || !it->is_object()) continue;
    reader sub(*it);
    // The embedder's width: the tower's output (vision_config hidden_size 2,048, audio_config hidden_size 1,536).
    const double m = field(sub, "hidden_size", vision ? 2048 : 1536, "vision_params");
    const auto tower = vision ? vision_tower(sub) : audio_tower(sub);
    count += tower.value_or(0) + embedder(sub, m, text_hidden);
    for (auto& e : sub.errors) r.errors.push_back(std::move(e));
  }
  r.out["model_notes"] =
      "gemma3n: the text model with its per-layer embeddings, and the MobileNet-V5 vision tower, the Conformer audio "
      "encoder and their embedders (vision_params) are counted";
  return count;
}

}  // namespace llm_memory::detail
