// SPDX-License-Identifier: MIT
// Issue 36 item 9's link paint, measured on one or more builds side by side in one run (a measurement, not a
// timed test): headless Chromium, fresh visits (HTTP cache cleared), median of RUNS with the range. For each dist
// in turn, the link LINK's verdict painted (its element timing, ms from navigation), the first paint of the same
// index.html with its scripts removed (the static page) and of the start page itself (no query), with when each
// had parsed index.html (domInteractive), then the link's ratio to the static page; and what the link waited for
// (the page's own marks and the core's files' resource timings: when each fetch ended).
//   node scripts/perf-link-paint.mjs [DIST...]   (default: dist/; e.g. /work/main/dist dist for before/after)
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { dist, start, visit } from "../tests/browser/support.mjs";

const RUNS = Number(process.env.RUNS ?? 9);
const LINK = process.env.LINK ?? "?v=1&model=llama-2-7b&mode=inference&seq=4096";
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * One visit: the verdict's paint and the link's timeline, or (`floor`: the static page or the start page) the
 * first contentful paint and when index.html was parsed.
 */
async function painted(context, url, floor) {
  const { page } = await visit(context, url, (opened) => (floor ? opened.waitForLoadState("load") : opened.waitForSelector('body[data-ready="true"]')));
  const at = await page.evaluate(async (is_floor) => {
    const entries = await new Promise((done) => {
      new PerformanceObserver((list, observer) => {
        observer.disconnect();
        done(list.getEntries());
      }).observe({ type: is_floor ? "paint" : "element", buffered: true });
      setTimeout(() => done([]), 500);
    });
    if (is_floor) {
      return { paint: entries.find((e) => e.name === "first-contentful-paint")?.startTime, parsed: performance.getEntriesByType("navigation")[0]?.domInteractive };
    }
    const mark = (name) => performance.getEntriesByName(name)[0]?.startTime;
    const fetched = (file) => performance.getEntriesByType("resource").find((e) => e.name.endsWith(file))?.responseEnd;
    return {
      paint: Math.min(...entries.filter((e) => e.identifier === "verdict").map((e) => e.renderTime)),
      "app.js fetched": fetched("/app.js"),
      "first part fetched": fetched("/llm-memory.first.wasm"),
      "rest fetched": fetched("/llm-memory.rest.wasm"),
      "app.js runs": mark("llm-memory:start"),
      "engine made": mark("llm-memory:engine"),
      "verdict drawn": mark("llm-memory:verdict"),
      "first result": mark("llm-memory:first-result"),
    };
  }, floor);
  await page.close();
  return at;
}

const dists = process.argv.slice(2).length ? process.argv.slice(2) : [dist];
const load_before = loadavg()[0];
const results = [];
for (const dir of dists) {
  // The static page: index.html without its scripts, served beside the real page from a copy of the dist.
  const served = await mkdtemp(join(tmpdir(), "llm-memory-paint-"));
  await cp(dir, served, { recursive: true });
  await writeFile(join(served, "static.html"), (await readFile(join(dir, "index.html"), "utf8")).replace(/<script\b[^>]*><\/script>\n?/g, ""));
  results.push({ dir, served, session: await start({ dir: served }), link: [], floor: [], start: [] });
}
try {
  // Interleaved: each run visits every dist's link and static page in turn, so load changes hit them alike.
  for (let i = 0; i < RUNS; i++) {
    for (const r of results) {
      r.link.push(await painted(r.session.context, r.session.url + LINK, false));
      r.floor.push(await painted(r.session.context, `${r.session.url}static.html`, true));
      r.start.push(await painted(r.session.context, r.session.url, true));
    }
  }
} finally {
  for (const r of results) {
    await r.session.close();
    await rm(r.served, { recursive: true, force: true });
  }
}
const ms = (values) => `${median(values).toFixed(1)} ms (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
console.log(`${cpus().length} cores, load average ${load_before.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after; median of ${RUNS} (range); link ${LINK}`);
for (const r of results) {
  const paint = r.link.map((at) => at.paint);
  const floor = r.floor.map((at) => at.paint);
  console.log(`${r.dir}: verdict painted ${ms(paint)}; static page's first paint ${ms(floor)}; ratio ${(median(paint) / median(floor)).toFixed(2)}×`);
  console.log(`  static page: index.html parsed ${ms(r.floor.map((at) => at.parsed))}`);
  console.log(`  start page: first paint ${ms(r.start.map((at) => at.paint))}; index.html parsed ${ms(r.start.map((at) => at.parsed))}`);
  for (const key of Object.keys(r.link[0]).filter((k) => k !== "paint")) {
    const values = r.link.map((at) => at[key]).filter((v) => typeof v === "number");
    console.log(`  ${key}: ${values.length ? ms(values) : "—"}`);
  }
}
