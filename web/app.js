// SPDX-License-Identifier: MIT
// The page's controller: it holds the one state object, asks the engine for answers and hands them to the
// UI parts, each of which owns one part of the page (docs/web.md). Data flows one way:
//   URL -> state -> engine (estimate, solve, advise) -> renderers;   UI events -> edit() -> state -> URL
import { createEngine } from "./engine.js";
import { PAGE_DEFAULTS, PageState, readQuery, syncUrl } from "./state.js";
import { ConfigDrop } from "./ui/config-drop.js";
import { EmbedDialog } from "./ui/embed-dialog.js";
import { GpuPicker } from "./ui/gpu-picker.js";
import { Heatmap, sweepHeatmap } from "./ui/heatmap.js";
import { renderKnobs } from "./ui/knobs.js";
import { ModelPicker } from "./ui/model-picker.js";
import { Notice } from "./ui/notice.js";
import { renderResultsTable, renderSummary } from "./ui/results-table.js";
import { SettingsForm } from "./ui/settings-form.js";
import { renderSolver } from "./ui/solver.js";
import { renderStackedBar } from "./ui/stacked-bar.js";
import { UnitsToggle } from "./ui/units-toggle.js";

const $ = (id) => document.getElementById(id);

/** Pause in input after which the solver and the knob table are recomputed (ms). */
const ANSWERS_DELAY_MS = 40;

class App {
  constructor(engine) {
    this.engine = engine;
    this.model_keys = engine.schema.filter((row) => row.group === "model" && row.key !== "model").map((row) => row.key);
    this.notice = new Notice($("notice"));

    const { overrides, problems } = readQuery(location.search, engine.known_keys);
    const clean = engine.sanitise(PAGE_DEFAULTS, overrides);
    this.notice.show("Some settings in this link were ignored:", [...problems, ...clean.problems]);
    this.state = new PageState(clean.overrides);
    this.last = null;
    this.units = new UnitsToggle($("units-toggle"), engine.schema.find((row) => row.key === "units")?.choices);
    this.units.addEventListener("units", (e) => this.edit({ units: e.detail.units }));
    this.heatmap = new Heatmap($("heatmap"));
    this.state.addEventListener("change", () => this.render());
    this.render();
    delete document.documentElement.dataset.prerendered;
    performance.mark("llm-memory:first-result");
    /** Resolves once the pickers and the settings form are built, after the results have been painted. */
    this.ready = afterPaint().then(() => this.buildControls());
  }

  /**
   * The pickers and the settings form (a hundred fields) take longer to build than the results, so they
   * follow in a task of their own once the results are on screen (docs/performance.md).
   */
  buildControls() {
    const engine = this.engine;
    this.models = new ModelPicker($("model-picker"), () => engine.models);
    this.models.addEventListener("model", (e) => this.pickModel(e.detail.id));
    this.models.addEventListener("custom", () => this.customArchitecture());
    this.gpus = new GpuPicker($("gpu-picker"), engine.gpus);
    this.gpus.addEventListener("gpu", (e) => this.edit(e.detail.id ? { gpu: e.detail.id, gpu_memory: null } : { gpu: "" }));
    this.config = new ConfigDrop($("config-drop"), (text) => engine.parseConfig(text));
    this.config.addEventListener("config", (e) => this.applyConfig(e.detail.settings));
    this.form = new SettingsForm($("settings-form"), engine.schema, { exclude: new Set(["model", "gpu", "units"]) });
    // Typing a memory size leaves the GPU preset: an explicit gpu_memory would silently override it.
    this.form.addEventListener("setting", (e) =>
      this.edit(e.detail.key === "gpu_memory" ? { gpu: "", gpu_memory: e.detail.value } : { [e.detail.key]: e.detail.value }));
    this.form.addEventListener("reset", (e) => this.edit({ [e.detail.key]: null }));
    $("copy-link").addEventListener("click", () => this.copyLink());
    this.embed = new EmbedDialog($("embed"), () => ({ overrides: this.state.overrides, keys: engine.keys }));
    if (this.last) this.updateControls(this.last);
    // The deferred answers may have run before the picker existed: load its presets as they would have.
    if ($("results").dataset.answers === "ready") this.models.load();
  }

  /**
   * Applies `changes` (key -> text, or null to drop the override). Input that does not estimate stays in the
   * form with its errors beside the fields, and the state (and the URL) keep the last valid settings.
   */
  edit(changes, { clear = [] } = {}) {
    const next = this.state.overrides;
    for (const key of clear) delete next[key];
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete next[key];
      else next[key] = value;
    }
    const result = this.engine.estimate({ ...PAGE_DEFAULTS, ...next });
    if (!result.ok) {
      this.showErrors(result.errors, next, result);
      return;
    }
    for (const key of Object.keys(changes)) {
      if (Object.hasOwn(next, key) && !this.engine.overrideMatters(PAGE_DEFAULTS, next, key)) delete next[key];
    }
    this.state.replace(next);
  }

  pickModel(id) {
    this.edit({ model: id }, { clear: this.model_keys });
  }

  /** Leaves the preset but keeps its architecture, now as editable overrides. */
  customArchitecture() {
    const resolved = this.last?.settings ?? {};
    const changes = { model: "" };
    for (const key of this.model_keys) if (resolved[key] !== undefined) changes[key] = resolved[key];
    this.edit(changes, { clear: this.model_keys });
    this.form.focus("hidden_size");
  }

  applyConfig(settings) {
    this.edit({ model: "", ...settings }, { clear: this.model_keys });
  }

  showErrors(errors, overrides, { failed = false } = {}) {
    this.form?.update({ overrides, resolved: this.last?.settings, errors });
    const status = $("input-status");
    const text = errors.map((e) => `${e.setting}: ${e.message}`).join("; ");
    status.hidden = false;
    if (failed) {
      // The core could not answer: no numbers at all rather than those of earlier settings.
      clearTimeout(this.answers_timer);
      status.textContent = `${text}.`;
      for (const id of ["summary", "stacked-bar", "results-table", "solver", "knobs"]) $(id).replaceChildren();
      $("heatmap").hidden = true;
      this.last = null;
      return;
    }
    status.textContent = `${text}. The results below are for the last valid settings.`;
    $("results").classList.add("stale");
  }

  render() {
    const inputs = this.state.inputs;
    const estimate = this.engine.estimate(inputs);
    if (!estimate.ok) {
      this.showErrors(estimate.errors, this.state.overrides, estimate);
      return;
    }
    this.last = estimate;
    const units = estimate.settings.units;
    $("input-status").hidden = true;
    $("heatmap").hidden = false;
    $("results").classList.remove("stale");
    renderSummary($("summary"), estimate);
    renderStackedBar($("stacked-bar"), estimate, { units });
    renderResultsTable($("results-table"), estimate, { units });
    this.scheduleAnswers(inputs, estimate);
    this.units.update(units);
    if (this.form) this.updateControls(estimate);
  }

  updateControls(estimate) {
    this.form.update({ overrides: this.state.overrides, resolved: estimate.settings });
    this.models.update(estimate.settings.model, estimate.params);
    this.gpus.update(estimate.settings.gpu, estimate.gpu_memory, estimate.settings.units);
  }

  /**
   * The solver and the knob table re-estimate the settings dozens of times (a few milliseconds), and
   * history.replaceState costs milliseconds in Chromium, so they follow in a task of their own once input
   * pauses; the table and the bar above never wait for them. #results[data-answers] is "pending" until the
   * answers and the URL show the current settings.
   */
  scheduleAnswers(inputs, estimate) {
    clearTimeout(this.answers_timer);
    $("results").dataset.answers = "pending";
    this.answers_timer = setTimeout(() => {
      syncUrl(this.state, this.engine.keys);
      this.models?.load();
      const units = estimate.settings.units;
      const apply = (delta) => this.edit(delta);
      renderSolver($("solver"), this.engine.solve(inputs), { units, current: estimate.settings, onApply: apply });
      const labels = Object.fromEntries(estimate.buckets.map((b) => [b.key, b.label]));
      renderKnobs($("knobs"), this.engine.advise(inputs), { units, bucketLabels: labels, onApply: apply });
      // The heatmap (two sweeps and a canvas, about a millisecond) would push the input handler past its
      // 4 ms budget, so it follows with the solver, whose max micro-batch it draws (docs/web.md).
      this.heatmap.update(sweepHeatmap((i, axes) => this.engine.sweep(i, axes), inputs, estimate.settings), { estimate, units });
      $("results").dataset.answers = "ready";
    }, ANSWERS_DELAY_MS);
  }

  async copyLink() {
    const status = $("copy-status");
    syncUrl(this.state, this.engine.keys);
    try {
      await navigator.clipboard.writeText(location.href);
      status.textContent = "Link copied.";
    } catch {
      // No clipboard (file:// pages, denied permission): show the link selected, ready to copy by hand.
      const field = document.createElement("input");
      field.type = "text";
      field.readOnly = true;
      field.value = location.href;
      field.setAttribute("aria-label", "Link to these settings");
      status.replaceChildren(field);
      field.select();
    }
  }
}

/** Resolves after the next frame has been painted (or after 100 ms where frames are not drawn, e.g. a hidden tab). */
function afterPaint() {
  return new Promise((done) => {
    requestAnimationFrame(() => setTimeout(done, 0));
    setTimeout(done, 100);
  });
}

async function main() {
  performance.mark("llm-memory:start");
  try {
    // The prerendered default result (index.html) is painted before the core starts: instantiating it and
    // drawing the live result is one long task that would otherwise hold the first paint back.
    if ("default" in document.documentElement.dataset) await afterPaint();
    const engine = await createEngine();
    performance.mark("llm-memory:engine");
    window.llmMemoryApp = new App(engine);
    await window.llmMemoryApp.ready;
    document.body.dataset.ready = "true";
  } catch (error) {
    const message = document.createElement("p");
    message.className = "field-error";
    message.textContent = `The calculator could not start: ${error?.message ?? error}`;
    document.getElementById("app").prepend(message);
    document.body.dataset.ready = "error";
  } finally {
    document.getElementById("app").removeAttribute("aria-busy");
  }
}

main();
