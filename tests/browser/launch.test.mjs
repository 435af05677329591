// SPDX-License-Identifier: MIT
// Issue 33, in headless Chromium: the "Paste a launch command" box (web/ui/launch-paste.js). A pasted `vllm serve`
// line gives the estimate and the settings of the same settings typed into the URL, over the user's own (batch 4
// stays); what was read is listed as text; an error names the option.
// Run after `npm run build`: node --test tests/browser/launch.test.mjs
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { bucketBytes, open, settled, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
});
after(() => session?.close());

// vLLM's docs ("Configure memory and context length"), with tensor parallelism.
const command = "vllm serve mistralai/Mistral-7B-v0.1 \\\n  --gpu-memory-utilization 0.95 \\\n  --max-model-len 8192 -tp 2";
// The same by hand (docs/readers.md: devices = tp x pp).
const typed = { mode: "inference", runtime: "vllm", model: "mistral-7b-v0.1", seq: "8192", gpu_memory_utilization: "0.95", tp: "2", devices: "2" };

const resolved = (page) => page.evaluate(() => window.llmMemoryApp.last.settings);

test("a pasted vllm serve line gives the settings typed by hand, the user's own kept; errors name the option", async () => {
  const page = await open(session.context, `${session.url}?batch=4`);
  await settled(page);
  await page.click("#launch-paste > summary");
  await page.waitForSelector("#launch-text");
  await page.fill("#launch-text", command);
  await page.click("#launch-apply");
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.seq === "8192");
  await settled(page);
  const pasted = { settings: await resolved(page), total: await bucketBytes(page, "total") };
  assert.equal(pasted.settings.batch, "4", "the user's batch stays");
  assert.match(await page.textContent("#launch-report"), /--max-model-len → seq 8192/);

  const by_hand = await open(session.context, `${session.url}?${new URLSearchParams({ batch: "4", ...typed })}`);
  await settled(by_hand);
  assert.deepEqual(pasted.settings, await resolved(by_hand));
  assert.equal(pasted.total, await bucketBytes(by_hand, "total"));

  // An error names the option; the settings shown stay.
  await page.fill("#launch-text", "llama-server -c abc");
  await page.click("#launch-apply");
  await page.waitForSelector("#launch-error:not([hidden])");
  assert.equal(await page.textContent("#launch-error"), '-c: seq: must be an integer from 1 to 100000000, got "abc"');
  assert.equal((await resolved(page)).seq, "8192");
  // Text only: markup in a pasted option stays text.
  await page.fill("#launch-text", "vllm serve m --<img src=x onerror=alert(1)> 1");
  await page.click("#launch-apply");
  await page.waitForFunction(() => document.getElementById("launch-report").textContent.includes("<img"));
  assert.equal(await page.$$eval("#launch-paste img", (nodes) => nodes.length), 0);
  assert.deepEqual([...page.problems], []);
  await page.close();
  await by_hand.close();
});
