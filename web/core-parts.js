// SPDX-License-Identifier: MIT
// Where the core's two parts come from (docs/wasm.md, "The page's module in two"): web/boot.js starts them for
// the page, web/engine.js for the widget's bundles.

/**
 * The core's two parts in the folder of `base` (a URL): `module`, the compile of llm-memory.first.wasm, started
 * when first read (the start page reads it at its wake: web/app.js), or `early_module`, that compile already started
 * (a link's, by index.html's head script);
 * `rest()`, which fetches llm-memory.rest.wasm (a Response); and `prefetchRest()`, which starts that fetch now
 * for a page whose first answers will need the rest (its next `rest()` takes it; a later one fetches again).
 */
export function coreParts(base, early_module = undefined) {
  const bytes = (name) => fetch(new URL(name, base), { credentials: "same-origin" });
  const first = "llm-memory.first.wasm";
  let early = null;
  let module = null;
  return {
    // A server that sends the .wasm without its MIME type fails the streaming compile: compile the bytes.
    get module() {
      return (module ??= (early_module ?? WebAssembly.compileStreaming(bytes(first))).catch(() => bytes(first).then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b))));
    },
    prefetchRest() {
      if (early) return;
      early = bytes("llm-memory.rest.wasm");
      // Its failure is the next rest()'s to report (Engine.ready), not an unhandled rejection meanwhile.
      early.catch(() => {});
    },
    rest() {
      const response = early ?? bytes("llm-memory.rest.wasm");
      early = null;
      return response;
    },
  };
}
