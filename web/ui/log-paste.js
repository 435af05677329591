// SPDX-License-Identifier: MIT
// "Paste a startup log": a vLLM, SGLang or llama.cpp / Ollama server log read by the core's log readers (the
// engine's reconcileLog, the CLI's --log; docs/readers.md, "Logs"). The settings the log states apply over the
// user's own, and each figure the runtime printed is set beside ours in a table, with the signed difference and
// the item that diverges most; "Copy as a validation record" copies the rows in the shape of
// tests/validation/published.json. Text goes in as textContent only (dom.js).
// This module and the log readers' code are loaded when the box is first opened (app.js; docs/web.md, "Start-up").
// Events:
//   "log" {settings, note}   the settings the log states (key -> text), to apply as an edit
import { h } from "./dom.js";
import { copyText } from "./copy-text.js";

/** At most this many lines of each list, and rows of the table, are shown; the rest are counted. */
const MAX_LINES = 40;

/** Digits a figure is shown with, by the log's unit: the runtimes print GiB and MiB with two decimals. */
const DIGITS = { GiB: 2, MiB: 2, x: 2, tokens: 0 };

/** `value` in `unit` as the logs print it ("19.28 GiB", "157,936 tokens", "19.28x"). */
export function figureText(value, unit, sign = "") {
  const digits = DIGITS[unit] ?? 2;
  const text = Math.abs(value).toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const signed = value < 0 ? `-${text}` : `${sign}${text}`;
  return unit === "x" ? `${signed}x` : `${signed} ${unit}`;
}

/** The row's difference as text: signed, in the log's unit, and relative to the log's figure. */
export function differenceText(row) {
  if (row.difference === null) return "not modelled";
  const relative = row.log !== 0 ? ` (${row.difference >= 0 ? "+" : "-"}${Math.abs((row.difference / row.log) * 100).toFixed(1)}%)` : "";
  return `${figureText(row.difference, row.unit, "+")}${relative}`;
}

/** `items` as list items (text only), capped at MAX_LINES. */
function lines(items) {
  const shown = items.slice(0, MAX_LINES).map((text) => h("li", { text }));
  if (items.length > MAX_LINES) shown.push(h("li", { text: `… and ${items.length - MAX_LINES} more` }));
  return shown;
}

/** The side-by-side table: one row per item the log printed, its row header the log's own label. */
function comparisonTable(log) {
  const head = h("tr", {}, ["Item (log line)", "Runtime's figure", "Ours", "Difference"].map((text) => h("th", { scope: "col", text })));
  const rows = log.rows.slice(0, MAX_LINES).map((row) => {
    const largest = row.item === log.largest;
    return h("tr", { class: largest ? "diverges" : null, dataset: { item: row.item } },
      h("th", { scope: "row", text: `${row.label} (line ${row.line})` }),
      h("td", { text: figureText(row.log, row.unit) }),
      h("td", { text: row.ours === null ? "—" : figureText(row.ours, row.unit) }),
      h("td", { text: `${differenceText(row)}${largest ? " — diverges most" : ""}` }));
  });
  return h("table", { class: "log-table", id: "log-table" },
    h("caption", { text: `The ${NAMES[log.format] ?? log.format} log beside the estimate for its settings` }),
    h("thead", {}, head), h("tbody", {}, rows));
}

/** The runtimes as the page names them. */
const NAMES = { vllm: "vLLM", sglang: "SGLang", llamacpp: "llama.cpp" };

export class LogPaste extends EventTarget {
  #text;
  #error;
  #report;
  #reconcile;
  #record = null;

  /** `details`: the page's <details> box (its <summary> kept); `reconcile(text)` -> the engine's reconcileLog answer. */
  constructor(details, reconcile) {
    super();
    this.#reconcile = reconcile;
    this.#text = h("textarea", {
      id: "log-text", rows: 6, spellcheck: "false", autocomplete: "off",
      placeholder: "INFO 02-09 12:00:00 [gpu_worker.py:...] Available KV cache memory: 19.28 GiB",
      "aria-describedby": "log-help log-error",
    });
    const compare = h("button", { type: "button", id: "log-apply", text: "Compare" });
    compare.addEventListener("click", () => this.apply());
    this.#error = h("div", { class: "field-error", id: "log-error", role: "alert", hidden: true });
    this.#report = h("div", { class: "picker-info", id: "log-report", role: "status" });
    details.append(h("div", { class: "drop-zone" },
      h("label", { for: "log-text", text: "Startup log" }),
      this.#text,
      h("p", { class: "help", id: "log-help",
               text: "A vLLM or SGLang server's startup log, or a llama.cpp / Ollama server log, up to the first request. The settings it states apply over yours, and each figure it printed is set beside ours; nothing leaves this page." }),
      h("div", { class: "control" }, compare),
      this.#error, this.#report));
  }

  /** Reads the log; on success fires "log" and shows the table, else shows the errors. */
  async apply() {
    const answer = await this.#reconcile(this.#text.value);
    const errors = answer?.errors ?? [];
    this.#error.hidden = errors.length === 0;
    this.#error.replaceChildren(...lines(errors.map((e) => `${e.setting}: ${e.message}`)));
    if (!answer?.ok) {
      this.#report.replaceChildren();
      this.#record = null;
      return;
    }
    const { log } = answer;
    this.#record = answer.record;
    this.#report.replaceChildren(...this.#describe(log));
    const read = log.from.read.map((r) => `${r.setting} ${r.value}`);
    const note = `Read from a ${NAMES[log.format] ?? log.format} log: ${read.join(", ") || "no settings"}.`;
    this.dispatchEvent(new CustomEvent("log", { detail: { settings: log.from.settings, note } }));
  }

  /** The table, the copy button, and what was read, ignored and noted, as text. */
  #describe(log) {
    const list = (title, name, items) => (items.length ? [h("p", { text: title }), h("ul", { class: name }, lines(items))] : []);
    const read = log.from.read.map((r) => `${r.option} → ${r.setting} ${r.value}`);
    const ignored = log.from.ignored.map((i) => `${i.option}: ${i.why}`);
    const copied = h("span", { class: "help", id: "log-copied", role: "status" });
    const copy = h("button", { type: "button", id: "log-record", text: "Copy as a validation record" });
    copy.addEventListener("click", async () => {
      copied.textContent = (await copyText(JSON.stringify(this.#record, null, 2)))
        ? `Copied ${this.#record.length} row${this.#record.length === 1 ? "" : "s"}.`
        : "The clipboard is not available here.";
    });
    const table = log.rows.length ? [h("div", { class: "log-table-wrap" }, comparisonTable(log)), h("div", { class: "control" }, copy, copied)]
                                  : [h("p", { text: "The log printed no figure these readers know." })];
    return [...table, ...list("Settings read:", "log-read", read), ...list("Ignored:", "log-ignored", ignored),
      ...list("Notes:", "log-notes", log.from.notes)];
  }
}
