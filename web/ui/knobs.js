// SPDX-License-Identifier: MIT
// The knob diagnosis table (design.md, "What each knob drains"): every knob moved one step and re-estimated
// on the user's own settings, same hardware first and by bytes saved, with the bucket it drains and a button that
// applies it; a knob that adds memory says what it costs. Above it, the cheapest combination of knobs that fits
// (advise.hpp knob_combination; docs/solve-and-advise.md).
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
      h("td", { class: "num", text: savedText(knob, units) }),
      h("td", { class: `num ${knob.fits ? "fits" : "does-not-fit"}` },
        formatBytes(knob.total, units), h("span", { class: "fit-mark", text: knob.fits ? " ✓ fits" : " ✗" })),
      h("td", {}, onApply
        ? h("button", { type: "button", class: "secondary", "aria-label": `Apply: ${knob.name}`, text: "Apply",
                        on: { click: () => onApply(knob.delta, knob.name) } })
        : null)));
  container.replaceChildren(cheapestLine(advice.cheapest, units, onApply), h("table", { class: "knobs-table" },
    h("caption", { text: "Each knob moved one step from your settings and re-estimated, by memory saved per device" }),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: "Knob" }),
      h("th", { scope: "col", text: "Drains" }),
      h("th", { scope: "col", class: "num", text: "Saved" }),
      h("th", { scope: "col", class: "num", text: "New total" }),
      h("th", { scope: "col" }, h("span", { class: "visually-hidden", text: "Apply" })))),
    h("tbody", {}, rows)));
}

/** What a knob saves, or "costs +X" when it adds memory. */
export function savedText(knob, units = "GB") {
  return knob.saved < 0 ? `costs ${formatSignedBytes(-knob.saved, units)}` : formatBytes(knob.saved, units);
}

// The cheapest combination that fits, with a button that applies all of its knobs; nothing when it fits already.
function cheapestLine(cheapest, units, onApply) {
  if (!cheapest) return h("p", { class: "muted knobs-cheapest", hidden: true });
  if (!cheapest.found) {
    return h("p", { class: "muted knobs-cheapest",
                    text: `No combination of up to ${cheapest.max_knobs} knobs fits on this hardware or with more devices.` });
  }
  const count = cheapest.names.length;
  return h("p", { class: "knobs-cheapest", dataset: { knobs: cheapest.knobs.join(" ") } },
    h("strong", { text: "Cheapest combination that fits: " }),
    cheapest.names.join(" + "),
    ` (${count} knob${count === 1 ? "" : "s"}, ${cheapest.same_hardware ? "same hardware" : "adds devices"}; new total ${formatBytes(cheapest.total, units)}) `,
    onApply
      ? h("button", { type: "button", class: "secondary", "aria-label": `Apply the combination: ${cheapest.names.join(" + ")}`,
                      text: "Apply all", on: { click: () => onApply(cheapest.delta) } })
      : null);
}
