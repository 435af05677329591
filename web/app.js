// SPDX-License-Identifier: MIT
// The page: it holds the one state object and the page's own parts (the URL, the notice, the units toggle,
// the config drop, the solver, the copy-link button, the embed dialog); the wiring it shares with
// <llm-memory> (engine, results, answers, pickers and form) is the controller's (controller.js, docs/web.md).
// Data flows one way:
//   URL -> state -> controller (estimate, solve, advise) -> renderers;   UI events -> edit() -> state -> URL
import { Controller, sharedEngine } from "./controller.js";
import { PageState, readQuery, syncUrl } from "./state.js";
import { ConfigDrop } from "./ui/config-drop.js";
import { EmbedDialog } from "./ui/embed-dialog.js";
import { renderGpuFit } from "./ui/gpu-fit.js";
import { Notice } from "./ui/notice.js";
import { renderSolver } from "./ui/solver.js";
import { UnitsToggle } from "./ui/units-toggle.js";

const $ = (id) => document.getElementById(id);

/** Pause in input after which the solver and the knob table are recomputed (ms). */
const ANSWERS_DELAY_MS = 40;

class App {
  constructor(engine) {
    this.engine = engine;
    this.view = new Controller(engine, {
      summary: $("summary"), bar: $("stacked-bar"), table: $("results-table"),
      advice: $("knobs"), heatmap: $("heatmap"),
    }, (changes, options) => this.edit(changes, options));
    this.notice = new Notice($("notice"));

    const { overrides, problems } = readQuery(location.search, engine.known_keys);
    const clean = this.view.check(overrides);
    this.notice.show("Some settings in this link were ignored:", [...problems, ...clean.problems]);
    this.state = new PageState(clean.overrides);
    this.last = null;
    this.units = new UnitsToggle($("units-toggle"), engine.schema.find((row) => row.key === "units")?.choices);
    this.units.addEventListener("units", (e) => this.edit({ units: e.detail.units }));
    this.heatmap = this.view.heatmap;
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
    this.models = this.view.modelPicker($("model-picker"), () => engine.models);
    this.models.addEventListener("custom", () => this.customArchitecture());
    this.gpus = this.view.gpuPicker($("gpu-picker"));
    this.config = new ConfigDrop($("config-drop"), (text) => engine.parseConfig(text));
    this.config.addEventListener("config", (e) => this.applyConfig(e.detail.settings));
    this.form = this.view.settingsForm($("settings-form"), new Set(["model", "gpu", "units"]));
    $("copy-link").addEventListener("click", () => this.copyLink());
    this.embed = new EmbedDialog($("embed"), () => ({ overrides: this.state.overrides, keys: engine.keys }));
    if (this.last) this.view.updateControls(this.state.overrides, this.last);
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
    const result = this.view.estimate(next);
    if (!result.ok) {
      this.showErrors(result.errors, next, result);
      return;
    }
    for (const key of Object.keys(changes)) {
      if (Object.hasOwn(next, key) && !this.view.overrideMatters(next, key)) delete next[key];
    }
    this.state.replace(next);
  }

  /** Leaves the preset but keeps its architecture, now as editable overrides. */
  customArchitecture() {
    const resolved = this.last?.settings ?? {};
    const changes = { model: "" };
    for (const key of this.view.model_keys) if (resolved[key] !== undefined) changes[key] = resolved[key];
    this.edit(changes, { clear: this.view.model_keys });
    this.form.focus("hidden_size");
  }

  applyConfig(settings) {
    this.edit({ model: "", ...settings }, { clear: this.view.model_keys });
  }

  showErrors(errors, overrides, { failed = false } = {}) {
    this.form?.update({ overrides, resolved: this.last?.settings, errors, runtime: this.last?.runtime?.name });
    const status = $("input-status");
    const text = errors.map((e) => `${e.setting}: ${e.message}`).join("; ");
    status.hidden = false;
    if (failed) {
      // The core could not answer: no numbers at all rather than those of earlier settings.
      clearTimeout(this.answers_timer);
      status.textContent = `${text}.`;
      clearTimeout(this.gpu_fit_timer);
      for (const id of ["summary", "stacked-bar", "results-table", "solver", "gpu-fit", "knobs"]) $(id).replaceChildren();
      $("heatmap").hidden = true;
      this.last = null;
      return;
    }
    status.textContent = `${text}. The results below are for the last valid settings.`;
    $("results").classList.add("stale");
  }

  render() {
    const inputs = this.state.inputs;
    const estimate = this.view.estimate(this.state.overrides);
    if (!estimate.ok) {
      this.showErrors(estimate.errors, this.state.overrides, estimate);
      return;
    }
    this.last = estimate;
    const units = estimate.settings.units;
    $("input-status").hidden = true;
    $("heatmap").hidden = false;
    $("results").classList.remove("stale");
    this.view.renderResults(estimate);
    this.scheduleAnswers(inputs, estimate);
    this.units.update(units);
    if (this.form) this.view.updateControls(this.state.overrides, estimate);
  }

  /**
   * The solver and the knob table re-estimate the settings dozens of times (a few milliseconds), and
   * history.replaceState costs milliseconds in Chromium, so they follow in a task of their own once input
   * pauses; the table and the bar above never wait for them. #results[data-answers] is "pending" until the
   * answers and the URL show the current settings.
   */
  scheduleAnswers(inputs, estimate) {
    clearTimeout(this.answers_timer);
    clearTimeout(this.gpu_fit_timer);
    $("results").dataset.answers = "pending";
    $("gpu-fit").dataset.state = "pending";
    this.answers_timer = setTimeout(() => {
      syncUrl(this.state, this.engine.keys);
      this.models?.load();
      const units = estimate.settings.units;
      renderSolver($("solver"), this.engine.solve(inputs), { units, current: estimate.settings, onApply: (delta) => this.edit(delta) });
      // The heatmap (two sweeps and a canvas, about a millisecond) would push the input handler past its
      // 4 ms budget, so it follows with the solver, whose max micro-batch it draws (docs/web.md).
      this.view.renderAnswers(inputs, estimate);
      $("results").dataset.answers = "ready";
      // Which GPUs fit: the solver on every GPU preset, in a task of its own after the answers (docs/performance.md).
      this.gpu_fit_timer = setTimeout(() => {
        renderGpuFit($("gpu-fit"), this.engine.gpuFit(inputs), { units, current: estimate.settings, onApply: (delta) => this.edit(delta) });
        $("gpu-fit").dataset.state = "ready";
      }, 0);
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
    const engine = await sharedEngine();
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
