// SPDX-License-Identifier: MIT
// The module's strtod, strtof and strtold (nlohmann-json's reader calls strtod): the core's correctly rounded
// reader instead of musl's, whose 128-bit long double arithmetic is emulated in software (about 5 KB gzip,
// docs/performance.md). Decimal syntax only, which is all this program ever hands them; no inf, nan or hex.
// Defining all three keeps musl's object, which holds them together, out of the link.
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <string_view>

#include "decimal.hpp"

extern "C" double strtod(const char* text, char** end) {
  const char* p = text;
  while (*p == ' ' || (*p >= '\t' && *p <= '\r')) ++p;
  double v = 0;
  const std::size_t used = llm_memory::detail::read_double(std::string_view(p), v);
  if (used && std::isinf(v)) errno = ERANGE;
  if (end) *end = const_cast<char*>(used ? p + used : text);
  return v;
}

extern "C" float strtof(const char* text, char** end) { return static_cast<float>(strtod(text, end)); }

extern "C" long double strtold(const char* text, char** end) { return strtod(text, end); }
