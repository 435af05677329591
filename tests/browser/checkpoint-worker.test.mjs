// SPDX-License-Identifier: MIT
// Issue 37, in headless Chromium: a checkpoint header over WORKER_BYTES (4 MiB; web/ui/checkpoint-read.js) is
// read in a Worker (dist/checkpoint-worker.js) so the page never freezes, with the answer the main thread gives;
// the Hub is a local stand-in (context.route: no test touches the network), as in embed-drop-hub.test.mjs.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { open, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
});
after(() => session?.close());

/** A synthetic .safetensors file: the 8-byte little-endian header length, the JSON header, then the data. */
function safetensors(header, data_bytes) {
  const json = Buffer.from(typeof header === "string" ? header : JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, Buffer.alloc(data_bytes)]);
}

// 100,000 F16 tensors of shape [1]: each 1 parameter, 2 bytes, tensor k at bytes 2k..2k+2 (the buffer covered from
// 0, huggingface/safetensors README): 100,000 parameters, 200,000 bytes; the header is ~6.5 MB, over 4 MiB.
const TENSORS = 100_000;
const header = {};
for (let k = 0; k < TENSORS; ++k) header[`model.t${k}`] = { dtype: "F16", shape: [1], data_offsets: [2 * k, 2 * k + 2] };
const WIDE = safetensors(header, 2 * TENSORS);

/** Serves repo files at the Hub's URL layout (name -> Buffer), with CORS and Range. */
async function hubFixture(context, files) {
  await context.route("https://huggingface.co/**", async (route) => {
    const request = route.request();
    const cors = { "access-control-allow-origin": "*", "access-control-expose-headers": "Content-Range, Content-Length",
                   "access-control-allow-headers": "range" };
    if (request.method() === "OPTIONS") return route.fulfill({ status: 204, headers: cors });
    const match = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(new URL(request.url()).pathname);
    const file = match ? files[`${decodeURIComponent(match[1])}/${match[2]}`] : undefined;
    if (file === undefined) return route.fulfill({ status: 404, headers: cors, body: "Entry not found" });
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers().range ?? "");
    if (!range) return route.fulfill({ status: 200, headers: { ...cors, "content-type": "application/json" }, body: file });
    const first = Number(range[1]);
    const last = Math.min(Number(range[2]), file.length - 1);
    return route.fulfill({ status: 206, headers: { ...cors, "content-range": `bytes ${first}-${last}/${file.length}` },
                           body: file.subarray(first, last + 1) });
  });
}

test("a Hub repo's 6.5 MB header is read in a Worker, with the main thread's answer; a 100 MB-wide shape is refused there", async () => {
  const config = { model_type: "llama", hidden_size: 2048, num_hidden_layers: 4, num_attention_heads: 16,
                   num_key_value_heads: 4, intermediate_size: 5632, vocab_size: 32000 };
  // 3 M shape entries of 1: a ~6 MB header refused at the 65th entry (a shape lists at most 64 dimensions).
  const shape = `{"w":{"dtype":"F32","shape":[${"1,".repeat(2_999_999)}1],"data_offsets":[0,4]}}`;
  await hubFixture(session.context, {
    "test-org/Wide-Model/config.json": Buffer.from(JSON.stringify(config)),
    "test-org/Wide-Model/model.safetensors": WIDE,
    "test-org/Wide-Shape/config.json": Buffer.from(JSON.stringify(config)),
    "test-org/Wide-Shape/model.safetensors": safetensors(shape, 4),
  });
  const page = await open(session.context, session.url);
  const workers = [];
  // Not the ranking's Worker, which the page's idle warm-up starts (web/fits-worker.js).
  page.on("worker", (worker) => !worker.url().endsWith("/fits-worker.js") && workers.push(worker.url()));
  await page.fill("#model-search", "https://huggingface.co/test-org/Wide-Model");
  await page.press("#model-search", "Enter");
  await page.waitForFunction((n) => window.llmMemoryApp.state.overrides.params === String(n), TENSORS);
  assert.equal(workers.length, 1);
  assert.match(workers[0], /\/checkpoint-worker\.js$/);
  assert.match(await page.textContent("#hub-status"), /100,000 parameters/);

  // The page's own core, on the main thread, gives the same answer for the same bytes.
  const main = await page.evaluate(async (bytes) => {
    const data = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0));
    const read = await window.llmMemoryApp.engine.readCheckpoint("safetensors", data, data.length, "model.safetensors");
    return read.checkpoint;
  }, WIDE.toString("base64"));
  assert.deepEqual({ tensors: main.tensors, params: main.params, bytes: main.bytes },
    { tensors: TENSORS, params: TENSORS, bytes: 2 * TENSORS });

  await page.fill("#model-search", "https://huggingface.co/test-org/Wide-Shape");
  await page.press("#model-search", "Enter");
  await page.waitForFunction(() => /64 dimensions/.test(document.getElementById("hub-status")?.textContent ?? ""));
  assert.match(await page.textContent("#hub-status"), /tensor "w": too wide/);
  // The only console errors: the stand-in's 404 for each repo's model.safetensors.index.json (single-file repos).
  assert.deepEqual(page.problems.filter((p) => !/status of 404/.test(p)), []);
  await page.close();
});

test("a dropped 6.5 MB header is read in the Worker too", async () => {
  const page = await open(session.context, session.url);
  const workers = [];
  // Not the ranking's Worker, which the page's idle warm-up starts (web/fits-worker.js).
  page.on("worker", (worker) => !worker.url().endsWith("/fits-worker.js") && workers.push(worker.url()));
  // Built in the page (the bytes would be slow to hand over as a list), then dropped on the heading.
  await page.evaluate((n) => {
    const entries = [];
    for (let k = 0; k < n; ++k) entries.push(`"model.t${k}":{"dtype":"F16","shape":[1],"data_offsets":[${2 * k},${2 * k + 2}]}`);
    const json = new TextEncoder().encode(`{${entries.join(",")}}`);
    const bytes = new Uint8Array(8 + json.length + 2 * n);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
    bytes.set(json, 8);
    const data = new DataTransfer();
    data.items.add(new File([bytes], "wide.safetensors"));
    const target = document.querySelector("h1");
    target.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  }, TENSORS);
  await page.waitForFunction((n) => window.llmMemoryApp.state.overrides.params === String(n), TENSORS);
  assert.match(await page.textContent("#config-status"), /100,000 tensors · 100,000 parameters/);
  assert.deepEqual(workers.map((url) => new URL(url).pathname), ["/checkpoint-worker.js"]);
  assert.deepEqual(page.problems, []);
  await page.close();
});
