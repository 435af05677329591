// SPDX-License-Identifier: MIT
// web/ui/fits-ranker.js, the page's ranking of "What runs on my machine" in a Worker (issue 34 item 3), with a
// fake Worker the test answers by hand: one ranking at a time, a newer question replaces the one waiting (which
// resolves to "superseded" and is never sent), recent answers are reused, and where the Worker cannot run (no
// constructor, a constructor that throws, a script that fails, a core that did not start) the page's Engine ranks.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { FitsRanker } from "../../web/ui/fits-ranker.js";

/** The fake Workers made, each with the messages posted to it and `reply(answer)` for the oldest unanswered. */
let made = [];
class FakeWorker {
  constructor(url, options) {
    this.url = url;
    this.options = options;
    this.posted = [];
    this.terminated = false;
    made.push(this);
  }
  postMessage(data) {
    this.posted.push(data);
  }
  terminate() {
    this.terminated = true;
  }
  /** Answers the latest message posted (the ranker has at most one in the Worker). */
  reply(answer) {
    this.onmessage({ data: { id: this.posted.at(-1).id, answer } });
  }
}

/** An Engine stand-in that ranks "on the main thread": records the requests, answers {ok, on: "main", gpu}. */
function mainEngine() {
  const asked = [];
  return { asked, fits: async (request) => (asked.push(request), { ok: true, on: "main", gpu: request.gpu }) };
}

const tick = () => new Promise((done) => setTimeout(done, 0));

afterEach(() => {
  made = [];
  delete globalThis.Worker;
});

test("one ranking in the Worker at a time; a newer question replaces the waiting one, which is never sent", async () => {
  globalThis.Worker = FakeWorker;
  const engine = mainEngine();
  const ranker = new FitsRanker(engine, "https://example.test/fits-worker.js");
  assert.equal(ranker.inWorker, true);
  const a = ranker.fits({ gpu: "a" });
  const b = ranker.fits({ gpu: "b" });
  const c = ranker.fits({ gpu: "c" });
  await tick();  // a message is posted once the page's first part (web/boot.js) is known: none here
  assert.equal(made.length, 1, "one Worker");
  assert.deepEqual(made[0].options, { type: "module" });
  assert.deepEqual(made[0].posted.map((m) => m.request.gpu), ["a"], "b and c wait behind a");
  // b was replaced by c before it ran: superseded, and never posted.
  assert.equal((await b).superseded, true);
  made[0].reply({ ok: true, gpu: "a" });
  assert.deepEqual(await a, { ok: true, gpu: "a" });
  await tick();
  assert.deepEqual(made[0].posted.map((m) => m.request.gpu), ["a", "c"], "c sent once a answered; b never");
  made[0].reply({ ok: true, gpu: "c" });
  assert.deepEqual(await c, { ok: true, gpu: "c" });
  assert.deepEqual(engine.asked, [], "nothing ranked on the main thread");
});

test("an answer is kept: the same question (the warm-up's, then the view's) is answered without the Worker", async () => {
  globalThis.Worker = FakeWorker;
  const ranker = new FitsRanker(mainEngine(), "https://example.test/fits-worker.js");
  const warm = ranker.fits({ gpu: "a", seq: "8192" });
  // The view opens while the warm-up's ranking runs: the same request joins it.
  const opened = ranker.fits({ gpu: "a", seq: "8192" });
  await tick();
  made[0].reply({ ok: true, gpu: "a" });
  assert.equal(await opened, await warm);
  const again = await ranker.fits({ gpu: "a", seq: "8192" });
  assert.equal(again, await warm, "kept");
  assert.equal(made[0].posted.length, 1, "asked once");
  // An error answer from the Worker's core is the view's to show, as the main thread's would be.
  const bad = ranker.fits({ gpu: "nope" });
  await tick();
  made[0].reply({ ok: false, errors: [{ setting: "gpu", message: "unknown device" }] });
  assert.deepEqual(await bad, { ok: false, errors: [{ setting: "gpu", message: "unknown device" }] });
});

test("without a Worker constructor, or one that throws, the main thread ranks", async () => {
  const engine = mainEngine();
  const none = new FitsRanker(engine, "https://example.test/fits-worker.js");
  assert.equal(none.inWorker, false);
  assert.deepEqual(await none.fits({ gpu: "a" }), { ok: true, on: "main", gpu: "a" });
  globalThis.Worker = class {
    constructor() {
      throw new Error("SecurityError");
    }
  };
  const throwing = new FitsRanker(engine, "https://example.test/fits-worker.js");
  assert.deepEqual(await throwing.fits({ gpu: "b" }), { ok: true, on: "main", gpu: "b" });
  assert.equal(throwing.inWorker, false);
  assert.deepEqual(engine.asked.map((r) => r.gpu), ["a", "b"]);
});

test("a Worker whose script fails, or whose core did not start, hands what it held to the main thread", async () => {
  globalThis.Worker = FakeWorker;
  const engine = mainEngine();
  const failing = new FitsRanker(engine, "https://example.test/fits-worker.js");
  const a = failing.fits({ gpu: "a" });
  const b = failing.fits({ gpu: "b" });
  let prevented = false;
  made[0].onerror({ preventDefault: () => (prevented = true) });
  assert.equal(prevented, true);
  assert.equal(made[0].terminated, true);
  assert.deepEqual([await a, await b], [{ ok: true, on: "main", gpu: "a" }, { ok: true, on: "main", gpu: "b" }]);
  assert.equal(failing.inWorker, false);
  // null: the Worker's core did not start (web/fits-worker.js).
  const no_core = new FitsRanker(engine, "https://example.test/fits-worker.js");
  const c = no_core.fits({ gpu: "c" });
  await tick();
  made[1].reply(null);
  assert.deepEqual(await c, { ok: true, on: "main", gpu: "c" });
  await tick();
  assert.deepEqual(engine.asked.map((r) => r.gpu), ["a", "b", "c"]);
  assert.equal(made.length, 2, "no Worker started again");
  await no_core.fits({ gpu: "d" });
  assert.equal(made.length, 2);
});

test("the page's compile of the core's first part goes with the request, so the Worker does not compile it again", async () => {
  globalThis.Worker = FakeWorker;
  // The smallest module: the magic number and version 1.
  const module = new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  globalThis.llmMemoryBoot = { module: Promise.resolve(module) };
  try {
    const ranker = new FitsRanker(mainEngine(), "https://example.test/fits-worker.js");
    ranker.fits({ gpu: "a" });
    await tick();
    assert.equal(made[0].posted[0].module, module);
  } finally {
    delete globalThis.llmMemoryBoot;
  }
});
