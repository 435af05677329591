// SPDX-License-Identifier: MIT
#include "llm_memory/estimate.hpp"

#include <algorithm>
#include <string>

#include "text.hpp"

namespace llm_memory {

using detail::format_number;

std::optional<error> beyond_exact_bytes(const estimate_result& r) {
  const double largest = std::max(r.total_bytes, r.cpu_bytes);
  if (largest <= max_exact_bytes) return std::nullopt;
  // The buckets are never empty; the items are non-negative, so the total is the largest count.
  const auto top = std::max_element(r.buckets.begin(), r.buckets.end(),
                                    [](const bucket& a, const bucket& b) { return a.bytes < b.bytes; });
  const bool per_token = r.cpu_bytes <= r.total_bytes && (top->key == "activations" || top->key == "kv_cache");
  // Routed experts a token does not use outweighing the rest means the expert count drove the size.
  const auto& count = r.model.params;
  const bool experts_drive = count.experts && count.total - count.active > count.active;
  const std::string setting = per_token               ? (r.settings.batch > 1 ? "batch" : "seq")
                              : r.settings.params > 0 ? "params"
                              : experts_drive         ? "num_experts"
                                                      : "hidden_size";
  const std::string what = r.cpu_bytes > r.total_bytes ? "offloaded CPU memory" : top->label;
  return error{setting, "the estimate reaches " + format_number(largest) + " bytes per device (" + what +
                            "), past 2^53 = 9007199254740992, where byte counts stop being exact; lower " + setting};
}

}  // namespace llm_memory
