// SPDX-License-Identifier: MIT
// Names to positions (private: the ranking's look-ups of a setting's key and of a device's id or alias,
// fast_lookups.cpp): sorted once, then hashed. An open-addressing table of its own rather than std::unordered_map,
// whose code was about 6 KB gzip of the page's module (docs/performance.md); a find by halves cost about 400
// instructions, 9,000 of them a ranking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace llm_memory::detail {

class name_index {
 public:
  /// One name and the position it names (in its catalogue or table).
  using entry = std::pair<std::string_view, std::size_t>;

  /// Adds `name` for `position` in its sorted place (once: a second add of the same pair is a no-op); the names
  /// must outlive the index. Each add moves the entries after it: fine for the few hundred names of a table.
  void add(std::string_view name, std::size_t position);

  /// Hashes the names added so far: find() then costs a hash and a compare instead of a search by halves. An add
  /// after it undoes it (find() searches by halves again until the next seal()).
  void seal();

  /// The entries named `name`, their positions in increasing order (the first is the one a scan finds first).
  [[nodiscard]] std::span<const entry> find(std::string_view name) const;

  [[nodiscard]] bool empty() const { return entries_.empty(); }
  void clear() {
    entries_.clear();
    slots_.clear();
  }

 private:
  std::vector<entry> entries_;        ///< sorted by name, then position
  std::vector<std::uint32_t> slots_;  ///< per hash slot: 1 + the first entry of a name; 0: empty (none: not sealed)
};

}  // namespace llm_memory::detail
