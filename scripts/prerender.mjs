// SPDX-License-Identifier: MIT
// Prerenders the default page at build time: the estimate of the start settings (web/state.js START_OVERRIDES
// over PAGE_DEFAULTS), its nearest ways out and the controls that show them (the task picker, the units, the
// model and GPU pickers, the devices and parallel split, the settings form, the config drop's group, the Embed
// button), from the built core (dist/llm-memory.js, the whole module, run in node) drawn by the page's own
// render functions and classes into a DOM from linkedom, and written into index.html, so a visit without
// settings in its link sees the whole page at first paint, and the core is not started until the visitor acts
// or the page is idle (web/app.js, "the wake"). app.js draws the same DOM again once the core is running (a
// browser test compares the two); a link with settings keeps the prerendered page hidden until then
// (web/boot.js, styles.css). docs/web.md, "Start-up".
import { pathToFileURL } from "node:url";
import { parseHTML } from "linkedom";
import { OWN_CONTROLS, PAGE_DEFAULTS, START_OVERRIDES } from "../web/state.js";
// The controls' containers in web/index.html, in drawControls' order: the ones the wake replaces.
import { CONTROLS } from "../web/wake.js";
import { h } from "../web/ui/dom.js";
import { lazyConfigDrop } from "../web/ui/drop-target.js";
import { GpuPicker } from "../web/ui/gpu-picker.js";
import { ModelPicker } from "../web/ui/model-picker.js";
import { ParallelPicker } from "../web/ui/parallel-picker.js";
import { SettingsForm } from "../web/ui/settings-form.js";
import { TaskPicker } from "../web/ui/task-picker.js";
import { UnitsToggle } from "../web/ui/units-toggle.js";

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
 * The controls app.js builds (App's constructor and buildControls), in its order, showing `estimate`: the
 * containers by id. The schema's help texts are left out, as the page's core starts without them (they are
 * written in on a visitor's first pointer or focus on a form: Engine.settingDocs); so is the Hub box's status
 * line, an empty element app.js adds beside the model picker.
 */
function drawControls($, estimate, schema, gpus) {
  const settings = estimate.settings;
  new TaskPicker($("task-picker"), schema).update(settings);
  new UnitsToggle($("units-toggle"), schema.find((row) => row.key === "units")?.choices).update(settings.units);
  new ModelPicker($("model-picker"), () => []).update(settings.model, estimate.params);
  new GpuPicker($("gpu-picker"), gpus).update(settings.gpu, estimate.gpu_memory);
  new ParallelPicker($("device-count"), $("parallel-split"), schema).update(settings, { stated: START_OVERRIDES });
  lazyConfigDrop($("config-drop"), async () => null, new EventTarget());
  new SettingsForm($("settings-form"), schema, { exclude: new Set(OWN_CONTROLS), advanced: true })
    .update({ overrides: START_OVERRIDES, resolved: settings, errors: [], runtime: estimate.runtime?.name });
  $("embed").replaceChildren(h("button", { type: "button", id: "embed-open", class: "secondary", text: "Embed" }));
}


/**
 * linkedom keeps no form state: a select's value and a box's checked state are written as the attributes the
 * browser's parser reads them from (selected, checked), as an input's value already is.
 */
function formState({ HTMLSelectElement, HTMLInputElement }) {
  Object.defineProperty(HTMLSelectElement.prototype, "value", {
    configurable: true,
    get() {
      const options = [...this.querySelectorAll("option")];
      return (options.find((o) => o.hasAttribute("selected")) ?? options[0])?.getAttribute("value") ?? "";
    },
    set(value) {
      for (const option of this.querySelectorAll("option")) option.toggleAttribute("selected", option.getAttribute("value") === String(value));
    },
  });
  Object.defineProperty(HTMLInputElement.prototype, "checked", {
    configurable: true,
    get() {
      return this.hasAttribute("checked");
    },
    set(on) {
      this.toggleAttribute("checked", Boolean(on));
    },
  });
}

/**
 * Puts the body of each collapsed group in `container` (a `<details>` without `open`, the outermost ones: the
 * settings form's Advanced group, its hundred fields) into an inert `<template data-body>` in its place, which the
 * browser parses as a fragment and neither styles, lays out nor paints (the start page's first paint grew with
 * them: docs/performance.md). web/boot.js moves it into its group when the group is first opened before the core
 * runs; at the wake the live controls replace the prerendered ones (web/wake.js).
 */
function packCollapsed(document, container) {
  for (const details of container.querySelectorAll("details:not([open])")) {
    if (details.parentElement.closest("details:not([open])")) continue;
    const body = [...details.childNodes].filter((node) => node.localName !== "summary");
    if (!body.length) continue;
    const template = document.createElement("template");
    template.setAttribute("data-body", "");
    template.append(...body);
    details.append(template);
  }
}

/** The empty `<div id="ID" ...></div>` of `page` (web/index.html); throws when there is none. */
function emptyDiv(page, id) {
  const empty = new RegExp(`<(div|span) id="${id}"[^>]*></\\1>`).exec(page);
  if (!empty) throw new Error(`prerender: web/index.html has no empty <div id="${id}">`);
  return empty[0];
}

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
  const schema = api.settingsSchema().map((row) => ({ ...row, doc: "" }));
  const dom = parseHTML("<!doctype html><html><body></body></html>");
  const { document } = dom;
  formState(dom);
  // The render functions make their elements through the global document, as in the browser.
  globalThis.document = document;
  try {
    let page = template;
    for (const [id, render] of Object.entries(PARTS)) {
      const empty = emptyDiv(page, id);
      document.body.innerHTML = empty;
      const element = document.body.firstElementChild;
      render(element, estimate, gpus, api);
      page = page.replace(empty, () => element.outerHTML);
    }
    // The controls, drawn together (the parallel split fills two containers).
    const empties = CONTROLS.map((id) => emptyDiv(page, id));
    document.body.innerHTML = empties.join("");
    drawControls((id) => document.getElementById(id), estimate, schema, gpus);
    for (const id of CONTROLS) packCollapsed(document, document.getElementById(id));
    CONTROLS.forEach((id, i) => {
      page = page.replace(empties[i], () => document.getElementById(id).outerHTML);
    });
    // "Copy launch command" shows under every estimate (app.js #updateEmit).
    const emit = '<div id="emit-launch" class="emit-launch" hidden>';
    if (!page.includes(emit)) throw new Error(`prerender: web/index.html has no ${emit}`);
    page = page.replace(emit, '<div id="emit-launch" class="emit-launch">');
    // Hidden until web/boot.js has seen a link without settings (styles.css).
    const root = '<html lang="en">';
    if (!page.includes(root)) throw new Error(`prerender: web/index.html has no ${root}`);
    return page.replace(root, '<html lang="en" data-prerendered>');
  } finally {
    delete globalThis.document;
  }
}
