// SPDX-License-Identifier: MIT
// Hugging Face Hub repo ids in the model box (`meta-llama/Llama-3.1-8B`, or a pasted huggingface.co address):
// the page fetches the repo's config.json and, where the repo has them, its safetensors index and each shard's
// header (HTTP Range requests for the first bytes only, as hf-mem and huggingface.js do), and applies them as a
// dropped config.json and .safetensors would be (config-drop.js): the core's parseConfig and readCheckpoint read
// them. The id goes into the URL (`?model=org/name`) so a link reproduces it. A gated or private repo, a missing
// file or no network gives a notice naming the id; every other setting is kept. docs/web.md, "Hub repo ids".
// The fetching and reading (hub-load.js) is imported when a repo id is first given (docs/web.md, "Start-up").
import { writeQuery } from "../state.js";
import { h, replace } from "./dom.js";

/** One part of a repo id: what huggingface_hub's validate_repo_id accepts (letters, digits, - _ .; no -- or ..; not starting or ending with - or .). */
const PART = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?$/;

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
   * `app`: {engine, state, keys, model_keys, edit(changes, {clear}), isPreset(text)}; `picker`: the model picker's
   * container, after which the status line goes; `fetcher`: fetch (tests may pass another).
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
      // Preset ids hold no "/"; a preset's own repo id or alias opens the preset, offline (the picker's).
      if (id === null || app.isPreset?.(event.target.value)) return;
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
    let loader;
    try {
      loader = await import("./hub-load.js");
    } catch {
      loader = { loadHubModel: async () => ({ ok: false, id, status: 0, message: "the page's Hub loader could not be fetched (no network?)" }) };
    }
    const { HUB_ORIGIN, describeCheckpoint, loadHubModel } = loader;
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
    win.history.replaceState(win.history.state, "", url);
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
