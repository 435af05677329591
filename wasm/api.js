// SPDX-License-Identifier: MIT
// The JavaScript API of llm-memory; types and units in llm-memory.d.ts, design in docs/wasm.md.
// CMake appends this file to the Emscripten glue (--extern-post-js), after `llm_memory_core` (the module
// factory) and `llm_memory_wasm_file` (the .wasm beside this module, or null when it is inlined), so each
// build is one ES module exporting `load`.

let llm_memory_default_api;

/**
 * Instantiates the WebAssembly core and resolves to the synchronous API. Without options the instance is
 * shared by every caller of the page (a new one once it has stopped: `retired`); options (Emscripten module
 * settings such as wasmBinary) give a new one.
 */
export function load(options) {
  if (options !== undefined) return llm_memory_instantiate(options);
  const shared = (llm_memory_default_api ??= llm_memory_instantiate({}, () => {
    if (llm_memory_default_api === shared) llm_memory_default_api = undefined;
  }));
  return shared;
}

/**
 * The most a core call is handed (issue 37): a wasm heap that cannot hold an input aborts the instance, and an
 * aborted call leaks what it had allocated, so inputs are refused in JS, naming the argument, long before.
 * Characters of one setting's value, of one key, keys of one object, characters of the object as JSON, of a
 * config.json (the page's own cap, MAX_CONFIG_BYTES in web/ui/checkpoint-read.js), of model presets handed over
 * at once; bytes of a
 * checkpoint header handed to the readers (their limits: checkpoint.hpp, 8 + max_safetensors_header_bytes and
 * max_gguf_header_bytes; longer inputs are cut to them, the rest of a file is never read).
 */
const llm_memory_limits = Object.freeze({
  value_chars: 65_536, key_chars: 256, keys: 4096, object_chars: 1 << 20, config_chars: 4 << 20, presets_chars: 16 << 20,
  safetensors_bytes: 8 + 100_000_000, gguf_bytes: 256 << 20,
});

async function llm_memory_instantiate(options, on_retire = () => {}) {
  const { presets, docs: read_docs = true, ...module_settings } = { ...options };
  const url = llm_memory_wasm_file === null ? null : new URL(llm_memory_wasm_file, import.meta.url);
  const node = typeof process === "object" && typeof process.versions?.node === "string";
  if (url !== null && url.protocol === "file:" && module_settings.wasmBinary === undefined && node) {
    // Node's fetch cannot read file: URLs, and the 3.1.6 glue's own reader calls require(), which ES
    // modules lack: hand it the bytes.
    const { readFile } = await import("node:fs/promises");
    module_settings.wasmBinary = await readFile(url);
  }
  // The module with a separate .wasm compiles no model presets in: they are read beside it, all of them
  // unless `presets` names the few needed first (read while the core compiles); the rest on loadPresets().
  const catalogue = url === null ? null : llm_memory_catalogue(url, node);
  const first = catalogue === null ? [] : presets === undefined ? [catalogue.all()] : [...presets].map(catalogue.one);
  // Nor the settings' help texts: read beside it while the core compiles (null where they cannot be read), or,
  // with {docs: false}, on the first settingDocs() (the page: its first load goes without them).
  const docs = catalogue === null || read_docs === false ? null : catalogue.docs();
  const [core, texts, docs_text] = await Promise.all([llm_memory_core(module_settings), Promise.all(first), docs]);
  return llm_memory_wrap(core, catalogue, texts, presets === undefined, docs_text, on_retire);
}

/**
 * Where the module with a separate .wasm finds its model presets (written by core/embed_data.cmake beside
 * it): `all()` the catalogue (llm-memory.models.json, a JSON array of entries), `one(id)` one entry
 * (models/<id>.json); each resolves to the text, null when the server has no such file (no such preset), or
 * false when it could not be asked (offline, or a file on another origin served without CORS).
 */
function llm_memory_catalogue(base, node) {
  const read = async (name) => {
    const url = new URL(name, base);
    try {
      if (url.protocol === "file:" && node) return await (await import("node:fs/promises")).readFile(url, "utf8");
      const response = await fetch(url);
      return response.ok ? await response.text() : null;
    } catch {
      return false;
    }
  };
  const one = (id) => {
    const name = String(id).trim().toLowerCase();
    return /^[a-z0-9][a-z0-9._-]{0,99}$/.test(name) ? read(`models/${name}.json`) : Promise.resolve(null);
  };
  return { all: () => read("llm-memory.models.json"), one, docs: () => read("llm-memory.docs.json") };
}

// The schema's text with each row's empty "doc" filled from llm-memory.docs.json ({key: doc}), so it equals the
// native --schema; unchanged when the texts are compiled in (docs_text null) or could not be read.
function llm_memory_with_docs(schema_text, docs_text) {
  if (typeof docs_text !== "string") return schema_text;
  let docs;
  try {
    docs = JSON.parse(docs_text);
  } catch {
    return schema_text;
  }
  const rows = JSON.parse(schema_text);
  for (const row of rows) if (row.doc === "" && typeof docs?.[row.key] === "string") row.doc = docs[row.key];
  return JSON.stringify(rows);
}

// Lone UTF-16 surrogates become U+FFFD, so every string crosses as well-formed UTF-8 and JSON.
function llm_memory_well_formed(text) {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/**
 * A settings object as the core reads it: {text: JSON of {key: string}, errors}. Every getter, Proxy trap and
 * conversion of the caller's object runs here, before the core is called, so no user code runs while wasm
 * frames are live (docs/wasm.md, "Hostile input"). Strings pass; numbers and booleans become String(value);
 * null and undefined mean "not given"; anything else (BigInt, Symbol, objects, arrays, functions), and a
 * property whose read throws, is an error naming the key. A value that is not an object gives no settings;
 * one whose keys cannot be listed is an error naming `what`.
 */
function llm_memory_plain(value, what) {
  const errors = [];
  const out = Object.create(null);
  if (value === null || typeof value !== "object") return { text: "{}", errors };
  let keys;
  try {
    keys = Object.keys(value);
  } catch {
    return { text: "{}", errors: [{ setting: what, message: "could not be read (listing its keys threw an exception)" }] };
  }
  const { keys: most_keys, key_chars, value_chars } = llm_memory_limits;
  if (keys.length > most_keys) return { text: "{}", errors: [{ setting: what, message: `has ${keys.length} keys; at most ${most_keys} are read` }] };
  for (const key of keys) {
    if (key.length > key_chars) {
      errors.push({ setting: what, message: `has a key of ${key.length} characters; at most ${key_chars}` });
      continue;
    }
    const name = llm_memory_well_formed(key);
    let item;
    try {
      item = value[key];
    } catch {
      errors.push({ setting: name, message: "could not be read (its getter threw an exception)" });
      continue;
    }
    const kind = typeof item;
    if (item === null || item === undefined) continue;
    if (kind === "string" && item.length > value_chars) errors.push({ setting: name, message: `is ${item.length} characters long; at most ${value_chars}` });
    else if (kind === "string") out[name] = llm_memory_well_formed(item);
    else if (kind === "number" || kind === "boolean") out[name] = String(item);
    else errors.push({ setting: name, message: `must be text, a number or a boolean, not ${Array.isArray(item) ? "an array" : kind === "object" ? "an object" : `a ${kind}`}` });
  }
  const text = JSON.stringify(out);
  const most = llm_memory_limits.object_chars;
  if (text.length > most) return { text: "{}", errors: [...errors, { setting: what, message: `is ${text.length} characters as JSON; at most ${most}` }] };
  return { text, errors };
}

/**
 * A config.json as text: a string as it is, anything else through JSON.stringify, which may throw; at most
 * llm_memory_limits.config_chars characters.
 */
function llm_memory_config_text(config) {
  let text;
  try {
    text = typeof config === "string" ? config : JSON.stringify(config) ?? "";
  } catch {
    return { text: "", errors: [{ setting: "config.json", message: "cannot be written as JSON (a cycle, a BigInt, or a getter or toJSON that throws)" }] };
  }
  const most = llm_memory_limits.config_chars;
  if (text.length > most) return { text: "", errors: [{ setting: "config.json", message: `is ${text.length} characters long; at most ${most} are read` }] };
  return { text: llm_memory_well_formed(text), errors: [] };
}

/** A short string the binding checks itself (a kind, a kernel), else "" (which it refuses by name). */
const llm_memory_word = (value) => (typeof value === "string" && value.length <= 16 ? value : "");

/** A count the binding checks itself (sweepKernelMs), else 0 (which it refuses by name): never a wrapped int32. */
const llm_memory_count = (n) => (Number.isInteger(n) && n >= 1 && n <= 4096 ? n : 0);

/** readCheckpoint's name, whatever its toString does, at most 200 characters. */
function llm_memory_label(name) {
  try {
    return llm_memory_well_formed(String(name ?? "").slice(0, 200));
  } catch {
    return "(a name that could not be read)";
  }
}

// The raw bindings take JSON text and return JSON text (the CLI's --json shape); the API returns plain objects.
// `catalogue`: where the model presets are read (null when they are compiled in); `texts`: the presets read
// so far (entries' JSON text, null where one could not be read); `whole`: whether texts is the catalogue;
// `docs_text`: llm-memory.docs.json ({key: doc}) for the module compiled without the help texts, else null;
// `on_retire`: called once when the instance stops.
function llm_memory_wrap(core, catalogue, texts, whole, docs_text, on_retire) {
  /** Why the instance stopped (an abort or a trap inside wasm), else null. */
  let retired = null;
  /**
   * Calls the binding `name`. Should anything throw while it runs (a RangeError when the caller's recursion
   * has used up the stack, an out-of-memory abort), the wasm stack pointer is put back where it was: a throw
   * across wasm frames skips their epilogues, and every lost frame would shrink the stack for good until
   * each later call failed with "memory access out of bounds" (issue 20). An abort or a trap
   * (WebAssembly.RuntimeError) leaves the heap as it was mid-call, its allocations lost: the instance is
   * retired, and every later call throws saying so (load() then gives a new one; web/engine.js swaps one in).
   */
  const call = (name, ...args) => {
    if (retired !== null) throw new Error(`this llm-memory core stopped (${retired}); load a new one`);
    const top = core.stackSave();
    try {
      return core[name](...args);
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError) {
        retired = String(error.message).slice(0, 200);
        on_retire();
      } else {
        core.stackRestore(top);
      }
      throw error;
    }
  };
  const once = (compute) => {
    let text;
    return () => JSON.parse((text ??= compute()));
  };
  // Errors found in JS come first, then the core's; the core still checks the rest of the settings.
  const merge = (found, value) => {
    if (!found.length) return value;
    return { ok: false, errors: [...found, ...(value.ok === false ? value.errors : [])] };
  };
  const inputs = (settings, config) => {
    const values = llm_memory_plain(settings, "settings");
    const layered = llm_memory_plain(config, "config");
    return { values: values.text, config: layered.text, errors: [...values.errors, ...layered.errors] };
  };
  const compute = (name, settings, config) => {
    const given = inputs(settings, config);
    const text = call(name, given.values, given.config);
    return unread(given.errors.length ? merge(given.errors, JSON.parse(text)) : JSON.parse(text));
  };
  // The model presets handed to the core (the module with a separate .wasm compiles none in).
  const add = (text) => {
    if (typeof text === "string" && text.length <= llm_memory_limits.presets_chars) call("add_models", text);
  };
  texts.forEach(add);
  let complete = catalogue === null || (whole && typeof texts[0] === "string");
  // Whether a preset file could not be read (offline, or a host that serves it without CORS): an unknown model
  // is then most likely a preset that never arrived, and the error says so (docs/embedding.md).
  let missed = whole ? typeof texts[0] !== "string" : texts.includes(false);
  const unread = (value) => {
    if (!missed || value.ok !== false) return value;
    const unknown = (e) => e.setting === "model" && /^unknown model/.test(e.message);
    if (!value.errors.some(unknown)) return value;
    const note = "; the model presets could not be read (llm-memory.models.json and models/<id>.json beside " +
      "llm-memory.wasm: a page on another origin needs them served with CORS, docs/embedding.md)";
    return { ...value, errors: value.errors.map((e) => (unknown(e) ? { ...e, message: e.message + note } : e)) };
  };
  let models_text;
  /** Reads the presets `ids` (or, without ids, the whole catalogue) and hands them to the core. */
  const loadPresets = async (ids) => {
    if (complete) return;
    if (ids === undefined) {
      const text = await catalogue.all();
      add(text);
      complete = typeof text === "string";
      missed = !complete;
    } else {
      const read = await Promise.all([...ids].map(catalogue.one));
      read.forEach(add);
      missed ||= read.includes(false);
    }
  };
  let docs_read = null;
  /**
   * The settings' help texts, {key: doc}: from the schema when they are compiled in or were read at load, else
   * read beside the module now (once; a read that fails gives empty texts, and the next call reads again).
   */
  const settingDocs = () => (docs_read ??= (async () => {
    const text = docs_text === null && catalogue !== null ? await catalogue.docs() : docs_text;
    const rows = JSON.parse(llm_memory_with_docs(call("settings_schema"), text));
    if (text !== docs_text && typeof text !== "string") docs_read = null;
    return Object.fromEntries(rows.map((row) => [row.key, row.doc]));
  })().catch((error) => {
    docs_read = null;
    throw error;
  }));
  // The core's advice and solve objects carry no "ok"; errors come as {ok: false, errors}.
  const with_ok = (value) => (value.ok === false ? value : { ok: true, ...value });
  return Object.freeze({
    estimateJson: (settings, config) => {
      const given = inputs(settings, config);
      const text = call("estimate", given.values, given.config);
      if (!given.errors.length && !missed) return text;
      const answer = JSON.parse(text);
      const value = unread(merge(given.errors, answer));
      if (value === answer) return text;
      // Key order as the core's serialiser writes it (errors, ok; message, setting).
      const errors = value.errors.map((e) => ({ message: e.message, setting: e.setting }));
      return JSON.stringify({ errors, ok: false }, null, 2);
    },
    estimate: (settings, config) => compute("estimate", settings, config),
    resolve: (settings, config) => compute("resolve", settings, config),
    advise: (settings, config) => with_ok(compute("advise", settings, config)),
    solve: (settings, config) => with_ok(compute("solve", settings, config)),
    gpuFit: (settings, config) => with_ok(compute("gpu_fit", settings, config)),
    // fits(request): every model preset ranked on one machine (the CLI's `llm-memory fits --json`); request keys
    // gpu, devices, ram, task, seq, family, min_params, max_params, moe, sort. Ranks the presets the core has:
    // the whole catalogue after loadPresets().
    fits: (request) => {
      const given = llm_memory_plain(request, "request");
      return with_ok(merge(given.errors, JSON.parse(call("fits", given.text))));
    },
    // The ways out with the solver's and the knob search's answers they come from, each with its "ok".
    waysOut: (settings, config) => {
      const value = with_ok(compute("ways_out", settings, config));
      return value.ok ? { ...value, solve: with_ok(value.solve), advice: with_ok(value.advice) } : value;
    },
    settingsSchema: once(() => llm_memory_with_docs(call("settings_schema"), docs_text)),
    settingDocs,
    // Every preset once the catalogue is in (loadPresets()), else those handed over so far.
    listModels: () => JSON.parse(complete ? (models_text ??= call("list_models")) : call("list_models")),
    loadPresets,
    get presetsComplete() {
      return complete;
    },
    listGpus: once(() => call("list_gpus")),
    parseConfig: (config) => {
      const given = llm_memory_config_text(config);
      return given.errors.length ? { ok: false, errors: given.errors } : JSON.parse(call("parse_config", given.text));
    },
    // readCheckpoint(kind, bytes, fileSize, name): a .safetensors ("safetensors") or .gguf ("gguf") header read
    // from the file's first bytes (a Uint8Array or ArrayBuffer) by the CLI's readers; {ok: false, need: n} asks
    // for the first n bytes (docs/wasm.md, "Checkpoint headers").
    readCheckpoint: (kind, bytes, fileSize, name) => {
      let data = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
      if (!(data instanceof Uint8Array)) return { ok: false, errors: [{ setting: "checkpoint", message: "the bytes must be a Uint8Array or an ArrayBuffer" }] };
      if (typeof fileSize !== "number" || !Number.isSafeInteger(fileSize) || fileSize < 0) {
        return { ok: false, errors: [{ setting: "checkpoint", message: "the file size must be a whole number of bytes up to 2^53" }] };
      }
      // Cut to the reader's limit: a header never goes past it (the core asks for more only within it).
      const most = kind === "gguf" ? llm_memory_limits.gguf_bytes : llm_memory_limits.safetensors_bytes;
      if (data.length > most) data = data.subarray(0, most);
      return JSON.parse(call("read_checkpoint", llm_memory_word(kind), data, fileSize, llm_memory_label(name)));
    },
    // readLaunch(text): a pasted launch command (vllm serve, llama-server, SGLang, TGI, Ollama) or Modelfile read
    // into settings by the CLI's readers: {ok, command, settings, read, ignored, notes, errors} (docs/readers.md).
    readLaunch: (text) => {
      if (typeof text !== "string") return { ok: false, errors: [{ setting: "command", message: "the launch command must be text" }] };
      if (text.length > 1 << 20) return { ok: false, errors: [{ setting: "command", message: "longer than 1 MiB" }] };
      return JSON.parse(call("read_launch", llm_memory_well_formed(text)));
    },
    // reconcileLog(text, settings?, config?): a pasted startup log (vLLM, SGLang, llama.cpp / Ollama) read into
    // the settings it states, laid over `settings` (a log naming a model drops their architecture settings),
    // estimated and set beside the log's figures, as the CLI's --log --json and --as-record: {ok, settings,
    // log: {format, from, rows, largest}, record} (docs/readers.md, "Logs").
    reconcileLog: (text, settings, config) => {
      if (typeof text !== "string") return { ok: false, errors: [{ setting: "log", message: "the log must be text" }] };
      if (text.length > 16 << 20) return { ok: false, errors: [{ setting: "log", message: "larger than 16 MiB" }] };
      const given = inputs(settings, config);
      return unread(merge(given.errors, JSON.parse(call("reconcile_log", llm_memory_well_formed(text), given.values, given.config))));
    },
    // readPaste(text, settings?, config?): the page's one box: a startup log as reconcileLog answers it ({kind:
    // "log", ...}), or a launch command, Modelfile or recipe as readLaunch answers it ({kind: "launch", ...}); text
    // no reader takes is refused naming the line (docs/readers.md, "The page's box").
    readPaste: (text, settings, config) => {
      if (typeof text !== "string") return { ok: false, errors: [{ setting: "paste", message: "the pasted text must be text" }] };
      if (text.length > 16 << 20) return { ok: false, errors: [{ setting: "paste", message: "larger than 16 MiB" }] };
      const given = inputs(settings, config);
      return unread(merge(given.errors, JSON.parse(call("read_paste", llm_memory_well_formed(text), given.values, given.config))));
    },
    // emitLaunch(format, settings, config?): the launch command or config for the resolved settings in one of the
    // formats emitFormats names, as the CLI's --emit: {ok, format, text, not_carried: [setting]} (docs/readers.md,
    // "Emit").
    emitLaunch: (format, settings, config) => {
      const given = inputs(settings, config);
      return unread(merge(given.errors, JSON.parse(call("emit_launch", llm_memory_word(format), given.values, given.config))));
    },
    // emitFormats(settings, config?): the formats that apply to the resolved run (core emit.hpp's table: an inference
    // runtime's command, a training framework's config), {ok, formats: [{format, label}]} (docs/readers.md, "Emit").
    emitFormats: (settings, config) => {
      const given = inputs(settings, config);
      return unread(merge(given.errors, JSON.parse(call("emit_formats", given.values, given.config))));
    },
    // sweep(settings, axes?, config?): axes {batch: "1:256", seq: "256:131072", kernel: "simd" | "scalar"};
    // typed arrays, copied out of wasm memory (docs/sweep.md).
    sweep: (settings, axes, config) => {
      const given = inputs(settings, config);
      const grid = llm_memory_plain(axes, "axes");
      const found = [...given.errors, ...grid.errors];
      return merge(found, call("sweep", given.values, given.config, grid.text));
    },
    // Milliseconds (a number), or {ok: false, errors} naming the argument (checked by the binding).
    sweepKernelMs: (settings, nBatch, nSeq, kernel, reps) => {
      const given = llm_memory_plain(settings, "settings");
      const value = JSON.parse(call("sweep_kernel_ms", given.text, llm_memory_count(nBatch), llm_memory_count(nSeq), llm_memory_word(kernel), llm_memory_count(reps)));
      return given.errors.length ? merge(given.errors, typeof value === "number" ? {} : value) : value;
    },
    /** Why this instance stopped (an abort or a trap inside wasm), or null while it answers. */
    get retired() {
      return retired;
    },
  });
}
