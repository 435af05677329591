// SPDX-License-Identifier: MIT
// The one table of inference runtimes: a row per runtime_kind, in the enum's order, each filled in its own file
// (runtimes/<name>.cpp). Every stage that depends on the runtime reads its row here.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "profiles.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {

// The rows, one file each under runtimes/.
runtime_def transformers_runtime();
runtime_def vllm_runtime();
runtime_def sglang_runtime();
runtime_def tgi_runtime();
runtime_def llamacpp_runtime();
runtime_def ollama_runtime();

namespace {

// Indexed by runtime_kind, in the enum's order; `automatic` is resolved before any stage reads a row, so its row is
// empty.
const auto& rows() {
  static const std::array table{
      runtime_def{}, transformers_runtime(), vllm_runtime(),   sglang_runtime(),
      tgi_runtime(), llamacpp_runtime(),     ollama_runtime(),
  };
  return table;
}

}  // namespace

const runtime_def& runtime_of(runtime_kind kind) { return rows()[static_cast<std::size_t>(kind)]; }

std::optional<runtime_kind> runtime_named(std::string_view name) {
  for (const runtime_def& row : rows())
    if (runtime_name(row.kind) == name) return row.kind;
  return std::nullopt;
}

runtime_kind auto_runtime(std::optional<dtype> weights) {
  if (weights)
    for (const runtime_def& row : rows())
      if (row.picked_for != nullptr && row.picked_for(*weights)) return row.kind;
  return runtime_kind::vllm;
}

architecture_rule without_window(const setting_values& v, std::string_view runtime, std::string_view why) {
  if (v.sliding_window <= 0) return {};
  architecture_rule rule;
  rule.model.emplace("sliding_window", "0");
  // A layer list's sliding layers become full ones: with no window they would otherwise cache nothing.
  std::string layers = v.layer_types;
  const std::string_view sliding = "sliding_attention", full = "full_attention";
  for (auto at = layers.find(sliding); at != std::string::npos; at = layers.find(sliding, at + full.size()))
    layers.replace(at, sliding.size(), full);
  if (layers != v.layer_types) rule.model.emplace("layer_types", layers);
  rule.note = std::string(runtime) + " runs " + v.model_type + " without its sliding window of " +
              std::to_string(v.sliding_window) + " tokens: every layer keeps the whole context (" + std::string(why) +
              ")";
  return rule;
}

architecture_rule windowless_rule(const setting_values& v, std::span<const windowless_arch> archs,
                                  std::string_view runtime) {
  for (const windowless_arch& a : archs)
    if (a.model_type == v.model_type) return without_window(v, runtime, a.why);
  return {};
}

architecture_rule chunks_as_window(const setting_values& v, std::int64_t chunk, std::string_view runtime,
                                   std::string_view why) {
  if (v.attention_chunk_size <= 0 || v.sliding_window > 0 || chunk <= 0) return {};
  architecture_rule rule;
  rule.model.emplace("sliding_window", std::to_string(chunk));
  rule.model.emplace("sliding_window_pattern", "4");
  rule.note = std::string(runtime) + " caches " + v.model_type +
              "'s chunked-attention layers (3 of 4) as a window of " + std::to_string(chunk) +
              " tokens, every 4th layer the whole context (" + std::string(why) + ")";
  return rule;
}

settings engine_common() { return {{"attention", "flash"}, {"fragmentation", "0"}, {"cuda_context", "0.45GiB"}}; }

settings runtime_profile(runtime_kind runtime, const setting_values& values) {
  const auto profile = runtime_of(runtime).profile;
  return profile != nullptr ? profile(values) : settings{};
}

}  // namespace llm_memory::detail
