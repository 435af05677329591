// SPDX-License-Identifier: MIT
// A link whose model is a Hub repo id that names a preset (`?model=Qwen/Qwen3-14B`,
// `?model=meta-llama/Llama-3.1-8B-Instruct`, any case) opens the preset offline, as the model box does (docs/web.md,
// "A model named in the link"). Imported by web/app.js only for a link whose model holds "/", before the page
// starts, so the first load of any other page does not carry it.

/**
 * The page's core holds only the presets its first estimate names, and a repo id may be no preset at all, so the map
 * of preset names (dist/model-aliases.json, scripts/model-aliases.mjs; about 3 KB gzip) is read, the preset it
 * names is read, and the link is rewritten with the preset's id (history.replaceState) for the page to read. A
 * repo that is no preset is left as it is, for the Hub loader (web/ui/hub.js takeHubId).
 */
export async function openLinkPreset(engine, win = window) {
  const url = new URL(win.location.href);
  const model = url.searchParams.get("model").trim();
  // The single file (no .wasm beside it: no meta llm-memory-core) has every preset compiled in.
  const split = win.document.querySelector('meta[name="llm-memory-core"]');
  let id = null;
  if (split && !engine.resolve({ model }).ok) {
    // The name as the core reads it (core/src/presets.cpp model_key): after the last "/", without "-hf".
    const name = model.toLowerCase().slice(model.lastIndexOf("/") + 1);
    const key = name.endsWith("-hf") ? name.slice(0, -3) : name;
    try {
      const names = await (await fetch(new URL("model-aliases.json", win.document.baseURI))).json();
      if (typeof names[key] === "string") await engine.loadPresets([(id = names[key])]);
    } catch {
      // No map (offline): the repo id goes to the Hub loader, which says what failed.
    }
  }
  // By the id: the engine keeps the answer of the name's first resolve, from before the preset was read.
  const resolved = engine.resolve({ model: id ?? model });
  if (!resolved.ok) return;
  url.searchParams.set("model", resolved.settings.model);
  win.history.replaceState(win.history.state, "", url);
}
