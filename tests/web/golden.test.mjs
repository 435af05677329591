// SPDX-License-Identifier: MIT
// Every golden case (tests/golden/*.json) through the wasm build: its hand-derived expectations hold, and the
// whole result equals the native CLI's, value for value and in the same key order.
import assert from "node:assert/strict";
import { test } from "node:test";

import { goldenCases, loadApi, lookup, nativeBatch } from "./support.mjs";

const api = await loadApi();
const cases = goldenCases();
const natives = nativeBatch(cases.map(({ body }) => body.settings));

test("there are golden cases", () => assert.ok(cases.length > 0));

cases.forEach(({ file, body }, n) => {
  test(`${file}: ${body.name}`, () => {
    const out = api.estimate(body.settings);
    assert.equal(JSON.stringify(out), JSON.stringify(natives[n]), "wasm and native differ");

    if (body.expect_error) {
      assert.equal(out.ok, false, `expected an error naming ${body.expect_error.setting}`);
      assert.equal(out.errors[0].setting, body.expect_error.setting);
      return;
    }
    assert.equal(out.ok, true, JSON.stringify(out.errors));
    for (const [path, expected] of Object.entries(body.expect ?? {})) {
      const actual = lookup(out, path);
      assert.notEqual(actual, undefined, `${path} missing in output`);
      const tolerance = body.tolerance?.[path];
      if (typeof expected === "number" && tolerance !== undefined)
        assert.ok(Math.abs(actual - expected) <= tolerance * Math.abs(expected), `${path}: ${actual} vs ${expected} ± ${tolerance}`);
      else
        assert.deepEqual(actual, expected, path);
    }
    for (const [path, [lo, hi]] of Object.entries(body.range ?? {})) {
      const actual = lookup(out, path);
      assert.ok(actual >= lo && actual <= hi, `${path}: ${actual} outside [${lo}, ${hi}]`);
    }
  });
});
