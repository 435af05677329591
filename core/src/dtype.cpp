// SPDX-License-Identifier: MIT
#include "llm_memory/dtype.hpp"

#include <array>

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
    dtype_info{dtype::q8_0, "q8_0", dtype_family::gguf_mix, 34, 32},      // 32 int8 + fp16 scale
    dtype_info{dtype::q6_k, "q6_k", dtype_family::gguf_mix, 210, 256},    // Q6_K super-blocks of 256
    dtype_info{dtype::q5_k_m, "q5_k_m", dtype_family::gguf_mix, 176, 256},  // base Q5_K
    dtype_info{dtype::q4_k_m, "q4_k_m", dtype_family::gguf_mix, 144, 256},  // base Q4_K
    dtype_info{dtype::q4_0, "q4_0", dtype_family::gguf_mix, 18, 32},      // 32 4-bit + fp16 scale
    dtype_info{dtype::q3_k_m, "q3_k_m", dtype_family::gguf_mix, 110, 256},  // base Q3_K
    dtype_info{dtype::q2_k, "q2_k", dtype_family::gguf_mix, 84, 256},     // base Q2_K
};

constexpr std::array ggml_types = {
    ggml_type_info{ggml_type::q2_k, "Q2_K", 84, 256},  ggml_type_info{ggml_type::q3_k, "Q3_K", 110, 256},
    ggml_type_info{ggml_type::q4_k, "Q4_K", 144, 256}, ggml_type_info{ggml_type::q5_k, "Q5_K", 176, 256},
    ggml_type_info{ggml_type::q6_k, "Q6_K", 210, 256}, ggml_type_info{ggml_type::q8_0, "Q8_0", 34, 32},
    ggml_type_info{ggml_type::q4_0, "Q4_0", 18, 32},
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

// The base tensor type of a mix: what every matrix gets unless the quantiser's rules say otherwise.
ggml_type base_type(dtype mix) {
  switch (mix) {
    case dtype::q2_k: return ggml_type::q2_k;
    case dtype::q3_k_m: return ggml_type::q3_k;
    case dtype::q4_k_m: return ggml_type::q4_k;
    case dtype::q5_k_m: return ggml_type::q5_k;
    case dtype::q6_k: return ggml_type::q6_k;
    case dtype::q8_0: return ggml_type::q8_0;
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

std::span<const ggml_type_info> ggml_type_table() { return ggml_types; }

const ggml_type_info& info(ggml_type t) { return ggml_types[static_cast<std::size_t>(t)]; }

// llama.cpp gives a few layers more bits: the first and last eighth and every third layer between.
gguf_layer_position gguf_position(std::int64_t i, std::int64_t n) {
  return {i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2, i < 2, i < n / 16};
}

// llama_tensor_get_type for dense non-Falcon models (its 70B and 8-expert special cases are not modelled).
ggml_type gguf_matrix_type(dtype mix, std::string_view matrix, gguf_layer_position at, double gqa) {
  const bool k_mix = mix == dtype::q4_k_m || mix == dtype::q5_k_m;
  if (matrix == "v_proj") {
    if (mix == dtype::q2_k) return gqa >= 4 ? ggml_type::q4_k : ggml_type::q3_k;
    if (mix == dtype::q3_k_m) return at.first_two ? ggml_type::q5_k : ggml_type::q4_k;
    if (k_mix && at.more_bits) return ggml_type::q6_k;
  } else if (matrix == "down_proj") {
    if (mix == dtype::q2_k) return ggml_type::q3_k;
    if (mix == dtype::q3_k_m) return at.first_16th ? ggml_type::q5_k : ggml_type::q4_k;
    if (k_mix && at.more_bits) return ggml_type::q6_k;
  } else if (matrix == "o_proj") {
    if (mix == dtype::q2_k) return ggml_type::q3_k;
    if (mix == dtype::q3_k_m) return ggml_type::q4_k;
  }
  return base_type(mix);
}

ggml_type gguf_output_type(dtype mix) { return mix == dtype::q8_0 ? ggml_type::q8_0 : ggml_type::q6_k; }

}  // namespace llm_memory
