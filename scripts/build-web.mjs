// SPDX-License-Identifier: MIT
// Bundles the page (web/) with esbuild into dist/:
//   dist/index.html, app.js, styles.css                     the hosted page: it fetches llm-memory.first.wasm
//                                                           beside app.js, and llm-memory.rest.wasm when an
//                                                           answer needs it (web/engine.js)
//   dist/chunks/                                            its code split off app.js: imported on a user action,
//                                                           or shared with those parts (preloaded with app.js)
//   dist/checkpoint-worker.js, fits-worker.js               the Workers that read big headers and rank the catalogue
//   dist/llm-memory.html                                    ONE self-contained file: JS, CSS and wasm inlined
// Expects the wasm modules in dist/ (scripts/build-wasm.sh puts them there); scripts/build-web.sh runs both.
// Content-Security-Policy of each output: docs/web.md, "Security".
import { createHash } from "node:crypto";
import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { BROWSER_BUNDLE, dist, wasmModule, web } from "./esbuild-common.mjs";
import { writeModelAliases } from "./model-aliases.mjs";
import { prerenderResults } from "./prerender.mjs";

/**
 * The settings' keys in table order, from the core this build bundles (its schema): the page reads a link against
 * them before the engine reads its schema, which waits until after the link's verdict is painted (web/engine.js,
 * globalThis.LLM_MEMORY_SETTING_KEYS; docs/performance.md, s14-link).
 */
const setting_keys = (await (await import(pathToFileURL(`${dist}/llm-memory.js`).href)).load()).settingsSchema().map((row) => row.key);
const app_options = {
  ...BROWSER_BUNDLE, entryPoints: { app: `${web}/app.js` },
  define: { ...BROWSER_BUNDLE.define, "globalThis.LLM_MEMORY_SETTING_KEYS": JSON.stringify(setting_keys) },
};

/** Where the hosted page's chunks go (emptied first: their names change with their content). */
const CHUNKS = "chunks";

/**
 * The hosted page's script, split: dist/app.js and dist/chunks/, the chunks app.js imports (the code it shares
 * with the lazy parts) and those it import()s on a user action (docs/web.md, "Start-up"). Returns the chunks
 * app.js imports at once, to preload beside it.
 */
async function hostedBundle() {
  await rm(`${dist}/${CHUNKS}`, { recursive: true, force: true });
  const result = await esbuild.build({
    ...app_options, plugins: [wasmModule("llm-memory.js")], splitting: true, outdir: dist,
    chunkNames: `${CHUNKS}/[name]-[hash]`, metafile: true,
  });
  const app = Object.values(result.metafile.outputs).find((output) => output.entryPoint?.endsWith("web/app.js"));
  // The glue finds llm-memory.wasm, models/ and the docs beside itself (import.meta.url): it must be in app.js.
  if (!Object.keys(app.inputs).some((input) => input.endsWith("llm-memory.js"))) throw new Error("the wasm glue is not in dist/app.js");
  // ui/checkpoint-read.js starts its Worker at "../checkpoint-worker.js" from itself: it must be a chunk.
  const reader = Object.entries(result.metafile.outputs).find(([, output]) => Object.keys(output.inputs).some((input) => input.endsWith("web/ui/checkpoint-read.js")));
  if (!reader?.[0].includes(`/${CHUNKS}/`)) throw new Error("web/ui/checkpoint-read.js is not in a chunk of dist/chunks/");
  // Likewise ui/fits-ranker.js, at "../fits-worker.js".
  const ranker = Object.entries(result.metafile.outputs).find(([, output]) => Object.keys(output.inputs).some((input) => input.endsWith("web/ui/fits-ranker.js")));
  if (!ranker?.[0].includes(`/${CHUNKS}/`)) throw new Error("web/ui/fits-ranker.js is not in a chunk of dist/chunks/");
  return app.imports.filter((i) => i.kind === "import-statement").map((i) => i.path.slice(i.path.lastIndexOf(`${CHUNKS}/`)));
}

/**
 * The Worker that reads big checkpoint headers (web/checkpoint-worker.js, started by ui/checkpoint-read.js):
 * dist/checkpoint-worker.js, the whole module's glue inlined, llm-memory.wasm fetched beside it.
 */
async function workerBundle() {
  await esbuild.build({
    ...BROWSER_BUNDLE, entryPoints: [`${web}/checkpoint-worker.js`], plugins: [wasmModule("llm-memory.js")],
    outfile: `${dist}/checkpoint-worker.js`,
  });
}

/**
 * The Worker that ranks "What runs on my machine" (web/fits-worker.js, started by ui/fits-ranker.js):
 * dist/fits-worker.js, the glue inlined and built to load the core's two parts and the catalogue beside it, the
 * files the page itself fetched (revalidated from the HTTP cache).
 */
async function fitsWorkerBundle() {
  await esbuild.build({
    ...BROWSER_BUNDLE, entryPoints: [`${web}/fits-worker.js`], plugins: [wasmModule("llm-memory.js", { coreParts: true })],
    outfile: `${dist}/fits-worker.js`,
  });
}

/** The offline single file's script: one module, the lazy parts inlined (a file:// page fetches no chunk). */
async function singleBundle() {
  const result = await esbuild.build({ ...app_options, plugins: [wasmModule("llm-memory.single.js")], outfile: "app.js", write: false });
  return result.outputFiles[0].text;
}

async function css() {
  // bundle: styles.css @imports ui/results.css, the rules it shares with the widget.
  const result = await esbuild.build({ entryPoints: [`${web}/styles.css`], bundle: true, minify: true, write: false, logLevel: "warning" });
  return result.outputFiles[0].text;
}

/** web/boot.js minified: a render-blocking module, bundled (it takes the page's default model from state.js). */
async function boot() {
  const result = await esbuild.build({
    entryPoints: [`${web}/boot.js`], bundle: true, minify: true, legalComments: "none", format: "esm",
    target: "es2020", write: false, logLevel: "warning",
  });
  return result.outputFiles[0].text;
}

const APP_SCRIPT = '<script type="module" src="app.js"></script>';
const sha256 = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** Replaces exactly one occurrence of `from` (the build must fail loudly when the template changes). */
function replaceOnce(text, from, to) {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + from.length) >= 0) throw new Error(`web/index.html: expected one ${JSON.stringify(from)}`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

const template = await prerenderResults(await readFile(`${web}/index.html`, "utf8"), dist);
// web/index.html's one inline script (a link marked before the body parses), allowed by its hash in the CSP there.
const head_script = template.match(/<script>([^<]*)<\/script>/)?.[1];
if (!head_script || !template.includes(`script-src 'self' ${sha256(head_script)} `)) {
  throw new Error(`web/index.html: its inline script's hash is not in its CSP's script-src: ${head_script ? sha256(head_script) : "no inline script"}`);
}
const styles = await css();
const boot_script = await boot();

// The hosted page: scripts and styles from the same origin, the .wasm fetched from it. The chunks app.js
// imports at once are preloaded beside it (not those imported on a user action).
const shared = await hostedBundle();
await workerBundle();
await fitsWorkerBundle();
const preloads = shared.map((file) => `<link rel="modulepreload" href="${file}">\n`).join("");
await writeFile(`${dist}/styles.css`, styles);
await writeFile(`${dist}/boot.js`, boot_script);
await writeFile(`${dist}/index.html`, replaceOnce(template, APP_SCRIPT, `${APP_SCRIPT}\n${preloads}`.trimEnd()));

// The single file: the inline scripts and the inline style are allowed by their hashes, nothing else.
const script = await singleBundle();
for (const inline of [script, boot_script]) {
  if (/<\/script|<!--/i.test(inline)) throw new Error("an inline script holds </script or <!--");
}
const csp_single = [
  "default-src 'none'",
  `script-src ${sha256(head_script)} ${sha256(boot_script)} ${sha256(script)} 'wasm-unsafe-eval'`,
  `style-src ${sha256(styles)}`,
  // Emscripten 3.1.6's SINGLE_FILE glue fetch()es its own data: URL for the wasm bytes.
  "connect-src data:",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");
let single = template;
single = single.replace(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, `<meta http-equiv="Content-Security-Policy" content="${csp_single}">`);
single = replaceOnce(single, '<link rel="stylesheet" href="styles.css">', `<style>${styles}</style>`);
single = replaceOnce(single, '<meta name="llm-memory-core" content="llm-memory.first.wasm">\n', "");
single = replaceOnce(single, '<script type="module" src="boot.js" blocking="render"></script>', `<script type="module" blocking="render">${boot_script}</script>`);
single = replaceOnce(single, APP_SCRIPT, `<script type="module">${script}</script>`);
await writeFile(`${dist}/llm-memory.html`, single);
// A link that names a preset by an alias: the map the page reads then (scripts/model-aliases.mjs).
await writeModelAliases(dist);

const chunks = (await readdir(`${dist}/${CHUNKS}`)).map((file) => `${CHUNKS}/${file}`);
for (const file of ["index.html", "boot.js", "app.js", ...chunks, "checkpoint-worker.js", "fits-worker.js", "styles.css", "llm-memory.first.wasm", "llm-memory.rest.wasm", "llm-memory.html"]) {
  const bytes = await readFile(`${dist}/${file}`);
  console.log(`${file.padEnd(30)} ${String(bytes.length).padStart(9)} B raw ${String(gzipSync(bytes, { level: 9 }).length).padStart(9)} B gzip`);
}

// The widget (<llm-memory>) and the iframe embed use the same modules; they are bundled beside the page.
await import("./build-widget.mjs");
