// SPDX-License-Identifier: MIT
// "What runs on my machine" ranked off the page's main thread (issue 34 item 3: the first ranking of a machine is
// 150-330 ms of wasm, one long task on the page): the core's fits() on this Worker's own Engine (web/engine.js),
// its two parts and the catalogue fetched beside this script (the page's own files, revalidated from the HTTP
// cache). ui/fits-ranker.js posts {id, request} and takes {id, answer}; {id, answer: null} says this Worker cannot
// rank (its core did not start), and the page ranks on its main thread instead. A message may carry `module`, the
// page's compile of the core's first part: the Engine starts from it (as the page's does from web/boot.js's),
// else it fetches and compiles that part itself. Bundled to dist/fits-worker.js (scripts/build-web.mjs), the glue
// built to load the core's two parts from its own folder.
import { coreParts } from "./core-parts.js";
import { createEngine } from "./engine.js";

/** The Engine, created on the first request; a start that failed is tried again by the next. */
let engine = null;

async function answer(request, module) {
  try {
    if (!engine && module instanceof WebAssembly.Module) {
      globalThis.llmMemoryBoot = { module: Promise.resolve(module), rest: coreParts(self.location.href).rest, presets: [] };
    }
    engine ??= createEngine({ presets: [] });
    return await (await engine).fits(request);
  } catch {
    engine = null;
    return null;
  }
}

self.onmessage = async ({ data }) => {
  self.postMessage({ id: data.id, answer: await answer(data.request, data.module) });
};
