// SPDX-License-Identifier: MIT
// Compares two builds of the page in one headless Chromium, interleaved so that both see the same machine load
// (scripts/perf-web.mjs measures one build; on a shared, loaded machine two of its runs differ by more than
// any change): the core's first result on a link with settings and on the default page (fresh visits, HTTP
// and code caches cleared), the synchronous work of one input change, and the page's transfer size (every file
// a fresh visit requests before any user action, from the network log, less the preset catalogue fetched after
// the first answers: as scripts/perf-web.mjs).
//   node scripts/perf-web-compare.mjs BEFORE_DIR [AFTER_DIR]   (AFTER_DIR defaults to dist/; both built)
import { cpus, loadavg } from "node:os";
import { serve } from "./serve.mjs";
import { dist, firstLoad, gzipSizes, start } from "../tests/browser/support.mjs";

const [before_dir, after_dir = dist] = process.argv.slice(2);
if (!before_dir) throw new Error("usage: node scripts/perf-web-compare.mjs BEFORE_DIR [AFTER_DIR]");
const ROUNDS = 15;
const CHANGES = 100;
const LINK = "?v=1&model=llama-2-7b&mode=inference&seq=4096";
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The `llm-memory:first-result` mark of a fresh visit to `url` (ms from navigation). */
async function firstResult(context, url) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.clearBrowserCache");
  await cdp.detach();
  await page.goto(url);
  await page.waitForSelector("body[data-ready]");
  const mark = await page.evaluate(() => performance.getEntriesByName("llm-memory:first-result")[0]?.startTime);
  await page.close();
  return mark;
}

/** Milliseconds of each of `changes` input events on the batch and seq fields (estimate, table, bar, form). */
async function updates(page, changes) {
  return page.evaluate(async (n) => {
    const batch = document.querySelector('input[name="batch"]');
    const seq = document.querySelector('input[name="seq"]');
    const times = [];
    for (let i = 0; i < n; i++) {
      const input = i % 2 ? seq : batch;
      input.value = String(i % 2 ? 1024 * (1 + (i % 8)) : 1 + (i % 16));
      const t = performance.now();
      input.dispatchEvent(new Event("input", { bubbles: true }));
      times.push(performance.now() - t);
      if (i % 20 === 0) await new Promise((done) => setTimeout(done, 0));
    }
    return times;
  }, changes);
}

const session = await start({ dir: after_dir });
const other = await serve(before_dir, 0);
const sides = { before: other.url, after: session.url };
const load_before = loadavg()[0];
const runs = { before: { link: [], home: [], update: [] }, after: { link: [], home: [], update: [] } };
const dirs = { before: before_dir, after: after_dir };
const CATALOGUE = "llm-memory.models.json";
const loads = {};
try {
  for (const [side, url] of Object.entries(sides)) {
    const { paths, page } = await firstLoad(session.context, url);
    await page.close();
    loads[side] = (await gzipSizes(dirs[side], paths)).filter(([file]) => file !== CATALOGUE);
  }
  const pages = {};
  for (const [side, url] of Object.entries(sides)) {
    pages[side] = await session.context.newPage();
    await pages[side].goto(url);
    await pages[side].waitForSelector("body[data-ready]");
  }
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which side goes first, so neither always follows the other.
    for (const side of i % 2 ? ["after", "before"] : ["before", "after"]) {
      runs[side].link.push(await firstResult(session.context, sides[side] + LINK));
      runs[side].home.push(await firstResult(session.context, sides[side]));
      runs[side].update.push(...await updates(pages[side], CHANGES / 5));
    }
  }
} finally {
  await session.close();
  await new Promise((done) => other.server.close(done));
}

const sizes = Object.fromEntries(Object.entries(loads).map(([side, files]) => [side, files.reduce((sum, [, bytes]) => sum + bytes, 0)]));
const listed = (side) => loads[side].map(([file, bytes]) => `${file} ${(bytes / 1024).toFixed(1)} KB`).join(", ");
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const row = (name, f, unit, digits) => {
  const [b, a] = [f("before"), f("after")];
  return `| ${name} | ${b.toFixed(digits)} ${unit} | ${a.toFixed(digits)} ${unit} | ${(a / b).toFixed(3)} |`;
};
console.log(`Interleaved in one headless Chromium, ${ROUNDS} rounds; ${cpus().length} cores, load average ${load_before.toFixed(1)} before and ${loadavg()[0].toFixed(1)} after.

| figure | before | after | after / before |
| --- | --- | --- | --- |
${row("link with settings, fresh visit: the core's first result (median)", (s) => median(runs[s].link), "ms", 1)}
${row("default page, fresh visit: the core's result drawn over the prerendered one (median)", (s) => median(runs[s].home), "ms", 1)}
${row(`one input change: estimate + table + bar + form (mean of ${ROUNDS * CHANGES / 5})`, (s) => mean(runs[s].update), "ms", 2)}
${row("one input change (median)", (s) => median(runs[s].update), "ms", 2)}
${row("page's first load before any user action, gzip -9 (network log, less the catalogue)", (s) => sizes[s] / 1024, "KB", 2)}

Before: ${listed("before")}.
After: ${listed("after")}.`);
