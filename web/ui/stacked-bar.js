// SPDX-License-Identifier: MIT
// The stacked bar: each bucket's share of the per-device total, drawn against the device capacity line, with
// the fit verdict in words. The table holds the numbers; the bar is a picture of it (aria-hidden), and the
// verdict is the text a screen reader hears. A pure render function, reusable by the widget.
import { h } from "./dom.js";
import { formatBytes } from "./format.js";

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
    const segment = h("div", { class: `segment bucket-${bucket.key}`, title: `${bucket.label}: ${formatBytes(bucket.bytes, units)}` });
    segment.style.left = percent(left);
    segment.style.width = percent(bucket.bytes);
    segments.push(segment);
    left += bucket.bytes;
  }
  const line = h("div", { class: "capacity" }, h("span", { class: "capacity-label", text: `device ${formatBytes(capacity, units)}` }));
  line.style.left = percent(capacity);
  const over = total - capacity;
  const verdict = estimate.fits
    ? h("p", { class: "verdict fits" }, h("strong", { text: "Fits." }),
      ` ${formatBytes(total, units)} of ${formatBytes(capacity, units)} per device; ${formatBytes(-over, units)} to spare.`)
    : h("p", { class: "verdict does-not-fit" }, h("strong", { text: "Does not fit." }),
      ` Needs ${formatBytes(total, units)} per device, ${formatBytes(over, units)} more than the ${formatBytes(capacity, units)} it has.`);
  const legend = h("ul", { class: "legend" }, estimate.buckets.filter((b) => b.bytes > 0).map((b) =>
    h("li", {}, h("span", { class: `swatch bucket-${b.key}`, "aria-hidden": "true" }), `${b.label} ${formatBytes(b.bytes, units)}`)));
  container.dataset.fits = String(estimate.fits);
  container.replaceChildren(verdict, h("div", { class: "bar", "aria-hidden": "true" }, segments, line), legend);
}
