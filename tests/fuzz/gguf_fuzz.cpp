// SPDX-License-Identifier: MIT
// Arbitrary bytes as the start of a GGUF file: the header parser must never crash, read past its input or loop
// without bound, and what it accepts must add up.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "llm_memory/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llm_memory;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bool truncated = true;
  const auto header = parse_gguf_header(bytes, size, "gguf", &truncated);
  fuzz::require(!truncated);  // the whole file was given
  if (header.ok()) {
    const auto& t = header.value().tensors;
    std::int64_t tensors = 0;
    for (const auto& [name, d] : t.by_dtype) tensors += d.tensors;
    fuzz::require(tensors == t.tensors && t.bytes >= 0 && t.elements >= 0);
    fuzz::require(!header.value().architecture.empty());
  } else {
    for (const auto& e : header.errors()) fuzz::require(e.setting == "gguf" && !e.message.empty());
  }
  return 0;
}
