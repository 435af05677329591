// SPDX-License-Identifier: MIT
// The knob diagnosis table (design.md, "What each knob drains"): every knob moved one step and re-estimated
// on the user's own settings, by bytes saved, with the bucket it drains and a button that applies it.
import { h } from "./dom.js";
import { formatBytes, formatSignedBytes } from "./format.js";

export function renderKnobs(container, advice, { units = "GB", bucketLabels = {}, onApply } = {}) {
  if (!advice?.ok) {
    container.replaceChildren(h("p", { class: "muted", text: "No knob diagnosis for these settings." }));
    return;
  }
  if (!advice.knobs.length) {
    container.replaceChildren(h("p", { class: "muted", text: "No knob changes the memory of these settings." }));
    return;
  }
  const rows = advice.knobs.map((knob) =>
    h("tr", { dataset: { knob: knob.id, saved: String(knob.saved), fits: String(knob.fits) } },
      h("th", { scope: "row" }, knob.name, knob.note ? h("span", { class: "muted knob-note", text: knob.note }) : null),
      h("td", { text: knob.drains ? bucketLabels[knob.drains] ?? knob.drains : "—" }),
      h("td", { class: "num", text: formatSignedBytes(knob.saved, units) }),
      h("td", { class: `num ${knob.fits ? "fits" : "does-not-fit"}` },
        formatBytes(knob.total, units), h("span", { class: "fit-mark", text: knob.fits ? " ✓ fits" : " ✗" })),
      h("td", {}, onApply
        ? h("button", { type: "button", class: "secondary", "aria-label": `Apply: ${knob.name}`, text: "Apply",
                        on: { click: () => onApply(knob.delta, knob.name) } })
        : null)));
  container.replaceChildren(h("table", { class: "knobs-table" },
    h("caption", { text: "Each knob moved one step from your settings and re-estimated, by memory saved per device" }),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: "Knob" }),
      h("th", { scope: "col", text: "Drains" }),
      h("th", { scope: "col", class: "num", text: "Saved" }),
      h("th", { scope: "col", class: "num", text: "New total" }),
      h("th", { scope: "col" }, h("span", { class: "visually-hidden", text: "Apply" })))),
    h("tbody", {}, rows)));
}
