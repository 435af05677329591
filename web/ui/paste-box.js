// SPDX-License-Identifier: MIT
// "Paste a command, config or log": one box for what a user already holds (issue 33). The text, pasted or dropped
// as a file, goes to the reader its lines show (the engine's readPaste; core: paste.hpp): a startup log (vLLM,
// SGLang, llama.cpp / Ollama, nvidia-smi, torch.cuda.memory_summary()) is set beside the estimate for its
// settings in a table with the signed differences and "Copy as a validation record"; a launch command
// (vllm serve, llama-server, SGLang, TGI, Ollama, a Modelfile) or a training recipe (torchtune, axolotl,
// LLaMA-Factory, DeepSpeed, accelerate, TRL) is read into settings. Either way its settings apply over the user's
// own, and what was read, ignored or could not be mapped is listed by name (docs/readers.md, "The page's box").
// Text goes in as textContent only (dom.js). This module and the readers' code are loaded when the box is first
// opened (app.js; docs/web.md, "Start-up").
// Events:
//   "paste" {settings, note}   the settings the text gives (key -> text), to apply as an edit
import { copyText } from "./copy-text.js";
import { h } from "./dom.js";

/** At most this many lines of each list, and rows of the table, are shown; the rest are counted. */
const MAX_LINES = 40;

/** The most a dropped file may hold: a log's limit (the core's max_log_bytes). */
const MAX_FILE_BYTES = 16 << 20;

/** A dropped or chosen file up to this size is shown in the box as well as read [bytes]. */
const SHOWN_BYTES = 1 << 20;

/** Digits a figure is shown with, by the log's unit: the runtimes print GiB and MiB with two decimals. */
const DIGITS = { GiB: 2, MiB: 2, x: 2, tokens: 0 };

/** The kinds of log as the page names them (core: logs/table.cpp's formats). */
const LOG_NAMES = { vllm: "vLLM", sglang: "SGLang", llamacpp: "llama.cpp", nvidia_smi: "nvidia-smi", torch_memory: "torch.cuda.memory_summary()",
                    unsloth: "Unsloth" };

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

/** A titled list, or nothing when `items` is empty. */
const list = (title, name, items) => (items.length ? [h("p", { text: title }), h("ul", { class: name }, lines(items))] : []);

/** What a reader made of the text (launch.hpp's launch_read): read, ignored or not mappable, and its notes. */
function readLists(from, title) {
  return [...list(title, "paste-read", from.read.map((r) => `${r.option} → ${r.setting} ${r.value}`)),
    ...list("Ignored or not mapped:", "paste-ignored", from.ignored.map((i) => `${i.option}: ${i.why}`)),
    ...list("Notes:", "paste-notes", from.notes)];
}

/** The side-by-side table: one row per item the log printed, its row header the log's own label. */
function comparisonTable(log) {
  const head = h("tr", {}, ["Item (log line)", "Log's figure", "Ours", "Difference"].map((text) => h("th", { scope: "col", text })));
  const rows = log.rows.slice(0, MAX_LINES).map((row) => {
    const largest = row.item === log.largest;
    return h("tr", { class: largest ? "diverges" : null, dataset: { item: row.item } },
      h("th", { scope: "row", text: `${row.label} (line ${row.line})` }),
      h("td", { text: figureText(row.log, row.unit) }),
      h("td", { text: row.ours === null ? "—" : figureText(row.ours, row.unit) }),
      h("td", { text: `${differenceText(row)}${largest ? " — diverges most" : ""}` }));
  });
  return h("table", { class: "log-table", id: "log-table" },
    h("caption", { text: `The ${LOG_NAMES[log.format] ?? log.format} log beside the estimate for its settings` }),
    h("thead", {}, head), h("tbody", {}, rows));
}

/** "Copy as a validation record": the compared rows in tests/validation/published.json's shape. */
function recordButton(record) {
  const copied = h("span", { class: "help", id: "log-copied", role: "status" });
  const copy = h("button", { type: "button", id: "log-record", text: "Copy as a validation record" });
  copy.addEventListener("click", async () => {
    copied.textContent = (await copyText(JSON.stringify(record, null, 2)))
      ? `Copied ${record.length} row${record.length === 1 ? "" : "s"}.`
      : "The clipboard is not available here.";
  });
  return h("div", { class: "control" }, copy, copied);
}

export class PasteBox extends EventTarget {
  #text;
  #error;
  #report;
  #zone;
  #read;

  /** `details`: the page's <details> box (its <summary> kept); `read(text)` -> the engine's readPaste answer. */
  constructor(details, read) {
    super();
    this.#read = read;
    this.#text = h("textarea", {
      id: "paste-text", rows: 6, spellcheck: "false", autocomplete: "off",
      placeholder: "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 -tp 2",
      "aria-describedby": "paste-help paste-error",
    });
    const apply = h("button", { type: "button", id: "paste-apply", text: "Read" });
    apply.addEventListener("click", () => this.apply());
    const file = h("input", { type: "file", id: "paste-file", accept: ".txt,.log,.yaml,.yml,.json,.sh,text/*,application/json" });
    file.addEventListener("change", async () => {
      if (file.files?.[0]) await this.load(file.files[0]);
      file.value = "";
    });
    this.#error = h("div", { class: "field-error", id: "paste-error", role: "alert", hidden: true });
    this.#report = h("div", { class: "picker-info", id: "paste-report", role: "status" });
    this.#zone = h("div", { class: "drop-zone" },
      h("label", { for: "paste-text", text: "Command, config or log" }),
      this.#text,
      h("p", { class: "help", id: "paste-help",
               text: "A launch command (vllm serve, llama-server, SGLang, TGI, docker run, Ollama, a Modelfile), a training recipe (torchtune, axolotl, LLaMA-Factory YAML; DeepSpeed JSON; accelerate config; TRL arguments), or a log (a vLLM, SGLang or llama.cpp / Ollama startup log, nvidia-smi, torch.cuda.memory_summary(), an Unsloth notebook's output). Paste it, drop the file here, or choose it. Its settings apply over yours; a log's figures are set beside ours. Nothing leaves this page." }),
      h("div", { class: "control" }, apply, h("label", { class: "file-button" }, "Choose file…", file)),
      this.#error, this.#report);
    this.#listen();
    details.append(this.#zone);
  }

  /** A file dropped on the box is its, not the config drop's (which takes drops anywhere else on the page). */
  #listen() {
    this.#zone.addEventListener("dragover", (event) => {
      event.preventDefault();
      event.stopPropagation();
      if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
      this.#zone.classList.add("dragging");
    });
    this.#zone.addEventListener("dragleave", () => this.#zone.classList.remove("dragging"));
    this.#zone.addEventListener("drop", async (event) => {
      event.preventDefault();
      event.stopPropagation();
      this.#zone.classList.remove("dragging");
      const dropped = event.dataTransfer?.files?.[0];
      if (dropped) await this.load(dropped);
      else if (event.dataTransfer) {
        this.#text.value = event.dataTransfer.getData("text/plain");
        await this.apply();
      }
    });
  }

  /** Reads a dropped or chosen file's text into the box and applies it; one over a log's limit is refused. */
  async load(file) {
    if (file.size > MAX_FILE_BYTES) {
      this.#show([{ setting: file.name, message: `${file.size.toLocaleString("en-US")} bytes: a command, recipe or log is read up to 16 MiB (a log: its start, up to the first request)` }], null);
      return;
    }
    // The file's own text is read, not the box's value: a text area drops its CRs, which would move the bytes
    // an error names. A file over 1 MiB is not copied into the box, which would slow the page for little use.
    const text = await file.text();
    this.#text.value = file.size <= SHOWN_BYTES ? text : "";
    await this.apply(text);
  }

  /**
   * Reads `text` (the box's by default); on success lists what was read (a log: the table) and fires "paste",
   * else shows the errors.
   */
  async apply(text = this.#text.value) {
    const answer = await this.#read(text);
    if (!answer?.ok) {
      this.#show(answer?.errors ?? [], null);
      return;
    }
    const is_log = answer.kind === "log";
    const from = is_log ? answer.log.from : answer;
    const name = is_log ? `a ${LOG_NAMES[answer.log.format] ?? answer.log.format} log` : answer.command;
    this.#show(answer.errors ?? [], is_log ? this.#describeLog(answer) : readLists(from, `Read as ${answer.command}:`));
    const note = `Read from ${name}: ${from.read.map((r) => `${r.setting} ${r.value}`).join(", ") || "no settings"}.`;
    this.dispatchEvent(new CustomEvent("paste", { detail: { settings: from.settings, note } }));
  }

  /** The errors (hidden when none) and the report (emptied on a failure). */
  #show(errors, report) {
    this.#error.hidden = errors.length === 0;
    this.#error.replaceChildren(...lines(errors.map((e) => `${e.setting}: ${e.message}`)));
    this.#report.replaceChildren(...(report ?? []));
  }

  /** A log: the table and its copy button, then what its settings were read from. */
  #describeLog({ log, record }) {
    const table = log.rows.length ? [h("div", { class: "log-table-wrap" }, comparisonTable(log)), recordButton(record)]
                                  : [h("p", { text: "The log printed no figure these readers know." })];
    return [...table, ...readLists(log.from, "Settings read:")];
  }
}
