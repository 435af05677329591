// SPDX-License-Identifier: MIT
// Which settings apply to which task: the one table the settings form hides fields by (docs/web.md, "The settings
// form"). A key not listed always applies; a key listed under several rules applies when all of them hold. What
// each rule reads is the resolved settings, and for runtime = auto the runtime the core chose (estimate.runtime).
// The core reads these settings only where the rule holds (core/src/estimate.cpp, resolve.cpp), so a hidden field
// changes nothing; a field the user has set stays in view whatever the rule says.

const ENGINES = new Set(["vllm", "sglang", "tgi"]);
const LLAMACPP = new Set(["llamacpp", "ollama"]);

/** [when (words for people), test(context), keys]; context: the resolved settings plus `runtime_used`. */
export const APPLIES = [
  ["training", (c) => c.mode === "train", [
    "framework", "grad_lifetime", "optimizer_in_backward", "optimizer_impl", "loss_impl", "autocast", "input_copies",
    "adapter_dtype", "lora_dropout", "qlora_upcast", "bnb_version", "activation_offload", "allocator_reserve", "grad_accum",
    "finetune", "lora_rank", "lora_targets", "trainable_params", "grads_dtype", "optimizer", "optimizer_dtype",
    "master_weights", "norm_upcast", "recompute", "fused_ce", "zero", "offload"]],
  ["inference", (c) => c.mode === "inference", [
    "runtime", "gpu_memory_utilization", "tgi_version", "vllm_version", "mem_fraction_static", "max_num_batched_tokens", "max_num_seqs", "block_size",
    "cuda_graph_memory", "non_torch_memory", "n_ubatch", "n_batch", "n_gpu_layers", "cache_type_k", "cache_type_v",
    "kv_dtype"]],
  ["LoRA or QLoRA", (c) => c.finetune !== "full", ["lora_rank", "lora_targets", "adapter_dtype", "lora_dropout"]],
  ["QLoRA", (c) => c.finetune === "qlora", ["qlora_upcast"]],
  ["full training", (c) => c.finetune === "full", ["trainable_params"]],
  ["NF4 weights", (c) => c.finetune === "qlora" || c.weights_dtype === "nf4", ["double_quant", "bnb_version"]],
  // framework generic sums every bucket and ignores these (the core's note says so).
  ["a framework's phase model (not generic)", (c) => c.framework !== "generic", [
    "grad_lifetime", "optimizer_in_backward", "optimizer_impl", "loss_impl", "activation_offload", "allocator_reserve"]],
  ["vLLM", (c) => c.runtime_used === "vllm", ["vllm_version", "max_num_seqs", "cuda_graph_memory", "non_torch_memory"]],
  ["vLLM or TGI", (c) => c.runtime_used === "vllm" || c.runtime_used === "tgi", ["gpu_memory_utilization"]],
  ["TGI", (c) => c.runtime_used === "tgi", ["tgi_version"]],
  ["SGLang", (c) => c.runtime_used === "sglang", ["mem_fraction_static"]],
  ["vLLM, SGLang or TGI", (c) => ENGINES.has(c.runtime_used), ["block_size"]],
  ["llama.cpp or Ollama", (c) => LLAMACPP.has(c.runtime_used), ["n_ubatch", "n_batch", "n_gpu_layers", "cache_type_k", "cache_type_v"]],
  ["overhead = factor", (c) => c.overhead === "factor", ["overhead_factor"]],
  ["tensor parallelism (tp > 1)", (c) => Number(c.tp) > 1, ["sequence_parallel"]],
  ["an encoder-decoder (architecture)", (c) => c.architecture === "encoder_decoder", ["encoder_layers", "encoder_seq"]],
];

const RULES = new Map();
for (const [when, test, keys] of APPLIES) {
  for (const key of keys) RULES.set(key, [...(RULES.get(key) ?? []), { when, test }]);
}

/**
 * What the rules read: `resolved` (the resolved settings) with `runtime_used`, the runtime used (`runtime`, for
 * runtime = auto). Made once per update, not once per key: the settings are a hundred-odd keys to copy.
 */
export function applicabilityContext(resolved, runtime) {
  return { ...resolved, runtime_used: resolved.runtime === "auto" || !resolved.runtime ? runtime : resolved.runtime };
}

/** The rules `key` fails in `context` (applicabilityContext): [] when it applies, else the words of each rule that does not hold. */
export function notApplying(key, context) {
  const rules = RULES.get(key);
  if (!rules) return [];
  return rules.filter((rule) => !rule.test(context)).map((rule) => rule.when);
}
