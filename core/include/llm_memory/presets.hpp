// SPDX-License-Identifier: MIT
// Model and GPU presets, compiled in from core/data/ (one source of truth for CLI and wasm; the page's module
// gets the model presets from JS through add_models).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// A model preset: the architecture settings of a published checkpoint.
struct model_preset {
  std::string id;                    ///< Hugging Face repo name, lower-case, no organisation, no -hf suffix
  std::vector<std::string> aliases;  ///< other repo names with this count (instruct, chat, base), as the id is
  std::string name;                  ///< display name, e.g. "Llama 2 7B"
  std::string hf_repo;               ///< e.g. "meta-llama/Llama-2-7b-hf"
  settings fields;                   ///< settings keys -> values (hidden_size, num_hidden_layers, ...)
  /// The checkpoint's storage format, its config's quantization_config read as settings (weights_dtype,
  /// quant_group_size, ...): the default of inference runtimes that load the checkpoint itself; empty: bf16
  settings shipped;
  std::int64_t official_params = 0;  ///< published exact parameter count; 0 when none is published
  std::string source;                ///< where official_params comes from
  std::string note;                  ///< why the computed count may differ, when it does
};

/// A GPU preset.
struct gpu_preset {
  std::string id;                   ///< e.g. "h100-80gb"
  std::string name;                 ///< e.g. "NVIDIA H100 80GB SXM"
  double memory_bytes = 0;          ///< usable device memory in bytes
  double unified_memory_bytes = 0;  ///< unified memory shared with the CPU (Apple silicon; bytes); 0 for a discrete GPU
  std::string source;               ///< where the figure comes from
  std::string note;                 ///< caveat on how much of it a job can use, when there is one
};

/// Metal's default GPU working set (MTLDevice.recommendedMaxWorkingSetSize) on an Apple silicon machine with
/// `unified_bytes` of unified memory (bytes): two thirds of it up to 36 GiB, three quarters above, floored to a
/// whole byte (docs/methodology.md, "Apple silicon").
[[nodiscard]] double metal_working_set_bytes(double unified_bytes);

[[nodiscard]] std::span<const model_preset> model_presets();
/// The preset whose id or one of whose aliases is `id` (lower-case), or null.
[[nodiscard]] const model_preset* find_model(std::string_view id);
/// The preset a model box's text names, forgivingly: any case, with or without the Hugging Face organisation
/// ("Qwen/Qwen3-14B") or the "-hf" suffix, its id or one of its aliases. An error naming "model" when no preset
/// or several match, with up to 3 ids within a few edits ("did you mean ...").
[[nodiscard]] result<const model_preset*> lookup_model(std::string_view text);
/// Adds model presets: `json_text` is one entry object or an array of them, as core/data/models.json's
/// "models" holds them (core/embed_data.cmake writes them for the page's wasm module, which compiles none in).
/// An id already known keeps its entry. Returns how many were added, or an error naming "models". Not to be
/// called while another thread reads the presets (spans and pointers from before may dangle).
[[nodiscard]] result<std::size_t> add_models(std::string_view json_text);

[[nodiscard]] std::span<const gpu_preset> gpu_presets();
[[nodiscard]] const gpu_preset* find_gpu(std::string_view id);

}  // namespace llm_memory
