// SPDX-License-Identifier: MIT
// Hugging Face Hub repo ids in the model box (`meta-llama/Llama-3.1-8B`, or a pasted huggingface.co address):
// the page fetches the repo's config.json and, where the repo has them, its safetensors index and each shard's
// header (HTTP Range requests for the first bytes only, as hf-mem and huggingface.js do), and applies them as a
// dropped config.json and .safetensors would be (config-drop.js): the core's parseConfig and readCheckpoint read
// them. The id goes into the URL (`?model=org/name`) so a link reproduces it. A gated or private repo, a missing
// file or no network gives a notice naming the id; every other setting is kept. docs/web.md, "Hub repo ids".
// The holding of a repo's settings (hub-model.js) and their fetching and reading (hub-load.js) are imported when a
// repo id is first given (docs/web.md, "Start-up").
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
 * The model box's Hub side on the page, before its code is in: a repo id typed into the model search (Enter or
 * leaving the box) or given by the link loads hub-model.js (a chunk of its own) and hands it the id; until then
 * no repo is held, so there is nothing to forget or to write into the URL.
 */
export class HubBox {
  #app;
  #picker;
  #status;
  /** The import of hub-model.js and its HubModel, once a repo id was given; `#held`: that HubModel, once made. */
  #model = null;
  #held = null;

  /** `app` and `picker` as HubModel's (hub-model.js); `fetcher`: fetch (tests may pass another). */
  constructor(app, picker, { fetcher } = {}) {
    this.#app = app;
    this.#picker = picker;
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

  /** Fetches and applies repo `id` (HubModel.load); resolves to its result. */
  async load(id, options) {
    let model;
    try {
      model = await (this.#model ??= import("./hub-model.js")
        .then(({ HubModel }) => (this.#held = new HubModel(this.#app, this.#status, { fetcher: this.fetcher }))));
    } catch {
      this.#model = null;
      this.#status.classList.add("field-error");
      replace(this.#status, `Could not load ${id}: the page's Hub loader could not be fetched (no network?). Every other setting is kept.`);
      return { ok: false, id, status: 0 };
    }
    return model.load(id, options);
  }

  /** Stops holding the repo id (another model or config was chosen). */
  forget() {
    if (this.#held) this.#held.forget();
    else this.#model?.then((model) => model.forget(), () => {});
  }

  /** Rewrites the address bar to hold the repo id while one is held (HubModel.syncUrl), at once (Copy link reads it). */
  syncUrl(win = window) {
    this.#held?.syncUrl(win);
  }
}

/**
 * Takes a repo id out of a link's overrides (`model=org/name` is not a preset the core knows): returns
 * {id, keep} (keep: the link's other model-group settings, applied over the repo's) or null, and deletes
 * `model` (and those settings) from `overrides` so the rest of the link loads while the repo is fetched.
 * `modelKeys()`: the model group's keys, asked for only when there is a repo id (they come from the settings'
 * schema, which a link with a preset reads after its verdict is painted: docs/web.md, "Start-up").
 */
export function takeHubId(overrides, modelKeys) {
  if (!Object.hasOwn(overrides, "model")) return null;
  const id = parseHubId(overrides.model);
  if (id === null || !overrides.model.includes("/")) return null;
  delete overrides.model;
  const keep = {};
  for (const key of modelKeys()) {
    if (!Object.hasOwn(overrides, key)) continue;
    keep[key] = overrides[key];
    delete overrides[key];
  }
  return { id, keep };
}
