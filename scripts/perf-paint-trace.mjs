// SPDX-License-Identifier: MIT
// What the start page's first paint costs the renderer's main thread, on one or more builds side by side in one
// run (a measurement, not a timed test): headless Chromium, fresh visits (HTTP cache cleared, no idle callback,
// so the start page stays asleep), a DevTools trace of each; per trace event name (the HTML parse, style
// recalculation, layout, paint, module evaluation), its thread time summed up to first-contentful-paint, median
// of RUNS. Thread time (tdur) rather than wall time: on a loaded shared machine it moves less.
//   node scripts/perf-paint-trace.mjs DIST...   (Q=?query for another page than the start page)
import { start } from "../tests/browser/support.mjs";
const RUNS = Number(process.env.RUNS ?? 5);
const NAMES = ["ParseHTML", "UpdateLayoutTree", "Layout", "Paint", "PrePaint", "Layerize", "EvaluateScript", "v8.evaluateModule", "FunctionCall", "ParseAuthorStyleSheet", "HitTest", "UpdateLayer", "Commit"];
const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const sessions = [];
for (const dir of process.argv.slice(2)) sessions.push({ dir, s: await start({ dir }), rows: [] });
for (let i = 0; i < RUNS; i++) for (const x of sessions) {
  const page = await x.s.context.newPage();
  await page.addInitScript(() => (window.requestIdleCallback = () => 0));
  const cdp = await x.s.context.newCDPSession(page);
  await cdp.send("Network.clearBrowserCache");
  const events = [];
  cdp.on("Tracing.dataCollected", (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  await cdp.send("Tracing.start", { categories: "devtools.timeline,blink.user_timing,loading", transferMode: "ReportEvents" });
  await page.goto(x.s.url + (process.env.Q ?? ""));
  await page.waitForLoadState("load");
  await page.waitForTimeout(300);
  await cdp.send("Tracing.end");
  await done;
  const fcp = events.find((e) => e.name === "firstContentfulPaint");
  const nav = events.find((e) => e.name === "navigationStart");
  const main = fcp?.tid;
  const row = { fcp: fcp && nav ? (fcp.ts - nav.ts) / 1000 : NaN };
  for (const n of NAMES) row[n] = events.filter((e) => e.name === n && e.tid === main && e.ph === "X" && (!fcp || e.ts <= fcp.ts)).reduce((s, e) => s + (e.tdur ?? e.dur ?? 0), 0) / 1000;
  x.rows.push(row);
  await page.close();
}
for (const x of sessions) {
  const keys = Object.keys(x.rows[0]);
  console.log(x.dir, keys.map((k) => `${k} ${med(x.rows.map((r) => r[k])).toFixed(1)}`).join(", "));
  await x.s.close();
}
