// SPDX-License-Identifier: MIT
// Checkpoint headers: what a safetensors file (an 8-byte little-endian length, then JSON) or a GGUF file (metadata
// and tensor infos) says about its tensors, read from the header alone. Formats: huggingface/safetensors README
// "Format" and tensor.rs @24b0b285; ggml docs/gguf.md and src/gguf.cpp @d99724f2; docs/models.md "Checkpoints".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/dtype.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// The largest safetensors header read: the reference library's MAX_HEADER_SIZE [bytes].
inline constexpr std::uint64_t max_safetensors_header_bytes = 100'000'000;
/// The largest model.safetensors.index.json read [bytes].
inline constexpr std::uint64_t max_safetensors_index_bytes = 100'000'000;
/// The most shards an index may name (huggingface.js MAX_SHARD_COUNT) [files].
inline constexpr std::size_t max_safetensors_shards = 10'000;
/// The most tensors one header or index lists [tensors]: whole checkpoints list of the order of 10^5 (a 1T MoE's
/// every expert matrix), a 100 MB header of one-byte tensors ~1.8 M; reading takes ~100 bytes per tensor.
inline constexpr std::size_t max_safetensors_tensors = 1'000'000;
/// The most dimensions a safetensors shape lists [dimensions]: the format sets none; NumPy 2's NPY_MAXDIMS (64,
/// up from 32) bounds what its numpy loader can build.
inline constexpr std::size_t max_safetensors_rank = 64;

/// Tensors of one dtype.
struct dtype_total {
  std::int64_t tensors = 0;  ///< tensors of this dtype [tensors]
  double elements = 0;       ///< their elements [values]
  double bytes = 0;          ///< their data [bytes]
};

/// What the headers of a checkpoint (one file or every shard) list.
struct checkpoint_summary {
  std::int64_t tensors = 0;                     ///< tensors listed [tensors]
  double elements = 0;                          ///< elements of every tensor [values]
  double bytes = 0;                             ///< tensor data, headers excluded [bytes]
  std::map<std::string, dtype_total> by_dtype;  ///< per dtype as the header spells it
  /// Some tensor is an integer or byte container (U8, I32: packed 4-bit weights, scales, buffers), so the element
  /// count is not the parameter count. GGUF elements are always parameters.
  bool packed = false;
  /// Adds another shard's tensors.
  void add(const checkpoint_summary& other);
};

/// The header's length from the file's first 8 bytes (little-endian u64); an error names `what` (the flag)
/// when fewer than 8 bytes, or the length is 0 or over max_safetensors_header_bytes, or the header would
/// end past `file_size`.
[[nodiscard]] result<std::uint64_t> safetensors_header_length(std::string_view first_bytes, std::uint64_t file_size,
                                                              std::string_view what);

/// Parses a safetensors header (the JSON after the length): every tensor's dtype, shape and data_offsets are
/// checked (known dtype, whole dimensions, END - BEGIN = the dtype's bytes for the shape, the buffer covered
/// without holes or overlap); `buffer_size` (file size - 8 - header length) must equal the buffer's end, and a
/// header with no tensor is refused. A name given twice keeps its last entry, as the reference reader's map does.
/// Width is bounded: more than max_safetensors_tensors tensors, a shape of more than max_safetensors_rank
/// dimensions or an entry of more than 64 members is refused as it is read, naming the tensor; the header is
/// read a member at a time, never held whole. `names`, when given, receives the tensor names (for duplicate_tensor
/// across shards).
[[nodiscard]] result<checkpoint_summary> parse_safetensors_header(std::string_view header, std::uint64_t buffer_size,
                                                                  std::string_view what,
                                                                  std::vector<std::string>* names = nullptr);

/// An error naming a tensor that appears more than once in `names` (every shard's tensor names together): one
/// name in two shards would be counted twice. Sorted, so linearithmic in the names.
[[nodiscard]] std::optional<error> duplicate_tensor(std::vector<std::string> names, std::string_view what);

/// The shard file names a model.safetensors.index.json maps its tensors to, each once, in order of first use.
/// Names must be plain file names (no directory part), so only files beside the index are read.
[[nodiscard]] result<std::vector<std::string>> parse_safetensors_index(std::string_view index_json,
                                                                       std::string_view what);

/// The largest GGUF header read: metadata (tokenizer vocabularies included) and tensor infos [bytes].
inline constexpr std::uint64_t max_gguf_header_bytes = 256ull << 20;

/// What a GGUF header says (ggml docs/gguf.md and src/gguf.cpp @d99724f2, version 2 and 3).
struct gguf_header {
  checkpoint_summary tensors;  ///< tensor infos, by ggml type name; every element is a parameter
  std::string architecture;    ///< general.architecture
  settings fields;             ///< the architecture's metadata as settings (hidden_size, num_hidden_layers, ...)
  gguf_placement placement;    ///< the tensors' bytes by where llama.cpp puts them (token_embd, blk.N, output)
};

/// Parses a GGUF header from the first bytes of a file of `file_size` bytes. When `bytes` ends inside the header
/// but the file goes on, the error says so and `*truncated` is set (read more and call again). Refused as
/// llama.cpp refuses them (gguf.cpp @067d44f6, llama-model-loader.cpp @3074b500): a duplicate tensor name, a
/// name of 64 bytes or more, blk.N with N not below <arch>.block_count (or no block_count), data that does not
/// start where the previous tensor's ends padded to the alignment, data past `file_size`; and no tensors at all.
[[nodiscard]] result<gguf_header> parse_gguf_header(std::string_view bytes, std::uint64_t file_size,
                                                    std::string_view what, bool* truncated = nullptr);

}  // namespace llm_memory
