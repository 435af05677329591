// SPDX-License-Identifier: MIT
// "What runs on my machine" through the JS API (api.fits, issue 34 item 3): the same ranking as the CLI's
// `llm-memory fits --json` for the same machine, byte for byte once parsed; errors name the request's key; the
// view's URL fragment (web/ui/fits-view.js) reads back what it writes and maps onto the API's request.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fitsRequest, readFitsHash, writeFitsHash } from "../../web/ui/fits-view.js";
import { cli, loadApi } from "./support.mjs";

const api = await loadApi();
await api.loadPresets();

const machines = [
  { gpu: "rtx-4090" },
  { gpu: "rtx-3060", ram: "64GB", moe: "only" },
  { gpu: "h100-80gb", devices: "2", task: "lora", seq: "4096", family: "llama", sort: "context" },
  { gpu: "m4-16gb", min_params: "1B", max_params: "8B", sort: "speed" },
];

for (const machine of machines) {
  test(`api.fits(${JSON.stringify(machine)}) is the CLI's fits --json`, () => {
    const flags = Object.entries(machine).flatMap(([k, v]) => [`--${k.replaceAll("_", "-")}`, v]);
    const expected = JSON.parse(cli(["fits", ...flags, "--json"]));
    const got = api.fits(machine);
    assert.equal(got.ok, true, JSON.stringify(got.errors));
    const { ok, ...rest } = got;
    assert.deepEqual(rest, expected);
    assert.ok(expected.rows.length > 0);
  });
}

test("errors name the request's key", () => {
  const named = (request) => {
    const r = api.fits(request);
    assert.equal(r.ok, false, Object.keys(request ?? {}).join());
    return r.errors.map((e) => e.setting);
  };
  assert.deepEqual(named({ gpu: "no-such-gpu" }), ["gpu"]);
  assert.deepEqual(named({}), ["gpu"]);
  assert.deepEqual(named({ gpu: "rtx-4090", task: "serve" }), ["task"]);
  assert.deepEqual(named({ gpu: "rtx-4090", devices: "0" }), ["devices"]);
  assert.deepEqual(named({ gpu: "rtx-4090", ram: "lots" }), ["ram"]);
  assert.deepEqual(named({ gpu: "rtx-4090", colour: "red" }), ["colour"]);
  assert.deepEqual(named({ gpu: "rtx-4090", sort: "price", moe: "maybe" }), ["moe", "sort"]);
  // Not an object, or a getter that throws: the API says so and calls nothing with it.
  assert.deepEqual(named(null), ["gpu"]);
  assert.deepEqual(named({ gpu: "rtx-4090", get seq() { throw new Error("no"); } }), ["seq"]);
});

test("the view's fragment reads back what it writes, and maps onto the API's request", () => {
  const state = { ...readFitsHash(""), gpu: "rtx-3060", ram: "64GB", size: "4-16", moe: "only", family: " Qwen " };
  const hash = writeFitsHash(state);
  assert.equal(hash, "#fits?gpu=rtx-3060&ram=64GB&family=+Qwen+&size=4-16&moe=only");
  assert.deepEqual(readFitsHash(hash), state);
  assert.equal(writeFitsHash(readFitsHash("#fits")), "#fits");
  assert.deepEqual(fitsRequest(state), { gpu: "rtx-3060", devices: "1", task: "run", seq: "8192", moe: "only", sort: "size",
                                         ram: "64GB", family: "Qwen", min_params: "4B", max_params: "16B" });
  // "over 120B": no upper limit; a hostile value is cut to 100 characters and left for the core to refuse.
  assert.deepEqual(fitsRequest({ ...state, size: "120-0" }).max_params, undefined);
  assert.equal(readFitsHash(`#fits?gpu=${"x".repeat(500)}`).gpu.length, 100);
  // Another fragment leaves the defaults.
  assert.equal(readFitsHash("#results").gpu, "rtx-4090");
});
