// SPDX-License-Identifier: MIT
#include "name_index.hpp"

#include <algorithm>

namespace llm_memory::detail {

// Inserted in place rather than sorted once: std::sort's code for these entries was 1.5 KB of the first part.
void name_index::add(std::string_view name, std::size_t position) {
  const entry e{name, position};
  const auto at = std::upper_bound(entries_.begin(), entries_.end(), e);
  if (at == entries_.begin() || *(at - 1) != e) entries_.insert(at, e);
}

std::span<const name_index::entry> name_index::find(std::string_view name) const {
  const auto first = std::lower_bound(entries_.begin(), entries_.end(), name,
                                      [](const entry& e, std::string_view n) { return e.first < n; });
  auto last = first;
  while (last != entries_.end() && last->first == name) ++last;
  // libc++ 14 (Emscripten 3.1.6) makes no span from vector iterators.
  return {entries_.data() + (first - entries_.begin()), static_cast<std::size_t>(last - first)};
}

}  // namespace llm_memory::detail
