// SPDX-License-Identifier: MIT
// Which settings apply to which task (docs/web.md, "The settings form"): the settings table's `applies` column
// (core/include/llm_memory/settings_list.hpp) names, per row, the rules that must all hold for the core to read
// the setting, and the schema carries them with their words ({rule, when}). Here is what each rule tests: the
// resolved settings, and for runtime = auto the runtime the core chose (estimate.runtime). A row without rules
// always applies, so a hidden field changes nothing; a field the user has set stays in view whatever the rules say.

const ENGINES = new Set(["vllm", "sglang", "tgi"]);
const LLAMACPP = new Set(["llamacpp", "ollama"]);
const INT_PACKED = new Set(["gptq", "awq", "w4a16"]);

/** Each rule of the table's `applies` column by id: test(context); tests/web/generated.test.mjs checks the ids. */
export const RULE_TESTS = {
  training: (c) => c.mode === "train",
  inference: (c) => c.mode === "inference",
  eval: (c) => c.mode === "eval",
  training_or_eval: (c) => c.mode !== "inference",
  lora_or_qlora: (c) => c.finetune !== "full",
  qlora: (c) => c.finetune === "qlora",
  full: (c) => c.finetune === "full",
  nf4: (c) => c.finetune === "qlora" || c.weights_dtype === "nf4",
  // framework generic sums every bucket and ignores these (the core's note says so).
  phased_framework: (c) => c.framework !== "generic",
  vllm: (c) => c.runtime_used === "vllm",
  vllm_or_tgi: (c) => c.runtime_used === "vllm" || c.runtime_used === "tgi",
  tgi: (c) => c.runtime_used === "tgi",
  sglang: (c) => c.runtime_used === "sglang",
  engines: (c) => ENGINES.has(c.runtime_used),
  llamacpp: (c) => LLAMACPP.has(c.runtime_used),
  overhead_factor: (c) => c.overhead === "factor",
  tp_gt_1: (c) => Number(c.tp) > 1,
  encoder_decoder: (c) => c.architecture === "encoder_decoder",
  // dtype.cpp layout_linear_bytes reads quant_bits for these packed integer formats, the group size for them and
  // fp8_block's block edge; every other format ignores both. The checkpoint layout reads quant_skip_layers for the
  // same formats (estimate/weights.cpp store_layout; MXFP4 keeps its own rule).
  int_packed: (c) => INT_PACKED.has(c.weights_dtype),
  grouped_quant: (c) => INT_PACKED.has(c.weights_dtype) || c.weights_dtype === "fp8_block",
  torchtitan: (c) => c.framework === "torchtitan",
};

/**
 * What the rules read: `resolved` (the resolved settings) with `runtime_used`, the runtime used (`runtime`, for
 * runtime = auto). Made once per update, not once per key: the settings are a hundred-odd keys to copy.
 */
export function applicabilityContext(resolved, runtime) {
  return { ...resolved, runtime_used: resolved.runtime === "auto" || !resolved.runtime ? runtime : resolved.runtime };
}

/** The rules schema `row` fails in `context` (applicabilityContext): [] when it applies, else the words of each rule that does not hold. */
export function notApplying(row, context) {
  if (!row.applies) return [];
  return row.applies.filter(({ rule }) => !RULE_TESTS[rule](context)).map(({ when }) => when);
}
