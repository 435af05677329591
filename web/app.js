// SPDX-License-Identifier: MIT
// The page: it holds the one state object and the page's own parts (the URL, the notice, the units toggle,
// the config drop's shell, the solver, the copy-link button, the embed dialog); the wiring it shares with
// <llm-memory> (engine, results, answers, pickers and form) is the controller's (controller.js, docs/web.md).
// What only a user action needs is imported when it happens, a chunk of its own on the hosted page
// (docs/web.md, "Start-up"): the embed dialog (the Embed button), the Hub loader (a repo id), the config drop
// zone and the file readers (a dropped, pasted or chosen file), the heatmap and the table of which GPUs fit (their
// tabs opened), "What runs on my machine" (its section opened).
// Data flows one way:
//   URL -> state -> controller (estimate, solve, advise) -> renderers;   UI events -> edit() -> state -> URL
import { Controller, hasDocs, onFirstVisit, sharedEngine } from "./controller.js";
import { idle } from "./engine.js";
import { OWN_CONTROLS, PageState, START_OVERRIDES, emptyQuery, pushUrl, readQuery, syncUrl } from "./state.js";
import { h } from "./ui/dom.js";
import { lazyConfigDrop } from "./ui/drop-target.js";
import { pickedGpuName } from "./ui/gpu-picker.js";
import { HubBox, takeHubId } from "./ui/hub.js";
import { Notice } from "./ui/notice.js";
import { ParallelPicker } from "./ui/parallel-picker.js";
import { Tabs } from "./ui/tabs.js";
import { TaskPicker } from "./ui/task-picker.js";
import { UnitsToggle } from "./ui/units-toggle.js";
import { onApplyWay, renderVerdict, renderWaysOut } from "./ui/verdict.js";
import { CONTROLS, dormant } from "./wake.js";

const $ = (id) => document.getElementById(id);

/** The answers drawn with the solver: the knob table (the heatmap only while its tab is open: #drawHeatmap). */
const ANSWERS = new Set(["advice"]);

/** Pause in input after which the solver and the knob table are recomputed (ms). */
const ANSWERS_DELAY_MS = 40;

/** The solver's panel: drawn with the core's rest's answers, so its code comes with them (a chunk). */
let solver_code = null;
const solverCode = () => (solver_code ??= import("./ui/solver.js"));

/**
 * What a visitor does first (pointer, key, focus, a file dragged in): on the default page it starts the fetch of
 * the core's rest, which the answers after an edit need (App.#wake).
 */
const FIRST_ACTIONS = ["pointerdown", "keydown", "focusin", "dragenter"];

/** Below this width the page is one column and the settings start collapsed (styles.css has the same). */
const NARROW = "(max-width: 899px)";

/** The tab panels of the heatmap and of the table of which GPUs fit: each is computed and drawn only while shown. */
const HEATMAP_PANEL = "panel-heatmap";
const FITS_PANEL = "panel-fits";
/**
 * The GPU table's rows, drawn while idle into its hidden panel, that the first click on What fits paints: those a
 * screen can show (73 px each at 1280 × 900, the first at 777 px, or at about 370 px with the tabs scrolled to the
 * top: 8; measured). The others are painted in the next frame (App.prepareGpuFit).
 */
const FIRST_GPU_ROWS = 12;
/** The one tab panel that shows nothing of the core's rest (App.#wake). */
const BREAKDOWN_PANEL = "panel-breakdown";

class App {
  /**
   * Reads the page's settings (the link's, checked; a notice names what it ignored) and nothing else: on a link the
   * verdict is drawn alone next (drawVerdict), then the rest of the page (build).
   */
  constructor(engine) {
    this.engine = engine;
    this.view = new Controller(engine, {
      summary: $("summary"), bar: $("stacked-bar"), table: $("results-table"),
      advice: $("knobs"), heatmap: $("heatmap"),
    }, (changes, options = {}) => (options.applied ? this.apply(changes, options.applied) : this.edit(changes, options)),
    { loadHeatmap: () => import("./ui/heatmap.js") });
    this.notice = new Notice($("notice"));

    const { overrides, problems } = readQuery(location.search, engine.known_keys);
    if (emptyQuery(location.search)) Object.assign(overrides, START_OVERRIDES);
    this.hub_link = takeHubId(overrides, () => this.view.model_keys);  // ?model=org/name: fetched once the controls exist
    const clean = this.view.check(overrides);
    this.notice.show("Some settings in this link were ignored:", [...problems, ...clean.problems]);
    this.state = new PageState(clean.overrides);
    this.last = null;
    /**
     * What the user typed that does not validate yet (key -> text): it stays in its field with the core's error
     * and applies as soon as the other settings allow it, so no typed value is ever dropped silently.
     */
    this.pending = {};
  }

  /**
   * A link's verdict alone, before the rest of the page is built (main; issue 36 item 9): its first estimate, the
   * task sentence and the verdict line drawn into #verdict-head and shown at once (html[data-verdict]: styles.css),
   * the prerendered page still hidden. Returns whether it drew one: settings that do not estimate draw nothing
   * here (build's render says why). `gpus`: the prerendered GPU <select>, naming the GPU without the core's list.
   */
  drawVerdict(gpus = null) {
    const estimate = this.view.estimate(this.state.overrides);
    if (!estimate.ok) return false;
    renderVerdict($("verdict-head"), estimate, this.#names(estimate.settings, gpus));
    this.verdict_first = estimate;
    document.documentElement.dataset.verdict = "";
    return true;
  }

  /**
   * The rest of the page: the tabs, the task picker and the units, the listeners, and the results drawn; the
   * pickers and the settings form follow once those are painted (buildControls). `acted`: the start page was woken
   * by the visitor's first action (main: the wake), which ends its prerendered answers as #wake does; `woken`: by
   * either, the prerendered controls are on screen and are replaced at once.
   */
  build({ woken = false, acted = false } = {}) {
    const engine = this.engine;
    this.tabs = new Tabs(document.querySelector('#results [role="tablist"]'));
    this.task = new TaskPicker($("task-picker"), engine.schema);
    this.task.addEventListener("edit", (e) => this.edit(e.detail.changes));
    onFirstVisit($("task-picker"), () => engine.settingDocs().then((docs) => {
      this.task.showDocs(docs);
      return hasDocs(docs);
    }));
    this.units = new UnitsToggle($("units-toggle"), engine.schema.find((row) => row.key === "units")?.choices);
    this.units.addEventListener("units", (e) => this.edit({ units: e.detail.units }));
    // The heatmap and the GPU table are computed and drawn only while their tab is open (docs/web.md).
    this.tabs.addEventListener("tab", () => {
      // The solver's and the knob table's panels show the rest's answers (#wake).
      if (this.tabs.selected !== BREAKDOWN_PANEL) this.#wake();
      if (this.tabs.selected === FITS_PANEL) afterPaint().then(() => $("gpu-fit").querySelectorAll("tr[data-later]").forEach((row) => delete row.dataset.later));
      if (!this.last) return;
      this.#drawHeatmap(this.state.inputs, this.last);
      this.#drawGpuFit(this.state.inputs, this.last);
    });
    onApplyWay($("ways-out"), (delta, text) => this.apply(delta, text));
    $("undo").addEventListener("click", () => this.undo());
    // Back and Forward move between the applied changes (pushUrl); typing replaces the entry (syncUrl).
    addEventListener("popstate", () => this.#fromUrl());
    /**
     * The default page keeps the ways out prerendered into index.html (scripts/prerender.mjs) until the visitor
     * acts, or until the idle warm-up has brought the core's rest (prepareAnswers): the solver and the knob search
     * are in it (docs/wasm.md, "The page's module in two"), so a visit that only reads and is never idle fetches
     * neither.
     */
    this.prerendered_answers = !engine.complete && "default" in document.documentElement.dataset
      && "prerendered" in document.documentElement.dataset && $("ways-out").childElementCount > 0
      && this.tabs.selected === BREAKDOWN_PANEL && !acted;
    if (this.prerendered_answers) for (const type of FIRST_ACTIONS) document.addEventListener(type, this.#wake, true);
    // A link with settings never shows the default's ways out, even while its own are computed.
    else if (!("default" in document.documentElement.dataset)) $("ways-out").replaceChildren();
    this.state.addEventListener("change", () => this.render());
    // A core call that threw: the engine swaps a fresh core in (Engine#retire), and the page draws the same settings.
    engine.onRestart((why) => {
      this.notice.show("The calculator stopped and was restarted; your settings are kept:", [{ message: why }]);
      this.render();
    });
    // A model whose layer kinds' code is in the core's rest (a hybrid one): its answer once the rest is in.
    engine.onRestIn(() => this.render());
    this.render();
    delete document.documentElement.dataset.prerendered;
    delete document.documentElement.dataset.verdict;
    performance.mark("llm-memory:first-result");
    /**
     * Resolves once the pickers and the settings form are built, after the results have been painted; on a
     * woken start page its prerendered controls were painted long ago, and the live ones replace them now.
     */
    this.ready = woken ? Promise.resolve(this.buildControls()) : afterPaint().then(() => this.buildControls());
  }

  /**
   * The pickers and the settings form (a hundred fields) take longer to build than the results, so they
   * follow in a task of their own once the results are on screen (docs/performance.md).
   */
  buildControls() {
    const engine = this.engine;
    this.models = this.view.modelPicker($("model-picker"), () => engine.models);
    this.models.addEventListener("custom", () => this.customArchitecture());
    // The catalogue arrives after the first answers: the task sentence then names the model as the preset does.
    this.models.addEventListener("loaded", () => {
      this.model_list = this.models.load();
      if (!this.last) return;
      renderVerdict($("verdict-head"), this.last, this.#names(this.last.settings));
      // The answers settled before the catalogue came: the verdict is said now, with the model's name (#answers).
      if ($("results").dataset.answers === "ready") announce(this.last);
    });
    this.gpus = this.view.gpuPicker($("gpu-picker"));
    this.parallel = new ParallelPicker($("device-count"), $("parallel-split"), engine.schema);
    this.parallel.addEventListener("edit", (e) => this.edit(e.detail.changes, { note: e.detail.note }));
    // The drop zone's code loads when it is first opened or a file or config.json text arrives (drop-target.js).
    lazyConfigDrop($("config-drop"), async (details) => {
      const { ConfigDrop } = await import("./ui/config-drop.js");
      const config = new ConfigDrop(details, (text) => engine.parseConfig(text), { checkpoint: (...a) => engine.readCheckpoint(...a) });
      config.addEventListener("config", (e) => {
        this.applyConfig(e.detail.settings);
        this.hub.forget();
      });
      // A .gguf brings an architecture (as a config.json); a .safetensors only the exact count, over the model shown.
      config.addEventListener("checkpoint", (e) => (e.detail.kind === "gguf" ? this.applyConfig(e.detail.settings) : this.edit(e.detail.settings)));
      return config;
    });
    this.models.addEventListener("unknown", (e) => this.showModelError(e.detail.message));
    this.hub = new HubBox({ engine, state: this.state, keys: engine.keys, model_keys: this.view.model_keys, edit: (c, o) => this.edit(c, o),
                              isPreset: (text) => Boolean(this.models.find(text).id) }, $("model-picker"));
    if (this.hub_link) this.hub.load(this.hub_link.id, { keep: this.hub_link.keep });
    // The box for a command, config or log and the readers' code load when it is first opened (docs/readers.md),
    // perhaps before the start page woke.
    if ($("paste-box").open) this.#openPaste($("paste-box"));
    else $("paste-box").addEventListener("toggle", () => this.#openPaste($("paste-box")), { once: true });
    // "What runs on my machine" and its code load when it is first opened; a link to it (#fits...) opens it.
    if ($("fits-view").open) this.#openFits($("fits-view"));
    else $("fits-view").addEventListener("toggle", () => this.#openFits($("fits-view")), { once: true });
    if (location.hash.startsWith("#fits")) $("fits-view").open = true;
    $("emit-copy").addEventListener("click", () => this.#copyLaunch());
    this.form = this.view.settingsForm($("settings-form"), new Set(OWN_CONTROLS), { advanced: true });
    $("copy-link").addEventListener("click", () => this.copyLink());
    embedButton($("embed"), () => ({ overrides: this.state.overrides, keys: engine.keys }));
    if (this.last) this.#updateControls(this.last);
    // The deferred answers may have run before the picker existed: load its presets as they would have.
    if ($("results").dataset.answers === "ready") this.models.load();
  }

  /**
   * Applies `changes` (key -> text, or null to drop the override). Input that does not estimate stays in the
   * form with its errors beside the fields (this.pending), and the state (and the URL) keep the last valid
   * settings; a pending value applies with the first later change that makes it valid. `note`: what the page
   * changed besides, and why (shown in the verdict box until the next edit).
   */
  edit(changes, { clear = [], note = "" } = {}) {
    $("undo").hidden = true;
    const next = this.state.overrides;
    for (const key of clear) {
      delete next[key];
      delete this.pending[key];
    }
    for (const [key, value] of Object.entries(changes)) {
      delete this.pending[key];
      if (value === null) delete next[key];
      else next[key] = value;
    }
    const result = this.view.estimate(next);
    if (!result.ok) {
      for (const [key, value] of Object.entries(changes)) if (value !== null && !result.failed) this.pending[key] = value;
      this.showErrors(result.errors, { ...next, ...this.pending }, result);
      return;
    }
    const waiting = Object.keys(this.pending);
    if (waiting.length && this.view.estimate({ ...next, ...this.pending }).ok) {
      Object.assign(next, this.pending);
      note = [note, `Now applied: ${waiting.map((key) => `${key} ${this.pending[key]}`).join(", ")}.`].filter(Boolean).join(" ");
      this.pending = {};
    }
    for (const key of Object.keys(changes)) {
      if (Object.hasOwn(next, key) && !this.view.overrideMatters(next, key)) delete next[key];
    }
    $("change-note").textContent = note;
    this.state.replace(next);
  }

  /**
   * Applies a one-click answer (a way out, a solver answer, a knob) and says what it changed. It is a step the
   * browser's Back undoes: the settings before it keep their history entry (pushUrl), and the Undo button beside
   * the note takes the focus, as the button pressed is redrawn away with the answers.
   */
  apply(delta, title) {
    const before = this.last?.settings ?? {};
    const overrides = this.state.overrides;
    const moved = Object.entries(delta).filter(([key, value]) => before[key] !== value)
      .map(([key, value]) => `${key} ${before[key] ?? "—"} → ${value ?? "default"}`);
    this.edit(delta, { note: `Applied ${title}${moved.length ? ` (${moved.join(", ")})` : ""}.` });
    if (sameSettings(overrides, this.state.overrides)) return;
    syncUrl(new PageState(overrides), this.engine.keys);
    pushUrl(this.state, this.engine.keys);
    const undo = $("undo");
    undo.hidden = false;
    undo.focus();
  }

  /** Undoes the last applied change: Back, to the entry the settings before it kept (apply). */
  undo() {
    if (history.state?.applied) history.back();
  }

  /**
   * The settings of the address bar, after Back or Forward: read as a link is (its check), with the focus on the
   * verdict that now shows them.
   */
  #fromUrl() {
    const { overrides } = readQuery(location.search, this.engine.known_keys);
    if (emptyQuery(location.search)) Object.assign(overrides, START_OVERRIDES);
    const clean = this.view.check(overrides).overrides;
    // A fragment link (#panel-knobs) moves in the history too, with the same settings.
    if (sameSettings(clean, this.state.overrides)) return;
    this.pending = {};
    this.edit(clean, { clear: Object.keys(this.state.overrides), note: "Settings restored from the browser history." });
    $("verdict-head").focus();
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

  async #openPaste(details) {
    const { PasteBox } = await import("./ui/paste-box.js");
    const box = new PasteBox(details, (text) => this.engine.readPaste(text, this.state.inputs));
    // A command or log naming a model replaces the architecture shown, as a preset pick does; the user's other
    // settings stay (a log's table was estimated so: wasm/bindings.cpp, under_log).
    box.addEventListener("paste", (e) => this.edit(e.detail.settings, { clear: e.detail.settings.model ? this.view.model_keys : [], note: e.detail.note }));
  }

  async #openFits(details) {
    const { FitsView } = await import("./ui/fits-view.js");
    this.fits_view = new FitsView(details, this.engine);
  }

  /**
   * "Copy launch command": the emit code loads on the first press (docs/readers.md, "Emit"); the core says which
   * formats apply to the run (emit.hpp's emit_table: the runtime's command, the training framework's config).
   */
  async #copyLaunch() {
    const { EmitCopy } = await import("./ui/emit-copy.js");
    this.emitter ??= new EmitCopy($("emit-out"), { formats: () => this.engine.emitFormats(this.state.inputs),
                                                   emit: (f) => this.engine.emitLaunch(f, this.state.inputs) });
    await this.emitter.copy();
  }

  /**
   * Shows "Copy launch command" under an estimate (which formats apply is the core's answer on the press); a
   * command or config shown was for the settings before this change, and goes.
   */
  #updateEmit() {
    $("emit-launch").hidden = false;
    $("emit-out").replaceChildren();
  }

  showErrors(errors, overrides, { failed = false } = {}) {
    this.form?.update({ overrides, resolved: this.last?.settings, errors, runtime: this.last?.runtime?.name });
    const status = $("input-status");
    const text = errors.map((e) => `${e.setting}: ${e.message}`).join("; ");
    status.hidden = false;
    if (failed) {
      // The core could not answer: no numbers at all rather than those of earlier settings.
      status.textContent = `${text}.`;
      this.#clearResults();
      return;
    }
    status.textContent = `${text}. The results below are for the last valid settings.`;
    $("results").classList.add("stale");
    $("verdict").classList.add("stale");
    if (this.last) this.parallel?.update(this.last.settings, { shown: overrides, errors });
  }

  /**
   * A model box name that is no preset: the core's message (with its nearest ids) in the verdict box, and no
   * numbers beside it, which would read as that model's. The settings stay the last valid ones; the next
   * change draws them again.
   */
  showModelError(message) {
    this.#clearResults();
    $("input-status").hidden = true;
    $("change-note").textContent = "";
    $("verdict-head").replaceChildren(h("p", { class: "verdict-line unknown-model", role: "alert" },
      h("strong", { text: "No model to estimate: " }), message.replace(/ \(the CLI's [^)]*\)$/, "")));
  }

  /** Empties every answer (no numbers rather than those of other settings) and stops the ones under way. */
  #clearResults() {
    clearTimeout(this.answers_timer);
    clearTimeout(this.gpu_fit_timer);
    this.heatmap_for = this.gpu_fit_for = null;
    for (const id of ["summary", "stacked-bar", "results-table", "solver", "gpu-fit", "knobs", "verdict-head", "ways-out"]) $(id).replaceChildren();
    $("heatmap").hidden = true;
    $("emit-launch").hidden = true;
    $("emit-out").replaceChildren();
    this.last = null;
  }

  /** The errors of the pending values (what the user typed that does not validate yet), or []. */
  #pendingErrors() {
    if (!Object.keys(this.pending).length) return [];
    const result = this.view.estimate({ ...this.state.overrides, ...this.pending });
    return result.ok ? [] : result.errors;
  }

  /** The controls show the settings of `estimate`, with the pending values still in their fields. */
  #updateControls(estimate, errors = []) {
    const shown = { ...this.state.overrides, ...this.pending };
    this.view.updateControls(shown, estimate, errors);
    this.parallel?.update(estimate.settings, { shown: this.pending, errors, stated: this.state.overrides });
  }

  /** Display names for the task sentence: the presets' where their lists have been read (`picker`: drawVerdict's). */
  #names(settings, picker = null) {
    const model = this.model_list?.find((m) => m.id === settings.model);
    const gpuName = pickedGpuName(picker, settings.gpu) ?? this.engine.gpus.find((g) => g.id === settings.gpu)?.name;
    return { modelName: model?.name, gpuName };
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
    $("verdict").classList.remove("stale");
    this.view.renderResults(estimate);
    this.#updateEmit();
    // The verdict drawn first on a link (drawVerdict) stays as painted: the same estimate, named the same.
    if (this.verdict_first !== estimate) renderVerdict($("verdict-head"), estimate, this.#names(estimate.settings));
    this.verdict_first = null;
    $("ways-out").classList.add("pending");
    this.scheduleAnswers(inputs, estimate);
    this.units.update(units);
    this.task.update(estimate.settings);
    const errors = this.#pendingErrors();
    if (this.form) this.#updateControls(estimate, errors);
    if (errors.length) this.showErrors(errors, { ...this.state.overrides, ...this.pending });
  }

  /**
   * Ends the default page's prerendered answers (the visitor's first action, or a tab that shows the solver,
   * the knob table, the GPU table or the heatmap): starts the fetch of the core's rest, then draws the answers.
   */
  #wake = () => {
    if (!this.prerendered_answers) return;
    for (const type of FIRST_ACTIONS) document.removeEventListener(type, this.#wake, true);
    this.prerendered_answers = false;
    this.engine.ready();
    // With the rest in (the idle warm-up), at once: the wake is a click or a key, not input to wait out.
    const delay = this.engine.complete ? 0 : ANSWERS_DELAY_MS;
    if ($("results").dataset.answers === "prerendered" && this.last) this.scheduleAnswers(this.state.inputs, this.last, delay);
  };

  /**
   * The solver and the knob table re-estimate the settings dozens of times (a few milliseconds), and
   * history.replaceState costs milliseconds in Chromium, so they follow in a task of their own once input
   * pauses; the table and the bar above never wait for them. #results[data-answers] is "pending" until the
   * answers and the URL show the current settings, and "prerendered" while the default page shows the ways out
   * index.html holds (its solver and knob table are drawn once the visitor acts).
   */
  scheduleAnswers(inputs, estimate, delay = ANSWERS_DELAY_MS) {
    clearTimeout(this.answers_timer);
    // A GPU table drawn (or being drawn) for this very estimate stays: the one prepareGpuFit drew, say.
    if (this.gpu_fit_for !== estimate) {
      clearTimeout(this.gpu_fit_timer);
      this.gpu_fit_for = null;
      $("gpu-fit").dataset.state = "pending";
    }
    $("results").dataset.answers = "pending";
    this.answers_timer = setTimeout(() => this.#answers(inputs, estimate), delay);
  }

  /** The URL, then the answers of `estimate` once the core's rest is in (Engine.ready), unless newer settings came. */
  async #answers(inputs, estimate) {
    syncUrl(this.state, this.engine.keys);
    this.hub?.syncUrl();
    if (!this.engine.complete) {
      if (this.prerendered_answers) {
        $("ways-out").classList.remove("pending");
        $("results").dataset.answers = "prerendered";
        return;
      }
      await Promise.all([this.engine.ready(), solverCode()]);
      if (this.last !== estimate) return;
    }
    const { renderSolver, renderKnobs } = await solverCode();
    if (this.last !== estimate) return;
    this.view.renderKnobs = renderKnobs;
    const had_names = Boolean(this.model_list);
    // The catalogue is fetched lazily: an empty list means it is still on its way (the next answers use it).
    const list = this.models?.load();
    if (list?.length) this.model_list = list;
    const units = estimate.settings.units;
    // One call of the core's rest: the ways out, with the solver's and the knob search's answers, which the
    // engine hands to solve() and advise() below.
    const ways = this.engine.waysOut(inputs);
    const solve = this.engine.solve(inputs);
    renderSolver($("solver"), solve, { units, current: estimate.settings, onApply: (delta, title) => this.apply(delta, title) });
    // The heatmap (two sweeps and a canvas, about a millisecond) would push the input handler past its
    // 4 ms budget, so it follows with the solver, whose max micro-batch it draws (docs/web.md), and only
    // while its tab is open.
    this.view.renderAnswers(inputs, estimate, { show: ANSWERS });
    this.#drawHeatmap(inputs, estimate);
    if (!had_names && this.model_list) renderVerdict($("verdict-head"), estimate, this.#names(estimate.settings));
    renderWaysOut($("ways-out"), { estimate, solve, ways });
    // Said with the model's name as the verdict shows it: once the catalogue is in (else its "loaded" listener says it).
    if (this.model_list) announce(estimate);
    $("ways-out").classList.remove("pending");
    $("results").dataset.answers = "ready";
    this.#drawGpuFit(inputs, estimate);
  }

  /**
   * Draws the heatmap for `inputs` and their `estimate` when its tab is open and it does not show them yet
   * (its code is imported the first time). #heatmap[data-state] is "pending" until it shows them.
   */
  #drawHeatmap(inputs, estimate) {
    if (this.tabs.selected !== HEATMAP_PANEL || this.heatmap_for === estimate) return;
    this.heatmap_for = estimate;
    const container = $("heatmap");
    container.dataset.state = "pending";
    this.view.renderHeatmap(inputs, estimate).then(() => {
      if (this.heatmap_for === estimate) container.dataset.state = "ready";
    });
  }

  /**
   * Which GPUs fit (the solver on every GPU preset), when its tab is open and it does not show `estimate` yet:
   * in a task of its own, after the answers when they run (docs/performance.md); its code is imported the first
   * time. #gpu-fit[data-state] is "pending" until it shows them.
   */
  #drawGpuFit(inputs, estimate) {
    if (this.tabs.selected !== FITS_PANEL || this.gpu_fit_for === estimate) return;
    this.gpu_fit_for = estimate;
    const container = $("gpu-fit");
    container.dataset.state = "pending";
    clearTimeout(this.gpu_fit_timer);
    this.gpu_fit_timer = setTimeout(async () => {
      const [{ renderGpuFit }, fit] = await Promise.all([import("./ui/gpu-fit.js"), this.engine.gpuFit(inputs)]);
      if (this.gpu_fit_for === estimate) this.#showGpuFit(renderGpuFit, fit, estimate);
    }, 0);
  }

  /** Draws `fit`, the GPU table of `estimate`, whole into #gpu-fit (renderGpuFit: ui/gpu-fit.js). */
  #showGpuFit(renderGpuFit, fit, estimate) {
    const container = $("gpu-fit");
    renderGpuFit(container, fit, { units: estimate.settings.units, current: estimate.settings, onApply: (delta) => this.edit(delta) });
    container.dataset.state = "ready";
  }

  /**
   * Draws the GPU table of the settings shown into its hidden panel in an idle period, once the warm-up has
   * computed it (issue 36 item 9: drawing its rows, one per GPU preset, was most of the first click on What fits),
   * so that click only shows the table. Newer settings draw again on the click, as before.
   */
  async prepareGpuFit() {
    const estimate = this.last;
    if (!estimate || this.gpu_fit_for === estimate) return;
    const [{ renderGpuFit }, fit] = await Promise.all([import("./ui/gpu-fit.js"), this.engine.gpuFit(this.state.inputs), idle()]);
    if (this.last !== estimate || this.gpu_fit_for === estimate) return;
    this.gpu_fit_for = estimate;
    this.#showGpuFit(renderGpuFit, fit, estimate);
    // Its first click then paints the first screen's rows only (issue 36 item 9: painting them all was most of it).
    if (this.tabs.selected !== FITS_PANEL) $("gpu-fit").querySelectorAll("tbody tr").forEach((row, i) => i >= FIRST_GPU_ROWS && (row.dataset.later = ""));
  }

  /**
   * Ends the default page's prerendered answers in an idle period once the warm-up has loaded the core's rest
   * and computed them (issue 36 item 9): the solver, the knob table and the ways out (the same as the prerendered
   * ones) are drawn then, so the first action draws nothing of them before its frame: a click on Knobs only shows
   * its panel, one on What fits or the model box has no answers to draw first.
   */
  async prepareAnswers() {
    await idle();
    if (!this.engine.complete || !this.prerendered_answers || !this.last) return;
    this.#wake();
    // In this idle period, rather than in the task #wake scheduled.
    clearTimeout(this.answers_timer);
    await this.#answers(this.state.inputs, this.last);
  }

  async copyLink() {
    const status = $("copy-status");
    syncUrl(this.state, this.engine.keys);
    this.hub?.syncUrl();
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

/**
 * The Embed button: the dialog's code (web/ui/embed-dialog.js) is imported on the first click, which then
 * opens it. `current()` as EmbedDialog's.
 */
function embedButton(container, current) {
  let dialog = null;
  const open = async () => {
    dialog ??= import("./ui/embed-dialog.js").then(({ EmbedDialog }) => new EmbedDialog(container, current));
    (await dialog).open();
  };
  container.replaceChildren(h("button", { type: "button", id: "embed-open", class: "secondary", text: "Embed", on: { click: open } }));
}

/** Whether two sets of overrides are the same, key for key. */
function sameSettings(a, b) {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/**
 * The verdict, said once the answers settle (a polite live region, #verdict-live): the task sentence and "Fits:"
 * or "Does not fit:", not each keystroke's redraw.
 */
function announce(estimate) {
  const live = $("verdict-live");
  const text = [...$("verdict-head").children].map((p) => p.textContent).join(" ");
  if (live.textContent !== text && estimate) live.textContent = text;
}

/** Resolves after the next frame has been painted (or after 100 ms where frames are not drawn, e.g. a hidden tab). */
function afterPaint() {
  return new Promise((done) => {
    requestAnimationFrame(() => setTimeout(done, 0));
    setTimeout(done, 100);
  });
}

/**
 * Ranks, in an idle period after the other answers are prepared, the question "What runs on my machine" asks
 * first (the page's #fits link, else the view's defaults) in the view's Worker (ui/fits-view.js warmFits), so its
 * first opening shows that ranking at once (issue 34 item 3). Skipped when the view is already open: it asked.
 */
async function prepareFits(engine) {
  await idle();
  if ($("fits-view").open) return;
  const { warmFits } = await import("./ui/fits-view.js");
  await warmFits(engine, location.hash);
}

async function main() {
  performance.mark("llm-memory:start");
  const root = document.documentElement.dataset;
  if (matchMedia(NARROW).matches) $("settings-details").open = false;
  root.started = "";
  // A link with settings draws its own controls (buildControls): the start page's prerendered ones go now (the GPU
  // <select> kept for drawVerdict).
  let prerendered_gpus = null;
  if ("prerendered" in root && !("default" in root)) {
    prerendered_gpus = $("gpu-select");
    for (const id of CONTROLS) $(id).replaceChildren();
    $("emit-launch").hidden = true;
  }
  try {
    let carry = null;
    // The start page is whole in index.html (scripts/prerender.mjs): its core starts at the wake, the visitor's
    // first action or the page's first idle period (web/wake.js). The single-file page has no core to defer
    // (web/boot.js says which page defers).
    if (globalThis.llmMemoryBoot?.deferred && "default" in root && "prerendered" in root) {
      // Whole and taking input: not busy for assistive technologies while it sleeps.
      $("app").removeAttribute("aria-busy");
      carry = await dormant(FIRST_ACTIONS, idle, [$("task-picker"), $("settings-form")]);
      performance.mark("llm-memory:wake");
    } else if ("default" in root) {
      // The prerendered default result (index.html) is painted before the core starts: instantiating it and
      // drawing the live result is one long task that would otherwise hold the first paint back.
      await afterPaint();
    }
    const engine = await sharedEngine();
    // ?model=org/name may name a preset (its repo id): its own chunk, fetched only for such a link.
    if (new URLSearchParams(location.search).get("model")?.includes("/")) await (await import("./ui/link-model.js")).openLinkPreset(engine);
    performance.mark("llm-memory:engine");
    // What the visitor did while the core came up, read just before the live controls replace the prerendered ones.
    carry?.capture();
    const app = (window.llmMemoryApp = new App(engine));
    // A link: its verdict painted first, alone; the results, then the controls, after that frame (issue 36 item 9).
    if (!("default" in root) && app.drawVerdict(prerendered_gpus)) {
      performance.mark("llm-memory:verdict");
      await afterPaint();
    }
    app.build({ woken: Boolean(carry), acted: carry?.acted });
    await app.ready;
    carry?.restore();
    performance.mark("llm-memory:live");
    document.body.dataset.ready = "true";
    // The core's rest, the catalogue and the tabs' answers, and the GPU table's and the solver's code, prepared
    // while the page is idle (issue 36 item 9): the first click on What fits, Knobs or the model box then computes
    // nothing new.
    engine.warmWhenIdle(window.llmMemoryApp.state.inputs)
      .then(() => Promise.all([window.llmMemoryApp.prepareGpuFit(), solverCode()]))
      .then(() => window.llmMemoryApp.prepareAnswers())
      .then(() => prepareFits(engine))
      .catch(() => {})
      .then(() => (document.body.dataset.warm = "true"));
  } catch (error) {
    const message = document.createElement("p");
    message.className = "field-error";
    message.textContent = `The calculator could not start: ${error?.message ?? error}`;
    document.getElementById("app").prepend(message);
    document.body.dataset.ready = "error";
  } finally {
    delete root.dormant;
    document.getElementById("app").removeAttribute("aria-busy");
  }
}

main();
