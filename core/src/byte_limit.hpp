// SPDX-License-Identifier: MIT
// The largest byte count an estimate may report (private to the core's sources).
#pragma once

#include <optional>

#include "llm_memory/estimate.hpp"

namespace llm_memory::detail {

/// 2^53 bytes (about 9 PB per device): every whole number up to it is an exact double, so JSON, JavaScript and
/// the table carry each byte count exactly. The settings' ranges alone allow far more (batch 10^7 x seq 10^8).
inline constexpr double max_exact_bytes = 9007199254740992.0;

/// An error when the total or the offloaded bytes pass max_exact_bytes, naming the setting that drives the
/// largest bucket: batch (or seq at batch 1) for activations and the KV cache, else params or hidden_size.
[[nodiscard]] std::optional<error> beyond_exact_bytes(const estimate_result& r);

}  // namespace llm_memory::detail
