// SPDX-License-Identifier: MIT
// Checkpoint headers: what a safetensors file says about its tensors, read from its header alone (an 8-byte
// little-endian length, then JSON). Format: huggingface/safetensors README "Format" and tensor.rs
// (@24b0b285: Dtype::bitsize, MAX_HEADER_SIZE, Metadata::validate); docs/models.md "Checkpoints".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/result.hpp"

namespace llm_memory {

/// The largest safetensors header read: the reference library's MAX_HEADER_SIZE [bytes].
inline constexpr std::uint64_t max_safetensors_header_bytes = 100'000'000;
/// The largest model.safetensors.index.json read [bytes].
inline constexpr std::uint64_t max_safetensors_index_bytes = 100'000'000;
/// The most shards an index may name (huggingface.js MAX_SHARD_COUNT) [files].
inline constexpr std::size_t max_safetensors_shards = 10'000;

/// Tensors of one dtype.
struct dtype_total {
  std::int64_t tensors = 0;  ///< tensors of this dtype [tensors]
  double elements = 0;       ///< their elements [values]
  double bytes = 0;          ///< their data [bytes]
};

/// What the headers of a checkpoint (one file or every shard) list.
struct checkpoint_summary {
  std::int64_t tensors = 0;                      ///< tensors listed [tensors]
  double elements = 0;                           ///< elements of every tensor [values]
  double bytes = 0;                              ///< tensor data, headers excluded [bytes]
  std::map<std::string, dtype_total> by_dtype;   ///< per dtype as the header spells it
  /// Whether every tensor holds one value per element (floating point, no packed integer containers), so the
  /// element count is the parameter count.
  [[nodiscard]] bool elements_are_params() const;
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
/// without holes or overlap); `buffer_size` (file size - 8 - header length) must equal the buffer's end.
[[nodiscard]] result<checkpoint_summary> parse_safetensors_header(std::string_view header, std::uint64_t buffer_size,
                                                                  std::string_view what);

/// The shard file names a model.safetensors.index.json maps its tensors to, each once, in order of first use.
/// Names must be plain file names (no directory part), so only files beside the index are read.
[[nodiscard]] result<std::vector<std::string>> parse_safetensors_index(std::string_view index_json,
                                                                       std::string_view what);

}  // namespace llm_memory
