// SPDX-License-Identifier: MIT
// Hugging Face Hub repo ids in the model box (`meta-llama/Llama-3.1-8B`, or a pasted huggingface.co address):
// the page fetches the repo's config.json and, where the repo has them, its safetensors index and each shard's
// header (HTTP Range requests for the first bytes only, as hf-mem and huggingface.js do), and applies them as a
// dropped config.json and .safetensors would be (config-drop.js): the core's parseConfig and readCheckpoint read
// them. The id goes into the URL (`?model=org/name`) so a link reproduces it. A gated or private repo, a missing
// file or no network gives a notice naming the id; every other setting is kept. docs/web.md, "Hub repo ids".
import { writeQuery } from "../state.js";
import { MAX_CONFIG_BYTES, describeCheckpoint, readCheckpointHeader } from "./config-drop.js";
import { h, replace } from "./dom.js";

/** The only origin the page fetches from (its Content-Security-Policy allows it, and the LFS CDN *.hf.co). */
export const HUB_ORIGIN = "https://huggingface.co";

/** Most shards read (huggingface.js MAX_SHARD_COUNT, the core's max_safetensors_shards). */
export const MAX_SHARDS = 10_000;

/** Shard headers fetched at once. */
const PARALLEL = 6;

/** One part of a repo id: what huggingface_hub's validate_repo_id accepts (letters, digits, - _ .; no -- or ..; not starting or ending with - or .). */
const PART = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?$/;

/** A shard's file name as an index may give it: a plain name, no folder. */
const SHARD = /^[A-Za-z0-9][A-Za-z0-9._-]{0,250}\.safetensors$/;

/**
 * The repo id `text` names, or null: "org/name", or a huggingface.co (hf.co) address of the repo or one of its
 * pages. Checked strictly (two parts, each as PART, at most 96 characters), before any URL is built.
 */
export function parseHubId(text) {
  let id = String(text ?? "").trim();
  const address = /^(?:https?:\/\/)?(?:www\.)?(?:huggingface\.co|hf\.co)\/([^?#]*)/i.exec(id);
  if (address) id = address[1].split("/").slice(0, 2).join("/");
  const parts = id.split("/");
  if (id.length > 96 || parts.length !== 2) return null;
  if (!parts.every((part) => PART.test(part) && !part.includes("--") && !part.includes(".."))) return null;
  return id;
}

/** `file`'s address in repo `id` (checked by parseHubId) on the main branch. */
export function hubFileUrl(id, file) {
  const [org, name] = id.split("/");
  return `${HUB_ORIGIN}/${encodeURIComponent(org)}/${encodeURIComponent(name)}/resolve/main/${file.split("/").map(encodeURIComponent).join("/")}`;
}

/** A failed request, with what to tell the reader. */
class HubError extends Error {
  constructor(message, status = 0) {
    super(message);
    this.status = status;
  }
}

/** What a failed response means, in words naming the repo and the file. */
function refusal(id, file, status) {
  if (status === 401 || status === 403) {
    return `huggingface.co refused ${file} of ${id} (HTTP ${status}): the repo is gated or private, or does not exist. ` +
      "For a gated model, accept its licence on huggingface.co, download config.json and drop it here";
  }
  if (status === 404) return `${id} has no ${file} on huggingface.co (HTTP 404): check the repo id`;
  return `huggingface.co answered HTTP ${status} for ${file} of ${id}`;
}

/** fetch() with the reader's network failures as a HubError. */
async function request(fetcher, id, file, headers = {}) {
  try {
    return await fetcher(hubFileUrl(id, file), { headers, credentials: "omit", redirect: "follow" });
  } catch {
    throw new HubError(`could not reach huggingface.co for ${id}: the Hub needs a network connection ` +
      "(or the page is offline, or a Content-Security-Policy or an extension blocked it)");
  }
}

/** A small JSON file of the repo (config.json, the index), at most MAX_CONFIG_BYTES; null for a 404 when `optional`. */
async function fetchText(fetcher, id, file, { optional = false } = {}) {
  const response = await request(fetcher, id, file);
  if (optional && response.status === 404) return null;
  if (!response.ok) throw new HubError(refusal(id, file, response.status), response.status);
  const declared = Number(response.headers.get("content-length"));
  if (declared > MAX_CONFIG_BYTES) {
    await response.body?.cancel();
    throw new HubError(`${file} of ${id} has ${declared} bytes; it is read up to ${MAX_CONFIG_BYTES}`);
  }
  const text = await response.text();
  if (text.length > MAX_CONFIG_BYTES) throw new HubError(`${file} of ${id} is longer than ${MAX_CONFIG_BYTES} bytes`);
  return text;
}

/**
 * Bytes [start, end) of a repo file by an HTTP Range request, and the file's size (Content-Range). A server that
 * answers with the whole file (200) is cut off at once: a checkpoint's weights are never downloaded.
 */
async function fetchRange(fetcher, id, file, start, end) {
  const response = await request(fetcher, id, file, { Range: `bytes=${start}-${end - 1}` });
  if (response.status === 404) return null;
  if (response.status !== 206) {
    await response.body?.cancel();
    if (response.ok) throw new HubError(`huggingface.co sent the whole of ${file} of ${id} instead of its first bytes; not read`);
    throw new HubError(refusal(id, file, response.status), response.status);
  }
  const total = /^bytes \d+-\d+\/(\d+)$/.exec(response.headers.get("content-range") ?? "");
  if (!total) throw new HubError(`huggingface.co did not say the size of ${file} of ${id} (no readable Content-Range)`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > end - start) throw new HubError(`huggingface.co sent more of ${file} of ${id} than asked for`);
  return { bytes, size: Number(total[1]) };
}

/** One safetensors file's header from the Hub (readCheckpoint's answer), or null when the repo lacks it. */
async function shardHeader(fetcher, checkpoint, id, file) {
  const first = await fetchRange(fetcher, id, file, 0, 100_000);
  if (first === null) return null;
  return readCheckpointHeader(checkpoint, {
    kind: "safetensors", size: first.size, name: file,
    read: async (start, end) => {
      if (end <= first.bytes.length) return first.bytes.slice(start, end);
      const more = await fetchRange(fetcher, id, file, start, end);
      if (more === null) throw new HubError(`${file} of ${id} disappeared while it was read`);
      return more.bytes;
    },
  });
}

/** The shard names of a model.safetensors.index.json, each once, checked as plain file names. */
function shardNames(id, text) {
  let index;
  try {
    index = JSON.parse(text);
  } catch {
    throw new HubError(`model.safetensors.index.json of ${id} is not valid JSON`);
  }
  const map = index?.weight_map;
  if (map === null || typeof map !== "object" || Array.isArray(map)) throw new HubError(`model.safetensors.index.json of ${id} has no weight_map`);
  const names = [...new Set(Object.values(map))];
  if (names.length > MAX_SHARDS) throw new HubError(`model.safetensors.index.json of ${id} names ${names.length} shards; at most ${MAX_SHARDS} are read`);
  const bad = names.find((name) => typeof name !== "string" || !SHARD.test(name) || name.includes(".."));
  if (bad !== undefined) throw new HubError(`model.safetensors.index.json of ${id} names a shard that is not a plain .safetensors file name`);
  return names;
}

/** Adds one header's totals to `sum` (checkpoint_summary::add). */
function addCheckpoint(sum, one) {
  sum.tensors += one.tensors;
  sum.params += one.params;
  sum.bytes += one.bytes;
  sum.params_are_parameters &&= one.params_are_parameters;
  for (const [dtype, d] of Object.entries(one.by_dtype)) {
    const into = (sum.by_dtype[dtype] ??= { tensors: 0, params: 0, bytes: 0 });
    into.tensors += d.tensors;
    into.params += d.params;
    into.bytes += d.bytes;
  }
  return sum;
}

/** The repo's safetensors headers summed: {checkpoint, files} or null when it has no safetensors weights. */
async function fetchCheckpoint(fetcher, checkpoint, id) {
  const index = await fetchText(fetcher, id, "model.safetensors.index.json", { optional: true });
  const files = index === null ? ["model.safetensors"] : shardNames(id, index);
  const reads = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const at = next++;
      reads[at] = await shardHeader(fetcher, checkpoint, id, files[at]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, files.length) }, worker));
  if (index === null && reads[0] === null) return null;
  const sum = { tensors: 0, params: 0, bytes: 0, params_are_parameters: true, by_dtype: {} };
  for (const [at, read] of reads.entries()) {
    if (read === null) throw new HubError(`${files[at]} of ${id}, named by its index, is missing`);
    if (!read.ok) throw new HubError(read.errors.map((e) => `${e.setting}: ${e.message}`).join("; "));
    addCheckpoint(sum, read.checkpoint);
  }
  return { checkpoint: sum, files };
}

/**
 * Loads repo `id` (checked by parseHubId): {ok: true, id, settings, checkpoint, files, note} or {ok: false, id,
 * message, status}. `parse` and `checkpoint` are the engine's parseConfig and readCheckpoint; `fetcher` fetch.
 * config.json must load and parse; the safetensors headers, when they fail, leave a note and the config's count.
 */
export async function loadHubModel(id, { parse, checkpoint, fetcher = globalThis.fetch.bind(globalThis) }) {
  let settings;
  try {
    const parsed = parse(await fetchText(fetcher, id, "config.json"));
    if (!parsed.ok) {
      return { ok: false, id, status: 0, message: `config.json of ${id}: ${parsed.errors.map((e) => `${e.setting}: ${e.message}`).join("; ")}` };
    }
    settings = parsed.settings;
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    return { ok: false, id, status: error.status, message: error.message };
  }
  try {
    const read = await fetchCheckpoint(fetcher, checkpoint, id);
    if (read === null) return { ok: true, id, settings, checkpoint: null, files: [], note: "no safetensors weights in the repo: the count is computed from config.json" };
    // As the CLI's --safetensors: the headers' element count is the parameter count unless integers pack several values.
    if (read.checkpoint.params_are_parameters) settings = { ...settings, params: String(read.checkpoint.params) };
    return { ok: true, id, settings, checkpoint: read.checkpoint, files: read.files, note: "" };
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    return { ok: true, id, settings, checkpoint: null, files: [], note: `safetensors headers not read (${error.message}): the count is computed from config.json` };
  }
}

/**
 * The model box's Hub side on the page: takes a repo id typed into the model search (Enter or leaving the box)
 * or given by the link, loads it, applies it through `edit` as a dropped config.json would be, says where the
 * settings came from (or what failed), and keeps the id in the URL while the settings are the repo's.
 */
export class HubModel {
  #status;
  #app;
  #active = null;
  #loading = 0;

  /**
   * `app`: {engine, state, keys, model_keys, edit(changes, {clear})}; `picker`: the model picker's container,
   * after which the status line goes; `fetcher`: fetch (tests may pass another).
   */
  constructor(app, picker, { fetcher } = {}) {
    this.#app = app;
    this.fetcher = fetcher;
    this.#status = h("div", { class: "hub-status picker-info", id: "hub-status", role: "status", "aria-live": "polite" });
    picker.after(this.#status);
    // Captured before the picker's own listener, which would call a repo id "no preset".
    picker.addEventListener("change", (event) => {
      if (event.target?.id !== "model-search") return;
      const id = parseHubId(event.target.value);
      if (id === null) return;  // preset ids hold no "/"
      event.stopPropagation();
      this.load(id);
    }, true);
  }

  /** The repo id whose settings are shown, or null. */
  get id() {
    return this.#active?.id ?? null;
  }

  /** Fetches and applies repo `id`. `keep`: model-group overrides (from the link) that stay over the repo's. */
  async load(id, { keep = {} } = {}) {
    const ticket = ++this.#loading;
    const app = this.#app;
    replace(this.#status, `Fetching ${id} from huggingface.co…`);
    this.#status.classList.remove("field-error");
    const result = await loadHubModel(id, {
      parse: (text) => app.engine.parseConfig(text),
      checkpoint: (...args) => app.engine.readCheckpoint(...args),
      fetcher: this.fetcher,
    });
    if (ticket !== this.#loading) return result;  // another id was asked for meanwhile
    if (!result.ok) {
      this.#status.classList.add("field-error");
      this.#status.setAttribute("role", "alert");
      replace(this.#status, `Could not load ${id}: ${result.message}. Every other setting is kept.`);
      if (Object.keys(keep).length) app.edit(keep);
      return result;
    }
    this.#status.setAttribute("role", "status");
    this.#active = { id, settings: result.settings };
    app.edit({ model: "", ...result.settings, ...keep }, { clear: app.model_keys });
    const source = h("a", { href: `${HUB_ORIGIN}/${id}`, rel: "noopener noreferrer", target: "_blank", text: `huggingface.co/${id}` });
    const weights = result.checkpoint
      ? ` · ${result.files.length === 1 ? result.files[0] : `${result.files.length} safetensors shards`}: ${describeCheckpoint(result.checkpoint)}`
      : ` · ${result.note}`;
    replace(this.#status, "From ", source, `: config.json (${Object.keys(result.settings).length} settings)${weights}`);
    return result;
  }

  /** Stops holding the id (another model or config was chosen). */
  forget() {
    this.#active = null;
    this.#loading += 1;
    replace(this.#status);
  }

  /**
   * The query for `overrides` with the repo's settings folded into `model=ORG/NAME` while they are still the
   * repo's (a setting changed since stays as its own key, over the repo's on reopening); null when no repo is held.
   */
  query(overrides) {
    const active = this.#active;
    if (!active || overrides.model !== "") return null;
    const kept = { ...overrides, model: active.id };
    for (const [key, value] of Object.entries(active.settings)) if (kept[key] === value) delete kept[key];
    return writeQuery(kept, this.#app.keys);
  }

  /** Rewrites the address bar (after the page's syncUrl) to hold the repo id; forgets it once the model is another. */
  syncUrl(win = window) {
    const overrides = this.#app.state.overrides;
    if (this.#active && overrides.model !== "") this.forget();
    const query = this.query(overrides);
    if (query === null) return;
    const url = new URL(win.location.href);
    url.search = query;
    win.history.replaceState(null, "", url);
  }
}

/**
 * Takes a repo id out of a link's overrides (`model=org/name` is not a preset the core knows): returns
 * {id, keep} (keep: the link's other model-group settings, applied over the repo's) or null, and deletes
 * `model` (and those settings) from `overrides` so the rest of the link loads while the repo is fetched.
 */
export function takeHubId(overrides, model_keys) {
  if (!Object.hasOwn(overrides, "model")) return null;
  const id = parseHubId(overrides.model);
  if (id === null || !overrides.model.includes("/")) return null;
  delete overrides.model;
  const keep = {};
  for (const key of model_keys) {
    if (!Object.hasOwn(overrides, key)) continue;
    keep[key] = overrides[key];
    delete overrides[key];
  }
  return { id, keep };
}
