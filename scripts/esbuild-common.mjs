// SPDX-License-Identifier: MIT
// What scripts/build-web.mjs (the page) and scripts/build-widget.mjs (the widget) bundle with in common.
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));
// LLM_MEMORY_DIST: another output folder (holding the wasm modules), e.g. to build beside a running dist/.
export const dist = process.env.LLM_MEMORY_DIST ?? `${root}dist`;
export const web = `${root}web`;

// The glue's node-only branches name node modules; they never run in a browser.
export const NODE_ONLY = ["fs", "path", "crypto", "url", "ws", "worker_threads", "node:fs/promises"];

/** Points engine.js's `import … from "./llm-memory.js"` at one of the built wasm modules in dist. */
export function wasmModule(file) {
  return {
    name: "llm-memory-wasm",
    setup(build) {
      build.onResolve({ filter: /^\.\/llm-memory\.js$/ }, () => ({ path: `${dist}/${file}` }));
    },
  };
}
