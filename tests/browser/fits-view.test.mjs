// SPDX-License-Identifier: MIT
// Issue 34 item 3, in headless Chromium: "What runs on my machine" (web/ui/fits-view.js). Opened by keyboard, its
// code and the core's rest load then; the table is the CLI's ranking for the same machine (row for row, the same
// formats); a change of device or filter re-ranks and is kept in the URL's fragment, which reopens the view; a
// row's link opens that answer's full estimate; at phone width (390 px) nothing overflows the page. Prints the
// time the ranking took in Chromium (docs/performance.md).
// Run after `npm run build` (and the native build, for the CLI): node --test tests/browser/fits-view.test.mjs
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { after, before, test } from "node:test";
import { PHONE, open, root, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
});
after(() => session?.close());

const cli = resolve(root, process.env.LLM_MEMORY_CLI ?? "build/release/llm-memory");

/** The CLI's ranking of the fitting models: [[model, format, runtime, max_context], ...] in its order. */
function cliRanking(flags) {
  const run = spawnSync(cli, ["fits", ...flags, "--json"], { encoding: "utf8", maxBuffer: 1 << 26 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout).rows.filter((r) => r.fits).map((r) => [r.model, r.format, r.runtime, r.max_context]);
}

/** The page's table as the same tuples. */
const pageRanking = (page) => page.$$eval("#fits-table tbody tr", (rows) => rows.map((tr) => [
  tr.dataset.model, tr.cells[2].textContent, tr.cells[3].textContent, Number(tr.dataset.context)]));

/** Waits until the view shows the ranking of its latest state. */
const ranked = (page) => page.waitForSelector('#fits-view-status[data-state="ready"]');

test("opened by keyboard, the view ranks as the CLI does, keeps its state in the URL and links to each estimate", async () => {
  const page = await open(session.context, session.url);
  // Keyboard only: focus the section's summary and open it with Enter.
  await page.focus("#fits-view > summary");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#fits-gpu");
  await ranked(page);
  const ms = Number(await page.getAttribute("#fits-view-status", "data-ms"));
  console.log(`ranking in Chromium, first opening (the rest and the catalogue fetched): ${ms} ms`);
  assert.deepEqual(await pageRanking(page), cliRanking(["--gpu", "rtx-4090"]));

  // Keyboard: Tab from the device to the devices box, type 2; the ranking follows and the fragment keeps it.
  await page.focus("#fits-gpu");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "fits-devices");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("2");
  await page.waitForFunction(() => location.hash.includes("devices=2"));
  await ranked(page);
  await page.selectOption("#fits-ram", "64GB");
  await page.selectOption("#fits-moe", "only");
  await page.waitForFunction(() => location.hash.includes("moe=only"));
  await ranked(page);
  const again = Number(await page.getAttribute("#fits-view-status", "data-ms"));
  console.log(`ranking in Chromium, 2 x RTX 4090, MoE only: ${again} ms`);
  assert.deepEqual(await pageRanking(page), cliRanking(["--gpu", "rtx-4090", "--devices", "2", "--ram", "64GB", "--moe", "only"]));
  assert.ok((await pageRanking(page)).length > 0);

  // The whole catalogue again, the rest and the presets in: the figure docs/performance.md quotes.
  await page.selectOption("#fits-moe", "any");
  await page.waitForFunction(() => !location.hash.includes("moe="));
  await ranked(page);
  console.log(`ranking in Chromium, 2 x RTX 4090 with 64 GB, every model: ${await page.getAttribute("#fits-view-status", "data-ms")} ms`);
  await page.selectOption("#fits-moe", "only");
  await page.waitForFunction(() => location.hash.includes("moe=only"));
  await ranked(page);

  // The fragment reopens the view as it was.
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /^#fits\?/);
  const reopened = await open(session.context, `${session.url}${hash}`);
  await reopened.waitForSelector("#fits-gpu");
  await ranked(reopened);
  assert.equal(await reopened.inputValue("#fits-devices"), "2");
  assert.equal(await reopened.inputValue("#fits-moe"), "only");
  assert.deepEqual(await pageRanking(reopened), await pageRanking(page));

  // A row's link opens its full estimate: the model and the format of the row.
  const first = await page.$eval("#fits-table tbody tr", (tr) => ({ model: tr.dataset.model, format: tr.cells[2].textContent,
                                                                      href: tr.querySelector("a").getAttribute("href") }));
  const estimate = await open(session.context, `${session.url}${first.href}`);
  const settings = await estimate.evaluate(() => window.llmMemoryApp.last.settings);
  assert.equal(settings.model, first.model);
  assert.equal(settings.weights_dtype, first.format);
  assert.deepEqual([...page.problems, ...reopened.problems, ...estimate.problems], []);
  await Promise.all([page.close(), reopened.close(), estimate.close()]);
});

test("at phone width (390 px) the view fits the screen: the table scrolls inside its box, the page does not", async () => {
  const page = await open(session.context, `${session.url}#fits?gpu=m4-16gb`, { viewport: PHONE });
  await page.waitForSelector("#fits-table");
  await ranked(page);
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: innerWidth,
                                              controls: Math.max(...[...document.querySelectorAll(".fits-field")].map((f) => f.getBoundingClientRect().right)) }));
  assert.ok(widths.page <= widths.view, `page ${widths.page} px wide at ${widths.view}`);
  assert.ok(widths.controls <= widths.view, `controls reach ${widths.controls} px`);
  assert.deepEqual(await pageRanking(page), cliRanking(["--gpu", "m4-16gb"]));
  assert.deepEqual([...page.problems], []);
  await page.close();
});
