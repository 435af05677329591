// SPDX-License-Identifier: MIT
// Issue 34 item 3, in headless Chromium: "What runs on my machine" (web/ui/fits-view.js). Opened by keyboard, its
// code and the core's rest load then; the table is the CLI's ranking for the same machine (row for row, the same
// formats); a change of device or filter re-ranks and is kept in the URL's fragment, which reopens the view; a
// row's link opens that answer's full estimate; at phone width (390 px) nothing overflows the page. The ranking
// runs in a Worker (ui/fits-ranker.js): the rows shown come from it, a question overtaken by a newer one is never
// drawn, the page's idle warm-up answers the first opening, and without a Worker (or with its script missing) the
// main thread ranks the same rows. Prints the time the ranking took in Chromium (docs/performance.md).
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

/** Where the ranking shown was computed: "worker" or "main" (ui/fits-view.js, data-source). */
const source = (page) => page.getAttribute("#fits-view-status", "data-source");

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
  assert.equal(await source(page), "worker", "ranked in the Worker");

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

test("a question overtaken by a newer one is never drawn: only the latest device's ranking shows", async () => {
  const page = await open(session.context, `${session.url}#fits?gpu=rtx-4090`);
  await ranked(page);
  // Every draw from now on, by the device its status names (ui/fits-view.js draws the status, then data-drawn).
  await page.evaluate(() => {
    window.draws = [];
    const status = document.querySelector("#fits-view-status");
    new MutationObserver(() => window.draws.push(status.textContent)).observe(status, { attributeFilter: ["data-drawn"] });
  });
  // Three devices picked a task apart (each its own ask: the view's edits in one task are one ask): the first goes
  // to the Worker, the second waits behind it and is replaced by the third; the first's answer comes too late.
  await page.evaluate(async () => {
    const gpu = document.querySelector("#fits-gpu");
    for (const id of ["rtx-3090", "rtx-3060-12gb", "rtx-4060-ti-16gb"]) {
      gpu.value = id;
      gpu.dispatchEvent(new Event("change"));
      await new Promise((done) => setTimeout(done, 0));
    }
  });
  await page.waitForFunction(() => location.hash.includes("rtx-4060-ti-16gb"));
  await ranked(page);
  await page.waitForTimeout(500);  // an overtaken answer arriving late would be drawn by now
  const draws = await page.evaluate(() => window.draws);
  assert.equal(draws.length, 1, `one draw, the latest question's: ${draws.join(" | ")}`);
  assert.match(draws[0], /RTX 4060 Ti 16GB/);
  assert.equal(await source(page), "worker");
  assert.deepEqual(await pageRanking(page), cliRanking(["--gpu", "rtx-4060-ti-16gb"]));
  assert.deepEqual([...page.problems], []);
  await page.close();
});

test("idle after its first answer, the page ranks the view's first question in the Worker: the first opening shows it at once", async () => {
  const page = await open(session.context, session.url);
  await page.waitForSelector('body[data-warm="true"]');
  await page.click("#fits-view > summary");
  await ranked(page);
  // Answered from the warm-up's ranking: the view waited for no ranking (one is 100+ ms: docs/performance.md).
  const ms = Number(await page.getAttribute("#fits-view-status", "data-ms"));
  assert.ok(ms < 50, `the first opening waited ${ms} ms for its ranking`);
  assert.equal(await source(page), "worker");
  assert.deepEqual(await pageRanking(page), cliRanking(["--gpu", "rtx-4090"]));
  assert.deepEqual([...page.problems], []);
  await page.close();
});

for (const [why, setup] of [
  ["no Worker constructor", (page) => page.addInitScript(() => delete window.Worker)],
  ["the Worker's script missing", (page) => page.route("**/fits-worker.js", (route) => route.fulfill({ status: 404, body: "" }))],
]) {
  test(`with ${why}, the main thread ranks the same rows`, async () => {
    const page = await session.context.newPage();
    await setup(page);
    const problems = [];
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    await page.goto(`${session.url}#fits?gpu=m4-16gb`);
    await page.waitForSelector("body[data-ready]");
    await ranked(page);
    assert.equal(await source(page), "main");
    assert.deepEqual(await pageRanking(page), cliRanking(["--gpu", "m4-16gb"]));
    // And the next question too.
    await page.selectOption("#fits-gpu", "rtx-4090");
    await page.waitForFunction(() => !location.hash.includes("m4-16gb"));
    await ranked(page);
    assert.deepEqual(await pageRanking(page), cliRanking(["--gpu", "rtx-4090"]));
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("the offline single file (llm-memory.html) ranks on its main thread: it has no Worker script to start", async () => {
  const page = await open(session.context, `${session.url}llm-memory.html#fits?gpu=m4-16gb`);
  await ranked(page);
  assert.equal(await source(page), "main");
  assert.deepEqual(await pageRanking(page), cliRanking(["--gpu", "m4-16gb"]));
  assert.deepEqual([...page.problems], []);
  await page.close();
});
