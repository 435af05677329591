// SPDX-License-Identifier: MIT
// scripts/serve.mjs, the local server of scripts/run.sh, the browser tests and the performance script.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { serve } from "../../scripts/serve.mjs";

let dir;
let server;
let url;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "llm-memory-serve-"));
  await mkdir(join(dir, "sub"));
  await writeFile(join(dir, "index.html"), "<!doctype html><p>home</p>");
  await writeFile(join(dir, "sub", "index.html"), "sub");
  await writeFile(join(dir, "core.wasm"), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  ({ server, url } = await serve(dir, 0));
});

after(async () => {
  await new Promise((done) => server.close(done));
  await rm(dir, { recursive: true, force: true });
});

test("serves files with their type; a folder serves its index.html", async () => {
  const home = await fetch(url);
  assert.equal(home.status, 200);
  assert.equal(home.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(await home.text(), "<!doctype html><p>home</p>");
  assert.equal(await (await fetch(`${url}sub/`)).text(), "sub");
  const wasm = await fetch(`${url}core.wasm`);
  assert.equal(wasm.headers.get("content-type"), "application/wasm", "instantiateStreaming needs application/wasm");
  assert.equal((await wasm.arrayBuffer()).byteLength, 8);
});

test("every response is revalidated, and an unchanged file is a 304 without a body", async () => {
  const first = await fetch(`${url}core.wasm`);
  await first.arrayBuffer();
  assert.equal(first.headers.get("cache-control"), "no-cache");
  const etag = first.headers.get("etag");
  assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/);
  const again = await fetch(`${url}core.wasm`, { headers: { "If-None-Match": etag } });
  assert.equal(again.status, 304);
  assert.equal((await again.arrayBuffer()).byteLength, 0);
  // A rebuilt file (another size) gets another validator, so the browser fetches it anew.
  await writeFile(join(dir, "core.wasm"), new Uint8Array(16));
  const rebuilt = await fetch(`${url}core.wasm`, { headers: { "If-None-Match": etag } });
  assert.equal(rebuilt.status, 200);
  assert.notEqual(rebuilt.headers.get("etag"), etag);
  assert.equal((await rebuilt.arrayBuffer()).byteLength, 16);
});

test("nothing outside the folder is served; missing files are 404; bad escapes are 400", async () => {
  // fetch() normalises "/../", so the escapes go in percent-encoded, as a hostile client would send them:
  // "%2e%2e/" is a dot segment that URL parsing resolves inside the folder; "..%2f" survives it and is refused.
  assert.equal((await fetch(`${url}%2e%2e/%2e%2e/etc/passwd`)).status, 404);
  assert.equal((await fetch(`${url}..%2f..%2fetc%2fpasswd`)).status, 403);
  assert.equal((await fetch(`${url}missing.js`)).status, 404);
  assert.equal((await fetch(`${url}%E0%A4%A`)).status, 400);
});
