// SPDX-License-Identifier: MIT
// Reading a dropped, pasted or chosen file (config-drop.js) and a Hub repo's files (hub-load.js): what a file is,
// a checkpoint header read in bounded steps by the core's readers, and its totals in words. Imported only when
// a file or a repo id is given (docs/web.md, "Start-up").
import { formatBytes, formatCount } from "./format.js";

/** Largest config.json read [bytes]; real ones are a few kB (a safetensors index is read by the Hub loader). */
export const MAX_CONFIG_BYTES = 4 << 20;

/** First read of a header [bytes]: hf-mem's MAX_METADATA_SIZE for safetensors (most headers fit), the CLI's 16 MiB for GGUF. */
const FIRST_READ = { safetensors: 100_000, gguf: 16 << 20 };

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
 * a promise of it).
 * Resolves to its answer: {ok: true, checkpoint, settings, architecture} or {ok: false, errors}.
 */
export async function readCheckpointHeader(checkpoint, { kind, size, name, read }) {
  let bytes = await read(0, Math.min(size, FIRST_READ[kind]));
  for (let round = 0; round < 3; ++round) {
    const answer = await checkpoint(kind, bytes, size, name);
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
