// SPDX-License-Identifier: MIT
// The wasm boundary cannot corrupt memory (issue 37, item 1): inputs past the API's limits are refused in JS naming
// the argument, sweepKernelMs refuses grids it cannot allocate (once a bare thrown number and ~55 MiB leaked a
// call), a heap that cannot grow aborts the instance (-sABORTING_MALLOC=1) instead of malloc returning 0, and the
// aborted instance is retired: load() and the engine (web/engine.js) answer from a fresh one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

import { importEngine, root } from "./support.mjs";

const { load } = await import(pathToFileURL(join(root, process.env.LLM_MEMORY_WASM ?? "dist/llm-memory.js")).href);

// As tests/web/hostile.test.mjs: llama-2-7b at 4096 tokens, 2 x 32 x 4096 x 32 x 128 x 2 B = 2,147,483,648 B of KV cache.
const PLAIN = { model: "llama-2-7b", mode: "inference", seq: "4096", batch: "1" };

/** The estimate of PLAIN on a new instance, as text. */
const freshText = async () => (await load({})).estimateJson(PLAIN);

/**
 * Runs `call` while wasm memory cannot grow (every Memory.grow throws), as a browser out of memory does; an async
 * `call` (the engine's readCheckpoint) until its promise settles.
 */
async function withoutGrowth(call) {
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = () => {
    throw new RangeError("WebAssembly.Memory.grow(): Maximum memory size exceeded");
  };
  try {
    return await call();
  } finally {
    WebAssembly.Memory.prototype.grow = grow;
  }
}

test("45 sweepKernelMs(1e6, 1e6) are refused naming the counts; the next estimate equals a fresh instance's", async () => {
  const api = await load({});
  for (let i = 0; i < 45; ++i) {
    const r = api.sweepKernelMs({}, 1e6, 1e6, "simd", 1);
    assert.equal(r.ok, false);
    assert.deepEqual(r.errors.map((e) => e.setting), ["nBatch", "nSeq"]);
    assert.equal(r.errors[0].message, "must be a whole number from 1 to 4096");
  }
  // Each axis within 4096, the grid over 2^20 cells: the longer axis is named.
  assert.deepEqual(api.sweepKernelMs({}, 1024, 2048, "simd", 1).errors.map((e) => e.setting), ["nSeq"]);
  assert.deepEqual(api.sweepKernelMs({}, 8, 8, "avx", 1).errors.map((e) => e.setting), ["kernel"]);
  assert.deepEqual(api.sweepKernelMs({}, 8, 8, "simd", 0).errors.map((e) => e.setting), ["reps"]);
  assert.deepEqual(api.sweepKernelMs({ tp: "0" }, 8, 8, "simd", 1).errors.map((e) => e.setting), ["tp"]);
  const ms = api.sweepKernelMs({}, 64, 64, "simd", 2);
  assert.equal(typeof ms, "number");
  assert.ok(ms >= 0);
  assert.equal(api.estimateJson(PLAIN), await freshText());
});

test("huge inputs are refused in JS naming the argument, before they reach the core", async () => {
  const api = await load({});
  const huge = "7".repeat(100_000_000);
  const value = api.estimate({ ...PLAIN, seq: huge });
  assert.equal(value.ok, false);
  assert.deepEqual(value.errors, [{ setting: "seq", message: "is 100000000 characters long; at most 65536" }]);
  assert.equal(api.estimate(PLAIN, { hidden_size: huge }).errors[0].setting, "hidden_size");
  assert.equal(JSON.parse(api.estimateJson({ [huge.slice(0, 1000)]: "1" })).errors[0].setting, "settings");
  const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, "1"]));
  assert.deepEqual(api.resolve(many).errors, [{ setting: "settings", message: "has 5000 keys; at most 4096 are read" }]);
  // 64 values of 64 KiB each: every value within its limit, the object (4 MiB as JSON) over 1 MiB.
  const wide = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, "x".repeat(65_536)]));
  assert.equal(api.advise({}, wide).errors[0].setting, "config");
  assert.equal(api.sweep(PLAIN, { batch: huge }).errors[0].setting, "batch");
  const config = api.parseConfig(`{"hidden_size": 4096, "pad": "${"x".repeat(5 << 20)}"}`);
  assert.deepEqual(config.errors.map((e) => e.setting), ["config.json"]);
  assert.match(config.errors[0].message, /at most 4194304 are read$/);
  assert.equal(api.estimateJson(PLAIN), await freshText());
});

test("readCheckpoint never throws on arguments whose conversion throws", async () => {
  const api = await load({});
  const hostile = { toString: () => { throw new Error("boom"); } };
  const safetensors = new Uint8Array(16);
  assert.deepEqual(api.readCheckpoint(hostile, safetensors, 16, "a.safetensors").errors[0],
                   { setting: "checkpoint", message: "kind must be safetensors or gguf" });
  // A name that cannot be read is named as such; the reader still answers (here: a header length of 0).
  const answer = api.readCheckpoint("safetensors", safetensors, 16, hostile);
  assert.equal(answer.ok, false);
  assert.match(JSON.stringify(answer.errors), /a name that could not be read/);
  assert.equal(api.estimateJson(PLAIN), await freshText());
});

test("a heap that cannot grow aborts the call; the instance is retired and load() gives a fresh one", async () => {
  const shared = await load();
  // 100 MB of header bytes (the safetensors limit): Embind copies them into wasm memory, which must grow.
  const bytes = new Uint8Array(100_000_008);
  await assert.rejects(withoutGrowth(() => shared.readCheckpoint("safetensors", bytes, bytes.length, "big")), WebAssembly.RuntimeError);
  assert.match(shared.retired, /OOM/);
  assert.throws(() => shared.estimate(PLAIN), /this llm-memory core stopped/);
  const next = await load();
  assert.notEqual(next, shared);
  assert.equal(next.retired, null);
  assert.equal(next.estimateJson(PLAIN), await freshText());
});

test("the engine swaps a fresh core in after an abort, and its answers equal a fresh instance's", async () => {
  const { createEngine } = await importEngine();
  const engine = await createEngine();
  const before = engine.estimate(PLAIN);
  const restarts = [];
  engine.onRestart((why) => restarts.push(why));
  const bytes = new Uint8Array(100_000_008);
  const failed = await withoutGrowth(() => engine.readCheckpoint("safetensors", bytes, bytes.length, "big"));
  assert.equal(failed.ok, false);
  assert.equal(failed.failed, true);
  assert.match(failed.errors[0].message, /^the calculation failed \(.*OOM.*\); it is restarting; your settings are kept$/);
  // While the swap runs, calls answer that it does.
  // (parseConfig waits for the rest of the core, so a synchronous call: an estimate not asked before.)
  assert.match(engine.estimate({ ...PLAIN, batch: "3" }).errors[0].message, /^the calculator is restarting after an error/);
  await engine.restarting;
  assert.equal(engine.restarting, null);
  assert.equal(restarts.length, 1);
  assert.match(restarts[0], /OOM/);
  const after = engine.estimate(PLAIN);
  assert.equal(JSON.stringify(after), JSON.stringify(before));
  assert.equal(JSON.stringify(after), JSON.stringify(JSON.parse(await freshText())));
  // The checkpoint reader works again on the new instance: a header of length 0 is refused by name.
  const again = await engine.readCheckpoint("safetensors", new Uint8Array(16), 16, "small");
  assert.equal(again.failed, undefined);
  assert.equal(again.errors[0].setting, "safetensors small");
});

test("a call that fails on every fresh core stops the swaps after three", async () => {
  const { Engine } = await importEngine();
  const broken = {
    settingsSchema: () => [],
    presetsComplete: true,
    loadPresets: async () => {},
    estimate: () => {
      throw new Error("broken");
    },
  };
  let made = 0;
  const engine = new Engine(broken, null, [], async () => (made++, new Engine(broken)));
  for (let i = 0; i < 6; ++i) {
    engine.estimate({ i });
    await engine.restarting;
  }
  assert.equal(made, 3);
  assert.equal(engine.estimate({ last: 1 }).errors[0].message, "the calculation failed (broken); reload the page if it persists");
});
