// SPDX-License-Identifier: MIT
// Bundles the widget (web/widget*.js) and the iframe embed with esbuild into dist/ (docs/embedding.md):
//   dist/widget.js          <llm-memory>, defined on import; ONE ES module, fetches the core beside it
//                           (llm-memory.first.wasm and, for a heatmap, llm-memory.rest.wasm; docs/wasm.md)
//   dist/widget-element.js  the class only (LlmMemoryElement.define(tag, registry) registers it)
//   dist/widget.single.js   as widget.js with the wasm inlined: one self-contained file, no .wasm to host
//   dist/widget.d.ts        the element's types
//   dist/embed.html + embed.js   the iframe calculator (embed.js imports ./widget.js, so a page loads it once)
//   dist/examples/          web/examples/, a blog post with three widgets
// Expects the wasm modules in dist/ (scripts/build-wasm.sh); scripts/build-web.mjs runs this after the page.
import { cp, mkdir, readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { BROWSER_BUNDLE, cssText, dist, wasmModule, web } from "./esbuild-common.mjs";

/** Leaves embed.js's import of the widget to the browser, aimed at dist/widget.js. */
const widgetExternal = {
  name: "llm-memory-widget-external",
  setup(build) {
    build.onResolve({ filter: /^\.\/widget(-define)?\.js$/ }, () => ({ path: "./widget.js", external: true }));
  },
};

const parts = wasmModule("llm-memory.js", { coreParts: true });
await esbuild.build({ ...BROWSER_BUNDLE, entryPoints: [`${web}/widget-define.js`], outfile: `${dist}/widget.js`, plugins: [cssText, parts] });
await esbuild.build({ ...BROWSER_BUNDLE, entryPoints: [`${web}/widget.js`], outfile: `${dist}/widget-element.js`, plugins: [cssText, parts] });
await esbuild.build({ ...BROWSER_BUNDLE, entryPoints: [`${web}/widget-define.js`], outfile: `${dist}/widget.single.js`, plugins: [cssText, wasmModule("llm-memory.single.js")] });
await esbuild.build({ ...BROWSER_BUNDLE, entryPoints: [`${web}/embed.js`], outfile: `${dist}/embed.js`, plugins: [cssText, widgetExternal] });
await cp(`${web}/embed.html`, `${dist}/embed.html`);
await cp(`${web}/widget.d.ts`, `${dist}/widget.d.ts`);
await mkdir(`${dist}/examples`, { recursive: true });
await cp(`${web}/examples`, `${dist}/examples`, { recursive: true });

const embed = await readFile(`${dist}/embed.js`, "utf8");
if (!embed.includes('"./widget.js"')) throw new Error("dist/embed.js must import ./widget.js, not carry its own copy");
for (const file of ["widget.js", "widget-element.js", "widget.single.js", "embed.js", "embed.html"]) {
  const bytes = await readFile(`${dist}/${file}`);
  console.log(`${file.padEnd(18)} ${String(bytes.length).padStart(9)} B raw ${String(gzipSync(bytes, { level: 9 }).length).padStart(9)} B gzip`);
}
