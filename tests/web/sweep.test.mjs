// SPDX-License-Identifier: MIT
// api.sweep (wasm) against `llm-memory sweep --json` (native): the same grid, totals and frontier, bit for bit
// (both use -ffp-contract=off); typed arrays that are copies; errors as values naming the axis.
import assert from "node:assert/strict";
import { test } from "node:test";

import { loadApi, native } from "./support.mjs";

const api = await loadApi();

const cases = [
  [{}, { batch: "1:256", seq: "256:131072" }],
  [{ model: "llama-3.2-1b", mode: "inference" }, { batch: "1:64:7", seq: "1:100000:13" }],
  [{ model: "llama-2-7b", pp: 2, devices: 2, grad_accum: 4 }, { batch: "3", seq: "100:5000:5" }],
];

for (const [settings, axes] of cases) {
  test(`sweep ${JSON.stringify(settings)} ${JSON.stringify(axes)} equals the CLI`, () => {
    const args = ["sweep", "--batch", axes.batch, "--seq", axes.seq, "--json"];
    for (const [key, value] of Object.entries(settings)) args.push(`--${key}`, String(value));
    const want = JSON.parse(native(args));
    for (const kernel of ["simd", "scalar"]) {
      const got = api.sweep(settings, { ...axes, kernel });
      assert.equal(got.ok, true);
      assert.ok(got.total instanceof Float64Array);
      assert.deepEqual(Array.from(got.batch), want.batch);
      assert.deepEqual(Array.from(got.seq), want.seq);
      assert.deepEqual(Array.from(got.max_batch), want.max_batch);
      assert.deepEqual(Array.from(got.total), want.total.flat());
      assert.equal(got.gpu_memory, want.gpu_memory);
    }
  });
}

test("the frontier equals the solver's max micro-batch", () => {
  const settings = { model: "llama-3.2-1b", seq: 1024 };
  const solve = api.solve(settings);
  assert.equal(api.sweep(settings, { batch: "1", seq: "1024" }).max_batch[0], solve.max_batch.value);
});

test("arrays are copies: later calls do not change earlier results", () => {
  const first = api.sweep({}, { batch: "1:4", seq: "256:1024" });
  const copy = Float64Array.from(first.total);
  api.sweep({ model: "llama-2-70b" }, { batch: "1:4096:4096", seq: "256:131072:64" });
  assert.deepEqual(first.total, copy);
});

test("bad axes are errors naming the setting", () => {
  assert.deepEqual(api.sweep({}, { batch: "4:1" }).errors.map((e) => e.setting), ["batch"]);
  assert.deepEqual(api.sweep({}, { seq: "0:10" }).errors.map((e) => e.setting), ["seq"]);
  assert.equal(api.sweep({ mode: "bogus" }).ok, false);
});
