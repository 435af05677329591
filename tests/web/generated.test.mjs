// SPDX-License-Identifier: MIT
// Every copy of the settings table outside C++ is generated from it (issue 31 item 4): the committed fuzz
// dictionary, docs/embedding.md's settings reference and wasm/llm-memory.d.ts's `Settings` equal what
// scripts/generate-settings.mjs writes from the native `--schema`, and the page's applicability rules
// (web/ui/applicability.js) test exactly the rules the table's `applies` column names.
import { test } from "node:test";
import assert from "node:assert/strict";

import { RULE_TESTS, applicabilityContext, notApplying } from "../../web/ui/applicability.js";
import { fuzzDictionary, settingsInterface, staleFiles } from "../../scripts/generate-settings.mjs";
import { native } from "./support.mjs";

const schema = JSON.parse(native(["--schema"]));
const row = (key) => schema.find((r) => r.key === key);

test("the committed generated files equal what the settings table generates", () => {
  assert.deepEqual(staleFiles(schema), [], "run node scripts/generate-settings.mjs and commit the result");
});

test("the fuzz dictionary names every key and every choice", () => {
  const lines = new Set(fuzzDictionary(schema).split("\n"));
  for (const r of schema) {
    assert.ok(lines.has(`"${r.key}="`), r.key);
    for (const c of r.choices ?? []) assert.ok(lines.has(JSON.stringify(c)), `${r.key}: ${c}`);
  }
});

test("Settings types choices as unions of their literals; ResolvedSettings as the core writes them back", () => {
  const types = settingsInterface(schema);
  assert.match(types, /^ {2}mode\?: "train" \| "inference" \| "eval" \| null;$/m);
  assert.match(types, /^ {2}units\?: "GB" \| "GiB" \| null;$/m);
  assert.match(types, /^ {2}dropout\?: FlagValue \| null;$/m);
  assert.match(types, /^ {2}params\?: number \| string \| null;$/m);
  assert.match(types, /^ {2}lora_targets\?: string \| null;$/m);
  assert.match(types, /^ {2}mode: "train" \| "inference" \| "eval";$/m);
  assert.match(types, /^ {2}dropout: "on" \| "off";$/m);
  assert.match(types, /^ {2}seq: string;$/m);
});

test("applicability.js tests each rule the applies column names, and no other", () => {
  const named = new Set(schema.flatMap((r) => (r.applies ?? []).map((a) => a.rule)));
  assert.deepEqual([...named].sort(), Object.keys(RULE_TESTS).sort());
});

// Rows and words as settings_list.hpp's applies column and settings.cpp's rules give them.
test("a field's unmet rules come from its schema row, in the table's order", () => {
  const train = applicabilityContext({ mode: "train", finetune: "full", framework: "generic" }, "vllm");
  assert.deepEqual(notApplying(row("lora_rank"), train), ["LoRA or QLoRA"]);
  assert.deepEqual(notApplying(row("grad_lifetime"), train), ["a framework's phase model (not generic)"]);
  assert.deepEqual(notApplying(row("seq"), train), []);
  const inference = applicabilityContext({ mode: "inference", runtime: "auto", finetune: "full" }, "llamacpp");
  assert.deepEqual(notApplying(row("lora_rank"), inference), ["training", "LoRA or QLoRA"]);
  assert.deepEqual(notApplying(row("n_ubatch"), inference), []);
  assert.deepEqual(notApplying(row("max_num_seqs"), inference), ["vLLM"]);
  // mode = eval reads the framework's settings and eval_grad, not the training-only ones.
  assert.deepEqual(notApplying(row("framework"), inference), ["training or evaluation"]);
  assert.deepEqual(notApplying(row("eval_grad"), inference), ["evaluation"]);
  const evaluation = applicabilityContext({ mode: "eval", finetune: "full", framework: "hf" }, "vllm");
  assert.deepEqual(notApplying(row("framework"), evaluation), []);
  assert.deepEqual(notApplying(row("eval_grad"), evaluation), []);
  assert.deepEqual(notApplying(row("optimizer"), evaluation), ["training"]);
});

// Issue 36 item 3: quantisation bits and group size only for the formats dtype.cpp's layout_linear_bytes reads them
// for; context parallel only in training (estimate.cpp sets cp = 1 otherwise).
test("quantisation fields follow the weights format; context parallel is a training field", () => {
  const bf16 = applicabilityContext({ mode: "inference", weights_dtype: "bf16" }, "vllm");
  assert.deepEqual(notApplying(row("quant_bits"), bf16), ["gptq, awq or w4a16 weights"]);
  assert.deepEqual(notApplying(row("quant_group_size"), bf16), ["gptq, awq, w4a16 or fp8_block weights"]);
  assert.deepEqual(notApplying(row("cp"), bf16), ["training"]);
  const awq = applicabilityContext({ mode: "inference", weights_dtype: "awq" }, "vllm");
  assert.deepEqual(notApplying(row("quant_bits"), awq), []);
  const fp8 = applicabilityContext({ mode: "train", weights_dtype: "fp8_block" }, "vllm");
  assert.deepEqual(notApplying(row("quant_bits"), fp8), ["gptq, awq or w4a16 weights"]);
  assert.deepEqual(notApplying(row("quant_group_size"), fp8), []);
  assert.deepEqual(notApplying(row("cp"), fp8), []);
});
