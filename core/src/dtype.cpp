// SPDX-License-Identifier: MIT
#include "llm_memory/dtype.hpp"

#include <array>
#include <cmath>
#include <string_view>

#include "llm_memory/settings_list.hpp"

namespace llm_memory {
namespace {

// clang-format off
constexpr std::array dtypes = {
    dtype_info{dtype::fp32, "fp32", dtype_family::floating, 4, 1},  // IEEE binary32
    dtype_info{dtype::bf16, "bf16", dtype_family::floating, 2, 1},  // bfloat16
    dtype_info{dtype::fp16, "fp16", dtype_family::floating, 2, 1},  // IEEE binary16
    dtype_info{dtype::fp8, "fp8", dtype_family::matrices, 1, 1},    // E4M3 / E5M2; per-tensor scales negligible
    // LLM.int8: 1 B per weight + one fp32 scale per output row (added per matrix by the estimate).
    dtype_info{dtype::int8, "int8", dtype_family::matrices_rows, 1, 1},
    // GPTQ/AWQ-style int4: groups of 128 weights share an fp16 scale and a 4-bit zero point.
    dtype_info{dtype::int4, "int4", dtype_family::matrices, (4.0 * 128 + 16 + 4) / 8, 128},
    // NF4: blocks of 64 4-bit codes + an fp32 absmax (Dettmers et al. 2023, QLoRA section 3); double
    // quantisation: an 8-bit absmax + one fp32 per 256 blocks (bytes_per_value).
    dtype_info{dtype::nf4, "nf4", dtype_family::matrices, 32 + 4, 64},
    // GGUF mixes (llama.cpp ggml-common.h): the figure is the base type's; the quantiser varies it per tensor.
    dtype_info{dtype::q8_0, "q8_0", dtype_family::gguf_mix, 34, 32},  // GGUF Q8_0: 32 int8 + fp16 scale
    dtype_info{dtype::q6_k, "q6_k", dtype_family::gguf_mix, 210, 256},  // GGUF Q6_K super-blocks of 256
    dtype_info{dtype::q5_k_m, "q5_k_m", dtype_family::gguf_mix, 176, 256},  // GGUF Q5_K_M mix, base Q5_K
    dtype_info{dtype::q4_k_m, "q4_k_m", dtype_family::gguf_mix, 144, 256},  // GGUF Q4_K_M mix, base Q4_K
    dtype_info{dtype::q4_0, "q4_0", dtype_family::gguf_mix, 18, 32},  // GGUF Q4_0: 32 4-bit + fp16 scale
    dtype_info{dtype::q3_k_m, "q3_k_m", dtype_family::gguf_mix, 110, 256},  // GGUF Q3_K_M mix, base Q3_K
    dtype_info{dtype::q2_k, "q2_k", dtype_family::gguf_mix, 84, 256},  // GGUF Q2_K mix, base Q2_K
    // Mixes whose per-tensor bumps are not modelled: every matrix at the base type (spec: llama-quant.cpp).
    dtype_info{dtype::q5_k_s, "q5_k_s", dtype_family::gguf_mix, 176, 256},  // GGUF Q5_K_S mix, base Q5_K
    dtype_info{dtype::q4_k_s, "q4_k_s", dtype_family::gguf_mix, 144, 256},  // GGUF Q4_K_S mix, base Q4_K
    dtype_info{dtype::q3_k_s, "q3_k_s", dtype_family::gguf_mix, 110, 256},  // GGUF Q3_K_S mix, base Q3_K
    dtype_info{dtype::q3_k_l, "q3_k_l", dtype_family::gguf_mix, 110, 256},  // GGUF Q3_K_L mix, base Q3_K
    dtype_info{dtype::iq4_xs, "iq4_xs", dtype_family::gguf_mix, 136, 256},  // GGUF IQ4_XS: fp16 d + 2 B high scales + 4 B low scales + 128 B
    dtype_info{dtype::iq4_nl, "iq4_nl", dtype_family::gguf_mix, 18, 32},  // GGUF IQ4_NL: fp16 d + 16 B of 4-bit codes
    dtype_info{dtype::iq3_s, "iq3_s", dtype_family::gguf_mix, 110, 256},  // GGUF IQ3_S: fp16 d + 104 B grid + 4 B scales
    dtype_info{dtype::iq3_xxs, "iq3_xxs", dtype_family::gguf_mix, 98, 256},  // GGUF IQ3_XXS super-blocks of 256
    dtype_info{dtype::iq2_s, "iq2_s", dtype_family::gguf_mix, 74, 256},  // GGUF IQ2_S mix, base IQ2_XS (llama-quant.cpp)
    dtype_info{dtype::iq2_xs, "iq2_xs", dtype_family::gguf_mix, 74, 256},  // GGUF IQ2_XS super-blocks of 256
    dtype_info{dtype::iq2_xxs, "iq2_xxs", dtype_family::gguf_mix, 66, 256},  // GGUF IQ2_XXS: fp16 d + 64 B
    dtype_info{dtype::iq1_m, "iq1_m", dtype_family::gguf_mix, 56, 256},  // GGUF IQ1_M: 32 + 16 + 8 B
    dtype_info{dtype::iq1_s, "iq1_s", dtype_family::gguf_mix, 50, 256},  // GGUF IQ1_S super-blocks of 256
    // Quantised checkpoints: the weights bucket sums layout_linear_bytes() per Linear; these figures (4 bits, groups
    // of 128, as the formats' defaults) serve only where one number per value is asked for.
    dtype_info{dtype::gptq, "gptq", dtype_family::layout, (4.0 * 128 + 16 + 4) / 8, 128},  // + g_idx per input
    dtype_info{dtype::awq, "awq", dtype_family::layout, (4.0 * 128 + 16 + 4) / 8, 128},
    dtype_info{dtype::w4a16, "w4a16", dtype_family::layout, (4.0 * 128 + 16) / 8, 128},
    dtype_info{dtype::fp8_block, "fp8_block", dtype_family::layout, 128 * 128 + 4, 128 * 128},
    dtype_info{dtype::mxfp4, "mxfp4", dtype_family::layout, 17, 32},  // experts; the rest 16-bit
};

constexpr std::array ggml_types = {
    ggml_type_info{ggml_type::q2_k, "Q2_K", 84, 256},  ggml_type_info{ggml_type::q3_k, "Q3_K", 110, 256},
    ggml_type_info{ggml_type::q4_k, "Q4_K", 144, 256}, ggml_type_info{ggml_type::q5_k, "Q5_K", 176, 256},
    ggml_type_info{ggml_type::q6_k, "Q6_K", 210, 256}, ggml_type_info{ggml_type::q8_0, "Q8_0", 34, 32},
    ggml_type_info{ggml_type::q4_0, "Q4_0", 18, 32},
    ggml_type_info{ggml_type::f32, "F32", 4, 1},       ggml_type_info{ggml_type::f16, "F16", 2, 1},
    ggml_type_info{ggml_type::bf16, "BF16", 2, 1},     ggml_type_info{ggml_type::q4_1, "Q4_1", 20, 32},
    ggml_type_info{ggml_type::q5_0, "Q5_0", 22, 32},   ggml_type_info{ggml_type::q5_1, "Q5_1", 24, 32},
    ggml_type_info{ggml_type::iq4_nl, "IQ4_NL", 18, 32}, ggml_type_info{ggml_type::iq4_xs, "IQ4_XS", 136, 256},
    ggml_type_info{ggml_type::iq3_s, "IQ3_S", 110, 256}, ggml_type_info{ggml_type::iq3_xxs, "IQ3_XXS", 98, 256},
    ggml_type_info{ggml_type::iq2_s, "IQ2_S", 82, 256},  ggml_type_info{ggml_type::iq2_xs, "IQ2_XS", 74, 256},
    ggml_type_info{ggml_type::iq2_xxs, "IQ2_XXS", 66, 256}, ggml_type_info{ggml_type::iq1_m, "IQ1_M", 56, 256},
    ggml_type_info{ggml_type::iq1_s, "IQ1_S", 50, 256},  ggml_type_info{ggml_type::mxfp4, "MXFP4", 17, 32},
};
// clang-format on

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < dtypes.size(); ++i)
    if (static_cast<std::size_t>(dtypes[i].id) != i) return false;
  for (std::size_t i = 0; i < ggml_types.size(); ++i)
    if (static_cast<std::size_t>(ggml_types[i].id) != i) return false;
  return true;
}
static_assert(in_enum_order(), "the tables are indexed by their enums");

// Whether `lower` is `upper` ("q5_1", "Q5_1") in lower case.
constexpr bool lower_case_of(std::string_view lower, std::string_view upper) {
  if (lower.size() != upper.size()) return false;
  for (std::size_t i = 0; i < lower.size(); ++i) {
    const char u = upper[i] >= 'A' && upper[i] <= 'Z' ? static_cast<char>(upper[i] - 'A' + 'a') : upper[i];
    if (lower[i] != u) return false;
  }
  return true;
}

// Each choice of a settings row named *_dtype is auto or a format of `dtypes` (kv_dtype: or a GGUF tensor type,
// llama.cpp's cache types): resolve.cpp's dtype_choice reads a name it does not find as auto, so a choice misspelt
// in the table would otherwise be ignored in silence.
constexpr bool names_formats(std::string_view choices, bool ggml_names) {
  while (!choices.empty()) {
    const std::size_t bar = choices.find('|');
    const std::string_view name = choices.substr(0, bar);
    choices = bar == std::string_view::npos ? std::string_view{} : choices.substr(bar + 1);
    bool found = name == "auto";
    for (const auto& d : dtypes) found = found || d.name == name;
    for (const auto& t : ggml_types) found = found || (ggml_names && lower_case_of(name, t.name));
    if (!found) return false;
  }
  return true;
}
constexpr bool dtype_rows_name_formats() {
#define LLM_MEMORY_DTYPE_ROW(key, kind, def, lo, hi, choices, ...)                                                 \
  if (std::string_view(#key).ends_with("_dtype") && !names_formats(choices, std::string_view(#key) == "kv_dtype")) \
    return false;
  LLM_MEMORY_SETTINGS(LLM_MEMORY_DTYPE_ROW)
#undef LLM_MEMORY_DTYPE_ROW
  return true;
}
static_assert(dtype_rows_name_formats(), "a *_dtype settings row names a format the dtype table lacks");

// The base tensor type of a mix (llama_ftype_get_default_type, llama-quant.cpp @007dbbf3): what every matrix gets
// unless the quantiser's rules say otherwise.
ggml_type base_type(dtype mix) {
  switch (mix) {
    case dtype::q2_k: return ggml_type::q2_k;
    case dtype::q3_k_m: return ggml_type::q3_k;
    case dtype::q4_k_m: return ggml_type::q4_k;
    case dtype::q5_k_m: return ggml_type::q5_k;
    case dtype::q6_k: return ggml_type::q6_k;
    case dtype::q8_0: return ggml_type::q8_0;
    case dtype::q5_k_s: return ggml_type::q5_k;
    case dtype::q4_k_s: return ggml_type::q4_k;
    case dtype::q3_k_s:
    case dtype::q3_k_l: return ggml_type::q3_k;
    case dtype::iq4_xs: return ggml_type::iq4_xs;
    case dtype::iq4_nl: return ggml_type::iq4_nl;
    case dtype::iq3_s: return ggml_type::iq3_s;
    case dtype::iq3_xxs: return ggml_type::iq3_xxs;
    case dtype::iq2_s:  // LLAMA_FTYPE_MOSTLY_IQ2_S's default type is IQ2_XS (llama_ftype_get_default_type)
    case dtype::iq2_xs: return ggml_type::iq2_xs;
    case dtype::iq2_xxs: return ggml_type::iq2_xxs;
    case dtype::iq1_m: return ggml_type::iq1_m;
    case dtype::iq1_s: return ggml_type::iq1_s;
    default: return ggml_type::q4_0;
  }
}

}  // namespace

std::span<const dtype_info> dtype_table() { return dtypes; }

const dtype_info& info(dtype d) { return dtypes[static_cast<std::size_t>(d)]; }

std::optional<dtype> find_dtype(std::string_view name) {
  for (const auto& d : dtypes)
    if (d.name == name) return d.id;
  return std::nullopt;
}

double bytes_per_value(dtype d, bool double_quant) {
  if (d == dtype::nf4 && double_quant) return (4 + 8.0 / 64 + 32.0 / (64 * 256)) / 8;
  return info(d).bytes_per_value();
}

// One Linear [out, in] as each format's writer stores it (docs/methodology.md, "Quantised checkpoints"):
// GPTQ: AutoGPTQ/GPTQModel QuantLinear buffers qweight I32 [ceil(in·bits/32), out], qzeros I32 [G, ceil(out·bits/32)],
//   scales F16 [G, out], g_idx I32 [in], and an F16 bias [out] that AutoGPTQ's make_quant registers for every Linear.
// AWQ: AutoAWQ WQLinear_GEMM qweight I32 [in, ceil(out·bits/32)], qzeros I32 [G, ceil(out·bits/32)], scales F16
//   [G, out]; the bias only where the model has one.
// w4a16: compressed-tensors pack_quantized weight_packed I32 [out, ceil(in·bits/32)], weight_scale [out, G] in the
//   checkpoint's dtype, weight_shape I64 [2] (16 bytes); symmetric (no zero point), no g_idx.
// fp8_block: weight F8_E4M3 [out, in] + weight_scale_inv F32 [ceil(out/b), ceil(in/b)] (transformers
//   FineGrainedFP8, DeepSeek-V3); b = 0: one F32 weight_scale per tensor.
// mxfp4: routed experts only (transformers integrations/mxfp4.py): _blocks U8 [out, in/32, 16] + _scales U8
//   [out, in/32]; biases in the checkpoint's dtype.
// G = ceil(in / group), or 1 for group 0 (GPTQ group_size -1, channel-wise scales).
std::optional<double> layout_linear_bytes(dtype d, const layout_params& p, double in, double out, double bias,
                                          bool routed) {
  const double bits = static_cast<double>(p.bits);
  const double group = static_cast<double>(p.group);
  const double groups = p.group > 0 ? std::ceil(in / group) : 1;
  const double n = in * out;
  switch (d) {
    case dtype::gptq:
      return 4 * std::ceil(in * bits / 32) * out + 4 * groups * std::ceil(out * bits / 32) + 2 * groups * out + 4 * in +
             2 * out;
    case dtype::awq:
      return 4 * in * std::ceil(out * bits / 32) + 4 * groups * std::ceil(out * bits / 32) + 2 * groups * out +
             2 * bias;
    case dtype::w4a16:
      return 4 * out * std::ceil(in * bits / 32) + p.other_bytes * out * groups + 16 + p.other_bytes * bias;
    case dtype::fp8_block: return n + 4 * (p.group > 0 ? std::ceil(out / group) * groups : 1) + p.other_bytes * bias;
    case dtype::mxfp4:
      if (!routed) return std::nullopt;
      return out * std::ceil(in / 32) * 17 + p.other_bytes * bias;
    default: return std::nullopt;
  }
}

std::span<const ggml_type_info> ggml_type_table() { return ggml_types; }

const ggml_type_info& info(ggml_type t) { return ggml_types[static_cast<std::size_t>(t)]; }

std::optional<double> ggml_row_bytes(ggml_type t, double values) {
  const ggml_type_info& i = info(t);
  const double blocks = values / i.block_values;
  if (blocks != std::floor(blocks)) return std::nullopt;
  return blocks * i.block_bytes;
}

// llama.cpp gives a few layers more bits: the first and last eighth and every third layer between.
gguf_layer_position gguf_position(std::int64_t i, std::int64_t n) {
  return {i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2, i < 2, i < n / 16, i < 4, i < n / 8};
}

namespace {

// llama-quant.cpp tensor_get_category, by the PEFT name of the matrix (kv_b is attention-v-like there).
enum class tensor_category : std::uint8_t { q, k, v, o, gate, up, down, other };

tensor_category category_of(std::string_view m) {
  if (m == "q_proj") return tensor_category::q;
  if (m == "k_proj") return tensor_category::k;
  if (m == "v_proj" || m == "kv_b_proj") return tensor_category::v;
  if (m == "o_proj") return tensor_category::o;
  if (m == "gate_proj") return tensor_category::gate;
  if (m == "up_proj") return tensor_category::up;
  if (m == "down_proj") return tensor_category::down;
  return tensor_category::other;
}

// The IQ1/IQ2 file types, which llama_tensor_get_type_impl treats as one group.
bool low_iq(dtype mix) {
  return mix == dtype::iq2_xxs || mix == dtype::iq2_xs || mix == dtype::iq1_s || mix == dtype::iq2_s ||
         mix == dtype::iq1_m;
}

bool whole_blocks(ggml_type t, double values) { return std::fmod(values, info(t).block_values) == 0; }

ggml_type low_iq_rule(dtype mix, tensor_category cat, gguf_layer_position at, const gguf_model_facts& m, ggml_type t) {
  const bool iq2_s = mix == dtype::iq2_s;
  switch (cat) {
    case tensor_category::v:
      return m.gqa >= 4 || m.experts >= 4 ? ggml_type::q4_k : iq2_s ? ggml_type::iq3_s : ggml_type::q2_k;
    case tensor_category::k: return m.experts == 8 ? ggml_type::q4_k : t;
    case tensor_category::down: return at.first_8th ? (iq2_s ? ggml_type::iq3_s : ggml_type::q2_k) : t;
    case tensor_category::o:
      if (m.experts == 8) return ggml_type::q5_k;
      if (mix == dtype::iq1_s || mix == dtype::iq1_m) return ggml_type::iq2_xxs;
      return iq2_s ? ggml_type::iq3_s : t;
    default: return t;
  }
}

ggml_type attn_v_rule(dtype mix, gguf_layer_position at, const gguf_model_facts& m, ggml_type t) {
  const bool gqa4 = m.gqa >= 4;
  switch (mix) {
    case dtype::q2_k: t = gqa4 ? ggml_type::q4_k : ggml_type::q3_k; break;
    case dtype::iq3_xxs: t = gqa4 ? ggml_type::q4_k : ggml_type::iq3_xxs; break;
    case dtype::iq3_s: t = gqa4 ? ggml_type::q4_k : t; break;
    case dtype::q3_k_m: t = at.first_two ? ggml_type::q5_k : ggml_type::q4_k; break;
    case dtype::q3_k_l: t = ggml_type::q5_k; break;
    case dtype::iq4_nl:
    case dtype::iq4_xs: t = gqa4 ? ggml_type::q5_k : t; break;
    case dtype::q4_k_m:
    case dtype::q5_k_m: t = at.more_bits ? ggml_type::q6_k : t; break;
    case dtype::q4_k_s: t = at.first_four ? ggml_type::q5_k : t; break;
    default: break;
  }
  if (m.is_70b && (t == ggml_type::q3_k || t == ggml_type::q4_k)) t = ggml_type::q5_k;
  return m.experts == 8 ? ggml_type::q8_0 : t;
}

ggml_type ffn_down_rule(dtype mix, gguf_layer_position at, ggml_type t) {
  switch (mix) {
    case dtype::q2_k: return ggml_type::q3_k;
    case dtype::q3_k_m: return at.first_16th ? ggml_type::q5_k : ggml_type::q4_k;
    case dtype::q3_k_l: return ggml_type::q5_k;
    case dtype::q4_k_m:
    case dtype::q5_k_m: return at.more_bits ? ggml_type::q6_k : t;
    case dtype::q4_k_s: return at.first_8th ? ggml_type::q5_k : t;  // (IQ4_XS/NL get Q5_K only without an imatrix)
    case dtype::q4_0: return at.first_8th ? ggml_type::q4_1 : t;    // with an importance matrix
    default: return t;
  }
}

ggml_type attn_output_rule(dtype mix, const gguf_model_facts& m, ggml_type t) {
  if (m.experts == 8) {
    switch (mix) {
      case dtype::q2_k:
      case dtype::iq3_xxs:
      case dtype::q3_k_s:
      case dtype::q3_k_m:
      case dtype::iq4_nl:
      case dtype::q4_k_s:
      case dtype::q4_k_m:
      case dtype::iq3_s:
      case dtype::iq4_xs: return ggml_type::q5_k;
      default: return t;
    }
  }
  switch (mix) {
    case dtype::q2_k: return ggml_type::q3_k;
    case dtype::iq3_xxs: return ggml_type::iq3_s;
    case dtype::q3_k_m: return ggml_type::q4_k;
    case dtype::q3_k_l: return ggml_type::q5_k;
    default: return t;
  }
}

}  // namespace

// llama_tensor_get_type_impl (src/llama-quant.cpp @007dbbf3) for non-Falcon models, then tensor_type_fallback.
ggml_type gguf_matrix_type(dtype mix, std::string_view matrix, gguf_layer_position at, const gguf_model_facts& m,
                           double ncols) {
  const ggml_type base = base_type(mix);
  const tensor_category cat = category_of(matrix);
  ggml_type t = base;
  if (low_iq(mix)) {
    t = low_iq_rule(mix, cat, at, m, base);
  } else {
    switch (cat) {
      case tensor_category::v: t = attn_v_rule(mix, at, m, base); break;
      case tensor_category::k:
        t = m.experts == 8 ? ggml_type::q8_0 : mix == dtype::iq3_xxs ? ggml_type::iq2_s : base;
        break;
      case tensor_category::q: t = mix == dtype::iq3_xxs ? ggml_type::iq2_s : base; break;
      case tensor_category::down: t = ffn_down_rule(mix, at, base); break;
      case tensor_category::o: t = attn_output_rule(mix, m, base); break;
      default: break;
    }
  }
  return gguf_fallback(t, ncols);
}

ggml_type gguf_matrix_type(dtype mix, std::string_view matrix, gguf_layer_position at, double gqa) {
  return gguf_matrix_type(mix, matrix, at, gguf_model_facts{gqa});
}

// The OUTPUT branch: Q8_0 when a row is not whole blocks of the base type; Q5_K for the IQ1/IQ2/IQ3_XXS mixes;
// else Q6_K unless the base is Q8_0.
ggml_type gguf_output_type(dtype mix, double hidden) {
  const ggml_type base = base_type(mix);
  ggml_type t = ggml_type::q6_k;
  if (hidden > 0 && !whole_blocks(base, hidden))
    t = ggml_type::q8_0;
  else if (low_iq(mix) || mix == dtype::iq3_xxs)
    t = ggml_type::q5_k;
  else if (base == ggml_type::q8_0)
    t = base;
  return gguf_fallback(t, hidden);
}

// The TOKEN_EMBD branch (untied).
ggml_type gguf_embedding_type(dtype mix, double hidden) {
  ggml_type t = base_type(mix);
  if (mix == dtype::iq2_xxs || mix == dtype::iq2_xs || mix == dtype::iq1_s || mix == dtype::iq1_m)
    t = ggml_type::q2_k;
  else if (mix == dtype::iq2_s || mix == dtype::iq3_xxs)
    t = ggml_type::iq3_s;
  return gguf_fallback(t, hidden);
}

ggml_type gguf_fallback(ggml_type type, double ncols) {
  if (ncols <= 0 || whole_blocks(type, ncols)) return type;
  ggml_type to = type;
  switch (type) {
    case ggml_type::iq1_s:
    case ggml_type::iq1_m:
    case ggml_type::iq2_xxs:
    case ggml_type::iq2_xs:
    case ggml_type::iq2_s:
    case ggml_type::iq3_xxs:
    case ggml_type::iq3_s:
    case ggml_type::iq4_xs: to = ggml_type::iq4_nl; break;
    case ggml_type::q2_k:
    case ggml_type::q3_k: to = ggml_type::q4_0; break;
    case ggml_type::q4_k: to = ggml_type::q5_0; break;
    case ggml_type::q5_k: to = ggml_type::q5_1; break;
    case ggml_type::q6_k: to = ggml_type::q8_0; break;
    default: return type;
  }
  return whole_blocks(to, ncols) ? to : ggml_type::f16;
}

// ggml ids 0-42 at ggml @d99724f2 (research table cross-checked with huggingface.js quant-descriptions.ts); ids 4, 5,
// 31-33 and 36-38 were removed from the format and are refused.
constexpr std::array<gguf_tensor_type, 35> gguf_tensor_types = {{
    {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},      {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},
    {10, "Q2_K", 256, 84},    {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
    {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},   {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},
    {22, "IQ2_S", 256, 82},   {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
    {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},
    {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
    {40, "NVFP4", 64, 36},    {41, "Q1_0", 128, 18},    {42, "Q2_0", 64, 18},
}};

const gguf_tensor_type* find_gguf_tensor_type(std::uint32_t id) {
  for (const auto& t : gguf_tensor_types)
    if (t.id == id && t.block_values > 0) return &t;
  return nullptr;
}

void gguf_placement::add(std::string_view name, double bytes) {
  if (name == "token_embd.weight") {
    token_embd += bytes;
  } else if (name == "output.weight" || name.starts_with("output_norm.")) {
    output += bytes;
    if (name == "output.weight") tied = false;
  } else if (name.starts_with("blk.")) {
    std::size_t i = 0, at = 4;
    for (; at < name.size() && at < 12 && name[at] >= '0' && name[at] <= '9'; ++at)
      i = i * 10 + static_cast<std::size_t>(name[at] - '0');
    if (at == 4 || at >= name.size() || name[at] != '.' || i >= max_layers) {
      other += bytes;
      return;
    }
    if (layers.size() <= i) layers.resize(i + 1, 0);
    layers[i] += bytes;
    // llama.cpp's LLM_FFN_EXPS_REGEX after "blk\\.N" (common/common.h, ggml-org/llama.cpp 08033df), which
    // --n-cpu-moe's overrides match (common/arg.cpp): the routed experts' matrices and biases.
    const std::string_view tensor = name.substr(at + 1);
    for (const std::string_view exps : {"ffn_up_exps", "ffn_up_chexps", "ffn_down_exps", "ffn_down_chexps",
                                        "ffn_gate_exps", "ffn_gate_chexps", "ffn_gate_up_exps", "ffn_gate_up_chexps"})
      if (tensor.starts_with(exps)) {
        if (experts.size() <= i) experts.resize(i + 1, 0);
        experts[i] += bytes;
        break;
      }
  } else {
    other += bytes;
  }
}

}  // namespace llm_memory
