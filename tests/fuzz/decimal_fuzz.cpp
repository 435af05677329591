// SPDX-License-Identifier: MIT
// The core's decimal reader (core/src/decimal.hpp) against glibc's strtod, which rounds correctly: on every
// prefix it accepts, both must give the same double, bit for bit (signed zeros, subnormals, infinities).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "../../core/src/decimal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  double ours = 0;
  const std::size_t read = llm_memory::detail::read_double(text, ours);
  if (read > size) __builtin_trap();
  if (read == 0) {
    if (ours != 0) __builtin_trap();
    return 0;
  }
  // What it read is a plain decimal, which strtod reads the same way and wholly.
  const std::string prefix = text.substr(0, read);
  char* end = nullptr;
  const double theirs = std::strtod(prefix.c_str(), &end);
  if (end != prefix.c_str() + read) __builtin_trap();
  if (std::memcmp(&ours, &theirs, sizeof ours) != 0) __builtin_trap();
  return 0;
}
