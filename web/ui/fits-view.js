// SPDX-License-Identifier: MIT
// "What runs on my machine" (issue 34 item 3): every model preset ranked on one machine by the core's ranking
// (fits.hpp, `llm-memory fits`; engine.fits, in the core's rest). The visitor picks the device (the catalogue,
// grouped by vendor), how many, the host RAM, the task and the context; filters (family, size, MoE) and the order
// only narrow and sort the ranking, which the core computes. The view's state lives in the URL's fragment,
// "#fits?gpu=rtx-4090&devices=1&ram=64GB&task=run&seq=8192&family=&size=&moe=any&sort=size", so a link reopens it;
// the page's own query (the settings) is left alone. Each row's model links to its full estimate (the answer's
// settings as the page's query, state.js writeQuery). The ranking runs in a Worker (ui/fits-ranker.js), so the page
// never freezes while it runs. Loaded on the section's first opening, or earlier by the page's idle warm-up
// (app.js), which ranks the view's first question in that Worker (warmFits).
// The table is <table id="fits-table"> with one <tr data-model="ID" data-context="TOKENS"> per fitting model;
// #fits-view-status says how many fit, data-state="pending" from an edit until its ranking is drawn ("ready"), and
// data-ms how long the ranking took, data-drawn when it was drawn (performance.now(), ms), data-source "worker" or
// "main" where it was ranked (the browser tests and scripts/perf-fits-web.mjs read them: docs/performance.md).
import { writeQuery } from "../state.js";
import { h } from "./dom.js";
import { fitsRanker } from "./fits-ranker.js";
import { formatBytes, formatCapacity, formatCount } from "./format.js";

/** The fragment that holds the view's state (its prefix: "#fits?..."). */
export const FITS_HASH = "#fits";

/** The view's defaults: one RTX 4090, no RAM for offload, running models at 8K. */
const DEFAULTS = Object.freeze({ gpu: "rtx-4090", devices: "1", ram: "", task: "run", seq: "8192", family: "", size: "", moe: "any", sort: "size" });

const TASKS = [["run", "Run (inference)"], ["lora", "LoRA fine-tune"], ["qlora", "QLoRA fine-tune"], ["full", "Full fine-tune"]];
const CONTEXTS = [2048, 4096, 8192, 16384, 32768, 65536, 131072];
const RAM = [["", "none (GPU only)"], ["16GB", "16 GB"], ["32GB", "32 GB"], ["64GB", "64 GB"], ["128GB", "128 GB"], ["256GB", "256 GB"]];
/** Size filter: "" any, else "min-max" in billions of parameters (max 0: no limit). */
const SIZES = [["", "any size"], ["0-4", "up to 4B"], ["4-16", "4B to 16B"], ["16-40", "16B to 40B"], ["40-120", "40B to 120B"], ["120-0", "over 120B"]];
const MOE = [["any", "dense and MoE"], ["only", "MoE only"], ["none", "dense only"]];
const SORTS = [["size", "size"], ["context", "longest context"], ["speed", "speed bound"]];

/** Reads the view's state from a fragment ("#fits?gpu=..."); unknown keys are dropped, missing ones defaulted. */
export function readFitsHash(hash) {
  const state = { ...DEFAULTS };
  if (!hash.startsWith(FITS_HASH)) return state;
  const params = new URLSearchParams(hash.slice(FITS_HASH.length).replace(/^\?/, ""));
  for (const key of Object.keys(DEFAULTS)) if (params.has(key)) state[key] = params.get(key).slice(0, 100);
  return state;
}

/** The fragment for `state`: only the values that differ from the defaults ("#fits" alone for none). */
export function writeFitsHash(state) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(DEFAULTS)) if (state[key] !== value) params.set(key, state[key]);
  const query = params.toString();
  return query ? `${FITS_HASH}?${query}` : FITS_HASH;
}

/** The core's request (wasm/llm-memory.d.ts FitsRequest) for `state`. */
export function fitsRequest(state) {
  const request = { gpu: state.gpu, devices: state.devices, task: state.task, seq: state.seq, moe: state.moe, sort: state.sort };
  if (state.ram) request.ram = state.ram;
  if (state.family.trim()) request.family = state.family.trim();
  const [min, max] = state.size.split("-").map(Number);
  if (min > 0) request.min_params = `${min}B`;
  if (max > 0) request.max_params = `${max}B`;
  return request;
}

/** "128K" for 131072 tokens, "8,000" for 8000. */
function contextText(tokens) {
  return tokens % 1024 === 0 ? `${formatCount(tokens / 1024)}K` : formatCount(tokens);
}

/** The catalogue's devices grouped by vendor, catalogue order within each. */
function deviceGroups(gpus) {
  const groups = new Map();
  for (const gpu of gpus) {
    const vendor = gpu.vendor || "Other";
    if (!groups.has(vendor)) groups.set(vendor, []);
    groups.get(vendor).push(gpu);
  }
  return [...groups].map(([vendor, list]) => h("optgroup", { label: vendor },
    list.map((gpu) => h("option", { value: gpu.id, text: `${gpu.name} · ${formatCapacity(gpu.memory_bytes)}` }))));
}

/** A labelled control: <label for> + the control. */
function field(id, label, control) {
  control.id = id;
  return h("div", { class: "fits-field" }, h("label", { for: id, text: label }), control);
}

function select(options, name) {
  return h("select", { name }, options.map(([value, text]) => h("option", { value, text })));
}

/** One fitting model's row; its name links to the answer's full estimate. */
function row(r, keys) {
  const link = h("a", { href: writeQuery(r.delta, keys), text: r.name, title: `Open the full estimate of ${r.name} as answered here` });
  const parts = [];
  if (r.offloaded_share > 0) parts.push(`${Math.round(r.offloaded_share * 100)} % of layers (${formatCount(r.gpu_layers)} on the GPU)`);
  if (r.n_cpu_moe > 0) parts.push(`experts of ${formatCount(Math.min(r.n_cpu_moe, r.gpu_layers))} layers`);
  const offload = parts.length ? parts.join("; ") : "none";
  const speed = r.decode_tokens_per_s > 0 ? `≤ ${r.decode_tokens_per_s.toFixed(1)}` : "—";
  return h("tr", { dataset: { model: r.model, context: String(r.max_context) } },
    h("th", { scope: "row" }, link, r.moe ? h("span", { class: "muted", text: " MoE" }) : null),
    h("td", { class: "num", text: `${(r.params / 1e9).toFixed(1)}B` }),
    h("td", { text: r.format }),
    h("td", { text: r.runtime }),
    h("td", { class: "num", text: contextText(r.max_context) }),
    h("td", { text: offload }),
    h("td", { class: "num", text: formatBytes(r.total) }),
    h("td", { class: "num", text: speed }));
}

const COLUMNS = [["Model", ""], ["Parameters", "num"], ["Best format", ""], ["Runtime", ""], ["Longest context", "num"],
                 ["Offloaded to RAM", ""], ["Memory per device", "num"], ["Decode tokens/s (upper bound)", "num"]];

/**
 * Ranks, in the Worker, the question the view asks first when opened on the page whose fragment is `hash` (its
 * defaults, or a #fits link's state), so that opening is answered from it (app.js: the idle warm-up, after the
 * page's first answer). Resolves when it is ranked; nothing is ranked where no Worker runs.
 */
export async function warmFits(engine, hash) {
  const ranker = fitsRanker(engine);
  // On the main thread (no Worker) the warm-up would be the long task it is meant to keep off the page.
  if (ranker.inWorker) await ranker.fits(fitsRequest(readFitsHash(hash)));
}

export class FitsView {
  #engine;
  #ranker;
  #win;
  #state;
  #controls = {};
  #status;
  #out;
  #asked = 0;
  #timer = 0;

  /**
   * Builds the view inside `details` (the section's <details>, after its <summary>) and ranks at once.
   * `engine`: web/engine.js's Engine (gpus, keys, fits); `win`: the window whose URL holds the state.
   */
  constructor(details, engine, win = window) {
    this.#engine = engine;
    this.#ranker = fitsRanker(engine);
    this.#win = win;
    this.#state = readFitsHash(win.location.hash);
    const c = this.#controls;
    c.gpu = h("select", { name: "gpu" }, deviceGroups(engine.gpus));
    c.devices = h("input", { name: "devices", type: "number", min: "1", max: "1024", step: "1", inputmode: "numeric" });
    c.ram = select(RAM, "ram");
    c.task = select(TASKS, "task");
    c.seq = select(CONTEXTS.map((n) => [String(n), `${contextText(n)} tokens`]), "seq");
    c.family = h("input", { name: "family", type: "search", placeholder: "e.g. qwen", autocomplete: "off" });
    c.size = select(SIZES, "size");
    c.moe = select(MOE, "moe");
    c.sort = select(SORTS, "sort");
    for (const [key, control] of Object.entries(c)) {
      control.value = this.#state[key];
      control.addEventListener(control.tagName === "INPUT" ? "input" : "change", () => this.#edit(key, control.value));
    }
    const machine = h("fieldset", { class: "fits-controls" }, h("legend", { text: "Machine and task" }),
      field("fits-gpu", "Device", c.gpu), field("fits-devices", "Devices", c.devices), field("fits-ram", "Host RAM for offload", c.ram),
      field("fits-task", "Task", c.task), field("fits-seq", "Context", c.seq));
    const filters = h("fieldset", { class: "fits-controls" }, h("legend", { text: "Filter and order" }),
      field("fits-family", "Family or name", c.family), field("fits-size", "Size", c.size), field("fits-moe", "Experts", c.moe),
      field("fits-sort", "Sort by", c.sort));
    this.#status = h("p", { id: "fits-view-status", class: "muted", role: "status" });
    this.#out = h("div", { class: "table-wrap" });
    details.append(h("div", { class: "fits-body" }, machine, filters, this.#status, this.#out));
    this.ready = this.#rank();
  }

  #edit(key, value) {
    this.#state = { ...this.#state, [key]: value };
    const url = new URL(this.#win.location.href);
    url.hash = writeFitsHash(this.#state);
    this.#win.history.replaceState(this.#win.history.state, "", url);
    this.#status.dataset.state = "pending";
    // Typing in the family or devices box ranks once the typing pauses.
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#rank(), key === "family" || key === "devices" ? 150 : 0);
  }

  /**
   * Asks the ranker (the Worker, else the main thread) and draws its answer; an answer overtaken by a later ask is
   * dropped, and so is the ranker's word that a later ask replaced this one before it ran.
   */
  async #rank() {
    const asked = ++this.#asked;
    this.#status.dataset.state = "pending";
    this.#status.textContent = "Ranking every model…";
    const start = performance.now();
    const answer = await this.#ranker.fits(fitsRequest(this.#state));
    if (asked !== this.#asked || answer.superseded) return;
    this.#status.dataset.ms = (performance.now() - start).toFixed(1);
    this.#status.dataset.source = this.#ranker.inWorker ? "worker" : "main";
    if (answer.ok) this.#draw(answer);
    else {
      this.#status.textContent = answer.errors.map((e) => `${e.setting}: ${e.message}`).join("; ");
      this.#out.replaceChildren();
    }
    this.#status.dataset.drawn = performance.now().toFixed(1);
    this.#status.dataset.state = "ready";
  }

  #draw(answer) {
    const on = `${formatCount(answer.devices)} × ${answer.gpu} (${formatCapacity(answer.memory)} each)`;
    this.#status.textContent = `${formatCount(answer.fitting)} of ${formatCount(answer.rows.length)} models fit on ${on}. ` +
      "Speeds are upper bounds: the bytes a token reads over the memory bandwidth.";
    const fitting = answer.rows.filter((r) => r.fits);
    if (fitting.length === 0) {
      this.#out.replaceChildren(h("p", { class: "muted", text: "No model of the catalogue fits this machine at this context." }));
      return;
    }
    const table = h("table", { id: "fits-table", class: "fits-table", "aria-describedby": "fits-view-status" },
      h("caption", { class: "visually-hidden", text: `Models that fit on ${on}` }),
      h("thead", {}, h("tr", {}, COLUMNS.map(([text, cls]) => h("th", { scope: "col", class: cls || null, text })))),
      h("tbody", {}, fitting.map((r) => row(r, this.#engine.keys))));
    this.#out.replaceChildren(table);
  }
}
