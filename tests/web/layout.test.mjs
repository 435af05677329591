// SPDX-License-Identifier: MIT
// The pure parts of the task-first page (issue 19): the split a device count allows (web/ui/parallel-picker.js),
// the task of a set of settings and the task sentence (web/ui/task-picker.js, web/ui/verdict.js). The order and
// choice of the ways out are the core's (tests/core/ways_out_test.cpp; the API's: api.test.mjs). The page itself:
// tests/browser/layout.test.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { pickedGpuName } from "../../web/ui/gpu-picker.js";
import { fitSplit, validPp, validTp } from "../../web/ui/parallel-picker.js";
import { taskOf } from "../../web/ui/task-picker.js";
import { devicesText, neededBytes, taskSentence } from "../../web/ui/verdict.js";

test("tp: the degrees whose product with pp divides the devices and that divide the heads (core/src/resolve.cpp)", () => {
  // 8 devices, pp 1, 32 heads: the divisors of 8 = 1, 2, 4, 8, all dividing 32.
  assert.deepEqual(validTp(8, 1, 32), [1, 2, 4, 8]);
  // 8 devices, pp 2: t x 2 divides 8 -> 1, 2, 4.
  assert.deepEqual(validTp(8, 2, 32), [1, 2, 4]);
  // 12 devices, 40 heads (Llama 2 13B): divisors of 12 = 1, 2, 3, 4, 6, 12; of those 40 is divisible by 1, 2, 4.
  assert.deepEqual(validTp(12, 1, 40), [1, 2, 4]);
  assert.deepEqual(validTp(1, 1, 32), [1]);
});

test("pp: the stage counts whose product with tp divides the devices, at most the layers", () => {
  assert.deepEqual(validPp(8, 1, 32), [1, 2, 4, 8]);
  assert.deepEqual(validPp(8, 8, 32), [1]);
  // 16 devices, tp 1, 4 layers: 1, 2, 4 (8 and 16 exceed the layers).
  assert.deepEqual(validPp(16, 1, 4), [1, 2, 4]);
});

test("a device count that leaves the split invalid lowers tp, then pp, and says what and why", () => {
  const model = { heads: 32, layers: 32 };
  // Still valid: nothing changes, no note.
  assert.deepEqual(fitSplit(16, { tp: 8, pp: 2, ...model }), { tp: 8, pp: 2, note: "" });
  // tp 8 on 4 devices: the largest tp <= 8 dividing 4 and 32 is 4.
  const four = fitSplit(4, { tp: 8, pp: 1, ...model });
  assert.deepEqual([four.tp, four.pp], [4, 1]);
  assert.equal(four.note, "Changed tensor parallel 8 → 4: tensor parallel × pipeline stages must divide the 4 devices " +
    "(and tensor parallel the 32 attention heads).");
  // 7 devices (prime): only tp 1, pp 1 remain below 8 (pp 7 <= 32 layers would divide 7, but pp is kept at
  // most its old value, 1).
  assert.deepEqual(fitSplit(7, { tp: 8, pp: 1, ...model }).tp, 1);
  // tp 4 x pp 2 = 8 does not divide 12: with pp 2, t x 2 | 12 and t | 32 -> 1, 2; tp 2, pp 2 (4 | 12).
  const twelve = fitSplit(12, { tp: 4, pp: 2, ...model });
  assert.deepEqual([twelve.tp, twelve.pp], [2, 2]);
  assert.match(twelve.note, /^Changed tensor parallel 4 → 2: /);
  // pp alone: tp 1, pp 8 on 4 devices -> pp 4.
  const pp = fitSplit(4, { tp: 1, pp: 8, ...model });
  assert.deepEqual([pp.tp, pp.pp], [1, 4]);
  assert.match(pp.note, /^Changed pipeline stages 8 → 4: /);
});

/** A minimal estimate as the core answers (only the fields the sentence and the verdict read). */
function estimate(settings, extra = {}) {
  return {
    settings: { model: "meta-llama-3-8b", mode: "train", finetune: "full", framework: "hf", runtime: "auto", seq: "4096",
                batch: "8", devices: "1", zero: "0", tp: "1", pp: "1", gpu: "h100-80gb", gpu_memory: "85520809984", units: "GB",
                ...settings },
    gpu_memory: 85_520_809_984, bytes: { total: 100e9 }, fits: false, ...extra,
  };
}

test("the task of a set of settings", () => {
  assert.equal(taskOf({ mode: "inference", finetune: "lora" }), "inference");
  assert.equal(taskOf({ mode: "train", finetune: "qlora" }), "qlora");
  assert.equal(taskOf({ mode: "train", finetune: "full" }), "full");
  // Evaluation is a task of its own whatever finetune says (the core ignores finetune for eval).
  assert.equal(taskOf({ mode: "eval", finetune: "lora" }), "eval");
});

test("the task sentence: model · task with runtime or framework · context × batch · N × GPU", () => {
  const names = { modelName: "Llama 3.1 8B", gpuName: "H100 80GB" };
  // The issue's own example.
  assert.equal(taskSentence(estimate({ finetune: "lora" }), names), "Llama 3.1 8B · LoRA with HF Trainer + peft · 4,096 tokens × 8 · 1 × H100 80GB");
  assert.equal(taskSentence(estimate({ framework: "deepspeed", devices: "8", zero: "3" }), names),
    "Llama 3.1 8B · Full training with DeepSpeed · 4,096 tokens × 8 · 8 × H100 80GB (ZeRO-3)");
  // Run: runtime auto is named by what the core resolved it to (estimate.runtime.name).
  assert.equal(taskSentence(estimate({ mode: "inference", tp: "2", devices: "2" }, { runtime: { name: "vllm" } }), names),
    "Llama 3.1 8B · Run with vLLM · 4,096 tokens × 8 · 2 × H100 80GB (tensor parallel 2)");
  // Evaluate: the framework's forward pass (mode eval).
  assert.equal(taskSentence(estimate({ mode: "eval" }), names), "Llama 3.1 8B · Evaluate with HF Trainer · 4,096 tokens × 8 · 1 × H100 80GB");
  // Names not known yet: the preset id; a custom device by its memory (85,520,809,984 B = 85.52 GB).
  assert.equal(taskSentence(estimate({ gpu: "" })), "meta-llama-3-8b · Full training with HF Trainer · 4,096 tokens × 8 · 1 × 85.52 GB device");
  assert.equal(taskSentence(estimate({ model: "" })).split(" · ")[0], "Custom architecture");
  assert.equal(devicesText({ devices: "4", mode: "inference", zero: "3", tp: "1", pp: "4" }, { gpuName: "A100" }), "4 × A100 (4 pipeline stages)",
    "ZeRO is not named for inference");
});

test("the verdict compares what fits compares: the peak on the device where the framework gives one", () => {
  assert.equal(neededBytes(estimate({})), 100e9);
  assert.equal(neededBytes(estimate({}, { peak: { device: 90e9 } })), 90e9);
});

test("a link's verdict names its GPU from the prerendered picker: the option's text before its last ' · ' (web/ui/gpu-picker.js)", () => {
  // GpuPicker writes each option as `${gpu.name} · ${formatCapacity(memory)}`; the custom device has no capacity.
  const select = { options: [{ value: "", textContent: "Custom memory (gpu_memory)" },
                             { value: "h100-80gb", textContent: "NVIDIA H100 80GB SXM5 · 79.19 GiB (85.03 GB)" },
                             { value: "x", textContent: "A · B · 8 GiB (8.59 GB)" }] };
  assert.equal(pickedGpuName(select, "h100-80gb"), "NVIDIA H100 80GB SXM5");
  // A name holding the separator keeps it: only the capacity after the last one goes.
  assert.equal(pickedGpuName(select, "x"), "A · B");
  // Not listed so (the custom device, an id the picker lacks, no picker): the core's list answers instead (app.js).
  assert.equal(pickedGpuName(select, ""), undefined);
  assert.equal(pickedGpuName(select, "a100-80gb"), undefined);
  assert.equal(pickedGpuName(null, "h100-80gb"), undefined);
});

