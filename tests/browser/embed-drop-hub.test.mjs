// SPDX-License-Identifier: MIT
// Issue 19 items 9 and 10, issue 18 item 4, in headless Chromium: the widget's theme against the host page's
// colour scheme, files dropped anywhere on the page and pasted config.json text, checkpoint headers read by the
// core, and Hub repo ids fetched from fixtures (context.route: no test touches the network).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { open, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
});
after(() => session?.close());

// The palette (web/ui/palette.css): light --bg #ffffff, dark --bg #0d1117.
const LIGHT_BG = "rgb(255, 255, 255)";
const DARK_BG = "rgb(13, 17, 23)";

/** A page holding `body`, with the widget script, under an emulated OS colour scheme. */
async function widgetPage(body, { scheme = "dark", head = "" } = {}) {
  const page = await session.context.newPage();
  await page.emulateMedia({ colorScheme: scheme });
  const name = `test/theme-${Math.random().toString(36).slice(2)}.html`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">${head}
<script type="module" src="../widget.js"></script></head><body>${body}</body></html>`;
  await page.route(session.url + name, (route) => route.fulfill({ contentType: "text/html", body: html }));
  await page.goto(session.url + name);
  await page.waitForFunction(() => [...document.querySelectorAll("llm-memory")].every((w) => w.estimate));
  return page;
}

const backgrounds = (page) => page.evaluate(() => [...document.querySelectorAll("llm-memory")]
  .map((w) => [w.id, w.scheme, getComputedStyle(w).backgroundColor]));

test("theme: auto follows the host page's colour scheme, then the OS; light and dark force it", async () => {
  // A light blog that declares nothing (color-scheme: normal, no background) read under a dark OS: the browser
  // draws the page light, so an auto widget is light, not a black box.
  let page = await widgetPage(`<llm-memory id="auto" model="llama-2-7b"></llm-memory>
    <llm-memory id="dark" theme="dark" model="llama-2-7b"></llm-memory>
    <div style="color-scheme: dark"><llm-memory id="in-dark" model="llama-2-7b"></llm-memory></div>
    <div style="background: #111"><llm-memory id="on-black" model="llama-2-7b"></llm-memory></div>`);
  assert.deepEqual(await backgrounds(page), [
    ["auto", "light", LIGHT_BG], ["dark", "dark", DARK_BG], ["in-dark", "dark", DARK_BG], ["on-black", "dark", DARK_BG]]);
  // The blog's own dark-mode toggle (a class on <html> that sets color-scheme) re-themes auto widgets at once.
  await page.addStyleTag({ content: "html.dark { color-scheme: dark; }" });
  await page.evaluate(() => document.documentElement.classList.add("dark"));
  await page.waitForFunction(() => document.getElementById("auto").scheme === "dark");
  assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById("auto")).backgroundColor), DARK_BG);
  await page.close();

  // A page offering both schemes follows the OS; theme="light" stays light under a dark OS.
  page = await widgetPage(`<llm-memory id="auto" model="llama-2-7b"></llm-memory><llm-memory id="light" theme="light" model="llama-2-7b"></llm-memory>`,
    { head: '<meta name="color-scheme" content="light dark">' });
  assert.deepEqual(await backgrounds(page), [["auto", "dark", DARK_BG], ["light", "light", LIGHT_BG]]);
  await page.emulateMedia({ colorScheme: "light" });
  await page.waitForFunction(() => document.getElementById("auto").scheme === "light");
  // An invalid value is noted and read as auto.
  await page.evaluate(() => document.getElementById("light").setAttribute("theme", "sepia"));
  await page.waitForFunction(() => document.getElementById("light").shadowRoot.querySelector(".problems").textContent.includes("theme:"));
  await page.close();
});

/** A synthetic .safetensors file: the 8-byte little-endian header length, the JSON header, then the data. */
function safetensors(header, data_bytes) {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, Buffer.alloc(data_bytes)]);
}

// Hand-counted: "a" BF16 [2, 3] = 6 values, 12 bytes (2 B each); "b" F32 [4] = 4 values, 16 bytes (4 B each);
// 10 parameters, 28 bytes of data, offsets contiguous from 0 (the safetensors format, huggingface/safetensors README).
const SMALL = safetensors({
  __metadata__: { format: "pt" },
  a: { dtype: "BF16", shape: [2, 3], data_offsets: [0, 12] },
  b: { dtype: "F32", shape: [4], data_offsets: [12, 28] },
}, 28);

/** A GGUF v3 file: magic, version, counts, general.architecture, two tensor infos (ggml docs/gguf.md). */
function gguf() {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  parts.push(Buffer.from("GGUF"));
  u32(3); u64(2); u64(1);
  str("general.architecture"); u32(8); str("llama");
  // F32 (type 0) [8, 4] = 32 values, 128 bytes at offset 0; F16 (type 1) [16] = 16 values, 32 bytes at 128.
  str("w"); u32(2); u64(8); u64(4); u32(0); u64(0);
  str("v"); u32(1); u64(16); u32(1); u64(128);
  const header = Buffer.concat(parts);
  const padded = Math.ceil(header.length / 32) * 32;
  return Buffer.concat([header, Buffer.alloc(padded - header.length + 160)]);
}

/** Drops a file named `name` holding `bytes` on `selector`; true when the page kept the drop (no navigation). */
function drop(page, selector, name, bytes) {
  return page.evaluate(({ selector, name, bytes }) => {
    const data = new DataTransfer();
    data.items.add(new File([new Uint8Array(bytes)], name));
    const target = document.querySelector(selector);
    target.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
    const event = new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
    target.dispatchEvent(event);
    return event.defaultPrevented;
  }, { selector, name, bytes: [...bytes] });
}

const overrides = (page) => page.evaluate(() => window.llmMemoryApp.state.overrides);

test("files dropped anywhere are read: config.json, .safetensors and .gguf headers; pasted config.json applies at once", async () => {
  const page = await open(session.context, session.url);
  // config.json dropped on the heading, far from the drop zone: read, and the page stays.
  const config = { hidden_size: 2048, num_hidden_layers: 4, num_attention_heads: 16, intermediate_size: 5632, vocab_size: 32000 };
  assert.equal(await drop(page, "h1", "config.json", Buffer.from(JSON.stringify(config))), true);
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.hidden_size === "2048");
  assert.equal((await overrides(page)).model, "");
  assert.equal(new URL(page.url()).pathname, "/");

  // A .safetensors file: its header gives the exact count (10 parameters, 28 bytes, by dtype).
  assert.equal(await drop(page, "#results", "model.safetensors", SMALL), true);
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.params === "10");
  const status = await page.textContent("#config-status");
  assert.match(status, /model\.safetensors/);
  assert.match(status, /2 tensors · 10 parameters/);
  assert.match(status, /BF16: 6 values/);
  assert.match(status, /F32: 4 values/);

  // A malformed header (declared length past the file) is an error naming the file; the settings stay.
  const broken = Buffer.from(SMALL);
  broken.writeBigUInt64LE(10_000n);
  await drop(page, "h1", "broken.safetensors", broken);
  await page.waitForFunction(() => !document.getElementById("config-error").hidden);
  assert.match(await page.textContent("#config-error"), /broken\.safetensors/);
  assert.equal((await overrides(page)).params, "10");

  // A .gguf: 32 + 16 = 48 parameters (every GGUF element is a parameter), architecture llama.
  await drop(page, "h1", "tiny.gguf", gguf());
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.params === "48");
  assert.match(await page.textContent("#config-status"), /GGUF \(llama\) header · 2 tensors · 48 parameters/);

  // Pasting config.json text outside any field applies it at once.
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.setData("text/plain", text);
    document.body.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, JSON.stringify({ ...config, hidden_size: 1024 }));
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.hidden_size === "1024");
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** Serves the Hub's URL layout for repo `id` from `files` (name -> Buffer or {status}), with CORS and Range. */
async function hubFixture(context, files, log) {
  await context.route("https://huggingface.co/**", async (route) => {
    const request = route.request();
    const cors = { "access-control-allow-origin": "*", "access-control-expose-headers": "Content-Range, Content-Length",
                   "access-control-allow-headers": "range" };
    if (request.method() === "OPTIONS") return route.fulfill({ status: 204, headers: cors });
    const url = new URL(request.url());
    log.push(`${url.pathname} ${request.headers().range ?? ""}`.trim());
    const match = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(url.pathname);
    const file = match ? files[`${decodeURIComponent(match[1])}/${match[2]}`] : undefined;
    if (file === undefined) return route.fulfill({ status: 404, headers: cors, body: "Entry not found" });
    if (!(file instanceof Buffer)) return route.fulfill({ status: file.status, headers: cors, body: "refused" });
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers().range ?? "");
    if (!range) return route.fulfill({ status: 200, headers: { ...cors, "content-type": "application/json" }, body: file });
    const first = Number(range[1]);
    const last = Math.min(Number(range[2]), file.length - 1);
    return route.fulfill({ status: 206, headers: { ...cors, "content-range": `bytes ${first}-${last}/${file.length}` },
                           body: file.subarray(first, last + 1) });
  });
}

test("Hub repo ids: config.json and the safetensors shards' headers by Range; the id in the URL; gated and offline notices", async () => {
  const log = [];
  const config = { model_type: "llama", hidden_size: 2048, num_hidden_layers: 4, num_attention_heads: 16,
                   num_key_value_heads: 4, intermediate_size: 5632, vocab_size: 32000 };
  // Two shards; hand-counted: shard 1 = 10 parameters (as SMALL), shard 2 = "c" BF16 [5] = 5 values, 10 bytes.
  const shard2 = safetensors({ c: { dtype: "BF16", shape: [5], data_offsets: [0, 10] } }, 10);
  await hubFixture(session.context, {
    "test-org/Tiny-Model/config.json": Buffer.from(JSON.stringify(config)),
    "test-org/Tiny-Model/model.safetensors.index.json": Buffer.from(JSON.stringify({
      metadata: { total_size: 38 }, weight_map: { a: "model-00001-of-00002.safetensors", b: "model-00001-of-00002.safetensors", c: "model-00002-of-00002.safetensors" } })),
    "test-org/Tiny-Model/model-00001-of-00002.safetensors": SMALL,
    "test-org/Tiny-Model/model-00002-of-00002.safetensors": shard2,
    "gated-org/Gated/config.json": { status: 401 },
  }, log);
  const page = await open(session.context, `${session.url}?v=1&seq=1024`);
  await page.fill("#model-search", "https://huggingface.co/test-org/Tiny-Model/tree/main");
  await page.press("#model-search", "Enter");
  // 10 + 5 = 15 parameters from the headers, over the config's architecture.
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.params === "15");
  const state = await overrides(page);
  assert.equal(state.hidden_size, "2048");
  assert.equal(state.seq, "1024", "the other settings are kept");
  assert.match(await page.textContent("#hub-status"), /huggingface\.co\/test-org\/Tiny-Model.*2 safetensors shards.*15 parameters/);
  // Only headers were asked for: every shard request is a Range request.
  for (const line of log.filter((l) => l.includes(".safetensors") && !l.endsWith(".json"))) assert.match(line, /bytes=\d+-\d+$/);
  await page.waitForFunction(() => new URLSearchParams(location.search).get("model") === "test-org/Tiny-Model");
  const link = page.url();
  assert.equal(new URL(link).searchParams.get("seq"), "1024");
  assert.equal(new URL(link).searchParams.get("hidden_size"), null, "the repo's settings fold into the id");

  // The link reproduces it.
  const again = await open(session.context, link);
  await again.waitForFunction(() => window.llmMemoryApp.state.overrides.params === "15");
  assert.equal((await overrides(again)).hidden_size, "2048");
  assert.deepEqual(again.problems, []);
  await again.close();

  // A gated repo: a notice naming the id; the settings stay as they were.
  await page.fill("#model-search", "gated-org/Gated");
  await page.press("#model-search", "Enter");
  // The status says "Fetching …" first (the Hub loader is imported on this action), then the answer.
  await page.waitForFunction(() => {
    const status = document.getElementById("hub-status").textContent;
    return status.includes("gated-org/Gated") && !status.startsWith("Fetching");
  });
  assert.match(await page.textContent("#hub-status"), /HTTP 401.*gated or private/);
  assert.equal((await overrides(page)).params, "15");

  // Not an id: nothing is fetched (strict check before any URL is built).
  const before_count = log.length;
  await page.fill("#model-search", "../../etc/passwd");
  await page.press("#model-search", "Enter");
  await page.fill("#model-search", "org/na--me");
  await page.press("#model-search", "Enter");
  assert.equal(log.length, before_count);
  await page.close();

  // No network: the request fails; the notice says the Hub needs a connection.
  await session.context.unroute("https://huggingface.co/**");
  await session.context.route("https://huggingface.co/**", (route) => route.abort("internetdisconnected"));
  const offline = await open(session.context, `${session.url}?v=1&model=test-org/Tiny-Model&seq=2048`);
  await offline.waitForFunction(() => document.getElementById("hub-status")?.textContent.includes("network connection"));
  assert.equal((await overrides(offline)).seq, "2048");
  await offline.close();
  await session.context.unroute("https://huggingface.co/**");
});

test("the Embed dialog previews the snippet live: the widget it loads, with the page's settings, following edits", async () => {
  const page = await open(session.context, `${session.url}?v=1&model=llama-2-7b&mode=inference&seq=4096`);
  await page.click("#embed-open");
  const preview = ".embed-preview llm-memory";
  await page.waitForFunction((s) => document.querySelector(s)?.estimate, preview);
  // Same settings, same core: the preview's total is the page's.
  const totals = await page.evaluate((s) => [document.querySelector(s).estimate.bytes.total,
    Number(document.querySelector('#results-table tr[data-bucket="total"]').dataset.bytes)], preview);
  assert.equal(totals[0], totals[1]);
  assert.equal(await page.getAttribute(preview, "seq"), "4096");
  // Editing the controls field re-renders the preview with those controls; the theme select sets its theme.
  await page.fill(".embed-dialog input[type=text]", "batch");
  await page.waitForFunction((s) => document.querySelector(s).getAttribute("controls") === "batch"
    && document.querySelector(s).shadowRoot.querySelectorAll("[part=control]").length === 1, preview);
  await page.selectOption(".embed-dialog select", "dark");
  await page.waitForFunction((s) => document.querySelector(s).scheme === "dark", preview);
  assert.match(await page.inputValue(".embed-dialog textarea"), /theme="dark"/);
  await page.fill(".embed-dialog input[type=text]", "");
  await page.waitForFunction((s) => !document.querySelector(s).hasAttribute("controls"), preview);
  assert.deepEqual(page.problems, []);
  await page.close();
});

/**
 * A blog on http://localhost loading the widget from http://127.0.0.1 (dist/ served by a server of its own with
 * the headers `cdn(file)` returns; null: 404), as docs/embedding.md "Hosting the files on another origin" says. Resolves to
 * {page, requests (cdn.test paths), warnings, started (the widget drew an estimate)}.
 */
async function crossOrigin(cdn, { page_headers = {} } = {}) {
  const { readFile } = await import("node:fs/promises");
  const { createServer } = await import("node:http");
  const { join } = await import("node:path");
  const { dist } = await import("./support.mjs");
  // A real server (not context.route, whose fulfilled responses Playwright gives CORS headers of its own).
  const requests = [];
  let origin = "";
  // One real server (not context.route: Chromium's Local Network Access refuses a routed page loading from the
  // loopback, and Playwright gives fulfilled responses CORS headers of its own) on two origins: the blog on
  // localhost, the widget's files on 127.0.0.1.
  const server = createServer(async (request, response) => {
    const path = new URL(request.url, "http://x").pathname;
    if (path === "/post.html") {
      return response.writeHead(200, { "content-type": "text/html", ...page_headers }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="${origin}/llm-memory/widget.js"></script></head>
<body><llm-memory model="llama-2-7b" mode="inference" seq="4096"><p id="fallback">Llama 2 7B: 13.5 GB</p></llm-memory></body></html>`);
    }
    const file = path.replace("/llm-memory/", "");
    requests.push(file);
    if (!/^(models\/)?[a-z0-9][a-z0-9._-]*$/.test(file)) return response.writeHead(404).end();
    const body = await readFile(join(dist, file)).catch(() => null);
    const headers = cdn(file);
    if (body === null || headers === null) return response.writeHead(404).end();
    response.writeHead(200, headers).end(body);
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  origin = `http://127.0.0.1:${server.address().port}`;
  const page = await session.context.newPage();
  const warnings = [];
  page.on("console", (m) => warnings.push(m.text()));
  await page.goto(`http://localhost:${server.address().port}/post.html`);
  // The widget drew an estimate or said why not; or, after the load event that goto waited for, the element is
  // still undefined: widget.js (which defines it as it runs) was blocked, and nothing will come (no 20 s wait).
  const started = await page.waitForFunction(() => !customElements.get("llm-memory")
    || document.querySelector("llm-memory").estimate
    || document.querySelector("llm-memory").shadowRoot?.querySelector(".status.field-error"), null, { timeout: 20_000 })
    .then(() => page.evaluate(() => Boolean(document.querySelector("llm-memory").estimate)), () => false);
  page.on("close", () => server.close());
  return { page, requests, warnings, started };
}

test("cross-origin hosting: exactly the headers docs/embedding.md names are needed (CORS on every file, application/wasm)", async () => {
  // The files a widget reads: the module script, the core's first part (the rest only for a heatmap: docs/wasm.md)
  // and the model presets its element names, llama-2-7b's and the default that stands in for a model that is no
  // preset (web/widget.js; not the whole catalogue, which only a model picker reads; nor the settings' help
  // texts, which a form reads when first pointed at: docs/wasm.md, "Settings docs").
  const type_of = { js: "text/javascript", wasm: "application/wasm", json: "application/json" };
  const types = new Proxy({}, { get: (_, file) => type_of[String(file).split(".").pop()] });
  const files = ["llm-memory.first.wasm", "models/llama-2-7b.json", "models/meta-llama-3-8b.json", "widget.js"];
  const cors = { "access-control-allow-origin": "*" };
  // Every file with Access-Control-Allow-Origin and its type: four requests, streaming compile, no warning.
  let run = await crossOrigin((file) => ({ ...cors, "content-type": types[file] }));
  assert.equal(run.started, true, JSON.stringify([run.requests, run.warnings]));
  assert.deepEqual([...run.requests].sort(), files);
  assert.deepEqual(run.warnings.filter((w) => /wasm/.test(w)), []);
  await run.page.close();
  // A cross-origin-isolated host page (COEP require-corp): CORS answers it; no Cross-Origin-Resource-Policy needed.
  run = await crossOrigin((file) => ({ ...cors, "content-type": types[file] }),
    { page_headers: { "cross-origin-embedder-policy": "require-corp", "cross-origin-opener-policy": "same-origin" } });
  assert.equal(run.started, true);
  await run.page.close();
  // The .wasm as application/octet-stream: the streaming compile fails, and the file is fetched a second time and
  // compiled from its bytes (web/engine.js).
  run = await crossOrigin((file) => ({ ...cors, "content-type": file.endsWith(".wasm") ? "application/octet-stream" : types[file] }));
  assert.equal(run.started, true);
  assert.deepEqual([...run.requests].sort(), ["llm-memory.first.wasm", ...files].sort());
  await run.page.close();
  // No Access-Control-Allow-Origin on the .wasm files: the first part cannot be read, nor the whole module the
  // widget then falls back to; the calculator cannot start and says so, and the fallback stays.
  run = await crossOrigin((file) => ({ "content-type": types[file], ...(file.endsWith(".wasm") ? {} : cors) }));
  assert.equal(run.started, false);
  assert.ok(run.requests.includes("llm-memory.wasm"), JSON.stringify(run.requests));
  assert.equal(await run.page.isVisible("#fallback"), true);
  await run.page.close();
  // A host with the whole module only (no llm-memory.first.wasm): the widget falls back to llm-memory.wasm.
  run = await crossOrigin((file) => (file === "llm-memory.first.wasm" ? null : { ...cors, "content-type": types[file] }));
  assert.equal(run.started, true);
  assert.ok(run.requests.includes("llm-memory.wasm"), JSON.stringify(run.requests));
  await run.page.close();
  // None on the preset files: no preset can be read; the widget names the model setting and shows no numbers.
  run = await crossOrigin((file) => ({ "content-type": types[file], ...(file.startsWith("models/") ? {} : cors) }));
  assert.equal(run.started, false);
  const said = await run.page.evaluate(() => document.querySelector("llm-memory").shadowRoot.textContent);
  assert.match(said, /model: unknown model "meta-llama-3-8b": not a preset .*; the model presets could not be read \(llm-memory\.models\.json/);
  assert.match(said, /No estimate for these settings/);
  await run.page.close();
  // None on widget.js: the module script is blocked; the element stays undefined, showing its fallback.
  run = await crossOrigin((file) => ({ "content-type": types[file], ...(file.endsWith(".js") ? {} : cors) }));
  assert.equal(run.started, false);
  assert.equal(await run.page.evaluate(() => customElements.get("llm-memory")), undefined);
  assert.equal(await run.page.isVisible("#fallback"), true);
  await run.page.close();
});
