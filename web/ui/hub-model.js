// SPDX-License-Identifier: MIT
// A Hugging Face Hub repo id's settings on the page (docs/web.md, "Hub repo ids"): fetched and read (hub-load.js,
// imported on the first id), applied, and kept in the URL while they are the repo's. A chunk of its own, imported
// by hub.js HubBox when a repo id is first given (docs/web.md, "Start-up").
import { writeQuery } from "../state.js";
import { h, replace } from "./dom.js";

/**
 * The model box's Hub side on the page: given a repo id typed into the model search or given by the link
 * (hub.js HubBox), loads it, applies it through `edit` as a dropped config.json would be, says where the
 * settings came from (or what failed), and keeps the id in the URL while the settings are the repo's.
 */
export class HubModel {
  #status;
  #app;
  #active = null;
  #loading = 0;

  /**
   * `app`: {engine, state, keys, model_keys, edit(changes, {clear}), isPreset(text)}; `status`: the status line
   * under the model picker (hub.js HubBox); `fetcher`: fetch (tests may pass another).
   */
  constructor(app, status, { fetcher } = {}) {
    this.#app = app;
    this.fetcher = fetcher;
    this.#status = status;
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
