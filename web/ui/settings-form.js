// SPDX-License-Identifier: MIT
// The settings form, generated from the settings table: one fieldset per group, one control per setting,
// the setting's one-line doc as its help text. It owns its DOM and reports edits as events:
//   "setting" {key, value}   the user changed a control (value: text as the settings accept it)
//   "reset"   {key}          the user asked for the setting's default back
import { h, uid } from "./dom.js";
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
  /** key -> {row, control, field, error, reset} */
  #fields = new Map();

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
        row.choices.map((choice) => h("option", { value: choice, text: choice })));
      control.addEventListener("change", () => this.#emit("setting", { key: row.key, value: control.value }));
    } else {
      control = h("input", {
        type: "text", id, name: row.key, inputmode: INPUT_MODE[row.kind] ?? "text", autocomplete: "off",
        spellcheck: "false", "aria-describedby": described,
      });
      control.addEventListener("input", () => this.#emit("setting", { key: row.key, value: control.value.trim() }));
    }
    const reset = h("button", { type: "button", class: "reset", hidden: true, "aria-label": `Reset ${row.key} to its default`,
                                title: "Reset to default", text: "↺" });
    reset.addEventListener("click", () => this.#emit("reset", { key: row.key }));
    const error = h("p", { class: "field-error", id: error_id, hidden: true });
    const unit = row.unit && row.unit !== "bytes" ? h("span", { class: "unit", text: row.unit }) : null;
    const field = h("div", { class: `field field-${row.kind}`, dataset: { key: row.key } },
      h("label", { for: id }, h("code", { text: row.key })),
      h("div", { class: "control" }, control, unit, reset),
      h("p", { class: "help", id: help_id, text: row.doc }),
      error);
    this.#fields.set(row.key, { row, control, field, error, reset });
    return field;
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /**
   * Shows the state: each control holds the override, else the resolved value (preset or default); the
   * control being edited keeps what the user typed. `errors`: [{setting, message}] shown beside their field.
   */
  update({ overrides, resolved, errors = [] }) {
    const by_key = new Map();
    for (const e of errors) by_key.set(e.setting, [...(by_key.get(e.setting) ?? []), e.message]);
    for (const [key, { row, control, field, error, reset }] of this.#fields) {
      const overridden = Object.hasOwn(overrides, key);
      field.classList.toggle("changed", overridden);
      reset.hidden = !overridden;
      const messages = by_key.get(key);
      error.hidden = !messages;
      error.textContent = messages ? messages.join("; ") : "";
      control.toggleAttribute("aria-invalid", Boolean(messages));
      // getRootNode(): inside the widget's shadow root, document.activeElement is the widget itself.
      if (control === control.getRootNode().activeElement && control.tagName === "INPUT" && control.type === "text") continue;
      const value = overridden ? overrides[key] : resolved?.[key] ?? row.default;
      if (row.kind === "flag") control.checked = value === "on";
      else {
        const text = row.kind === "bytes" && !overridden ? bytesSettingText(value) : value;
        if (control.value !== text) control.value = text;
      }
    }
  }

  /** Focuses the control of `key` (after an error link is followed). */
  focus(key) {
    const entry = this.#fields.get(key);
    if (!entry) return;
    entry.field.closest("details")?.setAttribute("open", "");
    entry.control.focus();
  }
}
