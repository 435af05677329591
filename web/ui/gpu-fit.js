// SPDX-License-Identifier: MIT
// "Which GPUs fit": one row per GPU preset for the current settings (the core's gpu_fit, docs/solve-and-advise.md):
// its memory in both units, whether the current device count fits on it, the devices the solver needs there
// (with its tensor x pipeline split for inference), and the memory left per device at that count. Each row is
// <tr data-gpu="PRESET-ID" data-fits="true|false" data-needed="N">: data-fits is true when the settings fit on
// their current device count of that GPU (the devices setting); data-needed is the solver's count (0: none).
// A pure render function; `onApply(changes)` receives the settings that switch to a GPU at its needed count.
import { h } from "./dom.js";
import { formatBytes, formatCapacity, formatCount } from "./format.js";

/** "2 (tensor parallel 2 × pipeline 1)" / "4 (data-parallel 4 × tp 1 × pp 1)" / "none". */
function neededText(row) {
  const { needed } = row;
  if (!needed.found) return "none";
  const count = formatCount(needed.value);
  const { tp, pp } = needed.delta;
  if (tp !== undefined) return `${count} (tensor parallel ${tp} × pipeline ${pp})`;
  return count;
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
      h("td", { class: "num", text: formatCapacity(row.memory) }),
      h("td", { text: row.fits ? "yes" : "no" }),
      h("td", { class: "num" }, neededText(row), row.needed.found ? null : h("span", { class: "muted", text: ` (${row.needed.message})` })),
      h("td", { class: "num", text: row.needed.found ? formatBytes(row.headroom, units) : "" }),
      h("td", {}, apply));
  });
  const fitting = fit.gpus.filter((row) => row.fits).length;
  const table = h("table", { class: "gpu-fit-table" },
    h("caption", { text: `Which GPUs fit: ${fitting} of ${fit.gpus.length} presets fit on ${on} as set; ` +
                         "devices needed on each (the solver's search, everything else held) and the memory left per device there" }),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: "GPU" }),
      h("th", { scope: "col", class: "num", text: "Memory per device" }),
      h("th", { scope: "col", text: `Fits on ${on}` }),
      h("th", { scope: "col", class: "num", text: "Devices needed" }),
      h("th", { scope: "col", class: "num", text: "Headroom per device" }),
      h("th", { scope: "col" }, h("span", { class: "visually-hidden", text: "Apply" })))),
    h("tbody", {}, rows));
  container.replaceChildren(h("div", { class: "table-wrap" }, table));
  return table;
}
