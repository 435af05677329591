// SPDX-License-Identifier: MIT
// Measures in headless Chromium (a measurement, not a timed test) issue 36 item 9's figures, each on a fresh
// visit to the default page (HTTP cache cleared), median of RUNS:
//   1. the first click on What fits, on Knobs and on the model box: from the pointer press to the answer in the
//      document and shown (the GPU table's rows in its open panel, the knob table's rows in theirs, the box's list
//      of presets), and to the end of the frame that draws it (the next animation frame, then a task), for a visitor who
//      clicks before the page is idle ("cold": requestIdleCallback never calls back, so the page's warm-up,
//      Engine.warmWhenIdle, never starts and the click fetches and compiles the core's rest or the catalogue)
//      and for one who clicks once the warm-up is done ("warm": body[data-warm]).
// With several dists, each visit goes to every one in turn (interleaved, as perf-link-paint.mjs), so the load's
// changes hit them alike. A shared link's verdict paint beside a static page's first paint (item 9's other
// figure): perf-link-paint.mjs.
//   node scripts/perf-first-click.mjs [DIST...]   (default: dist/, after `npm run build`; RUNS=9)
import { cpus, loadavg } from "node:os";
import { dist, start, visit } from "../tests/browser/support.mjs";

const RUNS = Number(process.env.RUNS ?? 9);
/** Which visits: MODES=cold,warm (the default) or either alone; ONLY="What fits" (say) for one click. */
const MODES = (process.env.MODES ?? "cold,warm").split(",").map((mode) => mode === "warm");
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** What each click waits for: the element to press, and the answer it shows. */
const TARGETS = {
  "What fits": { press: "#tab-fits", answer: '#panel-fits:not([hidden]) #gpu-fit[data-state="ready"] tr[data-gpu]' },
  Knobs: { press: "#tab-knobs", answer: '#results[data-answers="ready"] #panel-knobs:not([hidden]) #knobs tbody tr' },
  "model box": { press: "#model-search", answer: "#model-presets option" },
};

/** ms from the press of `press` to `answer` in the document, on a fresh visit (warm: after the warm-up). */
async function firstClick(context, url, { press, answer }, warm) {
  const { page } = await visit(context, url, async (opened) => {
    // Cold, the start page stays asleep (web/wake.js): the click wakes it.
    await opened.waitForSelector('body[data-ready="true"], html[data-dormant]');
    if (warm) await opened.waitForSelector('body[data-warm="true"]');
  }, { idle: warm });
  await page.evaluate((selector) => {
    window.perfClick = new Promise((done) => {
      let pressed = 0;
      let seen = false;
      const check = () => {
        if (seen || !pressed || !document.querySelector(selector)) return;
        seen = true;
        watch.disconnect();
        const shown = performance.now() - pressed;
        // The frame that shows it: after the next animation frame's rendering (style, layout, paint).
        requestAnimationFrame(() => setTimeout(() => done({ shown, painted: performance.now() - pressed }), 0));
      };
      addEventListener("pointerdown", () => (pressed = performance.now()), { capture: true, once: true });
      // An answer prepared before the press changes nothing the observer hears: checked after each event's handlers.
      for (const type of ["pointerdown", "mousedown", "focusin", "click"]) addEventListener(type, check);
      const watch = new MutationObserver(check);
      watch.observe(document, { subtree: true, childList: true, attributes: true });
    });
  }, answer);
  await page.click(press);
  const times = await page.evaluate(() => window.perfClick);
  await page.close();
  return times;
}

const dists = process.argv.slice(2).length ? process.argv.slice(2) : [dist];
const load_before = loadavg()[0];
const sessions = [];
for (const dir of dists) sessions.push({ dir, session: await start({ dir }), clicks: {} });
try {
  for (const [name, target] of Object.entries(TARGETS).filter(([name]) => !process.env.ONLY || name === process.env.ONLY)) {
    for (const warm of MODES) {
      const what = `${name}, ${warm ? "warm" : "cold"}`;
      for (let i = 0; i < RUNS; i++) {
        for (const s of sessions) (s.clicks[what] ??= []).push(await firstClick(s.session.context, s.session.url, target, warm));
      }
    }
  }
} finally {
  for (const s of sessions) await s.session.close();
}
const ms = (values) => `${median(values).toFixed(1)} ms (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
console.log(`${cpus().length} cores, load average ${load_before.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after; median of ${RUNS} (range)`);
for (const s of sessions) {
  console.log(s.dir);
  for (const [what, runs] of Object.entries(s.clicks)) {
    console.log(`  first click on ${what}: in the document ${ms(runs.map((r) => r.shown))}; ` +
                `its frame drawn ${ms(runs.map((r) => r.painted))}`);
  }
}
