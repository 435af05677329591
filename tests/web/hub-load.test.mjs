// SPDX-License-Identifier: MIT
// The Hub loader (web/ui/hub-load.js) against a stubbed fetch (issue 37, item 4): a tensor in two shards is refused
// as the CLI refuses it, more than ASK_SHARDS shards are fetched only when confirmed, a config.json sent without
// Content-Length is read as a stream and cut off at 4 MiB, and a Content-Range from another byte is refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

import { loadApi, root } from "./support.mjs";

const { ASK_SHARDS, loadHubModel } = await import(pathToFileURL(join(root, "web/ui/hub-load.js")).href);
const api = await loadApi();

const CONFIG = JSON.stringify({ model_type: "llama", hidden_size: 64, intermediate_size: 128, num_hidden_layers: 2,
                                num_attention_heads: 4, num_key_value_heads: 4, vocab_size: 100, max_position_embeddings: 128 });

/** A safetensors file holding one F32 tensor of 2 values per name: the 8-byte length, the header, 8 B per tensor. */
function safetensors(names) {
  const header = Object.fromEntries(names.map((name, i) => [name, { dtype: "F32", shape: [2], data_offsets: [8 * i, 8 * i + 8] }]));
  const text = new TextEncoder().encode(JSON.stringify(header));
  const bytes = new Uint8Array(8 + text.length + 8 * names.length);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(text.length), true);
  bytes.set(text, 8);
  return bytes;
}

/**
 * A fetch over `files` (name -> string or Uint8Array): Range requests answered with 206 and Content-Range (from
 * `shift` bytes later than asked, to test the check), the rest whole; every URL asked for is kept in `asked`.
 */
function hub(files, { shift = 0 } = {}) {
  const asked = [];
  const fetcher = async (url, { headers = {} } = {}) => {
    asked.push(url);
    const file = decodeURIComponent(url.split("/resolve/main/")[1]);
    const body = files[file];
    if (body === undefined) return new Response("not found", { status: 404 });
    if (typeof body === "function") return body();
    const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
    const range = /^bytes=(\d+)-(\d+)$/.exec(headers.Range ?? "");
    if (!range) return new Response(bytes, { status: 200, headers: { "content-length": String(bytes.length) } });
    const start = Number(range[1]) + shift;
    const end = Math.min(Number(range[2]), bytes.length - 1);
    return new Response(bytes.slice(start, end + 1), { status: 206, headers: { "content-range": `bytes ${start}-${end}/${bytes.length}` } });
  };
  return { fetcher, asked };
}

const index = (map) => JSON.stringify({ metadata: {}, weight_map: map });
const load = (fetcher, options = {}) => loadHubModel("org/model", {
  parse: (text) => api.parseConfig(text),
  checkpoint: (...args) => api.readCheckpoint(...args),
  fetcher,
  ...options,
});

test("two shards: their tensors are summed; a tensor in both is refused, naming it and the shards", async () => {
  const good = hub({
    "config.json": CONFIG,
    "model.safetensors.index.json": index({ a: "one.safetensors", b: "two.safetensors" }),
    "one.safetensors": safetensors(["a"]),
    "two.safetensors": safetensors(["b"]),
  });
  const read = await load(good.fetcher);
  assert.equal(read.ok, true);
  // Two tensors of 2 F32 values: 4 parameters, 16 bytes.
  assert.deepEqual([read.checkpoint.tensors, read.checkpoint.params, read.checkpoint.bytes], [2, 4, 16]);
  assert.equal(read.settings.params, "4");
  const twice = hub({
    "config.json": CONFIG,
    "model.safetensors.index.json": index({ a: "one.safetensors", b: "two.safetensors" }),
    "one.safetensors": safetensors(["a", "shared"]),
    "two.safetensors": safetensors(["b", "shared"]),
  });
  const refused = await load(twice.fetcher);
  assert.equal(refused.ok, true);
  assert.equal(refused.checkpoint, null);
  assert.equal(refused.settings.params, undefined);
  assert.match(refused.note, /tensor "shared" of org\/model is in both one\.safetensors and two\.safetensors \(its values would be counted twice\)/);
});

test(`more than ${ASK_SHARDS} shards are fetched only once confirmed`, async () => {
  const count = ASK_SHARDS + 1;
  const files = { "config.json": CONFIG };
  const map = {};
  for (let i = 0; i < count; ++i) {
    map[`t${i}`] = `s${i}.safetensors`;
    files[`s${i}.safetensors`] = safetensors([`t${i}`]);
  }
  files["model.safetensors.index.json"] = index(map);
  const declined = hub(files);
  const asks = [];
  const no = await load(declined.fetcher, { confirm: (n) => (asks.push(n), false) });
  assert.deepEqual(asks, [count]);
  assert.equal(no.checkpoint, null);
  assert.match(no.note, new RegExp(`names ${count} shards; over ${ASK_SHARDS} are fetched only when you agree`));
  assert.equal(declined.asked.filter((url) => url.endsWith(".safetensors")).length, 0);
  // Without a confirm, as declined.
  assert.equal((await load(hub(files).fetcher)).checkpoint, null);
  const agreed = hub(files);
  const yes = await load(agreed.fetcher, { confirm: async () => true });
  assert.equal(yes.checkpoint.tensors, count);
  assert.equal(agreed.asked.filter((url) => url.endsWith(".safetensors")).length, count);
});

test("a config.json without Content-Length is read as a stream and cut off past 4 MiB", async () => {
  let pulled = 0;
  const chunk = new TextEncoder().encode(" ".repeat(1 << 20));
  // 64 MiB of spaces in 1 MiB chunks, no length declared.
  const endless = () => new Response(new ReadableStream({
    pull(controller) {
      if (pulled >= 64) controller.close();
      else {
        pulled++;
        controller.enqueue(chunk);
      }
    },
  }), { status: 200 });
  const read = await load(hub({ "config.json": endless }).fetcher);
  assert.equal(read.ok, false);
  assert.equal(read.message, `config.json of org/model is longer than ${4 << 20} bytes`);
  // Read up to the first chunk past the cap (and the stream's one queued ahead), never the 64 MiB.
  assert.ok(pulled <= 7, `pulled ${pulled} MiB`);
  // Within the cap, without a length: read and parsed.
  const small = () => new Response(new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(CONFIG));
      controller.close();
    },
  }), { status: 200 });
  assert.equal((await load(hub({ "config.json": small }).fetcher)).settings.hidden_size, "64");
});

test("a Content-Range that starts at another byte than asked is refused", async () => {
  const files = { "config.json": CONFIG, "model.safetensors": safetensors(["a"]) };
  const read = await load(hub(files, { shift: 1 }).fetcher);
  assert.equal(read.checkpoint, null);
  assert.match(read.note, /sent model\.safetensors of org\/model from byte 1, not 0 as asked/);
  assert.equal((await load(hub(files).fetcher)).checkpoint.tensors, 1);
});
