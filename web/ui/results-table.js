// SPDX-License-Identifier: MIT
// The results table, the source of truth of the page: one row group per bucket (its row carries
// data-bucket and data-bytes, the exact byte count), one row per item with the formula that produced it, and
// the total. A pure render function of an estimate, so the widget can reuse it.
import { h, replace } from "./dom.js";
import { formatBytes, formatCapacity, formatCount, formatShare, requestsText } from "./format.js";

/** container -> the table drawn last, its shape and the nodes an update rewrites (renderResultsTable). */
const drawn = new WeakMap();

/**
 * Renders `estimate` (an ok estimate from the core) into `container`. Options: units ("GB" | "GiB"), caption
 * (text; default names the per-device scope). When the table drawn there last has the same rows (the same
 * buckets, folded alike, with as many items; the same footer rows), only its texts and byte counts are
 * rewritten: an edit redraws the table, and making its hundred-odd elements again was a third of the edit's
 * time (docs/performance.md). Returns the table.
 */
export function renderResultsTable(container, estimate, { units = "GB", caption } = {}) {
  const zero = estimate.buckets.filter((bucket) => bucket.bytes === 0);
  const shown = estimate.buckets.filter((bucket) => bucket.bytes !== 0);
  const peak = trainingPeak(estimate);
  const shape = JSON.stringify([units, shown.concat(zero).map((b) => [b.key, b.bytes === 0, b.items.length]), Boolean(peak), estimate.cpu_bytes > 0]);
  let table = drawn.get(container);
  if (!table || table.shape !== shape || container.firstChild !== table.element) {
    table = buildTable(shown, zero, estimate, units, peak);
    table.shape = shape;
    drawn.set(container, table);
    container.replaceChildren(table.element);
  }
  const total = estimate.bytes.total;
  const devices = estimate.devices > 1 ? ` (most-loaded of ${estimate.devices} devices)` : "";
  setText(table.caption, caption ?? `Memory per device${devices}, by bucket and item`);
  for (const [i, bucket] of shown.concat(zero).entries()) fillGroup(table.groups[i], bucket, total, units);
  setRow(table.total, total, formatBytes(total, units), formatShare(total, estimate.gpu_memory),
    `of ${formatCapacity(estimate.gpu_memory)} device memory`);
  if (peak) {
    if (table.peak.row.dataset.phase !== peak.phase) table.peak.row.dataset.phase = peak.phase;
    setRow(table.peak, peak.allocated, formatBytes(peak.allocated, units), "", peakText(estimate, units));
  }
  if (table.cpu) setRow(table.cpu, estimate.cpu_bytes, formatBytes(estimate.cpu_bytes, units), "", null);
  return table.element;
}

/** The table's elements for these rows, empty of numbers (renderResultsTable fills them). */
function buildTable(shown, zero, estimate, units, peak) {
  const group = (bucket, folded) => {
    const cells = numberCells();
    const label = document.createTextNode("");
    const row = h("tr", { class: "bucket", dataset: { bucket: bucket.key } },
      h("th", { scope: "rowgroup", id: `bucket-${bucket.key}` }, h("span", { class: "swatch", "aria-hidden": "true" }), label),
      cells.bytes, cells.share, cells.how);
    const items = bucket.items.map(() => {
      const item = { ...numberCells(), name: h("th", { scope: "row", headers: `bucket-${bucket.key}` }), formula: h("code") };
      item.row = h("tr", { class: "item" }, item.name, item.bytes, item.share, item.how);
      item.how.append(item.formula);
      return item;
    });
    const body = h("tbody", { class: `bucket-group bucket-${bucket.key}`, hidden: folded, dataset: folded ? { folded: "true" } : {} },
      row, items.map((item) => item.row));
    return { body, row, label, ...cells, items, how_of: null };
  };
  const groups = [...shown.map((bucket) => group(bucket, false)), ...zero.map((bucket) => group(bucket, true))];
  const footRow = (cls, title, dataset = {}) => {
    const cells = numberCells();
    return { row: h("tr", { class: cls, dataset }, h("th", { scope: "row", text: title }), cells.bytes, cells.share, cells.how), ...cells };
  };
  const total = footRow("total", "Total per device", { bucket: "total" });
  const peak_row = peak ? footRow("peak", "Peak allocated") : null;
  const cpu = estimate.cpu_bytes > 0 ? footRow("cpu", "CPU RAM (offloaded)") : null;
  if (cpu) cpu.how.textContent = "host memory per device's share; not on the GPU";
  const caption = h("caption");
  const element = h("table", { class: "results-table" },
    caption,
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: "Bucket / item" }),
      h("th", { scope: "col", class: "num", text: units }),
      h("th", { scope: "col", class: "num share", text: "Share" }),
      h("th", { scope: "col", text: "How it is computed" }))),
    groups.slice(0, shown.length).map((g) => g.body),
    zero.length ? foldedGroups(zero, groups.slice(shown.length).map((g) => g.body), units) : null,
    h("tfoot", {}, total.row, peak_row?.row, cpu?.row));
  return { element, caption, groups, total, peak: peak_row, cpu };
}

const numberCells = () => ({ bytes: h("td", { class: "num" }), share: h("td", { class: "num share" }), how: h("td", { class: "how" }) });

/** A bucket's row and its items' rows, with `bucket`'s numbers and texts. */
function fillGroup(group, bucket, total, units) {
  setText(group.label, bucket.label);
  setRow(group, bucket.bytes, formatBytes(bucket.bytes, units), formatShare(bucket.bytes, total), null);
  // "How": what the bucket includes, and what it assumes in a muted span.
  const how = `${bucket.includes}\u0000${bucket.assumes ?? ""}`;
  if (group.how_of !== how) {
    group.how_of = how;
    replace(group.how, bucket.includes, bucket.assumes ? h("span", { class: "muted", text: ` (${bucket.assumes})` }) : null);
  }
  for (const [i, item] of bucket.items.entries()) {
    const cells = group.items[i];
    setText(cells.name, item.name);
    setText(cells.bytes, formatBytes(item.bytes, units));
    setText(cells.share, formatShare(item.bytes, total));
    setText(cells.formula, item.formula);
  }
}

/** A row's data-bytes and its cells' texts (`how` null: left as it is). */
function setRow(cells, bytes, bytes_text, share_text, how_text) {
  const row = cells.row;
  if (row.dataset.bytes !== String(bytes)) row.dataset.bytes = String(bytes);
  setText(cells.bytes, bytes_text);
  setText(cells.share, share_text);
  if (how_text !== null) setText(cells.how, how_text);
}

/** Writes `text` into `node` (an element or a Text node) when it differs. */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
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
  const capacity = rt.kv_capacity_tokens > 0 ? ` · KV cache holds ${tokens(rt.kv_capacity_tokens)} tokens` : "";
  return `${rt.name}: budget ${formatBytes(rt.budget, units)}${capacity} · ${requestsText(rt.max_concurrency, estimate.settings.seq)}`;
}


/** Training: the peak as the frameworks measure it (the largest phase of a step); null for inference. */
function trainingPeak(estimate) {
  const peak = estimate.peak;
  return !peak || estimate.settings.mode === "inference" ? null : peak;
}

/** The peak row's words: which quantity it is, the reserved and device figures, what the framework's own log prints. */
function peakText(estimate, units) {
  const peak = estimate.peak;
  return `allocated (torch.cuda.max_memory_allocated) at phase ${peak.phase}; reserved ` +
    `${formatBytes(peak.reserved, units)}; device ${formatBytes(peak.device, units)} (nvidia-smi, compared with ` +
    `the device); framework ${estimate.settings.framework} prints ${peak.printed}`;
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
