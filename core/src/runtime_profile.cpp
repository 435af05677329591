// SPDX-License-Identifier: MIT
// The runtime profiles: the defaults each inference runtime sets for the behaviour settings (sources in
// docs/methodology.md, "Runtimes"). Every value stays overridable: the profile sits under the model preset,
// config.json and the explicit values.
#include <cstdio>
#include <string>

#include "llm_memory/runtime.hpp"
#include "profiles.hpp"

namespace llm_memory::detail {
namespace {

constexpr double mib = 1048576;

std::string fixed3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// The engines that preallocate: flash/paged attention, no allocator slack (the pool is one allocation).
settings engine_common() { return {{"attention", "flash"}, {"fragmentation", "0"}, {"cuda_context", "0.45GiB"}}; }

// vLLM V1: EngineArgs.get_batch_defaults (API server). From 0.21 (PR #38284) gpu_memory_utilization defaults to
// 0.92 and the budget holds an estimate of the CUDA graphs (0.84 GiB, calibrated on a v0.19 Llama 3.1 8B log);
// before, 0.90 and graphs captured after the KV cache is sized, outside the budget. Non-torch memory: 0.14 GiB
// measured on v0.11.0 (H100, DEBUG "non-torch forward increase": 0.13-0.14 GiB at tp 1, 0.54-0.55 at tp 2, NCCL's
// buffers connected during the profiling run); from 0.17 the 0.32 GiB calibrated on Llama 3.1 8B logs, + 0.41 GiB
// at tp > 1 (docs/methodology.md).
settings vllm_profile(const setting_values& v) {
  settings p = engine_common();
  const bool a100 = v.gpu.find("a100") != std::string::npos;
  const vllm_batch_defaults d = vllm_defaults(v.gpu_memory, a100);
  p.emplace("max_num_batched_tokens", std::to_string(d.batched_tokens));
  p.emplace("max_num_seqs", std::to_string(d.seqs));
  const bool v0_21 = v.vllm_version == "0.21", v0_11 = v.vllm_version == "0.11";
  if (!v0_21) p.emplace("gpu_memory_utilization", "0.9");
  p.emplace("non_torch_memory", v0_11 ? (v.tp > 1 ? "0.55GiB" : "0.14GiB") : (v.tp > 1 ? "0.73GiB" : "0.32GiB"));
  p.emplace("cuda_graph_memory", v0_21 ? "0.84GiB" : "0");
  return p;
}

// SGLang: chunked_prefill_size and mem_fraction_static from the device's memory (server_args.py).
settings sglang_profile(const setting_values& v) {
  settings p = engine_common();
  const double gpu_mib = v.gpu_memory / mib;
  p.emplace("max_num_batched_tokens", std::to_string(sglang_chunked_prefill(gpu_mib)));
  p.emplace("mem_fraction_static", fixed3(sglang_mem_fraction(gpu_mib, v.tp, v.pp)));
  p.emplace("block_size", "1");
  return p;
}

// TGI: --cuda-memory-fraction 1.0. From 2.4 flashinfer (BLOCK_SIZE 1) and max_batch_prefill_tokens 4096; the 1.4.1
// group (1.4.1 - 2.3) paged attention (BLOCK_SIZE 16; 2.3 already defaults to flashinfer) with
// max_batch_prefill_tokens = max_input_tokens + 50, max_input_tokens = max_total_tokens - 1 (2.0 - 2.3; 1.x: 4096)
// (launcher/src/main.rs, models/globals.py at each tag).
settings tgi_profile(const setting_values& v) {
  settings p = engine_common();
  p.emplace("gpu_memory_utilization", "1");
  const bool paged = v.tgi_version == "1.4.1" || v.tgi_version == "1.0";
  p.emplace("max_num_batched_tokens", v.tgi_version == "1.4.1" ? std::to_string(v.seq - 1 + 50) : "4096");
  p.emplace("block_size", paged ? "16" : "1");
  return p;
}

// llama.cpp: -fa auto (on where the backend supports it), n_ubatch 512, n_batch 2048 (common/common.h); the
// ~0.45 GiB a device holds beyond the logged buffers (CUDA context, cuBLAS).
settings llamacpp_profile() { return {{"attention", "flash"}, {"fragmentation", "0"}, {"cuda_context", "0.45GiB"}}; }

// Ollama runs llama-server with num_ctx from the total VRAM (server/routes.go) per slot.
settings ollama_profile(const setting_values& v) {
  settings p = llamacpp_profile();
  const double vram = v.gpu_memory * static_cast<double>(v.devices);
  p.emplace("seq", std::to_string(ollama_num_ctx(vram, v.max_position_embeddings)));
  return p;
}

}  // namespace

settings runtime_profile(runtime_kind runtime, const setting_values& values) {
  switch (runtime) {
    case runtime_kind::transformers: return {{"attention", "sdpa"}};
    case runtime_kind::vllm: return vllm_profile(values);
    case runtime_kind::sglang: return sglang_profile(values);
    case runtime_kind::tgi: return tgi_profile(values);
    case runtime_kind::llamacpp: return llamacpp_profile();
    case runtime_kind::ollama: return ollama_profile(values);
    case runtime_kind::automatic: break;
  }
  return {};
}

}  // namespace llm_memory::detail
