// SPDX-License-Identifier: MIT
// Where "What runs on my machine" is ranked (issue 34 item 3, "feel instant"): in a Worker with its own core
// (web/fits-worker.js), so the page's main thread never runs the 150-330 ms of wasm a machine's first ranking costs
// (docs/performance.md); on the main thread (the page's Engine) where no Worker runs: no Worker constructor, a
// file:// page such as the offline single file, a script or core that cannot be loaded. One ranking runs at a
// time; a newer question replaces the one waiting behind it (the view shows only its latest answer), and the
// recent answers are kept, so the idle warm-up's ranking (warm) answers the view's first opening.

/** How many recent answers are kept (each is the whole catalogue's rows). */
const RECENT = 8;

/** What a request replaced before it was sent resolves to: never shown (the view drops answers it did not ask last). */
const SUPERSEDED = Object.freeze({ ok: false, superseded: true, errors: [] });

export class FitsRanker {
  #engine;
  #worker = null;
  #broken;
  #next_id = 0;
  /** The request in the Worker: {id, key, request, promise, done}; null when none. */
  #running = null;
  /** The request waiting for it, replaced by a newer one: {key, request, promise, done}; null when none. */
  #waiting = null;
  /** Recent answers by request (JSON text), oldest first. */
  #recent = new Map();

  /**
   * `engine`: the page's Engine (web/engine.js), which ranks where no Worker can. `workerUrl`: the Worker's script
   * (dist/fits-worker.js beside the page), or null for none.
   */
  constructor(engine, workerUrl) {
    this.#engine = engine;
    this.#broken = workerUrl === null || typeof Worker !== "function" || globalThis.location?.protocol === "file:";
    this.workerUrl = workerUrl;
  }

  /** Whether rankings run in the Worker (false once it could not start: the main thread ranks). */
  get inWorker() {
    return !this.#broken;
  }

  /**
   * Resolves to the core's ranking of `request` (api.fits: {ok, rows, ...} or {ok: false, errors}), or to
   * SUPERSEDED when a newer request replaced it before it ran.
   */
  fits(request) {
    const key = JSON.stringify(request);
    const known = this.#recent.get(key);
    if (known) {
      this.#recent.delete(key);
      this.#recent.set(key, known);
      return Promise.resolve(known);
    }
    if (this.#broken) return this.#onMain(key, request);
    if (this.#running?.key === key) return this.#running.promise;
    if (this.#waiting?.key === key) return this.#waiting.promise;
    const job = { key, request };
    job.promise = new Promise((done) => (job.done = done));
    if (this.#running) {
      this.#waiting?.done(SUPERSEDED);
      this.#waiting = job;
    } else {
      this.#send(job);
    }
    return job.promise;
  }

  async #onMain(key, request) {
    const answer = await this.#engine.fits(request);
    if (!answer.failed) this.#keep(key, answer);
    return answer;
  }

  #keep(key, answer) {
    if (this.#recent.size >= RECENT) this.#recent.delete(this.#recent.keys().next().value);
    this.#recent.set(key, answer);
  }

  #start() {
    try {
      this.#worker = new Worker(this.workerUrl, { type: "module" });
    } catch {
      return false;
    }
    this.#worker.onmessage = ({ data }) => this.#settle(data.id, data.answer);
    // A script that cannot be loaded or run: what waits is ranked on the main thread.
    this.#worker.onerror = (event) => {
      event.preventDefault?.();
      this.#fail();
    };
    return true;
  }

  #send(job) {
    if (!this.#worker && !this.#start()) {
      this.#fail(job);
      return;
    }
    job.id = ++this.#next_id;
    this.#running = job;
    // The page's compile of the core's first part (web/boot.js), handed over so the Worker neither fetches nor
    // compiles it again (a WebAssembly.Module is shared, not copied); none (the widget, a failed compile): it fetches.
    const worker = this.#worker;
    Promise.resolve(globalThis.llmMemoryBoot?.module).catch(() => undefined)
      .then((module) => worker.postMessage({ id: job.id, request: job.request, module: module instanceof WebAssembly.Module ? module : undefined }));
  }

  #settle(id, answer) {
    const job = this.#running;
    if (!job || job.id !== id) return;
    // null: the Worker's core did not start.
    if (answer === null) {
      this.#fail();
      return;
    }
    this.#running = null;
    if (!answer.failed) this.#keep(job.key, answer);
    job.done(answer);
    const next = this.#waiting;
    this.#waiting = null;
    if (next) this.#send(next);
  }

  /** The Worker cannot rank: it is ended, and every request it held (and `job`) is ranked on the main thread. */
  #fail(job = null) {
    this.#broken = true;
    this.#worker?.terminate();
    this.#worker = null;
    for (const held of [this.#running, this.#waiting, job]) if (held) this.#onMain(held.key, held.request).then(held.done);
    this.#running = null;
    this.#waiting = null;
  }
}

/** The page's one ranker, made on the first ask for `engine`. */
let shared = null;

/**
 * The page's ranker: the Worker dist/fits-worker.js beside the page's chunks (this module is one of them); none on
 * the offline single file, which has no script file to start (it has no llm-memory-core meta: scripts/build-web.mjs).
 */
export function fitsRanker(engine) {
  const hosted = globalThis.document?.querySelector('meta[name="llm-memory-core"]');
  shared ??= new FitsRanker(engine, hosted ? new URL("../fits-worker.js", import.meta.url) : null);
  return shared;
}
