// SPDX-License-Identifier: MIT
// Names to positions, sorted once and searched by halves (private: the ranking's look-ups of a setting's key and
// of a device's id or alias, fast_lookups.cpp). A sorted array rather than a hash map: std::unordered_map's code
// was about 6 KB gzip of the page's module (docs/performance.md).
#pragma once

#include <cstddef>
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

  /// The entries named `name`, their positions in increasing order (the first is the one a scan finds first).
  [[nodiscard]] std::span<const entry> find(std::string_view name) const;

  [[nodiscard]] bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

 private:
  std::vector<entry> entries_;  ///< sorted by name, then position
};

}  // namespace llm_memory::detail
