// SPDX-License-Identifier: MIT
// The WebAssembly core behind the page. Every call is synchronous on the main thread: one estimate takes
// well under a millisecond (docs/performance.md), so a worker would only add latency; the two long answers run
// in Workers of their own, each on an Engine or core of its own (web/fits-worker.js, the machine's ranking, on
// this class; web/checkpoint-worker.js, big checkpoint headers). The hosted page loads
// the core in two parts (docs/wasm.md, "The page's module in two"): the answers only the rest holds (the
// solver, the knob search, "Which GPUs fit", the heatmap's sweep, checkpoint headers) wait for it once
// (Engine.ready).
// "./llm-memory.js" is the core's JS API (wasm/api.js); the build points it at the module with a separate
// .wasm (dist/index.html) or with the .wasm inlined (dist/llm-memory.html).
import { coreParts } from "./core-parts.js";
import { load } from "./llm-memory.js";

/** How many recent answers each cache keeps. */
const RECENT = 8;

/** warmWhenIdle: how long a page that is never idle waits before warming all the same, and the wait without
    requestIdleCallback (Safari), in ms. */
const IDLE_TIMEOUT_MS = 2000;
const IDLE_FALLBACK_MS = 200;

/**
 * `compute()`'s answer for `key`, kept among the RECENT latest of `cache` (a Map, oldest first). A failed
 * call (Engine#call) is not kept: the next ask computes again.
 */
function recall(cache, key, compute) {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute();
    if (value.failed) return value;
    if (cache.size >= RECENT) cache.delete(cache.keys().next().value);
  } else {
    cache.delete(key);
  }
  cache.set(key, value);
  return value;
}

export class Engine {
  #api;
  /** The settings table, once read (schema). */
  #schema = null;
  /** Where the core came in two (createEngine): instantiates the rest once, resolving when it is in. */
  #load_rest;
  /** That load, once asked for (null again after a failure, so the next ask tries again). */
  #rest = null;
  /** Why the rest could not be loaded, until it is. */
  #rest_error = null;
  /** Model presets by id: true once read (or asked for and not found), the read while it runs. */
  #presets = new Map();
  /** Recent estimates by their inputs (JSON text), oldest first: an edit, its URL check and the render
      that follows ask for the same few inputs. */
  #recent = new Map();
  /** Recent resolves, likewise: each edit asks whether its key matters against the same inputs without it. */
  #resolved = new Map();
  /** Recent ways-out answers, likewise: each carries the solve and advise answers of its inputs (waysOut). */
  #ways = new Map();
  /** Recent "Which GPUs fit" answers, likewise (the warm-up computes the page's own: warmWhenIdle). */
  #fits = new Map();
  #models;
  #gpus;
  /** Makes a new engine on a new instance of the core (createEngine), for a swap; null: none (restarting says so). */
  #renew;
  /** The swap under way after a failed call (a promise), else null; `#why`: what the failed call threw. */
  #swap = null;
  #why = "";
  /** Swaps since the last call that answered: a call that fails on every fresh core stops them after three. */
  #swaps = 0;
  /** Called with `#why` once a fresh core has been swapped in (onRestart). */
  #listeners = new Set();
  /** Called once the rest is in after a call met one of its functions' placeholders (onRestIn). */
  #rest_listeners = new Set();
  /** The load of the rest a placeholder asked for, until it is in (#awaitRest). */
  #rest_wait = null;
  /** Whether that load failed and the draw it asked for has not yet shown so (#awaitRest). */
  #rest_failed_draw = false;

  /**
   * `loadRest`: where the core came in two, a function that instantiates its rest (createEngine), else none.
   * `presets`: the ids of the model presets the API was loaded with (when it was not given the whole catalogue).
   * `renew`: resolves to a new Engine on a new instance of the core (createEngine), swapped in after a failed call.
   */
  constructor(api, loadRest = null, presets = [], renew = null) {
    this.#api = api;
    this.#load_rest = loadRest;
    this.#renew = renew;
    for (const id of presets) this.#presets.set(presetId(id), true);
    /**
     * Keys in table order: the page's bundle has them built in (scripts/build-web.mjs, from the same core), so
     * the schema is read on first use, after a link's verdict is painted; elsewhere from the schema, now.
     */
    this.keys = globalThis.LLM_MEMORY_SETTING_KEYS ?? this.schema.map((row) => row.key);
    this.known_keys = new Set(this.keys);
  }

  /** The settings table (rows: key, kind, default, min, max, choices, unit, group, doc), read once. */
  get schema() {
    return (this.#schema ??= this.#api.settingsSchema());
  }

  /**
   * Resolves to the settings' help texts, {key: doc}: the core loaded in two reads them beside it on the first
   * ask (the forms ask when a visitor first points at or focuses one), so the page's first load goes without them.
   * Never rejects: a core that stopped gives {} (no texts), and the next ask tries again.
   */
  settingDocs() {
    return this.#api.settingDocs().catch(() => ({}));
  }

  /** The GPU presets (read on first use: only the pickers need them, and they are built after the results). */
  get gpus() {
    return (this.#gpus ??= this.#api.listGpus());
  }

  /**
   * The model presets (read on first use: computing every preset's exact count takes a while). On the page
   * the core starts with only the preset its first estimate needs (createEngine): the list is then a promise,
   * resolved once the catalogue and the core's rest have been fetched (docs/performance.md).
   */
  get models() {
    if (this.#models) return this.#models;
    if (this.#api.presetsComplete && this.complete) return (this.#models = this.#api.listModels());
    // Every preset's exact count, the hybrid models' too, whose layer kinds' rows are in the rest: after it.
    return Promise.all([this.#api.loadPresets(), this.ready()])
      .then(() => (this.#api.presetsComplete && this.complete ? (this.#models ??= this.#api.listModels()) : this.#api.listModels()));
  }

  /** Whether the core has the presets `ids` name: the whole catalogue, or each of them read (loadPresets). */
  hasPresets(ids) {
    return this.#api.presetsComplete || ids.every((id) => this.#presets.get(presetId(id)) === true);
  }

  /**
   * Reads the model presets `ids` the core does not have yet, each once (models/<id>.json beside the module):
   * the widget's elements name theirs before their first estimate. Resolves when they are in; an id that is no
   * preset, or a file that cannot be read, leaves the model unknown, and its estimate says so (wasm/api.js).
   */
  loadPresets(ids) {
    if (this.#api.presetsComplete) return Promise.resolve();
    return Promise.all(ids.map(presetId).map((id) => {
      let state = this.#presets.get(id);
      if (state === undefined) {
        // Read, or not found (the model's estimate then says so): asked for either way.
        const asked = () => this.#presets.set(id, true);
        state = this.#api.loadPresets([id]).then(asked, asked);
        this.#presets.set(id, state);
      }
      return state;
    }));
  }

  /**
   * Runs one core call. The API answers bad input with errors, never exceptions; a call that throws all the
   * same (the browser ran out of stack or memory, the core aborted) becomes {ok: false, failed: true, errors},
   * so the page shows the failure instead of keeping the numbers of an earlier call, and retires the instance:
   * a fresh one is swapped in (#retire), and the page and the widgets draw their settings again (onRestart;
   * docs/robustness.md). Calls made while the swap runs answer that it does.
   */
  #call(compute) {
    if (this.#swap) return failure(`the calculator is restarting after an error (${this.#why}); your settings are kept`);
    try {
      const answer = compute(this.#api);
      this.#swaps = 0;
      return answer;
    } catch (error) {
      if (error instanceof RestNeeded) return this.#awaitRest();
      let why = "unknown error";
      try {
        why = String(error?.message ?? error).slice(0, 200);
      } catch {}
      this.#retire(why);
      const then = this.#swap ? "it is restarting; your settings are kept" : "reload the page if it persists";
      return failure(`the calculation failed (${why}); ${then}`);
    }
  }

  /**
   * Swaps a new instance of the core in for this one, which threw (an abort leaves its heap as it was mid-call:
   * issue 37): with the presets this one had read and, when this one's rest was in, its rest; then the recent
   * answers are dropped and the listeners called. A swap that fails leaves this instance, and the next failed
   * call tries again; three swaps with no call answered between them stop the swaps (the message then says to
   * reload), so a call that fails on every core cannot loop.
   */
  #retire(why) {
    if (!this.#renew || this.#swap || this.#swaps >= 3) return;
    this.#swaps++;
    this.#why = why;
    const whole = this.#api.presetsComplete;
    const read = [...this.#presets].filter(([, state]) => state === true).map(([id]) => id);
    const rest_in = !this.#load_rest;
    this.#swap = (async () => {
      const fresh = await this.#renew();
      await fresh.#api.loadPresets(whole ? undefined : read);
      if (rest_in) await fresh.ready();
      this.#api = fresh.#api;
      this.#load_rest = fresh.#load_rest;
      this.#rest = fresh.#rest;
      this.#rest_error = null;
      for (const cache of [this.#recent, this.#resolved, this.#ways, this.#fits]) cache.clear();
    })().then(() => {
      this.#swap = null;
      for (const listener of this.#listeners) listener(why);
    }, () => {
      this.#swap = null;
    });
  }

  /**
   * A call of the first part met a placeholder of the rest (a row of a layer kind, runtime, framework or training:
   * scripts/split-wasm.mjs REST_ROWS): the throw left the instance as a JS exception does (wasm/api.js put the
   * stack pointer back; the heap is whole), so the rest is loaded into it, and once it is in the onRestIn
   * listeners draw again, which asks the same call once more. Meanwhile the answer (`waiting`) says they follow.
   */
  #awaitRest() {
    // The draw after a failed load shows that failure; the call after it tries again.
    if (this.#rest_failed_draw) {
      this.#rest_failed_draw = false;
      return failure(`this run's code (llm-memory.rest.wasm) could not be loaded (${this.#rest_error}); reload the page if it persists`);
    }
    // One draw however many calls met a placeholder before the rest came in (or failed to).
    this.#rest_wait ??= this.ready().then(() => {
      this.#rest_wait = null;
      this.#rest_failed_draw = !this.complete;
      for (const listener of this.#rest_listeners) listener();
    });
    return { ...failure("this run's code (llm-memory.rest.wasm) is loading; the answer follows"), waiting: true };
  }

  /**
   * Calls `listener()` once the rest is in, or could not be loaded, after a call met its placeholder
   * (#awaitRest); returns the way to stop.
   */
  onRestIn(listener) {
    this.#rest_listeners.add(listener);
    return () => this.#rest_listeners.delete(listener);
  }

  /** The swap of a fresh core under way after a failed call (a promise that never rejects), else null. */
  get restarting() {
    return this.#swap;
  }

  /** Calls `listener(why)` after each swap of a fresh core (a failed call's message); returns the way to stop. */
  onRestart(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The estimate (or {ok: false, errors}); recent answers are reused for identical inputs. */
  estimate(inputs) {
    return recall(this.#recent, JSON.stringify(inputs), () => this.#call((api) => api.estimate(inputs)));
  }

  /**
   * Every setting resolved and checked, as text ({ok: true, settings}), or {ok: false, errors}: one call
   * tells whether the inputs estimate, without the estimate itself.
   */
  resolve(inputs) {
    const key = JSON.stringify(inputs);
    return recall(this.#resolved, key, () => {
      // A recent estimate of the same inputs answers too: its settings are the resolved ones, its errors
      // resolve's (the edit that estimated its inputs then asks whether each changed key matters).
      const known = this.#recent.get(key);
      if (known === undefined) return this.#call((api) => api.resolve(inputs));
      return known.ok ? { ok: true, settings: known.settings } : known;
    });
  }

  /** Whether the whole core is in (the rest loaded, or a core that never came in two): solve and advise answer. */
  get complete() {
    return !this.#load_rest;
  }

  /**
   * Resolves once the whole core is in: at once unless the page's core came in two, which the solver, the knob
   * search, "Which GPUs fit", the heatmap and checkpoint headers need (docs/wasm.md, "The page's module in two").
   * Never rejects: a rest that could not be loaded makes those answers errors that say so, and the next ask tries
   * again.
   */
  ready() {
    if (!this.#load_rest) return Promise.resolve();
    this.#rest ??= this.#load_rest().then(
      () => {
        this.#load_rest = null;
        this.#rest_error = null;
      },
      (error) => {
        this.#rest = null;
        this.#rest_error = String(error?.message ?? error).slice(0, 200);
      });
    return this.#rest;
  }

  /**
   * Prepares the answers behind the tabs while the page is idle after its first answer (issue 36 item 9): fetches
   * and compiles the core's rest (ready) and the catalogue of presets with their list (models), then computes the
   * ways out (with the solver's and the knob search's answers) and "Which GPUs fit" of `inputs`, the settings
   * shown, each in an idle period of its own, so the first click on What fits, Knobs or the model picker draws
   * answers already made. Idle periods (requestIdleCallback; a short timer where there is none) keep all of it
   * off the first paint. Resolves when done; never rejects (what failed is fetched or computed on the click, as
   * without the warm-up).
   */
  async warmWhenIdle(inputs) {
    await idle();
    await Promise.all([this.ready(), Promise.resolve(this.models).catch(() => [])]);
    if (!this.complete) return;
    await idle();
    this.waysOut(inputs);
    await idle();
    await this.gpuFit(inputs);
  }

  /** An answer from the rest of the core: {ok: false, failed: true, errors} while it is not in. */
  #callRest(compute) {
    if (!this.#load_rest) return this.#call(compute);
    const why = this.#rest_error ? `could not be loaded (${this.#rest_error})` : "is not loaded yet";
    return { ok: false, failed: true, errors: [{ setting: "calculator", message: `this answer's code (llm-memory.rest.wasm) ${why}; reload the page if it persists` }] };
  }

  /** A recent waysOut answer of `inputs` that holds their solve and advise answers, else undefined. */
  #recentWays(inputs) {
    const ways = this.#ways.get(JSON.stringify(inputs));
    return ways?.ok ? ways : undefined;
  }

  /** The solver's answers (max batch, max context, fewest devices), or {ok: false, errors}; after ready(). */
  solve(inputs) {
    return this.#recentWays(inputs)?.solve ?? this.#callRest((api) => api.solve(inputs));
  }

  /** The knob search (each knob's saving, the cheapest combinations that fit), or {ok: false, errors}; after ready(). */
  advise(inputs) {
    return this.#recentWays(inputs)?.advice ?? this.#callRest((api) => api.advise(inputs));
  }

  /**
   * The nearest ways out (the core's, docs/solve-and-advise.md "Ways out") with the solve and advise answers they
   * come from, which solve() and advise() of the same inputs then return without computing them again; or
   * {ok: false, errors}; after ready().
   */
  waysOut(inputs) {
    return recall(this.#ways, JSON.stringify(inputs), () => this.#callRest((api) => api.waysOut(inputs)));
  }

  /**
   * Which GPUs fit: resolves to the settings on every GPU preset (ui/gpu-fit.js), or {ok: false, errors}; recent
   * answers are reused for identical inputs.
   */
  async gpuFit(inputs) {
    await this.ready();
    return recall(this.#fits, JSON.stringify(inputs), () => this.#callRest((api) => api.gpuFit(inputs)));
  }

  /**
   * What runs on my machine: resolves to every model preset ranked on one machine (api.fits; request keys gpu,
   * devices, ram, task, seq, family, min_params, max_params, moe, sort), or {ok: false, errors}. Reads the whole
   * catalogue first: the ranking covers every preset.
   */
  async fits(request) {
    await Promise.all([this.ready(), this.models]);
    return this.#callRest((api) => api.fits(request));
  }

  /**
   * Memory over a micro-batch × sequence grid and the fit frontier (docs/sweep.md), or {ok: false, errors};
   * after ready() (Controller.renderHeatmap).
   */
  sweep(inputs, axes) {
    return this.#callRest((api) => api.sweep(inputs, axes));
  }

  /**
   * Resolves to a config.json (text) mapped onto architecture settings, or {ok: false, errors}: the config.json
   * readers are in the rest of the page's core (its presets come with their settings written out).
   */
  async parseConfig(text) {
    await this.ready();
    return this.#callRest((api) => api.parseConfig(text));
  }

  /**
   * A .safetensors or .gguf header read by the core (api.readCheckpoint): resolves to {ok, checkpoint, settings},
   * {ok: false, need} or errors.
   */
  async readCheckpoint(kind, bytes, size, name) {
    await this.ready();
    return this.#callRest((api) => api.readCheckpoint(kind, bytes, size, name));
  }

  /** A pasted launch command or Modelfile read into settings (api.readLaunch): resolves to {ok, settings, notes...}. */
  async readLaunch(text) {
    await this.ready();
    return this.#callRest((api) => api.readLaunch(text));
  }

  /** A pasted startup log set beside the estimate for its settings over `inputs` (api.reconcileLog). */
  async reconcileLog(text, inputs) {
    await this.ready();
    return this.#callRest((api) => api.reconcileLog(text, inputs));
  }

  /** The page's box: a pasted log set beside the estimate over `inputs`, or a command or recipe read (api.readPaste). */
  async readPaste(text, inputs) {
    await this.ready();
    return this.#callRest((api) => api.readPaste(text, inputs));
  }

  /** The launch command or config for `inputs` in `format` (api.emitLaunch: one of emitFormats' formats). */
  async emitLaunch(format, inputs) {
    await this.ready();
    return this.#callRest((api) => api.emitLaunch(format, inputs));
  }

  /** The formats that apply to `inputs`' run (api.emitFormats: {ok, formats: [{format, label}]}). */
  async emitFormats(inputs) {
    await this.ready();
    return this.#callRest((api) => api.emitFormats(inputs));
  }

  /**
   * Drops overrides until the inputs resolve: first those the errors name, then (when an error names a
   * setting the user did not set, e.g. a preset's value made invalid by another override) the latest ones.
   * Returns {overrides, problems} with one problem ({setting, message}) per dropped key.
   */
  sanitise(defaults, overrides) {
    const kept = { ...overrides };
    const problems = [];
    for (;;) {
      const result = this.resolve({ ...defaults, ...kept });
      if (result.ok) return { overrides: kept, problems };
      // A failed call says nothing about the settings: keep them all (and say nothing of a rest on its way).
      if (result.failed) return { overrides: kept, problems: result.waiting ? problems : problems.concat(result.errors) };
      const named = result.errors.filter((e) => Object.hasOwn(kept, e.setting));
      const drop = named.length ? named : [{ setting: Object.keys(kept).at(-1), message: result.errors[0]?.message }];
      if (drop[0].setting === undefined) return { overrides: kept, problems: problems.concat(result.errors) };
      for (const e of drop) {
        if (!Object.hasOwn(kept, e.setting)) continue;
        problems.push({ setting: e.setting, message: `${e.setting}: ${e.message}; ignored` });
        delete kept[e.setting];
      }
    }
  }

  /**
   * Whether `key`'s override changes anything: false when the inputs without it resolve the key to the same
   * value (a preset's or the table's default), so the URL carries only settings that matter.
   */
  overrideMatters(defaults, overrides, key) {
    const without = { ...overrides };
    delete without[key];
    const with_it = this.resolve({ ...defaults, ...overrides });
    const base = this.resolve({ ...defaults, ...without });
    if (!with_it.ok || !base.ok) return true;
    return with_it.settings[key] !== base.settings[key];
  }
}

/**
 * Instantiates the core (the .wasm is fetched, or decoded from the inlined copy). On the page, web/boot.js has
 * already started the compile of its first part and named the one model preset the first estimate needs
 * (globalThis.llmMemoryBoot): the core starts from that compile with that preset, and reads the catalogue when
 * the model picker first asks for it. The widget's bundle starts the same way from its own folder (coreParts).
 * Every preset is read before the engine is ready unless `presets` names the ids to read first (the widget gives
 * none and reads each element's model with loadPresets before its first estimate). Where the parts cannot be
 * used, the whole llm-memory.wasm is loaded instead.
 */
export async function createEngine({ presets, fresh = false } = {}) {
  // Whether this bundle loads the core's two parts from its own folder: the widget's bundles do (the page's
  // web/boot.js starts them itself). The bundler replaces globalThis.LLM_MEMORY_CORE_PARTS by true or false
  // (scripts/esbuild-common.mjs); unbundled (node, the tests) it is undefined.
  const parts = globalThis.LLM_MEMORY_CORE_PARTS === true && WebAssembly.compileStreaming;
  const boot = globalThis.llmMemoryBoot ?? (parts ? { ...coreParts(import.meta.url), presets } : null);
  const ids = boot ? boot.presets : presets;
  // After a failed call, the engine swaps in a new instance made the same way (`fresh`: never the shared one).
  const renew = () => createEngine({ presets, fresh: true });
  // The whole module, which the glue fetches and compiles itself (or decodes from the inlined copy).
  const whole = async () => new Engine(await load(ids ? { presets: ids } : fresh ? {} : undefined), null, ids, renew);
  if (!boot) return whole();
  // Should the early compile have failed (a host without the two parts): the whole module.
  const module = await boot.module.catch(() => null);
  if (!module) return whole();
  let first;
  let failed;
  const failure = new Promise((_, reject) => {
    failed = reject;
  });
  const instantiateWasm = (imports, done) => {
    WebAssembly.instantiate(module, { ...imports, placeholder: placeholders(module) }).then((instance) => {
      first = instance;
      done(instance, module);
    }, failed);
    return {};
  };
  // The glue has no way to hear that the hook failed: its load() would never settle, so the failure races it.
  const api = await Promise.race([load({ presets: ids, docs: false, instantiateWasm }), failure]).catch(() => null);
  // A first part that does not fit this glue (two deploys mixed in a cache, say): the whole module instead.
  if (!api) return whole();
  return new Engine(api, () => loadRest(boot.rest, first), ids, renew);
}

/** Resolves in the browser's next idle period (warmWhenIdle, App.prepareGpuFit), or after IDLE_FALLBACK_MS where it has none. */
export const idle = () => new Promise((done) => (globalThis.requestIdleCallback ?? ((callback) => setTimeout(callback, IDLE_FALLBACK_MS)))(done, { timeout: IDLE_TIMEOUT_MS }));

/** A failed call's answer: no numbers, the message against "calculator". */
const failure = (message) => ({ ok: false, failed: true, errors: [{ setting: "calculator", message }] });

/** A preset id as the API reads it (models/<id>.json). */
const presetId = (id) => String(id).trim().toLowerCase();

/** What a placeholder throws: the call needs the rest, which is not in yet (Engine#awaitRest). */
class RestNeeded extends Error {
  constructor() {
    super("llm-memory.rest.wasm is not loaded");
  }
}

/**
 * The functions llm-memory.first.wasm imports in place of the rest's (Binaryen's wasm-split placeholders): the
 * table slots they hold are filled when the rest is instantiated. The bindings the rest holds reach them (the
 * engine calls those only once the rest is in), and so do the estimates of a model with a layer kind whose rows
 * are in the rest: a placeholder throws RestNeeded, and the engine loads the rest and draws again (Engine#awaitRest).
 */
function placeholders(module) {
  const missing = () => {
    throw new RestNeeded();
  };
  const imports = WebAssembly.Module.imports(module).filter((i) => i.module === "placeholder");
  return Object.fromEntries(imports.map((i) => [i.name, missing]));
}

/** Fetches llm-memory.rest.wasm (`fetchRest()`, a Response) and instantiates it against the `first` instance. */
async function loadRest(fetchRest, first) {
  const response = await fetchRest();
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  await WebAssembly.instantiate(await response.arrayBuffer(), { primary: first.exports });
}
