// SPDX-License-Identifier: MIT
// The one table of inference runtimes: a row per runtime_kind, in the enum's order, each filled in its own file
// (runtimes/<name>.cpp). Every stage that depends on the runtime reads its row here.
#include <array>
#include <cstddef>

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

runtime_kind auto_runtime(std::optional<dtype> weights) {
  if (weights)
    for (const runtime_def& row : rows())
      if (row.picked_for != nullptr && row.picked_for(*weights)) return row.kind;
  return runtime_kind::vllm;
}

settings engine_common() { return {{"attention", "flash"}, {"fragmentation", "0"}, {"cuda_context", "0.45GiB"}}; }

settings runtime_profile(runtime_kind runtime, const setting_values& values) {
  const auto profile = runtime_of(runtime).profile;
  return profile != nullptr ? profile(values) : settings{};
}

}  // namespace llm_memory::detail
