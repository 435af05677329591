// SPDX-License-Identifier: MIT
// Model preset search and picker: a search box over the presets, the chosen preset's facts, and "custom
// architecture". The box is forgiving as the CLI's --model is: a display name, or what the core's model setting
// reads (an id, a listed alias or a Hugging Face repo id, in any case: `lookup`, the core's lookup_model through
// resolve); an unknown name gets the core's nearest ids ("did you mean"), each a button. Events:
//   "model"   {id}               a preset was chosen
//   "unknown" {text, message}    Enter (or leaving the box) on a name that is no preset: the core's message
//   "custom"  {}                 leave the preset, keep its architecture as editable settings
import { h, replace } from "./dom.js";
import { formatCount, formatShortCount } from "./format.js";

export class ModelPicker extends EventTarget {
  #models = null;
  #pending = null;
  #source;
  #input;
  #datalist;
  #info;
  #error;
  #shown = null;
  #lookup;

  /**
   * `models`: the presets, or a function returning them (or a promise of them: the page fetches the
   * catalogue on first need), called on first need (load(), or a search): the list costs dozens of
   * estimates' worth of work, which the page's first result should not wait for. `lookup(text)`: {id} of the
   * preset the core's model setting reads `text` as, or {message} (its error, with the nearest ids).
   */
  constructor(container, models, { lookup = null } = {}) {
    super();
    this.#source = typeof models === "function" ? models : () => models;
    this.#lookup = lookup;
    this.#input = h("input", {
      type: "search", id: "model-search", list: "model-presets", autocomplete: "off", spellcheck: "false",
      placeholder: "Search the presets", "aria-describedby": "model-info model-error",
    });
    this.#datalist = h("datalist", { id: "model-presets" });
    this.#input.addEventListener("focus", () => this.load(), { once: true });
    this.#info = h("p", { class: "picker-info", id: "model-info" });
    this.#error = h("p", { class: "field-error", id: "model-error", hidden: true });
    const custom = h("button", { type: "button", class: "secondary", text: "Custom architecture" });
    custom.addEventListener("click", () => this.dispatchEvent(new CustomEvent("custom", { detail: {} })));
    this.#input.addEventListener("input", () => this.#pick(false));
    this.#input.addEventListener("change", () => this.#pick(true));
    container.replaceChildren(
      h("label", { for: "model-search", text: "Model" }),
      h("div", { class: "control" }, this.#input, custom),
      this.#datalist,
      this.#info, this.#error);
    if (typeof models !== "function") this.load();
  }

  /**
   * Reads the presets (once) and fills the search list; an empty list while they are still being fetched (a
   * "loaded" event follows when they arrive).
   */
  load() {
    if (this.#models) return this.#models;
    if (this.#pending) return [];
    const models = this.#source();
    if (typeof models?.then === "function") {
      this.#pending = models.then((list) => {
        this.#fill(list);
        this.dispatchEvent(new Event("loaded"));
        // Text typed while the list was on its way is matched now.
        if (this.#input === this.#input.getRootNode().activeElement && this.#input.value.trim()) this.#pick(false);
      });
      return [];
    }
    this.#fill(models);
    return this.#models;
  }

  #fill(models) {
    this.#models = models;
    this.#input.placeholder = `Search ${this.#models.length} presets`;
    this.#datalist.replaceChildren(...this.#models.map((m) =>
      h("option", { value: m.id, label: `${m.name} · ${formatShortCount(m.params)}` })));
    if (this.#shown) this.update(...this.#shown);
  }

  /**
   * The preset `text` names, or {message} why none: a display name (any case), else the core's reading of it once
   * the presets are in (before, an unknown name may be one still on its way: {message: null}).
   */
  find(text) {
    const typed = String(text ?? "").trim();
    const lower = typed.toLowerCase();
    const named = this.load().find((m) => m.id === lower || m.name.toLowerCase() === lower);
    if (named) return { id: named.id };
    if (!typed || !this.#models || !this.#lookup) return { message: null };
    return this.#lookup(typed);
  }

  // A name the presets answer to picks its preset; `final` (change: Enter or leaving the box) reports text that
  // names none, with the core's nearest ids as buttons.
  #pick(final) {
    const typed = this.#input.value.trim();
    const found = this.find(typed);
    if (found.id) {
      this.#error.hidden = true;
      this.dispatchEvent(new CustomEvent("model", { detail: { id: found.id } }));
    } else if (final && typed && this.#models) {
      const message = found.message ?? `no preset matches "${typed}"`;
      const shown = message.replace(/ \(the CLI's [^)]*\)$/, "");
      replace(this.#error, /[.?!]$/.test(shown) ? shown : `${shown}.`, " ", ...this.#suggestions(message));
      this.#error.hidden = false;
      this.dispatchEvent(new CustomEvent("unknown", { detail: { text: typed, message } }));
    }
  }

  /** A button per preset the core's "did you mean a, b or c?" names. */
  #suggestions(message) {
    const near = /did you mean (.+?)\?/.exec(message)?.[1].split(/, | or /) ?? [];
    return near.filter((id) => this.#models.some((m) => m.id === id)).map((id) => {
      const button = h("button", { type: "button", class: "secondary suggestion", text: id });
      button.addEventListener("click", () => {
        this.#input.value = id;
        this.#pick(true);
      });
      return button;
    });
  }

  /** Shows the current preset (id "" = custom architecture; params: the resolved total). */
  update(id, params) {
    this.#shown = [id, params];
    const model = this.#models?.find((m) => m.id === id);
    // getRootNode(): inside the widget's shadow root, document.activeElement is the widget itself.
    if (this.#input !== this.#input.getRootNode().activeElement) this.#input.value = id;
    if (model) {
      replace(this.#info,
        h("strong", { text: model.name }), ` · ${model.hf_repo} · `,
        h("span", { text: `${formatCount(model.params)} parameters` }),
        model.official_params && model.official_params !== model.params
          ? h("span", { class: "muted", text: ` (published: ${formatCount(model.official_params)})` }) : null);
    } else if (id && !this.#models) {
      replace(this.#info, h("strong", { text: id }), ` · ${formatCount(params)} parameters`);
    } else {
      replace(this.#info, h("strong", { text: "Custom architecture" }),
        ` · ${formatCount(params)} parameters from the settings below`);
    }
  }
}
