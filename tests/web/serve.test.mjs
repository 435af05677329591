// SPDX-License-Identifier: MIT
// scripts/serve.mjs, the local server of scripts/run.sh, the browser tests and the performance script.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { serve } from "../../scripts/serve.mjs";

let dir;
let outside;
let server;
let url;

/** A download of 8 MiB: larger than any socket and stream buffer, so an abort lands mid-body. */
const BIG = 8 << 20;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "llm-memory-serve-"));
  outside = await mkdtemp(join(tmpdir(), "llm-memory-outside-"));
  await mkdir(join(dir, "sub"));
  await writeFile(join(dir, "index.html"), "<!doctype html><p>home</p>");
  await writeFile(join(dir, "embed.html"), "<!doctype html><p>embed</p>");
  await writeFile(join(dir, "sub", "index.html"), "sub");
  await writeFile(join(dir, "core.wasm"), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  await writeFile(join(dir, "big.bin"), new Uint8Array(BIG));
  await writeFile(join(outside, "secret.txt"), "secret");
  ({ server, url } = await serve(dir, 0));
});

after(async () => {
  await new Promise((done) => server.close(done));
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** Open file descriptors of this process (the server runs in it). */
const openFds = () => readdirSync("/proc/self/fd").length;

/** Starts a GET of `path` on a fresh connection and cuts it once `bytes` of the body have arrived. */
function abortAfter(path, bytes) {
  return new Promise((done) => {
    const req = request(new URL(path, url), { agent: false }, (response) => {
      let seen = 0;
      response.on("data", (chunk) => {
        seen += chunk.length;
        if (seen >= bytes) req.destroy();
      });
      response.on("end", done);
    });
    req.on("close", done);
    req.on("error", () => {});
    req.end();
  });
}

const settle = () => new Promise((done) => setTimeout(done, 50));

/** Waits until the server holds no connection, so its fds are counted after it has seen every abort. */
async function idle() {
  for (let i = 0; i < 200; ++i) {
    const count = await new Promise((done) => server.getConnections((_, n) => done(n)));
    if (count === 0) return;
    await settle();
  }
  throw new Error("connections did not close");
}

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
  // "%2e%2e/" is a dot segment that URL parsing resolves inside the folder; "..%2f" survives it as a dot segment.
  assert.equal((await fetch(`${url}%2e%2e/%2e%2e/etc/passwd`)).status, 404);
  assert.equal((await fetch(`${url}..%2f..%2fetc%2fpasswd`)).status, 404);
  assert.equal((await fetch(`${url}sub%2f..%2f..%2fetc%2fpasswd`)).status, 404);
  assert.equal((await fetch(`${url}missing.js`)).status, 404);
  assert.equal((await fetch(`${url}core.wasm%00.html`)).status, 404);
  assert.equal((await fetch(`${url}%E0%A4%A`)).status, 400);
});

test("a symlink that leads out of the folder is refused, one that stays inside is followed", async () => {
  await symlink(join(outside, "secret.txt"), join(dir, "link.txt"));
  await symlink(outside, join(dir, "linked-dir"));
  await symlink(join(dir, "sub", "index.html"), join(dir, "inside.html"));
  try {
    for (const path of ["link.txt", "linked-dir/secret.txt", "linked-dir/", "linked-dir"]) {
      const response = await fetch(`${url}${path}`);
      assert.equal(response.status, 403, path);
      assert.notEqual(await response.text(), "secret", path);
    }
    assert.equal(await (await fetch(`${url}inside.html`)).text(), "sub");
  } finally {
    for (const name of ["link.txt", "linked-dir", "inside.html"]) await rm(join(dir, name));
  }
});

test("dotfiles and dot-folders are 404, also behind a symlink", async () => {
  await writeFile(join(dir, ".env"), "TOKEN=1");
  await mkdir(join(dir, ".git"));
  await writeFile(join(dir, ".git", "config"), "[core]");
  await symlink(join(dir, ".env"), join(dir, "env.txt"));
  try {
    for (const path of [".env", ".git/config", ".git/", "%2egit/config", "sub/../.env", "env.txt"]) {
      assert.equal((await fetch(`${url}${path}`)).status, 404, path);
    }
  } finally {
    await rm(join(dir, ".env"));
    await rm(join(dir, ".git"), { recursive: true });
    await rm(join(dir, "env.txt"));
  }
});

test("only GET and HEAD are answered; other methods are 405 with Allow", async () => {
  for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "MKCOL"]) {
    const response = await fetch(`${url}index.html`, { method, body: ["POST", "PUT", "PATCH"].includes(method) ? "x" : undefined });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get("allow"), "GET, HEAD", method);
  }
  const head = await fetch(`${url}sub/index.html`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), "3");
  assert.equal((await head.arrayBuffer()).byteLength, 0);
});

test("aborted downloads leave no file descriptor open", async () => {
  await idle();
  const before = openFds();
  for (let i = 0; i < 40; ++i) await abortAfter("big.bin", 64 << 10);
  await idle();
  await settle();
  // One leaked descriptor per abort would show as +40.
  assert.ok(openFds() - before <= 2, `${openFds() - before} descriptors more after 40 aborted downloads`);
  // A whole download still arrives complete.
  assert.equal((await (await fetch(`${url}big.bin`)).arrayBuffer()).byteLength, BIG);
});

test("read errors and odd files do not stop the server", async () => {
  // A directory named like a file, with no index.html, and one whose index.html is itself a directory.
  await mkdir(join(dir, "app.js"));
  await mkdir(join(dir, "deep"));
  await mkdir(join(dir, "deep", "index.html"));
  // A FIFO named like a file: opening it for reading would block a thread until a writer came.
  execFileSync("mkfifo", [join(dir, "pipe.js")]);
  try {
    for (const path of ["app.js", "app.js/", "deep/", "pipe.js"]) assert.equal((await fetch(`${url}${path}`)).status, 404, path);
    // A file that shrinks while it is being sent (removed or truncated between fstat and read): the
    // connection is cut, not left waiting for the promised bytes, and the server keeps answering.
    await writeFile(join(dir, "shrinks.bin"), new Uint8Array(BIG));
    const response = await fetch(`${url}shrinks.bin`);
    assert.equal(response.headers.get("content-length"), String(BIG));
    const reader = response.body.getReader();
    await reader.read();
    await truncate(join(dir, "shrinks.bin"), 0);
    await rm(join(dir, "shrinks.bin"));
    // Within a second, not after the server's 5 s keep-alive timeout.
    const started = Date.now();
    await assert.rejects(async () => {
      for (;;) if ((await reader.read()).done) break;
    });
    assert.ok(Date.now() - started < 1000, `the cut took ${Date.now() - started} ms`);
    assert.equal(await (await fetch(url)).text(), "<!doctype html><p>home</p>");
  } finally {
    await rm(join(dir, "app.js"), { recursive: true });
    await rm(join(dir, "deep"), { recursive: true });
    await rm(join(dir, "pipe.js"));
  }
});

test("only embed.html may be framed by another site (frame-ancestors, which a <meta> CSP cannot set)", async () => {
  for (const path of ["", "index.html", "sub/", "core.wasm"]) {
    const response = await fetch(`${url}${path}`);
    assert.equal(response.headers.get("content-security-policy"), "frame-ancestors 'none'", path);
    assert.equal(response.headers.get("x-frame-options"), "DENY", path);
  }
  const embed = await fetch(`${url}embed.html`);
  assert.equal(embed.status, 200);
  assert.equal(embed.headers.get("content-security-policy"), null);
  assert.equal(embed.headers.get("x-frame-options"), null);
});
