// SPDX-License-Identifier: MIT
// "Which GPUs fit": one row per GPU preset for the current settings (the core's gpu_fit, docs/solve-and-advise.md):
// its memory in both units, whether the current device count fits on it, the devices the solver needs there
// (with its tensor x pipeline split for inference), and the memory left per device at that count. Each row is
// <tr data-gpu="PRESET-ID" data-fits="true|false" data-needed="N">: data-fits is true when the settings fit on
// their current device count of that GPU (the devices setting); data-needed is the solver's count (0: none).
// A pure render function; `onApply(changes)` receives the settings that switch to a GPU at its needed count.
import { h } from "./dom.js";
import { formatBytes, formatCapacity, formatCount } from "./format.js";

/**
 * The parallel split the solver's answer sets, from the keys its delta holds (inference: tp and pp; training: tp
 * and the ZeRO stage, each only when it changes): ["tensor parallel 2", "pipeline 1"], ["ZeRO-3"], [].
 */
export function splitParts(delta) {
  const parts = [];
  if (delta.tp !== undefined) parts.push(`tensor parallel ${delta.tp}`);
  if (delta.pp !== undefined) parts.push(`pipeline ${delta.pp}`);
  if (delta.zero !== undefined) parts.push(`ZeRO-${delta.zero}`);
  return parts;
}

/**
 * The devices-needed cell's content: "2 (tensor parallel 2 × pipeline 1)", "3 (ZeRO-3)", "1", or "none (why)";
 * each part unbroken, the cell wrapping between them (the table fits its panel: docs/web.md).
 */
export function neededContent(needed) {
  if (!needed.found) return ["none", h("span", { class: "muted why", text: ` (${needed.message})` })];
  const parts = splitParts(needed.delta);
  if (parts.length === 0) return [formatCount(needed.value)];
  const pieces = parts.flatMap((part, i) => [...(i === 0 ? [] : [" × "]), h("span", { class: "part", text: part })]);
  return [formatCount(needed.value), " (", ...pieces, ")"];
}

/** "79.65 GiB (85.52 GB)" as two unbroken halves, so a narrow column wraps between the units. */
function capacityContent(bytes) {
  const text = formatCapacity(bytes);
  const cut = text.indexOf(" (");
  return [h("span", { class: "part", text: text.slice(0, cut) }), " ", h("span", { class: "part", text: text.slice(cut + 1) })];
}

/**
 * Renders `fit` (the API's gpuFit: {ok, gpus} or {ok: false, errors}) into `container`. Options: units (the
 * headroom's), current (the resolved settings: the current GPU's row is marked), onApply.
 */
export function renderGpuFit(container, fit, { units = "GB", current = {}, onApply } = {}) {
  if (!fit?.ok) {
    container.replaceChildren(h("p", { class: "muted", text: "No GPU comparison for these settings." }));
    return null;
  }
  const devices = Number(current.devices ?? 1);
  const on = devices === 1 ? "1 device" : `${formatCount(devices)} devices`;
  const rows = fit.gpus.map((row) => {
    const mine = row.id === current.gpu;
    const apply = row.needed.found && onApply
      ? h("button", { type: "button", class: "secondary", text: "Use",
                      "aria-label": `Use ${row.name} × ${row.needed.value}`,
                      on: { click: () => onApply({ gpu: row.id, gpu_memory: null, ...row.needed.delta }) } })
      : null;
    return h("tr", { class: mine ? "current" : null, "aria-current": mine ? "true" : null,
                     dataset: { gpu: row.id, fits: String(row.fits), needed: String(row.needed.found ? row.needed.value : 0) } },
      h("th", { scope: "row", text: row.name }),
      h("td", { class: "num wrap" }, ...capacityContent(row.memory)),
      h("td", { text: row.fits ? "yes" : "no" }),
      h("td", { class: "num wrap" }, ...neededContent(row.needed)),
      h("td", { class: "num", text: row.needed.found ? formatBytes(row.headroom, units) : "" }),
      h("td", {}, apply));
  });
  const fitting = fit.gpus.filter((row) => row.fits).length;
  // The summary stands above the table, not in a caption: a caption is as wide as its table, which scrolls
  // sideways inside its panel on a phone.
  const summary = h("p", { id: "gpu-fit-summary", class: "muted gpu-fit-summary",
                           text: `${fitting} of ${fit.gpus.length} presets fit on ${on} as set; devices needed on each ` +
                                 "(the solver's search, everything else held) and the memory left per device there" });
  const table = h("table", { class: "gpu-fit-table", "aria-labelledby": "gpu-fit-title", "aria-describedby": "gpu-fit-summary" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: "GPU" }),
      h("th", { scope: "col", class: "num", text: "Memory per device" }),
      h("th", { scope: "col", text: `Fits on ${on}` }),
      h("th", { scope: "col", class: "num", text: "Devices needed" }),
      h("th", { scope: "col", class: "num", text: "Headroom per device" }),
      h("th", { scope: "col" }, h("span", { class: "visually-hidden", text: "Apply" })))),
    h("tbody", {}, rows));
  container.replaceChildren(summary, h("div", { class: "table-wrap" }, table));
  return table;
}
