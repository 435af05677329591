// SPDX-License-Identifier: MIT
// Arbitrary bytes as a safetensors file (8-byte length, header, buffer) and as an index: the header and index
// parsers must never crash, and what they accept must be self-consistent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "llm_memory/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llm_memory;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto length = safetensors_header_length(bytes, size, "safetensors");
  if (length.ok()) {
    fuzz::require(length.value() >= 1 && length.value() <= size - 8);
    const auto header =
        parse_safetensors_header(bytes.substr(8, length.value()), size - 8 - length.value(), "safetensors");
    if (header.ok()) {
      const auto& c = header.value();
      fuzz::require(c.bytes == static_cast<double>(size - 8 - length.value()));
      std::int64_t tensors = 0;
      for (const auto& [name, d] : c.by_dtype) tensors += d.tensors;
      fuzz::require(tensors == c.tensors);
    } else {
      for (const auto& e : header.errors()) fuzz::require(e.setting == "safetensors" && !e.message.empty());
    }
  }
  const auto shards = parse_safetensors_index(bytes, "safetensors");
  if (shards.ok()) {
    for (const auto& name : shards.value()) fuzz::require(!name.empty() && name.find('/') == std::string::npos);
  }
  return 0;
}
