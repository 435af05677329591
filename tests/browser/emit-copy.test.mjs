// SPDX-License-Identifier: MIT
// Issue 33, in headless Chromium: "Copy launch command" (web/ui/emit-copy.js): the chosen runtime's command for
// the estimate's settings, by keyboard, shown as text and on the clipboard; gone when a setting changes; hidden
// for a training run.
// Run after `npm run build`: node --test --test-concurrency=1 tests/browser/emit-copy.test.mjs
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { open, settled, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
  await session.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(session.url).origin });
});
after(() => session?.close());

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
  await page.evaluate(() => window.llmMemoryApp.edit({ mode: "train" }));
  assert.equal(await page.isVisible("#emit-copy"), false);
  assert.deepEqual([...page.problems], []);
  await page.close();
});
