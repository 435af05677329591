// SPDX-License-Identifier: MIT
// The JavaScript API of llm-memory; types and units in llm-memory.d.ts, design in docs/wasm.md.
// CMake appends this file to the Emscripten glue (--extern-post-js), after `llm_memory_core` (the module
// factory) and `llm_memory_wasm_file` (the .wasm beside this module, or null when it is inlined), so each
// build is one ES module exporting `load`.

let llm_memory_default_api;

/**
 * Instantiates the WebAssembly core and resolves to the synchronous API. Without options the instance is
 * shared by every caller of the page; options (Emscripten module settings such as wasmBinary) give a new one.
 */
export function load(options) {
  if (options === undefined) return (llm_memory_default_api ??= llm_memory_instantiate({}));
  return llm_memory_instantiate(options);
}

async function llm_memory_instantiate(options) {
  const module_settings = { ...options };
  const url = llm_memory_wasm_file === null ? null : new URL(llm_memory_wasm_file, import.meta.url);
  if (url !== null && url.protocol === "file:" && module_settings.wasmBinary === undefined &&
      typeof process === "object" && typeof process.versions?.node === "string") {
    // Node's fetch cannot read file: URLs, and the 3.1.6 glue's own reader calls require(), which ES
    // modules lack: hand it the bytes.
    const { readFile } = await import("node:fs/promises");
    module_settings.wasmBinary = await readFile(url);
  }
  return llm_memory_wrap(await llm_memory_core(module_settings));
}

// The raw bindings return JSON text (the CLI's --json shape); the API returns plain objects.
function llm_memory_wrap(core) {
  const once = (compute) => {
    let text;
    return () => JSON.parse((text ??= compute()));
  };
  // The core's advice and solve objects carry no "ok"; errors come as {ok: false, errors}.
  const with_ok = (value) => (value.ok === false ? value : { ok: true, ...value });
  const config_text = (config) => (typeof config === "string" ? config : JSON.stringify(config) ?? "");
  return Object.freeze({
    estimateJson: (settings, config) => core.estimate(settings ?? {}, config ?? {}),
    estimate: (settings, config) => JSON.parse(core.estimate(settings ?? {}, config ?? {})),
    resolve: (settings, config) => JSON.parse(core.resolve(settings ?? {}, config ?? {})),
    advise: (settings, config) => with_ok(JSON.parse(core.advise(settings ?? {}, config ?? {}))),
    solve: (settings, config) => with_ok(JSON.parse(core.solve(settings ?? {}, config ?? {}))),
    settingsSchema: once(() => core.settings_schema()),
    listModels: once(() => core.list_models()),
    listGpus: once(() => core.list_gpus()),
    parseConfig: (config) => JSON.parse(core.parse_config(config_text(config))),
    // sweep(settings, axes?, config?): axes {batch: "1:256", seq: "256:131072", kernel: "simd" | "scalar"};
    // typed arrays, copied out of wasm memory (docs/sweep.md).
    sweep: (settings, axes, config) => core.sweep(settings ?? {}, config ?? {}, axes ?? {}),
    sweepKernelMs: (settings, nBatch, nSeq, kernel, reps) => core.sweep_kernel_ms(settings ?? {}, nBatch, nSeq, kernel, reps),
  });
}
