// SPDX-License-Identifier: MIT
// The wiring the page (app.js) and <llm-memory> (widget.js) share (docs/web.md, "How the page is
// organised"): the one engine, the page defaults under the user's settings, the results drawn into the views
// each host gives, and the controls' events turned into changes. Each host keeps what is its own, and applies
// a change its own way: the page through its state and URL, the widget through its attributes.
//   host's settings -> check (estimate, sanitise) -> renderResults (summary, bar, table)
//                                                 -> renderAnswers (knob table, heatmap)
//   controls' events, Apply buttons -> edit(changes) -> the host
// The heatmap's code (web/ui/heatmap.js) comes from the host (loadHeatmap): the page imports it when its tab is
// first opened (a chunk of its own: docs/web.md, "The heatmap"), the widget bundles it. So does the knob table's
// (web/ui/knobs.js, renderKnobs): the page's comes with the solver's panel, a chunk fetched with the core's rest's
// answers (web/ui/solver.js), since the knob search is in the rest; the widget bundles it.
import { createEngine } from "./engine.js";
import { PAGE_DEFAULTS } from "./state.js";
import { GpuPicker } from "./ui/gpu-picker.js";
import { ModelPicker } from "./ui/model-picker.js";
import { renderResultsTable, renderSummary } from "./ui/results-table.js";
import { SettingsForm } from "./ui/settings-form.js";
import { renderStackedBar } from "./ui/stacked-bar.js";

let engine_promise = null;

/**
 * The one engine of the page, shared by the page, every widget and embed.js: the wasm is compiled once. The first
 * caller's `options` (createEngine's) make it: the widget's engine reads presets as its elements name them.
 */
export function sharedEngine(options) {
  return (engine_promise ??= createEngine(options));
}

/**
 * Calls `load()` (resolving to whether it got what it wanted) on the first pointer or focus inside `element`,
 * (or at once, the pointer being over it already), and again on the next one should it not have: the forms' help
 * texts, which the page's first load goes without.
 */
export function onFirstVisit(element, load, { now = true } = {}) {
  const events = ["pointerover", "focusin", "touchstart"];
  const go = () => {
    for (const type of events) element.removeEventListener(type, go);
    load().then((done) => done || onFirstVisit(element, load, { now: false }));
  };
  for (const type of events) element.addEventListener(type, go, { passive: true });
  // The pointer already over it: the start page's form, drawn again at its wake under the pointer (web/wake.js).
  if (now && element.matches(":hover")) go();
}

/** Whether `docs` ({key: doc}, Engine.settingDocs) holds the help texts: false when they could not be read. */
export const hasDocs = (docs) => Object.values(docs).some((doc) => doc !== "");

export class Controller {
  #heatmap = null;
  #model_keys = null;

  /**
   * `views`: the containers the results are drawn into, each optional: summary, bar, table (renderResults),
   * advice (the knob table), heatmap (renderAnswers). The solver is the page's own (app.js).
   * `edit(changes, {clear, applied})`: applies `changes` (key -> text; null drops the setting) after dropping the
   * settings in `clear`, the host's way; the controls and the Apply buttons call it (a knob's Apply button
   * with `applied`, the knob's name, which the page says in its note of what changed).
   * `loadHeatmap()`: resolves to web/ui/heatmap.js's exports (needed with a heatmap view). `renderKnobs`:
   * web/ui/knobs.js's (needed with an advice view before renderAnswers draws it; the host may set it later).
   */
  constructor(engine, views, edit, { loadHeatmap, renderKnobs = null } = {}) {
    this.engine = engine;
    this.views = views;
    this.edit = edit;
    this.loadHeatmap = loadHeatmap;
    this.renderKnobs = renderKnobs;
    /** The controls built by modelPicker, gpuPicker and settingsForm (updateControls shows the values in them). */
    this.controls = {};
  }

  /** The architecture settings a model preset sets: another model or a config.json replaces them all. */
  get model_keys() {
    return (this.#model_keys ??= this.engine.schema.filter((row) => row.group === "model" && row.key !== "model").map((row) => row.key));
  }

  /** The settings to estimate: the page defaults, then the user's `overrides`. */
  inputs(overrides) {
    return { ...PAGE_DEFAULTS, ...overrides };
  }

  /**
   * `overrides` less those that do not resolve (Engine.sanitise), and the estimate of the rest:
   * {overrides, problems, estimate}. The settings as given are estimated first: when they are valid (the
   * usual link or widget) that estimate answers the check too, so it costs one estimate, as drawing them does.
   */
  check(overrides) {
    this.estimate(overrides);
    const clean = this.engine.sanitise(PAGE_DEFAULTS, overrides);
    return { ...clean, estimate: this.estimate(clean.overrides) };
  }

  /** The estimate for `overrides` over the page defaults, or {ok: false, errors}. */
  estimate(overrides) {
    return this.engine.estimate(this.inputs(overrides));
  }

  /** Whether `key`'s override changes anything (Engine.overrideMatters). */
  overrideMatters(overrides, key) {
    return this.engine.overrideMatters(PAGE_DEFAULTS, overrides, key);
  }

  /**
   * The heatmap, made on first use (its figure replaces the heatmap view's children): resolves to {view, sweep},
   * the Heatmap and `sweep(inputs, settings)`, its grid for the given settings (sweepHeatmap).
   */
  heatmap() {
    return (this.#heatmap ??= this.loadHeatmap().then(({ Heatmap, sweepHeatmap }) => ({
      // A cell clicked (or chosen with the keyboard) sets the micro-batch and the sequence length.
      view: new Heatmap(this.views.heatmap, { onPick: (cell) => this.edit(cell) }),
      sweep: (inputs, settings) => sweepHeatmap((i, axes) => this.engine.sweep(i, axes), inputs, settings),
    })));
  }

  /**
   * Sweeps and draws the heatmap for `inputs` and their `estimate` once its code is loaded. Calls resolve in
   * the order made, so the last settings asked for are the ones drawn.
   */
  async renderHeatmap(inputs, estimate) {
    // The sweep is in the rest of the page's core (Engine.ready; at once once it is in).
    const [{ view, sweep }] = await Promise.all([this.heatmap(), this.engine.ready()]);
    view.update(sweep(inputs, estimate.settings), { estimate, units: estimate.settings.units });
  }

  /**
   * Draws the summary, and the bar and the table when `show` (a Set of view names; null: every view given)
   * holds them; a view given but not shown is emptied. Returns the results table (or null).
   */
  renderResults(estimate, show = null) {
    const units = estimate.settings.units;
    const { summary, bar, table } = this.views;
    if (summary) renderSummary(summary, estimate);
    if (this.#shows("bar", show)) renderStackedBar(bar, estimate, { units });
    else bar?.replaceChildren();
    if (this.#shows("table", show)) return renderResultsTable(table, estimate, { units });
    table?.replaceChildren();
    return null;
  }

  /**
   * The answers that take several estimates: the knob table (with Apply buttons that edit, unless `apply` is
   * false) and the heatmap, for `show` as in renderResults. Returns the advice drawn (or null); the heatmap is
   * drawn once its code has loaded (renderHeatmap).
   */
  renderAnswers(inputs, estimate, { show = null, apply = true } = {}) {
    const units = estimate.settings.units;
    let advice = null;
    if (this.#shows("advice", show)) {
      advice = this.engine.advise(inputs);
      const labels = Object.fromEntries(estimate.buckets.map((b) => [b.key, b.label]));
      this.renderKnobs(this.views.advice, advice, { units, bucketLabels: labels, onApply: apply ? (delta, name) => this.edit(delta, { applied: name }) : undefined });
    } else {
      this.views.advice?.replaceChildren();
    }
    if (this.#shows("heatmap", show)) this.renderHeatmap(inputs, estimate);
    return advice;
  }

  #shows(name, show) {
    return Boolean(this.views[name]) && (show === null || show.has(name));
  }

  /** The model picker in `container`; `models` the presets or a function giving them (ModelPicker). */
  modelPicker(container, models) {
    const picker = new ModelPicker(container, models, { lookup: (text) => this.lookupModel(text) });
    picker.addEventListener("model", (e) => this.edit({ model: e.detail.id }, { clear: this.model_keys }));
    return (this.controls.models = picker);
  }

  /**
   * The preset `text` names as the core's model setting reads it (an id, an alias or a Hub repo id, any case:
   * lookup_model, as the CLI's --model): {id}, or {message}, the core's error with the nearest ids.
   */
  lookupModel(text) {
    const resolved = this.engine.resolve({ model: text });
    if (resolved.ok) return { id: resolved.settings.model };
    return { message: (resolved.errors.find((e) => e.setting === "model") ?? resolved.errors[0]).message };
  }

  /** The GPU picker in `container`: a preset drops an explicit gpu_memory, which would override its memory. */
  gpuPicker(container) {
    const picker = new GpuPicker(container, this.engine.gpus);
    picker.addEventListener("gpu", (e) => this.edit(e.detail.id ? { gpu: e.detail.id, gpu_memory: null } : { gpu: "" }));
    return (this.controls.gpus = picker);
  }

  /** The settings form in `container`, without the keys in `exclude`; `options` as SettingsForm's (advanced). */
  settingsForm(container, exclude, options = {}) {
    const form = new SettingsForm(container, this.engine.schema, { exclude, ...options });
    // Typing a memory size leaves the GPU preset: an explicit gpu_memory would silently override it.
    form.addEventListener("setting", (e) =>
      this.edit(e.detail.key === "gpu_memory" ? { gpu: "", gpu_memory: e.detail.value } : { [e.detail.key]: e.detail.value }));
    form.addEventListener("reset", (e) => this.edit({ [e.detail.key]: null }));
    onFirstVisit(container, () => this.engine.settingDocs().then((docs) => {
      form.showDocs(docs);
      return hasDocs(docs);
    }));
    return (this.controls.form = form);
  }

  /** Shows `estimate`'s settings in the controls built, the user's `overrides` marked, `errors` beside their fields. */
  updateControls(overrides, estimate, errors = []) {
    const { form, models, gpus } = this.controls;
    form?.update({ overrides, resolved: estimate.settings, errors, runtime: estimate.runtime?.name });
    models?.update(estimate.settings.model, estimate.params);
    gpus?.update(estimate.settings.gpu, estimate.gpu_memory);
  }
}
