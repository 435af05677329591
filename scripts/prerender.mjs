// SPDX-License-Identifier: MIT
// Prerenders the default page's result at build time: the estimate of the start settings (web/state.js
// START_OVERRIDES over PAGE_DEFAULTS) and its nearest ways out
// from the built core (dist/llm-memory.js, the whole module, run in node) drawn by the page's own render
// functions into a DOM from linkedom, and written into index.html, so a visit without settings in its link sees
// the result at first paint. app.js draws the same DOM again once the core is running (a browser test compares
// the two); a link with settings keeps the prerendered result hidden until then (web/boot.js, styles.css).
// docs/web.md, "Start-up".
import { pathToFileURL } from "node:url";
import { parseHTML } from "linkedom";
import { PAGE_DEFAULTS, START_OVERRIDES } from "../web/state.js";

/** What a visit with an empty query estimates (web/app.js): the start settings over the page defaults. */
const START = { ...PAGE_DEFAULTS, ...START_OVERRIDES };
import { renderResultsTable, renderSummary } from "../web/ui/results-table.js";
import { renderStackedBar } from "../web/ui/stacked-bar.js";
import { renderVerdict, renderWaysOut } from "../web/ui/verdict.js";

/** The elements of web/index.html that hold the result, and what draws each. */
const PARTS = {
  // The task sentence and the verdict, as app.js draws them before the preset lists are read: the model by its
  // id, the GPU by its name (docs/web.md, "Layout").
  "verdict-head": (element, estimate, gpus) => renderVerdict(element, estimate, { gpuName: gpus.find((g) => g.id === estimate.settings.gpu)?.name }),
  summary: (element, estimate) => renderSummary(element, estimate),
  "stacked-bar": (element, estimate) => renderStackedBar(element, estimate, { units: estimate.settings.units }),
  "results-table": (element, estimate) => renderResultsTable(element, estimate, { units: estimate.settings.units }),
  // The nearest ways out, as app.js draws them once the answers are in: the default page keeps these until the
  // visitor acts, so that a visit that only reads never fetches the core's rest (the solver, the knob search).
  "ways-out": (element, estimate, gpus, api) => {
    const ways = api.waysOut(START);
    renderWaysOut(element, { estimate, solve: ways.solve, ways });
  },
};

/**
 * Returns `template` (web/index.html) with the empty result elements filled in for START, computed by
 * the core in `dist`. Throws when an element is missing or the defaults do not estimate.
 */
export async function prerenderResults(template, dist) {
  const { load } = await import(pathToFileURL(`${dist}/llm-memory.js`).href);
  const api = await load();
  const estimate = api.estimate(START);
  const gpus = api.listGpus();
  if (!estimate.ok) throw new Error(`prerender: the page defaults do not estimate: ${JSON.stringify(estimate.errors)}`);
  const { document } = parseHTML("<!doctype html><html><body></body></html>");
  // The render functions make their elements through the global document, as in the browser.
  globalThis.document = document;
  try {
    let page = template;
    for (const [id, render] of Object.entries(PARTS)) {
      const empty = new RegExp(`<div id="${id}"[^>]*></div>`).exec(page);
      if (!empty) throw new Error(`prerender: web/index.html has no empty <div id="${id}">`);
      document.body.innerHTML = empty[0];
      const element = document.body.firstElementChild;
      render(element, estimate, gpus, api);
      page = page.replace(empty[0], () => element.outerHTML);
    }
    // Hidden until web/boot.js has seen a link without settings (styles.css).
    const root = '<html lang="en">';
    if (!page.includes(root)) throw new Error(`prerender: web/index.html has no ${root}`);
    return page.replace(root, '<html lang="en" data-prerendered>');
  } finally {
    delete globalThis.document;
  }
}
