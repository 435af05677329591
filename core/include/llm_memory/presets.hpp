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

/// The software stack a device runs under: what the runtimes' device checks read (runtimes/devices.cpp).
enum class device_backend {
  cuda,   ///< NVIDIA CUDA
  rocm,   ///< AMD ROCm / HIP
  metal,  ///< Apple Metal
  xpu,    ///< Intel GPUs (oneAPI / SYCL, PyTorch "xpu")
  gaudi,  ///< Intel Gaudi (Habana, PyTorch "hpu")
};

/// Which published figure a preset's memory_bytes is (the first the catalogue has, in this order).
enum class memory_basis {
  framework,    ///< what PyTorch reports as total_memory, the figure vLLM multiplies by gpu_memory_utilization
  driver,       ///< the driver's total (nvidia-smi memory.total): a few hundred MiB above the framework's
  nominal,      ///< the marketed size read as GiB: no reported figure is published
  working_set,  ///< Metal's default working set of the unified memory (Apple silicon)
};

/// A GPU preset: one device of core/data/gpus.json (docs/devices.md has the table and the sources).
struct gpu_preset {
  std::string id;                                 ///< e.g. "h100-80gb"
  std::vector<std::string> aliases;               ///< other ids naming it (earlier ids, common names)
  std::string name;                               ///< e.g. "NVIDIA H100 80GB SXM5"
  std::string vendor;                             ///< "NVIDIA", "AMD", "Intel" or "Apple"
  std::string segment;                            ///< "data centre", "workstation", "consumer" or "unified"
  device_backend backend = device_backend::cuda;  ///< the stack it runs under
  double memory_bytes = 0;  ///< the memory an estimate compares with (bytes): `basis` says which figure
  memory_basis basis = memory_basis::nominal;  ///< which published figure memory_bytes is
  double marketed_bytes = 0;                   ///< the marketed size, vendor "GB" read as GiB (bytes)
  double visible_bytes = 0;                    ///< what PyTorch reports as total_memory (bytes); 0: not published
  double reported_bytes = 0;         ///< the driver's total, nvidia-smi memory.total (bytes); 0: not published
  double unified_memory_bytes = 0;   ///< memory shared with the CPU (bytes); 0 for a discrete GPU
  double bandwidth_bytes_per_s = 0;  ///< peak memory bandwidth (bytes/s)
  double bf16_flops = 0;             ///< peak dense BF16 tensor throughput (FLOP/s); 0: not published / none
  double fp8_flops = 0;              ///< peak dense FP8 tensor throughput (FLOP/s); 0: not published / none
  std::string interconnect;          ///< how devices of a node talk: NVLink, PCIe, unified memory
  std::string source;                ///< where each figure comes from
  std::string note;                  ///< caveats: what is not published, how much of it a job can use
};

/// The words for where a preset's memory figure comes from, e.g. "what PyTorch reports (total_memory)".
[[nodiscard]] std::string_view basis_words(memory_basis basis);
/// The backend's name as the catalogue spells it ("cuda", "rocm", "metal", "xpu", "gaudi").
[[nodiscard]] std::string_view backend_name(device_backend backend);

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
/// The preset whose id or one of whose aliases is `id` (lower-case), or null.
[[nodiscard]] const gpu_preset* find_gpu(std::string_view id);

}  // namespace llm_memory
