// SPDX-License-Identifier: MIT
// Where the core's two parts come from (docs/wasm.md, "The page's module in two"): web/boot.js starts them for
// the page, web/engine.js for the widget's bundles.

/**
 * The core's two parts in the folder of `base` (a URL): the compile of llm-memory.first.wasm, started at once,
 * and `rest()`, which fetches llm-memory.rest.wasm (a Response).
 */
export function coreParts(base) {
  const bytes = (name) => fetch(new URL(name, base), { credentials: "same-origin" });
  const first = "llm-memory.first.wasm";
  return {
    // A server that sends the .wasm without its MIME type fails the streaming compile: compile the bytes.
    module: WebAssembly.compileStreaming(bytes(first)).catch(() => bytes(first).then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b))),
    rest: () => bytes("llm-memory.rest.wasm"),
  };
}
