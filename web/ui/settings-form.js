// SPDX-License-Identifier: MIT
// The settings form, generated from the settings table: one fieldset per group, one control per setting named
// by its label (choices by their labels), the setting's one-line doc and its key (URL, CLI, widget) as its
// help. It owns its DOM and reports edits as events:
//   "setting" {key, value}   the user changed a control (value: text as the settings accept it)
//   "reset"   {key}          the user asked for the setting's default back
import { h, uid } from "./dom.js";
import { applicabilityContext, notApplying } from "./applicability.js";
import { bytesSettingText } from "./format.js";

/** Group titles and order; a group the table adds later still shows, under its own name. */
const GROUPS = [
  ["model", "Model architecture"],
  ["workload", "Workload"],
  ["finetune", "Fine-tuning"],
  ["precision", "Precision & optimizer"],
  ["parallelism", "Parallelism"],
  ["device", "Device & overheads"],
];

/** Groups shown collapsed at first: a preset or a config.json fills the architecture. */
const COLLAPSED = new Set(["model"]);

/**
 * The settings people change first after the model and the GPU (issue 36): in a group of their own at the top of
 * the form, open; every other group is in "Advanced", collapsed, which counts the values changed in it.
 */
const FIRST = ["seq", "batch", "weights_dtype"];
const FIRST_TITLE = "Context, batch and weights";

/** The batch's label in inference, where it counts the requests served at once. */
const REQUESTS_LABEL = "Concurrent requests";

const INPUT_MODE = { integer: "numeric", number: "decimal", count: "decimal", bytes: "text", text: "text" };

export class SettingsForm extends EventTarget {
  /**
   * key -> {row, control, field, help, error, reset, group, shown}; `shown`: what update() last wrote to the
   * field.
   */
  #fields = new Map();
  #container;
  /** The Advanced group and its count of changed values. */
  #advanced;
  #changed;
  #changed_count = -1;

  /**
   * `exclude`: keys other parts of the page own (model, gpu, units); `advanced`: the page's layout, the settings
   * changed first on top and the rest in a collapsed Advanced group (the widget keeps its flat groups).
   */
  constructor(container, schema, { exclude = new Set(), advanced = false } = {}) {
    super();
    const titles = new Map(GROUPS);
    const groups = new Map(GROUPS.map(([group]) => [group, []]));
    for (const row of schema) {
      if (exclude.has(row.key)) continue;
      if (!groups.has(row.group)) groups.set(row.group, []);
      groups.get(row.group).push(row);
    }
    const first = advanced ? FIRST.map((key) => schema.find((row) => row.key === key && !exclude.has(key))).filter(Boolean) : [];
    const sections = [];
    for (const [group, rows] of groups) {
      const rest = rows.filter((row) => !first.includes(row));
      if (!rest.length) continue;
      const title = titles.get(group) ?? group;
      sections.push(
        h("details", { class: "group", open: !COLLAPSED.has(group), dataset: { group } },
          h("summary", {}, h("h3", { text: title })),
          h("fieldset", {}, h("legend", { class: "visually-hidden", text: title }), rest.map((row) => this.#field(row)))));
    }
    if (advanced) {
      this.#changed = h("span", { class: "advanced-count" });
      this.#advanced = h("details", { class: "group advanced", id: "settings-advanced" },
        h("summary", {}, h("h3", {}, "Advanced: framework, runtime and architecture ", this.#changed)), sections);
      const top = h("fieldset", { class: "group first-settings", dataset: { group: "first" } },
        h("legend", { text: FIRST_TITLE }), first.map((row) => this.#field(row)));
      container.replaceChildren(top, this.#advanced);
    } else {
      container.replaceChildren(...sections);
    }
    this.#container = container;
    for (const entry of this.#fields.values()) entry.group = entry.field.closest("details");
  }

  #field(row) {
    const id = uid(`setting-${row.key}`);
    const help_id = `${id}-help`;
    const error_id = `${id}-error`;
    const described = `${help_id} ${error_id}`;
    let control;
    if (row.kind === "flag") {
      control = h("input", { type: "checkbox", id, name: row.key, "aria-describedby": described });
      control.addEventListener("change", () => this.#emit("setting", { key: row.key, value: control.checked ? "on" : "off" }));
    } else if (row.kind === "choice") {
      control = h("select", { id, name: row.key, "aria-describedby": described },
        row.choices.map((choice, i) => h("option", { value: choice, text: row.choice_labels?.[i] || choice })));
      control.addEventListener("change", () => this.#emit("setting", { key: row.key, value: control.value }));
    } else {
      control = h("input", {
        type: "text", id, name: row.key, inputmode: INPUT_MODE[row.kind] ?? "text", autocomplete: "off",
        spellcheck: "false", "aria-describedby": described,
      });
      control.addEventListener("input", () => this.#emit("setting", { key: row.key, value: control.value.trim() }));
    }
    const name = row.label || row.key;
    const reset = h("button", { type: "button", class: "reset", hidden: true, "aria-label": `Reset ${name} to its default`,
                                title: "Reset to default", text: "↺" });
    reset.addEventListener("click", () => this.#emit("reset", { key: row.key }));
    const error = h("p", { class: "field-error", id: error_id, hidden: true });
    const unit = row.unit && row.unit !== "bytes" ? h("span", { class: "unit", text: row.unit }) : null;
    // The key stays in view: it is the URL query key, the CLI flag and the widget attribute. The doc may come
    // later (showDocs): the page's core reads the help texts on demand.
    const help = h("p", { class: "help", id: help_id }, `${row.doc} `, h("span", { class: "setting-key" }, "Key: ", h("code", { text: row.key })));
    const field = h("div", { class: `field field-${row.kind}`, dataset: { key: row.key } },
      h("label", { for: id, text: name }),
      h("div", { class: "control" }, control, unit, reset),
      help,
      error);
    this.#fields.set(row.key, { row, control, field, help, error, reset, shown: {} });
    return field;
  }

  /** Writes each setting's help text from `docs` ({key: doc}, Engine.settingDocs) where its row had none. */
  showDocs(docs) {
    for (const [key, { row, help }] of this.#fields) {
      if (!row.doc && docs[key]) help.firstChild.data = `${docs[key]} `;
    }
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /**
   * Shows the state: each control holds the override, else the resolved value (preset or default); the
   * control being edited keeps what the user typed. `errors`: [{setting, message}] shown beside their field.
   * Fields that do not apply to the task (applicability.js; `runtime`: the runtime the core used, for
   * runtime = auto) are hidden unless the user set them or they have an error; a group left empty is hidden.
   */
  update({ overrides, resolved, errors = [], runtime }) {
    const by_key = new Map();
    for (const e of errors) by_key.set(e.setting, [...(by_key.get(e.setting) ?? []), e.message]);
    const context = resolved ? applicabilityContext(resolved, runtime) : null;
    // getRootNode(): inside the widget's shadow root, document.activeElement is the widget itself.
    const active = this.#container.getRootNode().activeElement;
    const shown = new Map();
    // An edit re-runs this over every field: the DOM is written only where what the field shows changes, compared
    // with what was last written (`entry.shown`), not read back (docs/performance.md).
    for (const [key, entry] of this.#fields) {
      const { row, control, field, error, reset, group } = entry;
      const overridden = Object.hasOwn(overrides, key);
      const off = context ? notApplying(row, context) : [];
      const hide = off.length > 0 && !overridden && !by_key.has(key);
      const messages = by_key.get(key);
      const now = { hide, applies: off.length ? "false" : "true", overridden, message: messages ? messages.join("; ") : "" };
      const was = entry.shown;
      if (was.hide !== now.hide) field.hidden = hide;
      if (was.applies !== now.applies) field.dataset.applies = now.applies;
      if (was.overridden !== now.overridden) {
        field.classList.toggle("changed", overridden);
        reset.hidden = !overridden;
      }
      if (was.message !== now.message) {
        error.hidden = !messages;
        error.textContent = now.message;
        control.toggleAttribute("aria-invalid", Boolean(messages));
      }
      entry.shown = now;
      shown.set(group, (shown.get(group) ?? false) || !hide);
      if (control === active && control.tagName === "INPUT" && control.type === "text") continue;
      const value = overridden ? overrides[key] : resolved?.[key] ?? row.default;
      if (row.kind === "flag") {
        if (control.checked !== (value === "on")) control.checked = value === "on";
      } else {
        const text = row.kind === "bytes" && !overridden ? bytesSettingText(value) : value;
        if (control.value !== text) control.value = text;
      }
    }
    for (const [group, any] of shown) if (group && group !== this.#advanced && group.hidden !== !any) group.hidden = !any;
    this.#countChanged(overrides, resolved);
  }

  /**
   * The Advanced group's count of values the user changed in it, and the batch's label for the task: the requests
   * served at once in inference, the micro-batch in training.
   */
  #countChanged(overrides, resolved) {
    if (!this.#advanced) return;
    let count = 0;
    for (const [key, { field }] of this.#fields) if (Object.hasOwn(overrides, key) && this.#advanced.contains(field)) count += 1;
    if (count !== this.#changed_count) {
      this.#changed_count = count;
      this.#changed.textContent = count ? `(${count} changed)` : "";
      this.#advanced.dataset.changed = String(count);
    }
    const batch = this.#fields.get("batch");
    if (!batch) return;
    const label = resolved?.mode === "inference" ? REQUESTS_LABEL : batch.row.label || batch.row.key;
    const element = batch.field.querySelector("label");
    if (element.textContent !== label) element.textContent = label;
  }

  /** Focuses the control of `key` (after an error link is followed). */
  focus(key) {
    const entry = this.#fields.get(key);
    if (!entry) return;
    for (let group = entry.field.closest("details"); group; group = group.parentElement.closest("details")) group.open = true;
    entry.control.focus();
  }
}
