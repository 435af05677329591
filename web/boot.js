// SPDX-License-Identifier: MIT
// index.html holds the default settings' result, prerendered at build time (scripts/prerender.mjs), hidden
// until this module has seen that the link carries no settings (html[data-default]; styles.css). It is listed
// with blocking="render", so where that is supported (Chromium) it runs before the first paint and the result
// is on the first frame; elsewhere the result shows a moment later. Never on a link with settings: that one
// waits for app.js to draw its own.
//
// It also prepares what the core needs (docs/performance.md, "Start-up"): the compile of the core's first part,
// llm-memory.first.wasm, handed to the engine as globalThis.llmMemoryBoot with a way to fetch the rest
// (web/engine.js; docs/wasm.md, "The page's module in two"), and the model presets the first estimate may name
// (the link's and the page's default), preloaded so the engine's fetches of them are answered at once; on a link
// with settings, the rest too (below). On a link with settings that compile starts now; the start page, whole
// in index.html, starts it at its wake (the visitor's first action or its first idle period: web/app.js,
// web/wake.js), and says so (llmMemoryBoot.deferred). The single-file page has no .wasm to fetch (index.html's
// meta llm-memory-core names it) and skips all of it.
import { coreParts } from "./core-parts.js";
import { PAGE_DEFAULTS, START_OVERRIDES } from "./state.js";

// Only an empty query is the start page (START_OVERRIDES); `?v=2` alone means PAGE_DEFAULTS, as it always has.
const params = new URLSearchParams(location.search);
const empty = [...params.keys()].length === 0;
if (empty) document.documentElement.dataset.default = "";

/**
 * The preset file a model name reads (models/<name>.json exists for every id and alias): as the core reads the
 * name (core/src/presets.cpp model_key), lower case, without "-hf".
 */
function modelKey(text) {
  const key = text.trim().toLowerCase();
  return key.endsWith("-hf") ? key.slice(0, -3) : key;
}

const core = document.querySelector('meta[name="llm-memory-core"]');
if (core && typeof WebAssembly === "object" && WebAssembly.compileStreaming) {
  // A link's compile was started by index.html's head script, before the body was parsed.
  const parts = coreParts(new URL(core.content, document.baseURI).href, globalThis.llmMemoryEarly?.module);
  if (empty) {
    // The start page: nothing before the wake. Its preset is read with the core then (Engine's load).
    globalThis.llmMemoryBoot = { get module() { return parts.module; }, rest: parts.rest, prefetchRest: parts.prefetchRest, presets: [START_OVERRIDES.model], deferred: true };
  } else {
    // The link's model, and the page's default, which stands in when the link's is not a preset (Engine.sanitise).
    // A Hub repo id ("org/name") may be no preset at all: web/ui/link-model.js looks it up first, rather than
    // asking for a file that may not exist.
    const given = params.get("model") ?? PAGE_DEFAULTS.model;
    const named = given.includes("/") ? PAGE_DEFAULTS.model : modelKey(given);
    const presets = [...new Set([named, PAGE_DEFAULTS.model])].filter((id) => /^[a-z0-9][a-z0-9._-]{0,99}$/.test(id));
    // Preloaded: those presets, which the page's module reads beside it (docs/wasm.md); the settings' help texts
    // wait for a visitor's first pointer or focus on a form (Engine.settingDocs).
    for (const href of presets.map((id) => `models/${id}.json`)) {
      const link = Object.assign(document.createElement("link"), { rel: "preload", as: "fetch", href });
      link.crossOrigin = "anonymous";
      document.head.append(link);
    }
    // The first part's compile, now; and the rest, whose answers (the solver, the knob search) a link with
    // settings needs for its verdict at once, so its fetch starts now, beside the first part's.
    void parts.module;
    parts.prefetchRest();
    globalThis.llmMemoryBoot = { module: parts.module, rest: parts.rest, prefetchRest: parts.prefetchRest, presets };
  }
}

// The start page's collapsed groups hold their prerendered body in an inert <template data-body>
// (scripts/prerender.mjs): opened before the core runs (a click on the summary, or any other way), a group gets
// it at once, before the open group is painted. At the wake the live controls replace them (web/wake.js).
const unpack = (details) => {
  const body = details?.localName === "details" ? details.querySelector(":scope > template[data-body]") : null;
  body?.replaceWith(body.content);
};
document.addEventListener("click", (event) => unpack(event.target.closest?.("summary")?.parentElement), true);
document.addEventListener("toggle", (event) => unpack(event.target), true);
