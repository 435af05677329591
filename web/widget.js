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
import { Controller, sharedEngine as sharedControllerEngine } from "./controller.js";
import { h } from "./ui/dom.js";
import * as heatmap_module from "./ui/heatmap.js";
import { renderKnobs } from "./ui/knobs.js";
import { PAGE_DEFAULTS } from "./state.js";
import { noticeLines } from "./ui/notice.js";
import { DARK_CSS, WIDGET_CSS } from "./ui/widget-styles.js";

/**
 * The engine every widget and embed.js share: it reads the model preset each element names on first use
 * (Engine.loadPresets), not the whole catalogue before the first estimate; a model picker reads the catalogue.
 */
export const sharedEngine = () => sharedControllerEngine({ presets: [] });

/** What `show` accepts, and what it shows when absent. */
export const SHOW_PARTS = Object.freeze(["bar", "table", "advice", "heatmap"]);
export const DEFAULT_SHOW = Object.freeze(["bar", "table"]);

/** What `theme` accepts; absent or anything else is "auto". */
export const THEMES = Object.freeze(["auto", "light", "dark"]);

/** The widget's own attributes (every other attribute it reads is a settings key). */
export const WIDGET_ATTRIBUTES = Object.freeze(["controls", "compact", "show", "theme"]);

/** Attributes any element may carry; they are not reported as unknown settings. */
const GLOBAL_ATTRIBUTES = new Set(["class", "id", "style", "title", "lang", "dir", "hidden", "slot", "part", "exportparts",
  "tabindex", "role", "nonce", "autofocus", "inert", "translate", "accesskey", "draggable", "spellcheck", "is", "popover"]);


let shared_sheets = null;

/**
 * Gives the shadow root the widget's stylesheet, and the dark palette over it when `dark`: two constructed
 * sheets shared by every widget of the page (or, where constructed sheets are missing, <style> elements).
 */
function adoptStyles(root, dark) {
  if ("adoptedStyleSheets" in root && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    if (!shared_sheets) {
      shared_sheets = [new CSSStyleSheet(), new CSSStyleSheet()];
      shared_sheets[0].replaceSync(WIDGET_CSS);
      shared_sheets[1].replaceSync(DARK_CSS);
    }
    root.adoptedStyleSheets = dark ? shared_sheets : [shared_sheets[0]];
    return;
  }
  let styles = root.querySelector("style.llm-memory-styles");
  if (!styles) {
    styles = h("style", { class: "llm-memory-styles", text: WIDGET_CSS });
    root.prepend(styles);
  }
  const dark_style = root.querySelector("style.llm-memory-dark");
  if (dark && !dark_style) styles.after(h("style", { class: "llm-memory-dark", text: DARK_CSS }));
  if (!dark && dark_style) dark_style.remove();
}

/** "rgb(r, g, b)" / "rgba(r, g, b, a)" -> "dark" or "light" by relative luminance; null when transparent or another form. */
function colourScheme(colour) {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:[,\s/]+([\d.]+%?))?\s*\)$/.exec(colour ?? "");
  if (!m) return null;
  const alpha = m[4] === undefined ? 1 : m[4].endsWith("%") ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
  if (!(alpha >= 0.5)) return null;
  const linear = (v) => {
    const c = Number(v) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  // WCAG 2 relative luminance; 0.18 is mid-grey, where white and black text have equal contrast.
  const luminance = 0.2126 * linear(m[1]) + 0.7152 * linear(m[2]) + 0.0722 * linear(m[3]);
  return luminance < 0.18 ? "dark" : "light";
}

/** The element holding `host` (across a shadow boundary), or null at the top. */
const container = (node) => node.parentElement ?? node.parentNode?.host ?? null;

/**
 * The scheme the host page shows around `host`: its `color-scheme` where it names one scheme; the reader's
 * (prefers-color-scheme) where it offers both; where it declares none ("normal"), the browser draws the page
 * light, unless an opaque background set by the page around the element says dark (docs/embedding.md, "Theming").
 */
export function hostScheme(host, win = globalThis) {
  const around = container(host) ?? win.document?.documentElement;
  const os = () => (win.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  if (!around || typeof win.getComputedStyle !== "function") return os();
  let scheme = String(win.getComputedStyle(around).colorScheme || "normal");
  // `color-scheme` is inherited: "normal" here means no ancestor set it, and the page's <meta name="color-scheme"> speaks.
  if (scheme === "normal") scheme = win.document?.querySelector?.('meta[name="color-scheme"]')?.content || "normal";
  const words = scheme.toLowerCase().split(/[\s,]+/);
  const light = words.includes("light");
  const dark = words.includes("dark");
  if (light !== dark) return dark ? "dark" : "light";
  if (light && dark) return os();
  for (let node = around; node; node = container(node)) {
    const scheme = colourScheme(win.getComputedStyle(node).backgroundColor);
    if (scheme) return scheme;
  }
  return "light";
}

/** Connected widgets whose theme is auto; one observer and one media listener re-theme them all. */
const auto_themed = new Set();
let theme_watch = null;

function watchTheme(widget, on) {
  if (on) auto_themed.add(widget);
  else auto_themed.delete(widget);
  if (theme_watch || !auto_themed.size || typeof MutationObserver !== "function") return;
  const update = () => {
    for (const w of auto_themed) w.applyTheme();
  };
  // A blog's dark-mode toggle changes a class, a style or a data-* attribute of <html> or <body>.
  const observer = new MutationObserver(update);
  observer.observe(document.documentElement, { attributes: true, subtree: false });
  if (document.body) observer.observe(document.body, { attributes: true, subtree: false });
  globalThis.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", update);
  theme_watch = observer;
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
  /** What the failed call threw after which the engine swapped a fresh core in, until the next render says so. */
  #restarted = null;
  #settingsNotes = [];
  /** {entries, notes} given to the settings property and not yet written (readSettings). */
  #pending_settings = null;
  #controls_key = null;
  #parts = {};
  #resolve_ready;
  #ready = new Promise((resolve) => (this.#resolve_ready = resolve));
  /** "light" or "dark": the palette shown. */
  #scheme = null;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    adoptStyles(this.#root, false);
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
    for (const property of ["settings", "controls", "compact", "show", "theme"]) {
      if (!Object.hasOwn(this, property)) continue;
      const value = this[property];
      delete this[property];
      this[property] = value;
    }
    this.applyTheme();
    sharedEngine().then(
      (engine) => {
        if (this.#engine) return;
        this.#engine = engine;
        const { summary, bar, table, advice, heatmap } = this.#parts;
        this.#view = new Controller(engine, { summary, bar, table, advice, heatmap }, (changes, options) => this.#edit(changes, options),
                                    { loadHeatmap: async () => heatmap_module, renderKnobs });
        if (this.#pending_settings) this.#writeSettings();
        // Settings keys are known once the core has loaded its table; they are observed from then on.
        this.#observer = new MutationObserver(() => this.#schedule());
        this.#observer.observe(this, { attributes: true });
        engine.onRestart((why) => {
          this.#restarted = why;
          this.#schedule();
        });
        // A model whose layer kinds' code is in the core's rest (a hybrid one): its answer once the rest is in.
        engine.onRestIn(() => this.#schedule());
        this.#schedule();
      },
      (error) => {
        this.#parts.status.textContent = `The calculator could not start: ${error?.message ?? error}`;
        this.#parts.status.className = "status field-error";
      });
  }

  disconnectedCallback() {
    watchTheme(this, false);
  }

  attributeChangedCallback(name) {
    if (name === "theme") this.applyTheme();
    this.#schedule();
  }

  /** `theme`: light, dark, or auto (absent or anything else; the host page's scheme, then the reader's). */
  get theme() {
    const value = this.getAttribute("theme");
    return THEMES.includes(value) ? value : "auto";
  }

  set theme(value) {
    this.setAttribute("theme", value);
  }

  /** The palette shown: "light" or "dark" (theme, or for auto what the host page shows around the element). */
  get scheme() {
    return this.#scheme ?? "light";
  }

  /**
   * Shows the palette `theme` asks for (for auto: hostScheme). Called on connection, on a change of `theme`,
   * and for auto widgets when <html> or <body> change their attributes or the reader's scheme changes.
   */
  applyTheme() {
    const theme = this.theme;
    watchTheme(this, theme === "auto" && this.isConnected);
    const scheme = theme === "auto" ? (this.isConnected ? hostScheme(this) : this.#scheme ?? "light") : theme;
    if (scheme === this.#scheme) return;
    this.#scheme = scheme;
    adoptStyles(this.#root, scheme === "dark");
    this.#root.querySelector(".root")?.setAttribute("data-scheme", scheme);
    // The heatmap's canvas takes its colours from the palette when drawn.
    this.#schedule();
  }

  /** The settings the attributes hold (keys of the settings table only, as written). */
  get settings() {
    const settings = {};
    for (const { name, value } of this.attributes) if (this.#engine?.known_keys.has(name)) settings[name] = value;
    return settings;
  }

  /**
   * Replaces every settings attribute with `settings` (key -> text, number or boolean; null or undefined
   * removes it; `null` for the whole object removes them all). Only keys of the settings table become
   * attributes: any other key (onclick, style, id, hidden, popover, slot, class, data-*, ...) is noted and
   * skipped, as is a value of another type; a value that is not an object is noted and changes nothing. The
   * object is read at once; before the core has loaded its table, the writing waits for it.
   */
  set settings(settings) {
    if (settings !== null && settings !== undefined && typeof settings !== "object") {
      this.#settingsNotes = [{ setting: "settings", message: "settings: must be an object of settings keys to values; ignored" }];
      this.#schedule();
      return;
    }
    this.#pending_settings = readSettings(settings ?? {});
    if (this.#engine) this.#writeSettings();
  }

  /** Writes the settings last given to the property as attributes (settings keys only). */
  #writeSettings() {
    const { entries, notes } = this.#pending_settings;
    this.#pending_settings = null;
    const known = this.#engine.known_keys;
    this.#settingsNotes = notes;
    const given = new Set(entries.map(([key]) => key));
    for (const key of Object.keys(this.settings)) if (!given.has(key)) this.removeAttribute(key);
    for (const [key, value] of entries) {
      if (!known.has(key)) this.#settingsNotes.push({ setting: key, message: `${JSON.stringify(key.slice(0, 40))}: not a setting; ignored` });
      else if (value === null) this.removeAttribute(key);
      else this.setAttribute(key, value);
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
      problems.push({ setting: name, message: `${name}: not a setting; ignored` });
    }
    const theme = this.getAttribute("theme");
    if (theme !== null && !THEMES.includes(theme)) {
      problems.push({ setting: "theme", message: `theme: must be ${THEMES.join(", ")}, got ${JSON.stringify(theme.slice(0, 40))}; using "auto"` });
    }
    for (const name of list(this.getAttribute("show"))) {
      if (!SHOW_PARTS.includes(name)) problems.push({ setting: "show", message: `show: unknown view "${name}" ignored (views: ${SHOW_PARTS.join(", ")})` });
    }
    for (const key of this.controls) {
      if (!this.#engine.known_keys.has(key)) problems.push({ setting: "controls", message: `controls: "${key}" is not a setting; ignored` });
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
    // The element's model preset, and the default one that stands in for a model that is no preset
    // (Engine.sanitise): read on first use, then the element renders.
    const presets = [attributes.model ?? PAGE_DEFAULTS.model, PAGE_DEFAULTS.model];
    if (!this.#engine.hasPresets(presets)) {
      this.#engine.loadPresets(presets).then(() => this.#schedule());
      return;
    }
    const { overrides, problems, estimate } = view.check(attributes);
    const inputs = view.inputs(overrides);
    const notes = this.#unknownAttributes();
    if (this.#restarted !== null) {
      notes.push({ setting: "calculator", message: `The calculator stopped (${this.#restarted}) and was restarted; these settings are kept` });
      this.#restarted = null;
    }
    if (estimate.ok) {
      for (const problem of problems) {
        notes.push({ setting: problem.setting, message: `${problem.message}, using ${JSON.stringify(estimate.settings[problem.setting] ?? "")}` });
      }
    } else {
      notes.push(...estimate.errors.map((e) => ({ setting: e.setting, message: `${e.setting}: ${e.message}` })));
    }
    replaceNotes(this.#parts.problems, notes);
    this.#updateControls(attributes, estimate, problems);
    if (!estimate.ok) {
      this.#parts.status.textContent = "No estimate for these settings.";
      this.#parts.status.hidden = false;
      // A failed core call (docs/robustness.md): hide the numbers of earlier settings.
      if (estimate.failed) for (const part of ["summary", "bar", "table", "advice", "heatmap"]) this.#parts[part].hidden = true;
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
    // The knob table's search is in the core's rest: the table is drawn once it is in (Engine.ready), or says
    // why it could not be loaded.
    const drawAnswers = (views) => {
      const advice = view.renderAnswers(inputs, estimate, { show: views, apply: allowed.size > 0 });
      if (advice?.ok && allowed.size) this.#limitApply(advice, allowed);
    };
    const later = show.has("advice") && !this.#engine.complete;
    if (later) show.delete("advice");
    drawAnswers(show);
    if (later) {
      this.#engine.ready().then(() => {
        if (this.#estimate === estimate) drawAnswers(new Set(["advice"]));
      });
    }
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
    this.#view.updateControls(attributes, estimate, problems);
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

/**
 * A settings object read once, in full: {entries: [key, text or null], notes}. Getters and Proxy traps run
 * here, and one that throws is a note; values other than text, numbers and booleans are notes too.
 */
function readSettings(settings) {
  const entries = [];
  const notes = [];
  const name = (key) => JSON.stringify(key.slice(0, 40));
  let keys = [];
  try {
    keys = Object.keys(settings);
  } catch {
    notes.push({ setting: "settings", message: "settings: its keys could not be read; ignored" });
  }
  for (const key of keys) {
    let value;
    try {
      value = settings[key];
    } catch {
      notes.push({ setting: key, message: `${name(key)}: could not be read; ignored` });
      continue;
    }
    if (value === null || value === undefined) entries.push([key, null]);
    else if (["string", "number", "boolean"].includes(typeof value)) entries.push([key, String(value)]);
    else notes.push({ setting: key, message: `${name(key)}: must be text, a number or a boolean; ignored` });
  }
  return { entries, notes };
}

function replaceNotes(container, notes) {
  container.hidden = notes.length === 0;
  container.replaceChildren(...(notes.length ? [h("ul", {}, noticeLines(notes).map((line) => h("li", { text: line })))] : []));
}
