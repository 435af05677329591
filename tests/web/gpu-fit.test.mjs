// SPDX-License-Identifier: MIT
// "Which GPUs fit" (web/ui/gpu-fit.js) rendered into linkedom's DOM from the core's answers (the CLI's
// --gpus --json, the API's gpuFit: api.test.mjs checks they are equal): each split says only the settings the
// solver's answer sets, never "undefined" (issue 36, item 7). Its layout in Chromium: tests/browser/page-data.test.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseHTML } from "linkedom";

import { neededContent, renderGpuFit, splitParts } from "../../web/ui/gpu-fit.js";
import { native } from "./support.mjs";

globalThis.document = parseHTML("<!doctype html><html><body></body></html>").document;

const text = (nodes) => nodes.map((n) => (typeof n === "string" ? n : n.textContent)).join("");

test("the split names the keys the answer's delta holds: training tp or ZeRO, inference tp × pipeline", () => {
  assert.deepEqual(splitParts({ devices: "2", tp: "2" }), ["tensor parallel 2"]);
  assert.deepEqual(splitParts({ devices: "3", zero: "3" }), ["ZeRO-3"]);
  assert.deepEqual(splitParts({ devices: "4", tp: "2", pp: "2" }), ["tensor parallel 2", "pipeline 2"]);
  assert.equal(text(neededContent({ found: true, value: 2, delta: { devices: "2", tp: "2" } })), "2 (tensor parallel 2)");
  assert.equal(text(neededContent({ found: true, value: 8, delta: { devices: "8", tp: "4", pp: "2" } })),
               "8 (tensor parallel 4 × pipeline 2)");
  assert.equal(text(neededContent({ found: true, value: 1, delta: { devices: "1" } })), "1");
  assert.equal(text(neededContent({ found: false, value: 0, delta: {}, message: "none up to 64 devices" })),
               "none (none up to 64 devices)");
});

// The seed's 7B at ZeRO 0 (tests/cli/CMakeLists.txt, cli.gpus): two H100s with tensor parallel 2, no pipeline.
const SEED = ["--framework", "generic", "--params", "7e9", "--hidden_size", "4096", "--num_hidden_layers", "32",
              "--num_attention_heads", "32", "--seq", "2048", "--overhead", "none", "--attention", "standard"];
const cases = {
  "training with tensor parallel": SEED,
  "training with ZeRO": ["--model", "llama-3.1-8b", "--framework", "deepspeed"],
  "inference": ["--model", "llama-3.1-70b", "--mode", "inference"],
};

for (const [name, args] of Object.entries(cases)) {
  test(`the table of ${name}: no "undefined", one row per preset, the summary above it`, () => {
    const fit = { ok: true, ...JSON.parse(native(["--gpus", "--json", ...args])) };
    const container = document.createElement("div");
    const table = renderGpuFit(container, fit, { current: { devices: "1", gpu: "h100-80gb" }, onApply: () => {} });
    assert.doesNotMatch(container.textContent, /undefined|NaN/);
    assert.equal(table.querySelectorAll("tbody tr").length, fit.gpus.length);
    assert.equal(table.getAttribute("aria-describedby"), container.querySelector("p").id);
    if (name === "training with tensor parallel") {
      assert.match(container.querySelector('tr[data-gpu="h100-80gb"]').textContent, /2 \(tensor parallel 2\)/);
    }
  });
}
