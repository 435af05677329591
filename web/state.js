// SPDX-License-Identifier: MIT
// The page's one state object and its URL form. The state holds only the settings the user changed
// (overrides over PAGE_DEFAULTS, which sit over the core's defaults); the query string mirrors them:
//   ?v=2&model=llama-2-7b&mode=inference&seq=4096&runtime=vllm
// Keys are the settings table's keys (the same as CLI flags and widget attributes); values are the text the
// settings accept. Schema in docs/web.md, "URL".

/**
 * Version of the query-string schema; a link without `v` is read as this version. Version 2 (issue 22): an
 * inference link that names no runtime means the resolved runtime (auto: vLLM, llama.cpp for GGUF weights);
 * version 1 links were made before the runtime setting, when inference meant transformers with the scores
 * materialised, and are read that way (upgradeV1).
 */
export const SCHEMA_VERSION = "2";

/**
 * What a v=1 link meant, in v=2 settings: an inference link (mode=inference) that names no runtime gets
 * runtime=transformers and, unless it names one, attention=standard, the only inference model v=1 had. A v=1
 * link that names a runtime was written by the page between the runtime setting and v=2 (runtime=auto then
 * meant what it means now) and is read as it stands. Training links are unchanged.
 */
export function upgradeV1(overrides) {
  if (overrides.mode !== "inference" || Object.hasOwn(overrides, "runtime")) return overrides;
  const upgraded = { ...overrides, runtime: "transformers" };
  if (!Object.hasOwn(upgraded, "attention")) upgraded.attention = "standard";
  return upgraded;
}

/**
 * What an empty query shows: Llama 3 8B on one NVIDIA H100 80GB (the core's own default is a custom
 * seed-7B architecture on an abstract 80 GB device). A link that clears one of these carries it empty (`model=`).
 */
export const PAGE_DEFAULTS = Object.freeze({ model: "meta-llama-3-8b", gpu: "h100-80gb" });

/**
 * What a visit with an empty query is asked (issue 36): can this model run on my card? Llama 3.1 8B (Instruct),
 * the most asked-about open model of its size, served by vLLM (runtime auto) on one GeForce RTX 4090 24GB, the
 * most common 24 GB card, with 8,192 tokens of context: it fits. They are overrides over PAGE_DEFAULTS, as if
 * the visitor had chosen them, so a link keeps meaning what it meant: any query, even `?v=2` alone, is read over
 * PAGE_DEFAULTS, and the address bar stays empty while the settings are these (syncUrl). Why: docs/web.md,
 * "Default page".
 */
export const START_OVERRIDES = Object.freeze({ model: "llama-3.1-8b", mode: "inference", seq: "8192", gpu: "rtx-4090" });

/**
 * Settings with controls of their own above the page's form (web/app.js; scripts/prerender.mjs draws the same): the
 * pickers (model, gpu, units), the task picker (mode, finetune, framework, runtime) and the devices and parallel
 * split (devices, zero, tp, pp).
 */
export const OWN_CONTROLS = Object.freeze(["model", "gpu", "units", "mode", "finetune", "framework", "runtime", "devices", "zero", "tp", "pp"]);

/** Whether `search` holds nothing at all (not even `v`): the visit gets START_OVERRIDES. */
export function emptyQuery(search) {
  return search.replace(/^\?/, "") === "";
}

/** Whether `overrides` are START_OVERRIDES, key for key. */
export function isStart(overrides) {
  const keys = Object.keys(overrides);
  return keys.length === Object.keys(START_OVERRIDES).length && keys.every((key) => overrides[key] === START_OVERRIDES[key]);
}

/** The query's non-settings keys. */
const RESERVED = new Set(["v"]);

/** Longest key or value a link may carry (characters); real values (a lora_targets list) are far shorter. */
export const MAX_VALUE_LENGTH = 1000;

/** Problems listed one by one in the notice; the rest are counted in one more line. */
export const MAX_PROBLEMS = 20;

/** `text` quoted for a message, cut to 40 characters (a hostile link's 100 KB key stays one line). */
const quote = (text) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** One form-urlencoded component decoded ('+' is a space); null when its percent-encoding is not UTF-8. */
function decode(text) {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return null;
  }
}

/**
 * Reads a query string. Returns {overrides, problems}: overrides maps known keys to their text; problems lists
 * what was ignored or overruled ({setting, message}, the one error shape: docs/embedding.md) for the page's
 * notice; `setting` is "url" where the pair cannot be read. Every problem drops only its own pair:
 * a bad percent-encoding, a key or value over MAX_VALUE_LENGTH, an unknown key (keys are case-sensitive).
 * A repeated key keeps its last value (and says so); an unknown `v` is read as SCHEMA_VERSION (and says so);
 * `v=1` is read as it was meant (upgradeV1).
 */
export function readQuery(search, known_keys) {
  const overrides = {};
  const problems = [];
  const counts = new Map();
  let version = null;
  for (const pair of search.replace(/^\?/, "").split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? "" : pair.slice(eq + 1));
    if (key === null || value === null) {
      problems.push({ setting: key ?? "url", message: `bad percent-encoding in ${quote(pair)}; ignored` });
      continue;
    }
    if (key.length > MAX_VALUE_LENGTH || value.length > MAX_VALUE_LENGTH) {
      const [part, length] = key.length > MAX_VALUE_LENGTH ? ["key", key.length] : ["value", value.length];
      problems.push({ setting: key, message: `${quote(key)}: ${part} is ${length} characters long, more than ${MAX_VALUE_LENGTH}; ignored` });
      continue;
    }
    if (!RESERVED.has(key) && !known_keys.has(key)) {
      const lower = key.toLowerCase();
      const hint = lower !== key && known_keys.has(lower) ? ` (keys are lower-case: ${lower})` : "";
      problems.push({ setting: key, message: `unknown setting ${quote(key)} ignored${hint}` });
      continue;
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (key === "v") version = value;
    else overrides[key] = value;
  }
  for (const [key, count] of counts) {
    if (count < 2) continue;
    const last = key === "v" ? version : overrides[key];
    problems.push({ setting: key, message: `${quote(key)} appears ${count} times; the last value ${quote(last)} is used` });
  }
  if (version === "1") return finish(upgradeV1(overrides), problems);
  if (version !== null && version !== SCHEMA_VERSION) {
    problems.unshift({ setting: "v", message: `unknown link version ${quote(version)}; read as version ${SCHEMA_VERSION}` });
  }
  return finish(overrides, problems);
}

/** {overrides, problems}, the problems cut to MAX_PROBLEMS lines (the last one counting the rest). */
function finish(overrides, problems) {
  if (problems.length > MAX_PROBLEMS) {
    const rest = problems.length - MAX_PROBLEMS + 1;
    problems.splice(MAX_PROBLEMS - 1, rest, { setting: "url", message: `… and ${rest} more problems` });
  }
  return { overrides, problems };
}

/** The query string for `overrides`, keys in settings-table order, `v` first: "?v=2&model=…". */
export function writeQuery(overrides, key_order) {
  const params = new URLSearchParams({ v: SCHEMA_VERSION });
  for (const key of key_order) if (Object.hasOwn(overrides, key)) params.set(key, overrides[key]);
  return `?${params}`;
}

/** The page state: overrides (key -> text) and the display units; every change notifies the listeners. */
export class PageState extends EventTarget {
  #overrides = {};

  constructor(overrides = {}) {
    super();
    this.#overrides = { ...overrides };
  }

  /** A copy of the user's overrides. */
  get overrides() {
    return { ...this.#overrides };
  }

  /** The settings to estimate: page defaults, then the overrides. */
  get inputs() {
    return { ...PAGE_DEFAULTS, ...this.#overrides };
  }

  /** Replaces every override at once and notifies ("change"). */
  replace(overrides) {
    this.#overrides = { ...overrides };
    this.dispatchEvent(new Event("change"));
  }
}

/**
 * Adds a history entry for the state (an applied change: Back returns to the settings before it), marked
 * {applied: true} so the page's Undo knows it may go back.
 */
export function pushUrl(state, key_order, win = window) {
  const url = new URL(win.location.href);
  url.search = isStart(state.overrides) ? "" : writeQuery(state.overrides, key_order);
  win.history.pushState({ applied: true }, "", url);
}

/**
 * Writes the state into the address bar without adding a history entry; the start settings as an empty query
 * (START_OVERRIDES), so the first visit's address stays the bare page.
 */
export function syncUrl(state, key_order, win = window) {
  const url = new URL(win.location.href);
  url.search = isStart(state.overrides) ? "" : writeQuery(state.overrides, key_order);
  // The entry's own state stays: an applied change's entry keeps its mark (pushUrl).
  win.history.replaceState(win.history.state, "", url);
}
