// SPDX-License-Identifier: MIT
#include "name_index.hpp"

#include <algorithm>

namespace llm_memory::detail {

namespace {

// FNV-1a, 64-bit.
std::uint64_t hash_of(std::string_view name) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

}  // namespace

// Inserted in place rather than sorted once: std::sort's code for these entries was 1.5 KB of the first part.
void name_index::add(std::string_view name, std::size_t position) {
  const entry e{name, position};
  const auto at = std::upper_bound(entries_.begin(), entries_.end(), e);
  if (at == entries_.begin() || *(at - 1) != e) entries_.insert(at, e);
  slots_.clear();  // the positions in entries_ moved
}

// At most half the slots used, so a probe sequence ends at an empty slot within a few steps.
void name_index::seal() {
  std::size_t size = 1;
  while (size < 2 * entries_.size()) size *= 2;
  slots_.assign(size, 0);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (i > 0 && entries_[i - 1].first == entries_[i].first) continue;  // the first entry of each name
    std::size_t s = hash_of(entries_[i].first) & (size - 1);
    while (slots_[s] != 0) s = (s + 1) & (size - 1);
    slots_[s] = static_cast<std::uint32_t>(i + 1);
  }
}

std::span<const name_index::entry> name_index::find(std::string_view name) const {
  std::size_t first = entries_.size();
  if (!slots_.empty()) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = hash_of(name) & mask; slots_[s] != 0; s = (s + 1) & mask)
      if (entries_[slots_[s] - 1].first == name) {
        first = slots_[s] - 1;
        break;
      }
  } else {
    first = static_cast<std::size_t>(std::lower_bound(entries_.begin(), entries_.end(), name,
                                                      [](const entry& e, std::string_view n) { return e.first < n; }) -
                                     entries_.begin());
  }
  std::size_t last = first;
  while (last < entries_.size() && entries_[last].first == name) ++last;
  // libc++ 14 (Emscripten 3.1.6) makes no span from vector iterators.
  return {entries_.data() + first, last - first};
}

}  // namespace llm_memory::detail
