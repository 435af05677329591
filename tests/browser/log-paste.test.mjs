// SPDX-License-Identifier: MIT
// Issue 33, in headless Chromium: the "Paste a startup log" box (web/ui/log-paste.js) and "Copy launch command"
// (web/ui/emit-copy.js). A pasted llama.cpp log, used by keyboard alone, gives the side-by-side table (the
// runtime's figure, ours, the signed difference) and the estimate of the same settings typed into the URL; a
// validation record and a launch command reach the clipboard; markup in a log stays text; at phone width the
// table scrolls inside its box, not the page.
// Run after `npm run build`: node --test --test-concurrency=1 tests/browser/log-paste.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { bucketBytes, open, root, settled, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
  await session.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(session.url).origin });
});
after(() => session?.close());

const PHONE = { width: 390, height: 844 };
const fixture = (name) => readFileSync(`${root}tests/cli/log/${name}`, "utf8");
const resolved = (page) => page.evaluate(() => window.llmMemoryApp.last.settings);

/** Opens the log box with the keyboard, pastes `text` and presses Compare with the keyboard. */
async function compare(page, text) {
  if (!(await page.evaluate(() => document.getElementById("log-paste").open))) {
    await page.focus("#log-paste > summary");
    await page.keyboard.press("Enter");
  }
  await page.waitForSelector("#log-text");
  await page.fill("#log-text", text);
  await page.focus("#log-text");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "log-apply", "Compare follows the text box");
  await page.keyboard.press("Enter");
}

test("a pasted llama.cpp log: the table by keyboard, the settings typed by hand, the record copied", async () => {
  const page = await open(session.context, `${session.url}?batch=2`);
  await settled(page);
  await compare(page, fixture("llamacpp-llama-3-8b-q4_k_m.log"));
  await page.waitForSelector("#log-table");
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.seq === "512");
  await settled(page);
  // An accessible table: a caption, column headers, each row headed by the log's own label and line.
  assert.match(await page.textContent("#log-table caption"), /llama\.cpp log beside the estimate/);
  assert.deepEqual(await page.$$eval("#log-table thead th[scope=col]", (n) => n.map((x) => x.textContent)),
    ["Item (log line)", "Runtime's figure", "Ours", "Difference"]);
  // Line 63 "CUDA0 KV buffer size = 64.00 MiB"; ours: 2 (K, V) x 32 layers x 512 tokens (n_ctx, line 57) x 8 KV
  // heads x 128 x 2 bytes (f16) = 64 MiB, a difference of zero.
  assert.deepEqual(await page.$$eval('#log-table tr[data-item="kv_memory"] > *', (n) => n.map((x) => x.textContent)),
    ["CUDA0 KV buffer size (line 63)", "64.00 MiB", "64.00 MiB", "+0.00 MiB (+0.0%)"]);
  const rows = await page.$$eval("#log-table tbody tr", (n) => n.length);
  assert.equal(await page.$$eval("#log-table tbody th[scope=row]", (n) => n.length), rows);
  assert.equal(await page.$$eval("#log-table tr.diverges", (n) => n.length), 1, "one row diverges most, said in words");
  assert.match(await page.textContent("#log-table tr.diverges"), /diverges most/);

  // The page now shows the log's settings over the user's own (batch 2 stays), as typed into the URL.
  const pasted = await resolved(page);
  assert.equal(pasted.batch, "2");
  assert.equal(pasted.runtime, "llamacpp");
  const typed = await page.evaluate(() => window.llmMemoryApp.state.overrides);
  const by_hand = await open(session.context, `${session.url}?${new URLSearchParams(typed)}`);
  await settled(by_hand);
  assert.deepEqual(pasted, await resolved(by_hand));
  assert.equal(await bucketBytes(page, "total"), await bucketBytes(by_hand, "total"));
  await by_hand.close();

  // "Copy as a validation record": the compared rows in published.json's shape.
  await page.focus("#log-record");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("log-copied").textContent.startsWith("Copied"));
  const record = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  const kv = record.find((r) => r.quantity[0] === "runtime:buffers.kv");
  assert.deepEqual([kv.published, kv.unit, kv.kind], [64, "MiB", "published log"]);

  // An error names the line; the settings shown stay.
  await compare(page, fixture("bad-n-ctx.log"));
  await page.waitForSelector("#log-error:not([hidden])");
  assert.match(await page.textContent("#log-error"), /^line 2\b/);
  assert.equal((await resolved(page)).seq, "512");
  // Text only: markup in a log's label stays text.
  const hostile = fixture("llamacpp-llama-3-8b-q4_k_m.log").replace("CUDA0 KV buffer size", "<img src=x onerror=alert(1)> KV buffer size");
  await compare(page, hostile);
  await page.waitForFunction(() => document.getElementById("log-report").textContent.includes("<img"));
  assert.equal(await page.$$eval("#log-paste img", (nodes) => nodes.length), 0);
  assert.deepEqual([...page.problems], []);
  await page.close();
});

test("phone width: the vLLM log's table scrolls inside its box; the page does not", async () => {
  const page = await open(session.context, `${session.url}?gpu_memory=39.39GiB`, { viewport: PHONE });
  await settled(page);
  if (!(await page.evaluate(() => document.getElementById("settings-details").open))) await page.click("#settings-details > summary");
  await compare(page, fixture("vllm-0.15.1-llama-3.1-8b.log"));
  await page.waitForSelector("#log-table");
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.model === "llama-3.1-8b");
  assert.match(await page.textContent('#log-table tr[data-item="kv_tokens"] th'), /GPU KV cache size/);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "no sideways scroll of the page");
  assert.deepEqual([...page.problems], []);
  await page.close();
});

test("Copy launch command: the chosen runtime's command, by keyboard, on the clipboard; hidden for training", async () => {
  const page = await open(session.context, `${session.url}?mode=inference&runtime=llamacpp&seq=8192`);
  await settled(page);
  assert.equal(await page.isVisible("#emit-copy"), true);
  await page.focus("#emit-copy");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#emit-text");
  const text = await page.textContent("#emit-text");
  assert.match(text, /^llama-server /);
  assert.match(text, /-c 8192/);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
  assert.match(await page.textContent("#emit-status"), /^Copied the llama-server command/);
  // Another setting: the command shown was for the settings before it, and goes.
  await page.evaluate(() => window.llmMemoryApp.edit({ seq: "4096" }));
  assert.equal(await page.$$eval("#emit-text", (n) => n.length), 0);
  await page.evaluate(() => window.llmMemoryApp.edit({ mode: "training" }));
  assert.equal(await page.isVisible("#emit-copy"), false);
  assert.deepEqual([...page.problems], []);
  await page.close();
});
