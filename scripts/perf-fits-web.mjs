// SPDX-License-Identifier: MIT
// Measures in headless Chromium (a measurement, not a timed test) how long "What runs on my machine" takes to rank
// the whole catalogue (web/ui/fits-view.js's #fits-view-status[data-ms]: the engine's call into the core's rest,
// performance.now() around it), on a fresh page per run, median of RUNS:
//   1. the first ranking, opened from a link (#fits?gpu=...: the rest and the catalogue are fetched then);
//   2. the same machine at context 4096 (the code warm, none of its runs kept: the context is in each key);
//   3. another device at 4096 (the page's re-rank: fits.cpp keeps llama.cpp's and training's runs);
//   4. the first device again at 4096.
// Each for the machines of scripts/bench-fits.mjs that the view's device list offers.
//   node scripts/perf-fits-web.mjs   (after `npm run build`; LLM_MEMORY_DIST=dir measures another build)
import { cpus, loadavg } from "node:os";
import { open, start } from "../tests/browser/support.mjs";

const RUNS = Number(process.env.RUNS ?? 5);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The machine as the view's fragment, and the device the re-rank moves to. */
const MACHINES = [
  { hash: "gpu=rtx-4090", then: "rtx-3090" },
  { hash: "gpu=rtx-3060-12gb&ram=64GB", then: "rtx-4060-ti-16gb" },
  { hash: "gpu=m4-16gb", then: "m4-pro-24gb" },
  { hash: "gpu=rtx-4090&task=qlora", then: "rtx-3090" },
];

/** The ranking's time once the view has drawn the ranking of its latest state [ms]. */
async function rankedMs(page) {
  await page.waitForSelector('#fits-view-status[data-state="ready"]', { timeout: 120000 });
  return Number(await page.getAttribute("#fits-view-status", "data-ms"));
}

/** Picks `value` in the view's select `selector` and waits for the ranking of it [ms]. */
async function rerank(page, selector, value) {
  await page.selectOption(selector, value);  // the change handler marks the status pending at once
  return rankedMs(page);
}

const session = await start();
try {
  console.log(`headless Chromium, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(1)}, median of ${RUNS} fresh pages:`);
  for (const m of MACHINES) {
    const figures = { first: [], warm: [], other: [], again: [] };
    const gpu = new URLSearchParams(m.hash).get("gpu");
    for (let i = 0; i < RUNS; ++i) {
      const page = await open(session.context, `${session.url}#fits?${m.hash}`);
      figures.first.push(await rankedMs(page));
      figures.warm.push(await rerank(page, "#fits-seq", "4096"));
      figures.other.push(await rerank(page, "#fits-gpu", m.then));
      figures.again.push(await rerank(page, "#fits-gpu", gpu));
      await page.close();
    }
    const f = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v).toFixed(1)]));
    console.log(`  #fits?${m.hash}: first opening ${f.first} ms; at context 4096 (nothing kept) ${f.warm} ms; ` +
      `then ${m.then} ${f.other} ms; ${gpu} again ${f.again} ms`);
  }
} finally {
  await session.close();
}
