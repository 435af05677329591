// SPDX-License-Identifier: MIT
// The devices a runtime does not run on, each with the runtime's words and where they are written. transformers
// runs wherever PyTorch does (CUDA, ROCm, MPS, XPU, HPU), so it has no row.
#include "runtimes/devices.hpp"

#include <array>
#include <string>
#include <string_view>

#include "llm_memory/presets.hpp"

namespace llm_memory::detail {
namespace {

struct unsupported {
  runtime_kind runtime = runtime_kind::automatic;  ///< the runtime
  device_backend backend = device_backend::cuda;   ///< a stack it has no backend for
  std::string_view words;                          ///< why, in the runtime's words, and what runs there instead
};

constexpr std::string_view ggml_no_gaudi =
    "has no Intel Gaudi backend (ggml's backends: CPU, CUDA, HIP, Metal, Vulkan, SYCL and others, none for Gaudi's "
    "HPU); use runtime vllm (the vllm-gaudi plugin), tgi or transformers";

constexpr std::array table{
    // vLLM docs, installation/cpu.apple.inc.md (v0.21 and main): "On macOS the VLLM_TARGET_DEVICE is
    // automatically set to cpu, which is currently the only supported device"; Metal is the community plugin
    // vllm-metal (MLX), whose memory is not modelled here.
    unsupported{runtime_kind::vllm, device_backend::metal,
                "does not run on Apple silicon's GPU: on macOS vLLM builds for the CPU only (VLLM_TARGET_DEVICE=cpu, "
                "vLLM's installation docs); Metal is the community plugin vllm-metal (MLX), not modelled here; use "
                "runtime llamacpp or ollama"},
    // docs.sglang.io, "Hardware Platforms": NVIDIA GPUs, AMD GPUs, Ascend NPUs, CPU server, NVIDIA Jetson Orin,
    // TPU, XPU.
    unsupported{runtime_kind::sglang, device_backend::metal,
                "does not run on Apple silicon: SGLang's hardware platforms are NVIDIA and AMD GPUs, Ascend NPUs, "
                "CPU servers, Jetson Orin, TPU and Intel XPU (docs.sglang.io); use runtime llamacpp or ollama"},
    unsupported{runtime_kind::sglang, device_backend::gaudi,
                "does not run on Intel Gaudi: SGLang's hardware platforms are NVIDIA and AMD GPUs, Ascend NPUs, CPU "
                "servers, Jetson Orin, TPU and Intel XPU (docs.sglang.io); use runtime vllm, tgi or transformers"},
    // TGI docs/source: installation_nvidia, _amd, _intel, _gaudi, _inferentia, _tpu.
    unsupported{runtime_kind::tgi, device_backend::metal,
                "does not run on Apple silicon: TGI installs for NVIDIA, AMD, Intel GPUs, Intel Gaudi, AWS "
                "Inferentia and TPU (its installation docs); use runtime llamacpp or ollama"},
    unsupported{runtime_kind::llamacpp, device_backend::gaudi, ggml_no_gaudi},
    // Ollama docs/gpu.mdx: NVIDIA (CUDA), AMD (ROCm), Apple (Metal), others through Vulkan.
    unsupported{runtime_kind::ollama, device_backend::gaudi, ggml_no_gaudi},
};

}  // namespace

void check_device(const run_spec& r, std::vector<error>& errors) {
  if (r.train()) return;
  const gpu_preset* gpu = find_gpu(r.values.gpu);
  if (gpu == nullptr) return;
  for (const unsupported& row : table)
    if (row.runtime == r.runtime && row.backend == gpu->backend) {
      const std::string runtime(runtime_name(r.runtime));
      errors.push_back({r.runtime_auto ? "gpu" : "runtime",
                        runtime + (r.runtime_auto ? " (runtime auto's pick for these weights) " : " ") +
                            std::string(row.words) + " (gpu " + gpu->id + ")"});
    }
}

}  // namespace llm_memory::detail
