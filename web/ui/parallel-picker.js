// SPDX-License-Identifier: MIT
// The device count ("N ×", beside the GPU picker) and the parallel split: ZeRO stage, tensor-parallel degree
// and pipeline stages as selects that offer only values the core accepts (core/src/resolve.cpp: tp x pp
// divides devices, tp divides num_attention_heads, pp <= num_hidden_layers; zero 0-3). A typed device
// count is never reset: while it does not validate it stays in its field with the core's error; once it is
// committed (Enter, leaving the field, the arrow keys) a split it leaves invalid is lowered to the nearest
// valid one, and the notice says what changed and why. Events:
//   "edit" {changes, note}   settings to apply (key -> text); note: what was changed besides, and why (or "")
import { h } from "./dom.js";

const ZERO = [
  ["0", "0 · none"],
  ["1", "1 · optimizer state"],
  ["2", "2 · + gradients"],
  ["3", "3 · + parameters (FSDP)"],
];

/** Largest degree accepted by the settings table for tp and pp. */
const MAX_DEGREE = 1024;

/** The tensor-parallel degrees valid for `devices`, `pp` and `heads`, ascending. */
export function validTp(devices, pp, heads) {
  const out = [];
  for (let t = 1; t <= Math.min(MAX_DEGREE, devices); t++) if (devices % (t * pp) === 0 && heads % t === 0) out.push(t);
  return out;
}

/** The pipeline stage counts valid for `devices`, `tp` and `layers`, ascending. */
export function validPp(devices, tp, layers) {
  const out = [];
  for (let p = 1; p <= Math.min(MAX_DEGREE, devices, layers); p++) if (devices % (tp * p) === 0) out.push(p);
  return out;
}

/**
 * The split kept when the device count becomes `devices`: tp and pp unchanged when still valid, else the
 * largest valid tp not above the old one (pp kept when it can be), then the largest valid pp not above the
 * old one. Returns {tp, pp, note}: note says what changed and why ("" when nothing did).
 */
export function fitSplit(devices, { tp, pp, heads, layers }) {
  if (devices % (tp * pp) === 0 && heads % tp === 0 && pp <= layers) return { tp, pp, note: "" };
  const tps = validTp(devices, devices % pp === 0 && pp <= layers ? pp : 1, heads);
  const new_tp = tps.filter((t) => t <= tp).at(-1) ?? 1;
  const new_pp = validPp(devices, new_tp, layers).filter((p) => p <= pp).at(-1) ?? 1;
  const changed = [];
  if (new_tp !== tp) changed.push(`tensor parallel ${tp} → ${new_tp}`);
  if (new_pp !== pp) changed.push(`pipeline stages ${pp} → ${new_pp}`);
  const why = `tensor parallel × pipeline stages must divide the ${devices} device${devices === 1 ? "" : "s"}` +
    ` (and tensor parallel the ${heads} attention heads)`;
  return { tp: new_tp, pp: new_pp, note: `Changed ${changed.join(" and ")}: ${why}.` };
}

/**
 * Whether `settings` run inference on several devices with a split the user did not state (`stated`: their own
 * settings; null: unknown): the core then splits one copy of the model over every device, tensor parallel first
 * (resolve.cpp default_split), as `vllm serve --tensor-parallel-size N` is launched.
 */
function defaultSplit(settings, stated) {
  return settings.mode === "inference" && Number(settings.devices) > 1 && stated !== null
    && !Object.hasOwn(stated, "tp") && !Object.hasOwn(stated, "pp");
}

/** The split line: "D data-parallel × T tensor-parallel × P pipeline = N devices", and why when it is the default. */
export function splitText(settings, stated = null) {
  const devices = Number(settings.devices), tp = Number(settings.tp), pp = Number(settings.pp);
  if (devices <= 1) return "One device: more devices open the split.";
  const line = `${devices / (tp * pp)} data-parallel × ${tp} tensor-parallel × ${pp} pipeline = ${devices} devices`;
  if (!defaultSplit(settings, stated)) return line;
  const how = tp * pp === 1 ? "no split fits the heads and layers, so each device serves a replica"
    : `one copy of the model over all ${devices}, as the runtime is launched on them (vLLM's --tensor-parallel-size ` +
      `${devices} when the heads divide); choosing tensor parallel 1 gives ${devices} replicas`;
  return `${line} · inference default: ${how}.`;
}

export class ParallelPicker extends EventTarget {
  #devices;
  #devices_error;
  #selects = {};
  #fields = {};
  #info;
  /** The resolved settings last shown. */
  #shown = null;

  /**
   * `count`: the container beside the GPU picker (the device count); `split`: the ZeRO / tp / pp row;
   * `schema`: the settings table, whose labels name the controls.
   */
  constructor(count, split, schema = []) {
    super();
    const label = (key, fallback) => schema.find((row) => row.key === key)?.label ?? fallback;
    this.#devices = h("input", {
      type: "number", id: "devices-count", name: "devices", min: 1, max: 1e6, step: 1, inputmode: "numeric",
      autocomplete: "off", "aria-describedby": "devices-error",
    });
    this.#devices_error = h("p", { class: "field-error", id: "devices-error", hidden: true });
    this.#devices.addEventListener("input", () => this.#emit({ devices: this.#devices.value.trim() }));
    this.#devices.addEventListener("change", () => this.#commitDevices());
    count.replaceChildren(h("label", { for: "devices-count", text: label("devices", "Devices") }),
      h("div", { class: "control" }, this.#devices));
    const select = (key, fallback, help) => {
      const name = label(key, fallback);
      const id = `split-${key}`;
      const control = h("select", { id, name: key, "aria-describedby": `${id}-help` });
      control.addEventListener("change", () => this.#emit({ [key]: control.value }));
      this.#selects[key] = control;
      return (this.#fields[key] = h("div", { class: "split-field", dataset: { key } },
        h("label", { for: id, text: name }), control,
        h("p", { class: "help visually-hidden", id: `${id}-help`, text: help })));
    };
    const zero = select("zero", "ZeRO stage", "ZeRO stage over the data-parallel devices (setting zero)");
    this.#selects.zero.replaceChildren(...ZERO.map(([value, text]) => h("option", { value, text })));
    this.#info = h("p", { class: "picker-info split-info", id: "split-info", role: "status" });
    split.replaceChildren(h("fieldset", { class: "split" },
      h("legend", { text: "Parallel split" }),
      h("div", { class: "split-fields" },
        zero,
        select("tp", "Tensor parallel", "Tensor-parallel degree (setting tp): divides the devices and the attention heads"),
        select("pp", "Pipeline stages", "Pipeline-parallel stages (setting pp): with tp, divides the devices")),
      this.#info));
    count.append(this.#devices_error);
  }

  #emit(changes, note = "") {
    this.dispatchEvent(new CustomEvent("edit", { detail: { changes, note } }));
  }

  /** The device count committed: lower a split it leaves invalid, and say so. */
  #commitDevices() {
    const devices = Number(this.#devices.value);
    if (!Number.isInteger(devices) || devices < 1 || !this.#shown) return;
    const s = this.#shown;
    const fitted = fitSplit(devices, { tp: Number(s.tp), pp: Number(s.pp), heads: Number(s.num_attention_heads),
                                       layers: Number(s.num_hidden_layers) });
    if (!fitted.note) return;
    this.#emit({ devices: String(devices), tp: String(fitted.tp), pp: String(fitted.pp) }, fitted.note);
  }

  /**
   * Shows the resolved `settings`; `shown` holds what the user typed that does not validate yet (it stays in
   * its field), `errors` [{setting, message}] the core's errors for it, `stated` the user's own settings (an
   * inference split the user did not state is the core's default for the devices: splitText).
   */
  update(settings, { shown = {}, errors = [], stated = null } = {}) {
    this.#shown = settings;
    const typed = shown.devices ?? settings.devices;
    if (this.#devices !== this.#devices.getRootNode().activeElement && this.#devices.value !== typed) this.#devices.value = typed;
    const messages = errors.filter((e) => e.setting === "devices").map((e) => e.message);
    this.#devices_error.hidden = !messages.length;
    this.#devices_error.textContent = messages.join("; ");
    this.#devices.toggleAttribute("aria-invalid", messages.length > 0);
    const devices = Number(settings.devices);
    const tp = Number(settings.tp);
    const pp = Number(settings.pp);
    const heads = Number(settings.num_attention_heads);
    const layers = Number(settings.num_hidden_layers);
    this.#options("tp", validTp(devices, pp, heads), tp);
    this.#options("pp", validPp(devices, tp, layers), pp);
    if (this.#selects.zero.value !== settings.zero) this.#selects.zero.value = settings.zero;
    // ZeRO shards training state over the data-parallel devices (an evaluation keeps stage 3's weights sharded); a
    // runtime's inference has none.
    this.#fields.zero.hidden = settings.mode === "inference";
    this.#info.textContent = splitText(settings, stated);
    this.#info.dataset.defaultSplit = String(defaultSplit(settings, stated));
  }

  /** Fills the select of `key` with `values` (the current value always among them) and selects `current`. */
  #options(key, values, current) {
    const select = this.#selects[key];
    if (!values.includes(current)) values = [...values, current].sort((a, b) => a - b);
    const text = values.join(",");
    if (select.dataset.values !== text) {
      select.dataset.values = text;
      select.replaceChildren(...values.map((v) => h("option", { value: String(v), text: String(v) })));
    }
    select.value = String(current);
  }
}
