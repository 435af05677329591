// SPDX-License-Identifier: MIT
// Reading a dropped, pasted or chosen file (config-drop.js) and a Hub repo's files (hub-load.js): what a file is,
// a checkpoint header read in bounded steps by the core's readers, and its totals in words. Imported only when
// a file or a repo id is given (docs/web.md, "Start-up").
import { formatBytes, formatCount } from "./format.js";

/** Largest config.json read [bytes]; real ones are a few kB (a safetensors index is read by the Hub loader). */
export const MAX_CONFIG_BYTES = 4 << 20;

/** First read of a header [bytes]: hf-mem's MAX_METADATA_SIZE for safetensors (most headers fit), the CLI's 16 MiB for GGUF. */
const FIRST_READ = { safetensors: 100_000, gguf: 16 << 20 };

/**
 * Headers longer than this [bytes] are read in a Worker (web/checkpoint-worker.js) so the page never freezes: the
 * core reads a header at ~20 MB/s in the browser and the tensor names are a JSON.parse of it, so 4 MiB is ~0.2 s
 * on the main thread at most. Shorter ones are read at once, without the Worker's start-up.
 */
export const WORKER_BYTES = 4 << 20;

/** How long an idle Worker is kept for the next header [ms] (a Hub repo's shards come one after another). */
const WORKER_IDLE_MS = 10_000;

/**
 * The tensor names of a safetensors header (`bytes`: the file's first bytes, the header whole): its JSON object's
 * keys but __metadata__, a name given twice once (the core keeps the last entry, as safetensors' own reader
 * does); null when the header is not JSON. Run in the Worker for big headers (web/checkpoint-worker.js).
 */
export function tensorNames(bytes) {
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  try {
    return Object.keys(JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length)))).filter((name) => name !== "__metadata__");
  } catch {
    return null;
  }
}

/**
 * One Worker for the page's big headers, started on the first and ended when idle. `read` posts a header and
 * resolves to the Worker's answer (readCheckpoint's, with `names` for safetensors), or to null where no Worker
 * can run (no Worker, a file:// page such as the offline single file, a script that cannot be fetched): the
 * caller reads the header on the main thread then, with the same core and the same answer.
 */
const headerWorker = {
  worker: null,
  broken: typeof Worker !== "function",
  pending: new Map(),
  next: 0,
  idle: 0,

  start() {
    try {
      this.worker = new Worker(new URL("../checkpoint-worker.js", import.meta.url), { type: "module" });
    } catch {
      this.broken = true;
      return false;
    }
    this.worker.onmessage = ({ data }) => this.settle(data.id, data.answer);
    // A script that cannot be loaded or run: every read waiting is done on the main thread instead.
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      this.broken = true;
      this.stop();
    };
    return true;
  },

  stop() {
    this.worker?.terminate();
    this.worker = null;
    for (const id of [...this.pending.keys()]) this.settle(id, null);
  },

  settle(id, answer) {
    const done = this.pending.get(id);
    if (done === undefined) return;
    this.pending.delete(id);
    done(answer);
    if (this.pending.size === 0) {
      clearTimeout(this.idle);
      this.idle = setTimeout(() => this.pending.size === 0 && this.stop(), WORKER_IDLE_MS);
    }
  },

  read(kind, bytes, size, name) {
    if (this.broken || (this.worker === null && !this.start())) return Promise.resolve(null);
    clearTimeout(this.idle);
    const id = ++this.next;
    return new Promise((done) => {
      this.pending.set(id, done);
      this.worker.postMessage({ id, kind, bytes, size, name });
    });
  },
};

/**
 * `checkpoint(kind, bytes, size, name)`'s answer, read in the Worker when the header is big (WORKER_BYTES) and
 * a Worker runs; the Worker's answer carries the tensor names too.
 */
async function readAnswer(checkpoint, kind, bytes, size, name) {
  if (bytes.length > WORKER_BYTES) {
    const answer = await headerWorker.read(kind, bytes, size, name);
    if (answer !== null) return answer;
  }
  return checkpoint(kind, bytes, size, name);
}

/** What a dropped or chosen file is: "safetensors", "gguf" or "json" (by its name, then the GGUF magic). */
export async function fileKind(file) {
  const name = file.name.toLowerCase();
  if (name.endsWith(".safetensors")) return "safetensors";
  if (name.endsWith(".gguf")) return "gguf";
  if (name.endsWith(".json")) return "json";
  const magic = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  return String.fromCharCode(...magic) === "GGUF" ? "gguf" : "json";
}

/**
 * Reads a checkpoint header of a `size`-byte file through `read(start, end)` (resolving to the bytes
 * [start, end) as a Uint8Array): a first read, then as many more bytes as the core asks for (`need`, never past
 * its limits or the file). `checkpoint(kind, bytes, size, name)` is the engine's readCheckpoint (its answer, or
 * a promise of it); a header over WORKER_BYTES is read in a Worker instead, on its own core.
 * Resolves to its answer: {ok: true, checkpoint, settings, architecture} or {ok: false, errors}; from the
 * Worker, a safetensors answer also lists the tensor `names` (tensorNames).
 */
export async function readCheckpointHeader(checkpoint, { kind, size, name, read }) {
  let bytes = await read(0, Math.min(size, FIRST_READ[kind]));
  for (let round = 0; round < 3; ++round) {
    const answer = await readAnswer(checkpoint, kind, bytes, size, name);
    if (answer.ok || answer.need === undefined) return answer;
    if (!(answer.need > bytes.length && answer.need <= size)) break;
    const more = await read(bytes.length, answer.need);
    if (more.length !== answer.need - bytes.length) {
      return { ok: false, errors: [{ setting: kind, message: `${name}: ${answer.need - bytes.length} more header bytes were asked for, ${more.length} came` }] };
    }
    const joined = new Uint8Array(answer.need);
    joined.set(bytes);
    joined.set(more, bytes.length);
    bytes = joined;
  }
  return { ok: false, errors: [{ setting: kind, message: `${name}: the header could not be read in full` }] };
}

/** A checkpoint's totals in words: "291 tensors · 8,030,261,248 parameters · 16.06 GB (BF16 291 tensors, ...)". */
export function describeCheckpoint(checkpoint, units = "GB") {
  const dtypes = Object.entries(checkpoint.by_dtype)
    .map(([dtype, d]) => `${dtype}: ${formatCount(d.params)} values, ${formatBytes(d.bytes, units)}`);
  const count = checkpoint.params_are_parameters ? `${formatCount(checkpoint.params)} parameters`
    : `${formatCount(checkpoint.params)} values (packed integer containers: not the parameter count)`;
  return `${formatCount(checkpoint.tensors)} tensors · ${count} · ${formatBytes(checkpoint.bytes, units)} of weights (${dtypes.join("; ")})`;
}
