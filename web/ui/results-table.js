// SPDX-License-Identifier: MIT
// The results table, the source of truth of the page: one row group per bucket (its row carries
// data-bucket and data-bytes, the exact byte count), one row per item with the formula that produced it, and
// the total. A pure render function of an estimate, so the widget can reuse it.
import { h, replace } from "./dom.js";
import { formatBytes, formatCapacity, formatCount, formatShare } from "./format.js";

/**
 * Renders `estimate` (an ok estimate from the core) into `container`, replacing what was there.
 * Options: units ("GB" | "GiB"), caption (text; default names the per-device scope).
 */
export function renderResultsTable(container, estimate, { units = "GB", caption } = {}) {
  const total = estimate.bytes.total;
  const group = (bucket, folded) =>
    h("tbody", { class: `bucket-group bucket-${bucket.key}`, hidden: folded, dataset: folded ? { folded: "true" } : {} },
      h("tr", { class: "bucket", dataset: { bucket: bucket.key, bytes: String(bucket.bytes) } },
        h("th", { scope: "rowgroup", id: `bucket-${bucket.key}` },
          h("span", { class: "swatch", "aria-hidden": "true" }), bucket.label),
        h("td", { class: "num", text: formatBytes(bucket.bytes, units) }),
        h("td", { class: "num share", text: formatShare(bucket.bytes, total) }),
        h("td", { class: "how" }, bucket.includes, bucket.assumes ? h("span", { class: "muted", text: ` (${bucket.assumes})` }) : null)),
      bucket.items.map((item) =>
        h("tr", { class: "item" },
          h("th", { scope: "row", headers: `bucket-${bucket.key}` }, item.name),
          h("td", { class: "num", text: formatBytes(item.bytes, units) }),
          h("td", { class: "num share", text: formatShare(item.bytes, total) }),
          h("td", { class: "how" }, h("code", { text: item.formula })))));
  // Buckets at 0 B (gradients and optimizer in inference, the KV cache in training) are folded under one row.
  const zero = estimate.buckets.filter((bucket) => bucket.bytes === 0);
  const groups = [
    ...estimate.buckets.filter((bucket) => bucket.bytes !== 0).map((bucket) => group(bucket, false)),
    zero.length ? foldedGroups(zero, zero.map((bucket) => group(bucket, true)), units) : null,
  ];
  const devices = estimate.devices > 1 ? ` (most-loaded of ${estimate.devices} devices)` : "";
  const table = h("table", { class: "results-table" },
    h("caption", { text: caption ?? `Memory per device${devices}, by bucket and item` }),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: "Bucket / item" }),
      h("th", { scope: "col", class: "num", text: units }),
      h("th", { scope: "col", class: "num share", text: "Share" }),
      h("th", { scope: "col", text: "How it is computed" }))),
    groups,
    h("tfoot", {},
      h("tr", { class: "total", dataset: { bucket: "total", bytes: String(total) } },
        h("th", { scope: "row", text: "Total per device" }),
        h("td", { class: "num", text: formatBytes(total, units) }),
        h("td", { class: "num share", text: formatShare(total, estimate.gpu_memory) }),
        h("td", { class: "how", text: `of ${formatCapacity(estimate.gpu_memory)} device memory` })),
      peakRow(estimate, units),
      estimate.cpu_bytes > 0
        ? h("tr", { class: "cpu", dataset: { bytes: String(estimate.cpu_bytes) } },
          h("th", { scope: "row", text: "CPU RAM (offloaded)" }),
          h("td", { class: "num", text: formatBytes(estimate.cpu_bytes, units) }),
          h("td", { class: "num share" }),
          h("td", { class: "how", text: "host memory per device's share; not on the GPU" }))
        : null));
  container.replaceChildren(table);
  return table;
}

/**
 * The row that folds the buckets at 0 B: "2 buckets at 0 B: Gradients, Optimizer state" with a button that shows
 * or hides their row groups (`bodies`, hidden at first); `units` as the table's.
 */
function foldedGroups(buckets, bodies, units) {
  const names = buckets.map((bucket) => bucket.label).join(", ");
  const count = `${buckets.length} bucket${buckets.length === 1 ? "" : "s"} at 0 B`;
  const toggle = h("button", { type: "button", class: "secondary fold", "aria-expanded": "false", text: "Show" });
  toggle.setAttribute("aria-label", `Show the ${count}: ${names}`);
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? "Hide" : "Show";
    toggle.setAttribute("aria-label", `${open ? "Hide" : "Show"} the ${count}: ${names}`);
    for (const body of bodies) body.hidden = !open;
  });
  return [
    h("tbody", { class: "zero-buckets", dataset: { zeroBuckets: String(buckets.length) } },
      h("tr", { class: "zero" },
        h("th", { scope: "row", text: count }),
        h("td", { class: "num", text: formatBytes(0, units) }),
        h("td", { class: "num share" }),
        h("td", { class: "how" }, `${names} `, toggle))),
    ...bodies,
  ];
}

/**
 * The inference runtime's own terms, in its words: vLLM / SGLang / TGI give a budget, the KV cache's tokens and
 * how many requests of this length fit at once; llama.cpp and Ollama their buffers. Null for training.
 */
export function runtimeLine(estimate) {
  const rt = estimate.runtime;
  if (!rt) return null;
  const units = estimate.settings.units;
  const tokens = (n) => Math.round(n).toLocaleString("en-US");
  if (rt.buffers) {
    const b = rt.buffers;
    return `${rt.name}: model buffer ${formatBytes(b.model, units)} (host ${formatBytes(b.host, units)}) · KV buffer ` +
      `${formatBytes(b.kv, units)} (${tokens(rt.kv_cells)} cells) · compute buffer ${formatBytes(b.compute, units)}`;
  }
  if (rt.budget === undefined) return `${rt.name}: allocates what it needs (no preallocated budget)`;
  const capacity = rt.kv_capacity_tokens > 0 ? ` · KV cache ${tokens(rt.kv_capacity_tokens)} tokens` : "";
  return `${rt.name}: budget ${formatBytes(rt.budget, units)}${capacity} · ${rt.max_concurrency.toFixed(2)}× ` +
    `requests of ${tokens(Number(estimate.settings.seq))} tokens at once`;
}

/**
 * Training: the peak as the frameworks measure it (the largest phase of a step), and which of the three the
 * chosen framework's own log prints.
 */
function peakRow(estimate, units) {
  const peak = estimate.peak;
  if (!peak || estimate.settings.mode === "inference") return null;
  const how = `allocated (torch.cuda.max_memory_allocated) at phase ${peak.phase}; reserved ` +
    `${formatBytes(peak.reserved, units)}; device ${formatBytes(peak.device, units)} (nvidia-smi, compared with ` +
    `the device); framework ${estimate.settings.framework} prints ${peak.printed}`;
  return h("tr", { class: "peak", dataset: { phase: peak.phase, bytes: String(peak.allocated) } },
    h("th", { scope: "row", text: "Peak allocated" }),
    h("td", { class: "num", text: formatBytes(peak.allocated, units) }),
    h("td", { class: "num share" }),
    h("td", { class: "how", text: how }));
}

/** One line of context: parameters, trainable share, devices and batch, the runtime's terms, the core's notes. */
export function renderSummary(container, estimate) {
  const parts = [
    `${formatCount(estimate.params)} parameters`,
    estimate.trainable_params !== estimate.params && estimate.settings.mode !== "inference"
      ? `${formatCount(estimate.trainable_params)} trainable` : null,
    estimate.devices > 1 ? `${estimate.devices} devices (data-parallel ${estimate.data_parallel})` : "1 device",
    estimate.settings.mode === "inference" ? `context ${estimate.settings.seq} tokens`
      : `effective batch ${formatCount(estimate.effective_batch)} sequences`,
  ].filter(Boolean);
  replace(container,
    h("p", { class: "summary-line", text: parts.join(" · ") }),
    estimate.runtime ? h("p", { class: "runtime-line", text: runtimeLine(estimate) }) : null,
    estimate.notes.length ? h("ul", { class: "notes" }, estimate.notes.map((note) => h("li", { text: note }))) : null);
}
