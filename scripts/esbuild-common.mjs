// SPDX-License-Identifier: MIT
// What scripts/build-web.mjs (the page) and scripts/build-widget.mjs (the widget) bundle with in common.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

export const root = fileURLToPath(new URL("..", import.meta.url));
// LLM_MEMORY_DIST: another output folder (holding the wasm modules), e.g. to build beside a running dist/.
export const dist = process.env.LLM_MEMORY_DIST ?? `${root}dist`;
export const web = `${root}web`;

// The glue's node-only branches name node modules; they never run in a browser.
const NODE_ONLY = ["fs", "path", "crypto", "url", "ws", "worker_threads", "node:fs/promises"];

/** The options every browser bundle of the page and the widget is built with. */
export const BROWSER_BUNDLE = {
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome100", "firefox100", "safari15"],
  minify: true,
  legalComments: "none",
  external: NODE_ONLY,
  logLevel: "warning",
};

/**
 * Points engine.js's `import … from "./llm-memory.js"` at one of the built wasm modules in dist. `coreParts`:
 * the bundle loads the core's two parts from its own folder (globalThis.LLM_MEMORY_CORE_PARTS, replaced by a
 * constant; web/engine.js, createEngine):
 * the widget's bundles beside llm-memory.js; the page's web/boot.js starts them itself.
 */
export function wasmModule(file, { coreParts = false } = {}) {
  return {
    name: "llm-memory-wasm",
    setup(build) {
      build.initialOptions.define = { ...build.initialOptions.define, "globalThis.LLM_MEMORY_CORE_PARTS": String(coreParts) };
      build.onResolve({ filter: /^\.\/llm-memory\.js$/ }, () => ({ path: `${dist}/${file}` }));
    },
  };
}

/**
 * `import TEXT from "./x.css"` gives the stylesheet as minified text (comments dropped), for a shadow root's or
 * a document's constructed stylesheet: ui/widget-styles.js (palette.css, results.css) and embed.js (palette.css).
 */
export const cssText = {
  name: "llm-memory-css-text",
  setup(build) {
    build.onLoad({ filter: /\.css$/ }, async ({ path }) => {
      const { code } = await esbuild.transform(await readFile(path, "utf8"), { loader: "css", minify: true });
      return { contents: code, loader: "text" };
    });
  },
};
