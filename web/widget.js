// SPDX-License-Identifier: MIT
// <llm-memory>: the calculator as a custom element for docs and blog posts (docs/embedding.md). The class
// only; widget-define.js registers the tag. Modelled on github/relative-time-element:
// - attributes are the source of truth: each settings key is an attribute (model="llama-2-7b" seq="4096"),
//   validated by the core; an invalid value falls back to the default with a visible note;
// - re-renders are batched in a microtask and announced with a `llm-memory-change` event;
// - an open shadow root with parts and --llm-memory-* custom properties; the page's own render functions
//   draw the same table (tr[data-bucket][data-bytes]), bar, knob table and form controls.
// The wiring the page has too (engine, results, answers, pickers and form) is the controller's
// (controller.js); the element keeps its attributes, shadow root, notes and fallback children.
// Every widget of a page shares one engine: the wasm is fetched and compiled once.
import { Controller, sharedEngine } from "./controller.js";
import { h } from "./ui/dom.js";
import { WIDGET_CSS } from "./ui/widget-styles.js";

export { sharedEngine };

/** What `show` accepts, and what it shows when absent. */
export const SHOW_PARTS = Object.freeze(["bar", "table", "advice", "heatmap"]);
export const DEFAULT_SHOW = Object.freeze(["bar", "table"]);

/** The widget's own attributes (every other attribute it reads is a settings key). */
export const WIDGET_ATTRIBUTES = Object.freeze(["controls", "compact", "show"]);

/** Attributes any element may carry; they are not reported as unknown settings. */
const GLOBAL_ATTRIBUTES = new Set(["class", "id", "style", "title", "lang", "dir", "hidden", "slot", "part", "exportparts",
  "tabindex", "role", "nonce", "autofocus", "inert", "translate", "accesskey", "draggable", "spellcheck", "is", "popover"]);

/** Settings keys are lower-case snake_case; anything else cannot be one (and may not be a valid attribute name). */
const ATTRIBUTE_NAME = /^[a-z][a-z0-9_]*$/;

let shared_sheet = null;

function adoptStyles(root) {
  if ("adoptedStyleSheets" in root && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    if (!shared_sheet) {
      shared_sheet = new CSSStyleSheet();
      shared_sheet.replaceSync(WIDGET_CSS);
    }
    root.adoptedStyleSheets = [shared_sheet];
  } else {
    root.append(h("style", { text: WIDGET_CSS }));
  }
}

/** "a, b ,c" -> ["a", "b", "c"] (empty items dropped). */
function list(text) {
  return (text ?? "").split(",").map((item) => item.trim()).filter(Boolean);
}

export class LlmMemoryElement extends HTMLElement {
  static observedAttributes = WIDGET_ATTRIBUTES;

  /** Registers the element as `tag` (once; a tag already defined is left as it is). Returns the class. */
  static define(tag = "llm-memory", registry = customElements) {
    if (!registry.get(tag)) registry.define(tag, this);
    return this;
  }

  #root;
  #engine = null;
  #view = null;
  #observer = null;
  #scheduled = false;
  #estimate = null;
  #settingsNotes = [];
  #controls_key = null;
  #parts = {};
  #resolve_ready;
  #ready = new Promise((resolve) => (this.#resolve_ready = resolve));

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    adoptStyles(this.#root);
    this.#parts = {
      problems: h("div", { class: "problems", part: "problems", role: "status", hidden: true }),
      controls: h("div", { class: "controls", part: "controls" }),
      status: h("p", { class: "status", part: "status", text: "Loading the calculator…" }),
      // The element's own children (a static summary written by the author) show until the first estimate
      // and stay if the calculator cannot start; without JavaScript the browser shows them anyway.
      fallback: h("div", { class: "fallback", part: "fallback" }, h("slot")),
      summary: h("div", { class: "summary", part: "summary" }),
      bar: h("div", { class: "stacked-bar", part: "bar" }),
      table: h("div", { class: "table-wrap", part: "table" }),
      advice: h("div", { class: "table-wrap advice", part: "advice" }),
      heatmap: h("div", { class: "heatmap-wrap", part: "heatmap" }),
    };
    this.#root.append(h("div", { class: "root", part: "root" }, Object.values(this.#parts)));
  }

  connectedCallback() {
    // Properties set before the element was defined shadow the accessors: route them through the setters.
    for (const property of ["settings", "controls", "compact", "show"]) {
      if (!Object.hasOwn(this, property)) continue;
      const value = this[property];
      delete this[property];
      this[property] = value;
    }
    sharedEngine().then(
      (engine) => {
        if (this.#engine) return;
        this.#engine = engine;
        const { summary, bar, table, advice, heatmap } = this.#parts;
        this.#view = new Controller(engine, { summary, bar, table, advice, heatmap }, (changes, options) => this.#edit(changes, options));
        // Settings keys are known once the core has loaded its table; they are observed from then on.
        this.#observer = new MutationObserver(() => this.#schedule());
        this.#observer.observe(this, { attributes: true });
        this.#schedule();
      },
      (error) => {
        this.#parts.status.textContent = `The calculator could not start: ${error?.message ?? error}`;
        this.#parts.status.className = "status field-error";
      });
  }

  attributeChangedCallback() {
    this.#schedule();
  }

  /** The settings the attributes hold (keys of the settings table only, as written). */
  get settings() {
    const settings = {};
    for (const { name, value } of this.attributes) if (this.#engine?.known_keys.has(name)) settings[name] = value;
    return settings;
  }

  /**
   * Replaces every settings attribute with `settings` (key -> text; null or undefined removes it; `null` for
   * the whole object removes them all). Keys that cannot be settings keys are noted and skipped; a value that
   * is not an object is noted and changes nothing.
   */
  set settings(settings) {
    if (settings !== null && settings !== undefined && typeof settings !== "object") {
      this.#settingsNotes = [{ key: "settings", message: "settings: must be an object of settings keys to values; ignored" }];
      this.#schedule();
      return;
    }
    const given = settings ?? {};
    this.#settingsNotes = [];
    for (const key of Object.keys(this.settings)) if (!Object.hasOwn(given, key)) this.removeAttribute(key);
    for (const [key, value] of Object.entries(given)) {
      if (!ATTRIBUTE_NAME.test(key)) this.#settingsNotes.push({ key, message: `${JSON.stringify(key.slice(0, 40))}: not a setting; ignored` });
      else if (value === null || value === undefined) this.removeAttribute(key);
      else this.setAttribute(key, String(value));
    }
    this.#schedule();
  }

  /** Settings the reader may change (the `controls` attribute), in the order given. */
  get controls() {
    return list(this.getAttribute("controls"));
  }

  set controls(keys) {
    this.setAttribute("controls", keys.join(","));
  }

  /** Buckets only, no formulas or help text. */
  get compact() {
    return this.hasAttribute("compact");
  }

  set compact(value) {
    this.toggleAttribute("compact", Boolean(value));
  }

  /** Which views to show (`show`: bar, table, advice, heatmap); unknown names are ignored, none given = bar and table. */
  get show() {
    const names = list(this.getAttribute("show")).filter((name) => SHOW_PARTS.includes(name));
    return names.length ? names : [...DEFAULT_SHOW];
  }

  set show(names) {
    this.setAttribute("show", names.join(","));
  }

  /** The last estimate shown (the core's --json object), or null before the first. */
  get estimate() {
    return this.#estimate;
  }

  /** Resolves with the first estimate, once it is on screen. */
  get ready() {
    return this.#ready;
  }

  #schedule() {
    if (this.#scheduled || !this.#engine) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#render();
    });
  }

  /** Notes for attributes the widget does not use: misspelled settings keys, most likely. */
  #unknownAttributes() {
    const problems = [...this.#settingsNotes];
    for (const { name } of this.attributes) {
      if (this.#engine.known_keys.has(name) || WIDGET_ATTRIBUTES.includes(name) || GLOBAL_ATTRIBUTES.has(name)) continue;
      if (name.includes("-") || name.startsWith("on")) continue;
      problems.push({ key: name, message: `${name}: not a setting; ignored` });
    }
    for (const name of list(this.getAttribute("show"))) {
      if (!SHOW_PARTS.includes(name)) problems.push({ key: "show", message: `show: unknown view "${name}" ignored (views: ${SHOW_PARTS.join(", ")})` });
    }
    for (const key of this.controls) {
      if (!this.#engine.known_keys.has(key)) problems.push({ key: "controls", message: `controls: "${key}" is not a setting; ignored` });
    }
    return problems;
  }

  /** Applies a control's or an Apply button's changes to the attributes (null removes one). */
  #edit(changes, { clear = [] } = {}) {
    for (const key of clear) this.removeAttribute(key);
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) this.removeAttribute(key);
      else this.setAttribute(key, value);
    }
  }

  #render() {
    const view = this.#view;
    const attributes = this.settings;
    const { overrides, problems, estimate } = view.check(attributes);
    const inputs = view.inputs(overrides);
    const notes = this.#unknownAttributes();
    if (estimate.ok) {
      for (const problem of problems) {
        notes.push({ key: problem.key, message: `${problem.message}, using ${JSON.stringify(estimate.settings[problem.key] ?? "")}` });
      }
    } else {
      notes.push(...estimate.errors.map((e) => ({ key: e.setting, message: `${e.setting}: ${e.message}` })));
    }
    replaceNotes(this.#parts.problems, notes);
    this.#updateControls(attributes, estimate, problems);
    if (!estimate.ok) {
      this.#parts.status.textContent = "No estimate for these settings.";
      this.#parts.status.hidden = false;
      return;
    }
    this.#parts.status.hidden = true;
    this.#parts.fallback.hidden = true;
    this.#estimate = estimate;
    const show = new Set(this.show);
    this.#parts.summary.hidden = this.compact;
    for (const name of SHOW_PARTS) this.#parts[name].hidden = !show.has(name);
    view.renderResults(estimate, show)?.setAttribute("part", "results-table");
    const allowed = new Set(this.controls);
    const advice = view.renderAnswers(inputs, estimate, { show, apply: allowed.size > 0 });
    if (advice?.ok && allowed.size) this.#limitApply(advice, allowed);
    this.#parts.bar.querySelector(".verdict")?.setAttribute("part", "verdict");

    this.#resolve_ready(estimate);
    this.dispatchEvent(new CustomEvent("llm-memory-change", {
      bubbles: true,
      detail: { estimate, settings: { ...estimate.settings }, problems: notes },
    }));
  }

  /** A knob keeps its Apply button only when the reader may change every setting it moves. */
  #limitApply(advice, allowed) {
    for (const knob of advice.knobs) {
      if (Object.keys(knob.delta).every((key) => allowed.has(key))) continue;
      for (const row of this.#parts.advice.querySelectorAll("tr[data-knob]")) {
        if (row.dataset.knob === knob.id) row.querySelector("button")?.remove();
      }
    }
  }

  /** Builds the reader's controls when `controls` changes, and shows the current values in them. */
  #updateControls(attributes, estimate, problems) {
    const engine = this.#engine;
    const keys = this.controls.filter((key) => engine.known_keys.has(key));
    const controls_key = keys.join(",");
    if (controls_key !== this.#controls_key) {
      this.#controls_key = controls_key;
      this.#buildControls(new Set(keys));
    }
    if (!estimate.ok) return;
    this.#view.updateControls(attributes, estimate, problems.map((p) => ({ setting: p.key, message: p.message })));
  }

  #buildControls(keys) {
    const view = this.#view;
    const keys_in_order = this.#engine.keys;
    const parts = [];
    view.controls = {};
    if (keys.has("model")) {
      const container = h("div", { class: "picker", part: "control" });
      view.modelPicker(container, this.#engine.models);
      parts.push(container);
    }
    if (keys.has("gpu")) {
      const container = h("div", { class: "picker", part: "control" });
      view.gpuPicker(container);
      parts.push(container);
    }
    const rest = keys_in_order.filter((key) => keys.has(key) && key !== "model" && key !== "gpu");
    if (rest.length) {
      const container = h("div", { class: "form" });
      view.settingsForm(container, new Set(keys_in_order.filter((key) => !rest.includes(key))));
      for (const field of container.querySelectorAll(".field")) field.setAttribute("part", "control");
      parts.push(container);
    }
    this.#parts.controls.replaceChildren(...parts);
  }
}

function replaceNotes(container, notes) {
  container.hidden = notes.length === 0;
  container.replaceChildren(...(notes.length ? [h("ul", {}, notes.map((n) => h("li", { text: n.message })))] : []));
}
