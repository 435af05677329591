// SPDX-License-Identifier: MIT
// Measures in headless Chromium (a measurement, not a timed test) how long "What runs on my machine" takes to rank
// the whole catalogue, on a fresh page per run, median of RUNS. Each figure is the time from the visitor's action
// (the click on the view's summary, or the change of a select: performance.now() in a capturing listener) to the
// ranking drawn (#fits-view-status turning data-state="ready", heard by a MutationObserver in the same task), and
// beside it the longest task the main thread ran in between ("longtask" entries, which start at 50 ms: "< 50"
// when there was none; a ranking on the main thread is one):
//   0. the opening after the page was idle (body[data-warm]): without a warm-up (main before s13-worker) the view
//      ranks then; with it, the page's idle warm-up ranked the view's first question in its Worker already;
//   1. the first opening, from a link (#fits?gpu=...): the rest and the catalogue are fetched then, so this is
//      the network's and the module's start as much as the ranking;
//   2. the same machine at context 4096: the first ranking in a warm page (the code and the catalogue in, none of
//      its runs kept: the context is in each key), the figure issue 34's "< 100 ms" is about;
//   3. another device at 4096 (the page's re-rank: fits.cpp keeps llama.cpp's and training's runs);
//   4. the first device again at 4096.
// 1-4 for the machines of scripts/bench-fits.mjs that the view's device list offers. With LLM_MEMORY_BEFORE_DIST
// set, that build is measured too, in the same run and browser, page for page in turn with this one (the
// machine's load moves both alike), and the ratio printed.
//   node scripts/perf-fits-web.mjs   (after `npm run build`; LLM_MEMORY_DIST=dir measures another build)
import { cpus, loadavg } from "node:os";
import { dist, start } from "../tests/browser/support.mjs";

const RUNS = Number(process.env.RUNS ?? 5);
const before = process.env.LLM_MEMORY_BEFORE_DIST;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The machine as the view's fragment, and the device the re-rank moves to. */
const MACHINES = [
  { hash: "gpu=rtx-4090", then: "rtx-3090" },
  { hash: "gpu=rtx-3060-12gb&ram=64GB", then: "rtx-4060-ti-16gb" },
  { hash: "gpu=m4-16gb", then: "m4-pro-24gb" },
  { hash: "gpu=rtx-4090&task=qlora", then: "rtx-3090" },
];

/** Records the page's long tasks (window.longTasks: [start, duration] in ms) and each action's time (window.acted). */
function watch() {
  window.longTasks = [];
  new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => [e.startTime, e.duration])))
    .observe({ type: "longtask", buffered: true });
  for (const type of ["click", "change"]) document.addEventListener(type, () => (window.acted = performance.now()), true);
  addEventListener("DOMContentLoaded", () => {
    // The status appears when the view is built: watch for it, then for each ranking it draws.
    new MutationObserver((_, found) => {
      const status = document.querySelector("#fits-view-status");
      if (!status) return;
      found.disconnect();
      new MutationObserver(() => {
        if (status.dataset.state === "ready") window.shown = performance.now();
      }).observe(status, { attributeFilter: ["data-state"] });
    }).observe(document.body, { childList: true, subtree: true });
  });
}

/**
 * Once the view has drawn the ranking of its latest state: {ms: the action to the ranking shown, task: the longest
 * task in between, or 0 where none reached 50 ms} [ms]; `from` (a page time) instead of the action's.
 */
async function shown(page, from = null) {
  await page.waitForSelector('#fits-view-status[data-state="ready"]', { timeout: 120000 });
  await page.waitForTimeout(100);  // the long task's entry is delivered after it
  return page.evaluate((start) => {
    const t0 = start ?? window.acted;
    const tasks = window.longTasks.filter(([at, d]) => at < window.shown && at + d > t0).map(([, d]) => d);
    return { ms: window.shown - t0, task: Math.max(0, ...tasks) };
  }, from);
}

/** Picks `value` in the view's select `selector` and waits for its ranking drawn. */
async function rerank(page, selector, value) {
  await page.evaluate(() => (window.shown = undefined));
  await page.selectOption(selector, value);  // the change handler marks the status pending at once
  return shown(page);
}

/** Opens a fresh page of `session` at `url` with the watch above. */
async function fresh(session, url) {
  const page = await session.context.newPage();
  await page.addInitScript(watch);
  await page.goto(url);
  await page.waitForSelector("body[data-ready]");
  return page;
}

/** The figures of one fresh page of `session` on machine `m`. */
async function measure(session, m) {
  const gpu = new URLSearchParams(m.hash).get("gpu");
  const page = await fresh(session, `${session.url}#fits?${m.hash}`);
  try {
    const first = await shown(page, 0);  // from the navigation's start
    const warm = await rerank(page, "#fits-seq", "4096");
    const other = await rerank(page, "#fits-gpu", m.then);
    const again = await rerank(page, "#fits-gpu", gpu);
    return { first, warm, other, again };
  } finally {
    await page.close();
  }
}

/** The opening of the view on a fresh page of `session` once the page is idle (its warm-up done). */
async function openIdle(session) {
  const page = await fresh(session, session.url);
  try {
    await page.waitForSelector('body[data-warm="true"]', { timeout: 120000 });
    await page.click("#fits-view > summary");
    return { idle: await shown(page) };
  } finally {
    await page.close();
  }
}
const builds = [{ name: "this build", dir: dist }, ...(before ? [{ name: "before", dir: before }] : [])];
const sessions = [];

/** Median of RUNS of `run(session)` per build, page for page in turn: [{figure: {ms, task}}] per build. */
async function medians(run) {
  const figures = builds.map(() => ({}));
  for (let i = 0; i < RUNS; ++i)
    for (let b = 0; b < builds.length; ++b)
      for (const [k, v] of Object.entries(await run(sessions[b]))) (figures[b][k] ??= []).push(v);
  return figures.map((f) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, { ms: median(v.map((x) => x.ms)), task: median(v.map((x) => x.task)) }])));
}

/** "before -> after ms (ratio), longest task before -> after" of figure `k`. */
function show(med, k) {
  const task = (t) => (t > 0 ? t.toFixed(0) : "< 50");
  if (med.length === 1) return `${med[0][k].ms.toFixed(1)} ms (longest task ${task(med[0][k].task)} ms)`;
  return `${med[1][k].ms.toFixed(1)} -> ${med[0][k].ms.toFixed(1)} ms (${(med[1][k].ms / med[0][k].ms).toFixed(1)}x; ` +
    `longest task ${task(med[1][k].task)} -> ${task(med[0][k].task)} ms)`;
}

try {
  for (const b of builds) sessions.push(await start({ dir: b.dir }));
  console.log(`headless Chromium, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(1)}, median of ${RUNS} fresh ` +
    `pages${before ? `, before (${before}) -> this build (${dist}) in turn` : ""}:`);
  console.log(`  the view opened once the page is idle: ${show(await medians(openIdle), "idle")}`);
  for (const m of MACHINES) {
    const med = await medians((session) => measure(session, m));
    const gpu = new URLSearchParams(m.hash).get("gpu");
    console.log(`  #fits?${m.hash}: first opening (from navigation) ${show(med, "first")}; at context 4096 (nothing kept) ` +
      `${show(med, "warm")}; then ${m.then} ${show(med, "other")}; ${gpu} again ${show(med, "again")}`);
  }
  console.log(`  load after: ${loadavg()[0].toFixed(1)}`);
} finally {
  for (const s of sessions) await s.close();
}
