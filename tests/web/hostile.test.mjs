// SPDX-License-Identifier: MIT
// Hostile JS input to the API (issue 20, item 2): getters, Proxy traps, toString and Symbol.toPrimitive that
// throw, Symbols, BigInts, cycles, and a caller whose recursion has used up the stack. None of it may throw
// out of estimate/advise/solve/sweep/parseConfig (errors come back as values naming the setting), and none
// of it may leave the wasm instance unusable: after thousands of such calls a plain estimate is still exact.
import assert from "node:assert/strict";
import { test } from "node:test";

import { loadApi } from "./support.mjs";

const api = await loadApi();

// tests/golden/inference.json, kv_cache_llama2_7b_4096: 2 (K, V) x 32 layers x 1 x 4096 x 32 KV heads x 128
// x 2 B = 2,147,483,648 B of KV cache; 6,738,415,616 parameters x 2 B (bf16) = 13,476,831,232 B of weights plus
// vLLM's rotary cos/sin cache (no runtime named: vLLM), 4096 positions x 128 x 2 B = 1,048,576 B: 13,477,879,808 B.
const PLAIN = { model: "llama-2-7b", mode: "inference", seq: "4096", batch: "1" };
function assertPlainEstimateExact() {
  const e = api.estimate(PLAIN);
  assert.equal(e.ok, true, JSON.stringify(e).slice(0, 300));
  assert.equal(e.bytes.kv_cache, 2147483648);
  assert.equal(e.bytes.parameters, 13477879808);
}

const boom = () => {
  throw new Error("boom");
};

/** Settings objects whose reading runs hostile code, and the key each error must name. */
function hostileInputs() {
  const cyclic = { model: "llama-2-7b" };
  cyclic.self = cyclic;
  const list = [];
  list.push(list);
  return [
    [{ ...PLAIN, get seq() { return boom(); } }, "seq"],
    [{ ...PLAIN, seq: { toString: boom } }, "seq"],
    [{ ...PLAIN, seq: { valueOf: boom, toString: boom } }, "seq"],
    [{ ...PLAIN, seq: { [Symbol.toPrimitive]: boom } }, "seq"],
    [{ ...PLAIN, batch: Symbol("one") }, "batch"],
    [{ ...PLAIN, batch: 1n }, "batch"],
    [{ ...PLAIN, batch: 2n ** 80n }, "batch"],
    [{ ...PLAIN, model: cyclic }, "model"],
    [{ ...PLAIN, tp: list }, "tp"],
    [{ ...PLAIN, tp: () => 1 }, "tp"],
    [new Proxy({ ...PLAIN }, { get: (target, key) => (key === "seq" ? boom() : target[key]) }), "seq"],
    [new Proxy({ ...PLAIN }, { getOwnPropertyDescriptor: boom }), "settings"],
    [new Proxy({ ...PLAIN }, { ownKeys: boom }), "settings"],
    [new Proxy({}, { ownKeys: () => { throw new RangeError("deep"); } }), "settings"],
  ];
}

test("hostile settings give errors naming the setting, never an exception, thousands of times", () => {
  // Every entry point once per input; estimate (the page's hot path) 3000 times over.
  for (let round = 0; round < 110; ++round) {
    for (const [settings, key] of hostileInputs()) {
      const calls = [["estimate", () => api.estimate(settings)], ["estimate (as config)", () => api.estimate({}, settings)]];
      if (round === 0) {
        calls.push(["advise", () => api.advise(settings)], ["solve", () => api.solve(settings)],
          ["sweep", () => api.sweep(settings, { batch: "1:4", seq: "256:1024" })], ["sweep (as axes)", () => api.sweep(PLAIN, settings)]);
      }
      for (const [name, run] of calls) {
        const result = run();
        assert.equal(result.ok, false, name);
        const expected = name.includes("config") && key === "settings" ? "config" : name.includes("axes") && key === "settings" ? "axes" : key;
        assert.ok(result.errors.some((e) => e.setting === expected), `${name}: ${JSON.stringify(result.errors)}`);
      }
      const text = api.estimateJson(settings);
      assert.equal(JSON.parse(text).ok, false);
    }
  }
  // The other settings are still checked: a bad value beside a Symbol is reported too.
  const both = api.estimate({ batch: Symbol("x"), seq: "0" });
  assert.deepEqual(both.errors.map((e) => e.setting).sort(), ["batch", "seq"]);
  assertPlainEstimateExact();
});

test("a BigInt, a cycle or a throwing getter in a config object is an error, not an exception", () => {
  const cyclic = { hidden_size: 4096 };
  cyclic.again = cyclic;
  for (let round = 0; round < 500; ++round) {
    for (const config of [cyclic, { hidden_size: 4096n }, { get hidden_size() { return boom(); } }, { toJSON: boom },
      new Proxy({}, { ownKeys: boom })]) {
      const parsed = api.parseConfig(config);
      assert.equal(parsed.ok, false);
      assert.equal(parsed.errors[0].setting, "config.json");
    }
  }
  assertPlainEstimateExact();
});

test("deeply nested config text many times over leaves the instance usable", () => {
  // Deep nesting recurses in the JSON code: either the core refuses it, or the stack runs out inside wasm
  // and the RangeError crosses the core call; the stack pointer is restored either way.
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  const text = `{"hidden_size": ${deep}}`;
  // Unrestored, each throw lost about 1/31 of the 5 MB wasm stack: 31 calls broke every later one (issue 20).
  for (let i = 0; i < 40; ++i) {
    try {
      assert.equal(api.parseConfig(text).ok, false);
    } catch (error) {
      assert.ok(error instanceof RangeError, String(error));
    }
  }
  assertPlainEstimateExact();
});

test("thousands of exceptions thrown inside core calls leave the instance usable (the stack pointer is restored)", () => {
  // The sweep binding hands its errors to the global JSON.parse from inside wasm: replaced by one that throws,
  // every call ends in an exception across live wasm frames, whatever the core's own limits. Unrestored, the
  // lost stack broke every later call after about 3000 of these.
  const parse = JSON.parse;
  let thrown = 0;
  for (let i = 0; i < 4000; ++i) {
    JSON.parse = () => {
      throw new Error("hostile JSON.parse");
    };
    try {
      api.sweep({ tp: "0" });
    } catch (error) {
      assert.equal(error.message, "hostile JSON.parse");
      thrown++;
    } finally {
      JSON.parse = parse;
    }
  }
  assert.equal(thrown, 4000);
  assertPlainEstimateExact();
});
