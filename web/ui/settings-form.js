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

const INPUT_MODE = { integer: "numeric", number: "decimal", count: "decimal", bytes: "text", text: "text" };

export class SettingsForm extends EventTarget {
  /**
   * key -> {row, control, field, help, error, reset, group, shown}; `shown`: what update() last wrote to the
   * field.
   */
  #fields = new Map();
  #container;

  /** `exclude`: keys other parts of the page own (model, gpu, units). */
  constructor(container, schema, { exclude = new Set() } = {}) {
    super();
    const titles = new Map(GROUPS);
    const groups = new Map(GROUPS.map(([group]) => [group, []]));
    for (const row of schema) {
      if (exclude.has(row.key)) continue;
      if (!groups.has(row.group)) groups.set(row.group, []);
      groups.get(row.group).push(row);
    }
    const sections = [];
    for (const [group, rows] of groups) {
      if (!rows.length) continue;
      const title = titles.get(group) ?? group;
      sections.push(
        h("details", { class: "group", open: !COLLAPSED.has(group), dataset: { group } },
          h("summary", {}, h("h3", { text: title })),
          h("fieldset", {}, h("legend", { class: "visually-hidden", text: title }), rows.map((row) => this.#field(row)))));
    }
    container.replaceChildren(...sections);
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
    for (const [group, any] of shown) if (group && group.hidden !== !any) group.hidden = !any;
  }

  /** Focuses the control of `key` (after an error link is followed). */
  focus(key) {
    const entry = this.#fields.get(key);
    if (!entry) return;
    entry.field.closest("details")?.setAttribute("open", "");
    entry.control.focus();
  }
}
