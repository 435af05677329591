// SPDX-License-Identifier: MIT
// Differential test: a few thousand random settings (drawn from the settings table, as tests/random_settings.hpp
// does natively) give the same result in wasm as in the native CLI: the same bytes, and for the invalid
// ones the same errors with the same messages. Numbers are sometimes passed to wasm as JS numbers, to cover
// the String() conversion; the native side gets that same text.
import assert from "node:assert/strict";
import { test } from "node:test";

import { generator } from "./splitmix.mjs";
import { loadApi, nativeBatch } from "./support.mjs";

const count = Number(process.env.LLM_MEMORY_RANDOM_CASES ?? 3000);
const api = await loadApi();
const schema = api.settingsSchema();
const models = api.listModels().map((m) => m.id);
const gpus = api.listGpus().map((g) => g.id);

function randomSettings({ pick, one }) {
  const s = {};
  if (models.length > 0 && pick(0, 2) > 0) {
    s.model = one(models);
  } else {
    const heads = 1 << pick(0, 6);
    s.num_attention_heads = heads;
    s.hidden_size = heads * 64 * pick(1, 3);
    s.num_hidden_layers = pick(1, 96);
    s.num_key_value_heads = Math.max(1, heads >> pick(0, 2));
    s.vocab_size = pick(0, 256000);
    if (pick(0, 3) === 0) s.intermediate_size = s.hidden_size * pick(2, 4);
  }
  for (const row of schema) {
    if (row.group === "model" || pick(0, 3) !== 0) continue;
    if (row.kind === "choice") s[row.key] = one(row.choices);
    else if (row.kind === "flag") s[row.key] = one(["on", "off", true, false]);
  }
  const extras = {
    lora_rank: () => 1 << pick(0, 8),
    lora_targets: () => one(["q_proj,v_proj", "all-linear", "q_proj,k_proj,v_proj,o_proj", "gate_proj,up_proj,down_proj"]),
    trainable_params: () => one(["1", "0.1", "1e9", "5B", 0.25]),
    gpu: () => one(gpus),
    gpu_memory: () => one(["24GB", "80GiB", "40GB", 96e9, "192GB"]),
    overhead_factor: () => one([1, 1.2, "1.5"]),
    cuda_context: () => one(["0", "650MB", "1GiB"]),
    fragmentation: () => pick(0, 20),
  };
  for (const [key, value] of Object.entries(extras)) if (pick(0, 5) === 0) s[key] = value();
  s.batch = 1 << pick(0, 6);
  s.seq = 1 << pick(6, 17);
  const tp = 1 << pick(0, 2), pp = 1 << pick(0, 1);
  s.tp = tp;
  s.pp = pp;
  s.devices = tp * pp * (1 << pick(0, 4));
  s.zero = pick(0, 3);
  s.grad_accum = pick(1, 8);
  // Quantised weights are only valid for inference and LoRA, as in tests/random_settings.hpp.
  const dtype = s.weights_dtype;
  const floatWeights = dtype === undefined || ["fp32", "bf16", "fp16"].includes(dtype);
  if (s.finetune === "qlora" || (!floatWeights && s.mode !== "inference" && s.finetune !== "lora")) delete s.weights_dtype;
  // Half the numbers go to wasm as JS numbers; the rest as the text a URL or attribute would hold.
  for (const key of Object.keys(s)) if (typeof s[key] === "number" && pick(0, 1) === 0) s[key] = String(s[key]);
  return s;
}

test(`${count} random settings: wasm equals native`, () => {
  const rng = generator(20240607);
  const cases = Array.from({ length: count }, () => randomSettings(rng));
  const natives = nativeBatch(cases.map((s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, String(v)]))));
  assert.equal(natives.length, cases.length);
  let valid = 0;
  cases.forEach((s, n) => {
    const wasm = api.estimateJson(s);
    const expected = JSON.stringify(natives[n]);
    if (JSON.stringify(JSON.parse(wasm)) !== expected)
      assert.fail(`case ${n} ${JSON.stringify(s)}:\nwasm   ${wasm.slice(0, 400)}\nnative ${expected.slice(0, 400)}`);
    if (natives[n].ok) ++valid;
  });
  // Mostly valid settings, so the comparison covers real estimates, plus some errors.
  assert.ok(valid >= 0.6 * count && valid < count, `${valid} of ${count} valid`);
});
