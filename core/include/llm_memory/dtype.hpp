// SPDX-License-Identifier: MIT
// The one table of storage formats: bytes per element and block size of every weight, gradient, optimizer-state
// and KV-cache format, and of the GGUF tensor types the llama.cpp mixes are made of (each block's scale layout is
// in dtype.cpp beside its row and in docs/methodology.md, "Storage formats"). Weights and KV cache read it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace llm_memory {

/// A storage format a setting can name (weights_dtype, grads_dtype, optimizer_dtype, kv_dtype).
enum class dtype : std::uint8_t {
  fp32,
  bf16,
  fp16,
  fp8,
  int8,
  int4,
  nf4,
  q8_0,
  q6_k,
  q5_k_m,
  q4_k_m,
  q4_0,
  q3_k_m,
  q2_k,
  q5_k_s,
  q4_k_s,
  q3_k_s,
  q3_k_l,
  iq4_xs,
  iq4_nl,
  iq3_s,
  iq3_xxs,
  iq2_s,
  iq2_xs,
  iq2_xxs,
  iq1_m,
  iq1_s,
  gptq,       ///< GPTQ checkpoint (AutoGPTQ / GPTQModel / optimum): int32-packed qweight, qzeros, fp16 scales, g_idx
  awq,        ///< AutoAWQ GEMM checkpoint: int32-packed qweight and qzeros, fp16 scales
  w4a16,      ///< compressed-tensors pack-quantized (llm-compressor W4A16 / W8A16): packed weight, scales, shape
  fp8_block,  ///< FP8 E4M3 weights with fp32 scale_inv per block (DeepSeek-V3, Qwen3-FP8 quant_method fp8)
  mxfp4       ///< MXFP4 routed experts (gpt-oss): 32 E2M1 values in 16 bytes + one E8M0 scale byte; the rest 16-bit
};

/// How a format stores its values.
enum class dtype_family : std::uint8_t {
  floating,       ///< fp32 / bf16 / fp16: every weight in this format; can be trained
  matrices,       ///< fp8, int4, nf4: the linear layers only; embeddings, lm_head and norms stay 16-bit
  matrices_rows,  ///< int8: as `matrices`, plus one fp32 scale per output row of each matrix
  gguf_mix,       ///< a llama.cpp file type: per-tensor GGUF types chosen by its quantiser
  layout,         ///< a checkpoint's quantised layout: each Linear's bytes from its shape (layout_linear_bytes)
};

/// One row of the format table.
struct dtype_info {
  dtype id = dtype::bf16;
  std::string_view name;  ///< as the settings spell it
  dtype_family family = dtype_family::floating;
  double block_bytes = 2;   ///< bytes of one block [bytes]
  double block_values = 1;  ///< values in one block [values]
  /// Bytes per stored value [bytes]; GGUF mixes give their base type's figure (the mix varies per tensor).
  [[nodiscard]] constexpr double bytes_per_value() const { return block_bytes / block_values; }
};

/// Every format, in the order of `dtype`.
[[nodiscard]] std::span<const dtype_info> dtype_table();
/// The row of `d`.
[[nodiscard]] const dtype_info& info(dtype d);
/// The format named `name` (the settings' spelling), if any.
[[nodiscard]] std::optional<dtype> find_dtype(std::string_view name);
/// Bytes per value of `d` [bytes]; NF4 with double quantisation stores its absmax in 8 bits (QLoRA section 3).
[[nodiscard]] double bytes_per_value(dtype d, bool double_quant = false);

/// The quantisation parameters a checkpoint layout needs (quantization_config's bits and group_size).
struct layout_params {
  std::int64_t bits = 4;     ///< bits per quantised weight (GPTQ, AWQ, compressed-tensors) [bits]
  std::int64_t group = 128;  ///< weights per group along the input (GPTQ, AWQ, w4a16), or the FP8 block's edge;
                             ///< 0 = one group per column (GPTQ group_size -1, channel-wise) or per-tensor FP8
  double other_bytes = 2;    ///< bytes per value of what the format leaves unquantised (the checkpoint's dtype)
};

/// Bytes a checkpoint in `d` (family layout) stores for one nn.Linear of `in` x `out` weights with `bias` bias
/// values, every tensor of the format's layout (docs/methodology.md, "Quantised checkpoints"); nullopt when the
/// format does not quantise this Linear (MXFP4: only routed experts), which then stays in `other_bytes`.
[[nodiscard]] std::optional<double> layout_linear_bytes(dtype d, const layout_params& p, double in, double out,
                                                        double bias, bool routed);

/// A GGUF tensor type (ggml_type), the unit the llama.cpp mixes are made of.
enum class ggml_type : std::uint8_t {
  q2_k,
  q3_k,
  q4_k,
  q5_k,
  q6_k,
  q8_0,
  q4_0,
  f32,
  f16,
  bf16,
  q4_1,
  q5_0,
  q5_1,
  iq4_nl,
  iq4_xs,
  iq3_s,
  iq3_xxs,
  iq2_s,
  iq2_xs,
  iq2_xxs,
  iq1_m,
  iq1_s,
  mxfp4
};

/// One GGUF tensor type: its block layout (llama.cpp ggml-common.h).
struct ggml_type_info {
  ggml_type id = ggml_type::q4_0;
  std::string_view name;    ///< as llama.cpp prints it ("Q4_K")
  double block_bytes = 0;   ///< bytes of one block [bytes]
  double block_values = 0;  ///< values in one block [values]
  [[nodiscard]] constexpr double bytes_per_value() const { return block_bytes / block_values; }
};

[[nodiscard]] std::span<const ggml_type_info> ggml_type_table();
[[nodiscard]] const ggml_type_info& info(ggml_type t);
/// Bytes of `values` values of type `t`: whole blocks only [bytes]; nullopt when `values` is not a whole number of
/// blocks (llama.cpp requires every row to be whole blocks).
[[nodiscard]] std::optional<double> ggml_row_bytes(ggml_type t, double values);

/// One tensor type a GGUF file may hold, by its ggml id (ggml include/ggml.h `enum ggml_type` and src/ggml.c
/// `type_traits[]` @d99724f2; block bytes = sizeof(block_*) of src/ggml-common.h). Removed ids have no row.
struct gguf_tensor_type {
  std::uint32_t id = 0;            ///< ggml_type as stored in a tensor info
  std::string_view name;           ///< as llama.cpp prints it
  std::uint32_t block_values = 1;  ///< values in one block [values]
  std::uint32_t block_bytes = 0;   ///< bytes of one block [bytes]
};

/// The GGUF tensor type with ggml id `id`, or nullptr for a removed or unknown id.
[[nodiscard]] const gguf_tensor_type* find_gguf_tensor_type(std::uint32_t id);

/// Where a layer sits for llama.cpp's quantiser (llama_tensor_get_type_impl, src/llama-quant.cpp @007dbbf3): the
/// only facts about a layer's index that choose its tensors' types. One function computes it, so typing a layer and
/// counting layers per class cannot disagree.
struct gguf_layer_position {
  bool more_bits = false;   ///< use_more_bits(i, n): the first and last eighth, every third layer between
  bool first_two = false;   ///< i < 2 (Q3_K_M attn_v)
  bool first_16th = false;  ///< i < n / 16 (Q3_K_M ffn_down)
  bool first_four = false;  ///< i < 4 (Q4_K_S attn_v)
  bool first_8th = false;   ///< i < n / 8 (Q4_K_S, IQ4_XS/NL and the IQ1/IQ2 mixes' ffn_down)
  /// The position as a small integer, for counting layers per class [0, 32).
  [[nodiscard]] constexpr int key() const {
    return (more_bits ? 1 : 0) | (first_two ? 2 : 0) | (first_16th ? 4 : 0) | (first_four ? 8 : 0) |
           (first_8th ? 16 : 0);
  }
};
/// Number of distinct gguf_layer_position::key() values.
inline constexpr int gguf_position_keys = 32;

/// The position of layer `i` of `n`.
[[nodiscard]] gguf_layer_position gguf_position(std::int64_t i, std::int64_t n);

/// What llama.cpp's quantiser reads about the model besides a tensor's name and layer (llama-quant.cpp @007dbbf3).
struct gguf_model_facts {
  double gqa = 1;            ///< n_head / n_head_kv (hparams.n_gqa())
  std::int64_t experts = 0;  ///< hparams.n_expert (0 for dense models)
  bool is_70b = false;       ///< model.type == LLM_TYPE_70B (80 layers with grouped-query attention)
  double hidden = 0;         ///< n_embd: the row length of token_embd and output [values]
};

/// The type llama.cpp's quantiser gives one matrix (PEFT name: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj,
/// down_proj, kv_b_proj, ...) of a layer at `position`, for the mix `mix`, whose rows are `ncols` values long
/// (0: skip the row-length fallback). Files are taken as made with an importance matrix, as the published ones are
/// (llama.cpp refuses IQ1/IQ2/IQ3_XXS without one; it changes IQ4_XS/IQ4_NL's and Q4_0's first-eighth ffn_down).
[[nodiscard]] ggml_type gguf_matrix_type(dtype mix, std::string_view matrix, gguf_layer_position position,
                                         const gguf_model_facts& model, double ncols = 0);
/// The same for a dense model with query heads / KV heads = `gqa`.
[[nodiscard]] ggml_type gguf_matrix_type(dtype mix, std::string_view matrix, gguf_layer_position position, double gqa);

/// The type a mix stores the output matrix in (Q6_K; Q8_0 for q8_0; Q5_K for the IQ1/IQ2/IQ3_XXS mixes), and the
/// token embedding when it is tied to the output.
[[nodiscard]] ggml_type gguf_output_type(dtype mix, double hidden = 0);

/// The type a mix stores an untied token embedding in (the base type; Q2_K or IQ3_S for the IQ1/IQ2/IQ3_XXS mixes).
[[nodiscard]] ggml_type gguf_embedding_type(dtype mix, double hidden = 0);

/// llama.cpp's fallback when a row of `ncols` values is not whole blocks of `type` (tensor_type_fallback): IQ
/// types -> IQ4_NL, Q2_K/Q3_K -> Q4_0, Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0; F16 when that is not whole either.
[[nodiscard]] ggml_type gguf_fallback(ggml_type type, double ncols);

/// A GGUF file's tensor bytes where llama.cpp places them (llama-model.cpp load_tensors), read from its header:
/// with a file, the weights are its tensors at their stored types, not the mix rule.
struct gguf_placement {
  double token_embd = 0;       ///< token_embd.weight: host memory [bytes]
  double output = 0;           ///< output.weight and output_norm.*: the output layer [bytes]
  bool tied = true;            ///< no output.weight: llama.cpp duplicates token_embd as the output matrix
  std::vector<double> layers;  ///< blk.N.* by N [bytes]
  /// Of those, blk.N.ffn_{up,down,gate,gate_up}_{,ch}exps.* by N: what --n-cpu-moe keeps on the host [bytes]
  std::vector<double> experts;
  double other = 0;  ///< any other tensor (rope_freqs, ...), taken as host memory [bytes]
  /// Every tensor's bytes once [bytes].
  [[nodiscard]] double total() const {
    double t = token_embd + output + other;
    for (const double l : layers) t += l;
    return t;
  }
  /// Adds one tensor of `bytes` named `name`; a block index past `max_layers` counts as `other`.
  void add(std::string_view name, double bytes);
  /// Most layers a header may place (blk.N with N below it) [layers].
  static constexpr std::size_t max_layers = 1 << 16;
};

}  // namespace llm_memory
