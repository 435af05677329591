// SPDX-License-Identifier: MIT
// The stacked bar: each bucket's share of the per-device total, drawn against the device capacity line, with
// the fit verdict in words. The table holds the numbers; the bar is a picture of it (aria-hidden), and the
// verdict is the text a screen reader hears. A pure render function, reusable by the widget.
// The bar is SVG whose geometry lives in attributes (percentages of its width), so the same markup works
// when prerendered into the page at build time, where the CSP forbids style attributes (docs/web.md).
import { h, svg } from "./dom.js";
import { formatBytes, formatCapacity } from "./format.js";

/** Renders the verdict, the bar and its legend for `estimate` into `container`. */
export function renderStackedBar(container, estimate, { units = "GB" } = {}) {
  const total = estimate.bytes.total;
  const capacity = estimate.gpu_memory;
  const scale = Math.max(total, capacity) || 1;
  const percent = (bytes) => `${((100 * bytes) / scale).toFixed(3)}%`;
  const segments = [];
  let left = 0;
  for (const bucket of estimate.buckets) {
    if (bucket.bytes <= 0) continue;
    segments.push(svg("rect", { class: `segment bucket-${bucket.key}`, x: percent(left), width: percent(bucket.bytes), height: "100%" },
      svg("title", { text: `${bucket.label}: ${formatBytes(bucket.bytes, units)}` })));
    left += bucket.bytes;
  }
  // The capacity line reaches above the bar to its label and a little below it (the svg overflows its box).
  // The label names the capacity in both units (GiB as GPU memory is sold, GB as the table counts); it sits left of the line, or right of it when the line is near the bar's left end.
  const at = percent(capacity);
  const label_left = capacity / scale > 0.3;
  const line = svg("g", { class: "capacity" },
    svg("line", { x1: at, x2: at, y1: "-70%", y2: "118%" }),
    svg("text", { class: "capacity-label", x: at, y: "-0.55em", dx: label_left ? "-0.45em" : "0.45em",
      "text-anchor": label_left ? "end" : "start", text: `device ${formatCapacity(capacity)}` }));
  const over = total - capacity;
  const verdict = estimate.fits
    ? h("p", { class: "verdict fits", elementtiming: "verdict" }, h("strong", { text: "Fits." }),
      ` ${formatBytes(total, units)} of ${formatBytes(capacity, units)} per device; ${formatBytes(-over, units)} to spare.`)
    : h("p", { class: "verdict does-not-fit", elementtiming: "verdict" }, h("strong", { text: "Does not fit." }),
      ` Needs ${formatBytes(total, units)} per device, ${formatBytes(over, units)} more than the ${formatBytes(capacity, units)} it has.`);
  const legend = h("ul", { class: "legend" }, estimate.buckets.filter((b) => b.bytes > 0).map((b) =>
    h("li", {}, h("span", { class: `swatch bucket-${b.key}`, "aria-hidden": "true" }), `${b.label} ${formatBytes(b.bytes, units)}`)));
  container.dataset.fits = String(estimate.fits);
  container.replaceChildren(verdict,
    svg("svg", { class: "bar", "aria-hidden": "true", focusable: "false" },
      svg("rect", { class: "track", width: "100%", height: "100%" }), segments, line),
    legend);
}
