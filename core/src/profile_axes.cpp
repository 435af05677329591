// SPDX-License-Identifier: MIT
// The settings each profile reads, declared next to the profiles (runtime_profile.cpp, framework_profile.cpp):
// a profile that reads a setting a search moves makes that search re-resolve the run (vary(), resolve.cpp).
// Keep each case in step with its profile. What picks the profile (mode, runtime, framework, tgi_version,
// vllm_version, weights_dtype for runtime auto) is not listed: no search moves it on vary()'s fast path.
#include "profile_axes.hpp"

namespace llm_memory::detail {
namespace {

profile_reads runtime_axes(const run_spec& spec) {
  switch (spec.runtime) {
    // transformers (attention sdpa) and llama.cpp (flash, its context) set constants.
    case runtime_kind::transformers:
    case runtime_kind::llamacpp:
    case runtime_kind::automatic: return {};
    // vLLM: max_num_batched_tokens and max_num_seqs from the device's memory and an A100's name
    // (vllm_defaults), the non-torch memory from tp > 1.
    case runtime_kind::vllm: return {.tp = true, .gpu = true, .gpu_memory = true};
    // SGLang: chunked_prefill_size from the device's memory, mem_fraction_static from it, tp and pp.
    case runtime_kind::sglang: return {.tp = true, .pp = true, .gpu_memory = true};
    // TGI 1.4.1 - 2.3: max_batch_prefill_tokens = max_input_tokens + 50 = seq - 1 + 50; the others a constant.
    case runtime_kind::tgi: return {.seq = spec.tgi == tgi_release::v1_4_1};
    // Ollama: num_ctx (seq) from the VRAM of all devices (gpu_memory x devices), capped by the trained context.
    case runtime_kind::ollama: return {.devices = true, .gpu_memory = true, .max_position_embeddings = true};
  }
  return {};
}

profile_reads framework_axes(const run_spec& spec) {
  switch (spec.framework) {
    case framework_kind::generic: return {};
    // The Trainer's recipe and Unsloth's follow the method (full, LoRA, QLoRA).
    case framework_kind::hf:
    case framework_kind::unsloth: return {.finetune = true};
    // torchtune: full_finetune_single_device on one device (8-bit paged AdamW, in backward when grad_accum is 1).
    case framework_kind::torchtune: return {.several_devices = true, .grad_accum = true, .finetune = true};
    // litgpt's FSDP strategy checkpoints every block; Megatron's distributed optimizer shards from two devices.
    case framework_kind::litgpt:
    case framework_kind::megatron: return {.several_devices = true};
    // DeepSpeed: the Trainer's recipe by method, resident gradient partitions at ZeRO-3.
    case framework_kind::deepspeed: return {.zero = true, .finetune = true};
    // FSDP: the Trainer's recipe by method, ZeRO-3 (fully_shard) from two devices.
    case framework_kind::fsdp: return {.several_devices = true, .finetune = true};
  }
  return {};
}

}  // namespace

profile_reads profile_axes(const run_spec& spec) { return spec.train() ? framework_axes(spec) : runtime_axes(spec); }

}  // namespace llm_memory::detail
