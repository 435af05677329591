// SPDX-License-Identifier: MIT
// Loading a Hugging Face Hub repo (hub.js): its config.json and, where it has them, its safetensors index and each
// shard's header (HTTP Range requests for the first bytes only), read by the core as dropped files would be.
// Imported when a repo id is first given (docs/web.md, "Hub repo ids").
import { MAX_CONFIG_BYTES, readCheckpointHeader, tensorNames } from "./checkpoint-read.js";

export { describeCheckpoint } from "./checkpoint-read.js";

/** The only origin the page fetches from (its Content-Security-Policy allows it, and the LFS CDN *.hf.co). */
export const HUB_ORIGIN = "https://huggingface.co";

/** Most shards read (huggingface.js MAX_SHARD_COUNT, the core's max_safetensors_shards). */
export const MAX_SHARDS = 10_000;

/** Most shards read without asking (loadHubModel's `confirm`): the largest open checkpoints have ~200. */
export const ASK_SHARDS = 48;

/** Shard headers fetched at once. */
const PARALLEL = 6;

/** A shard's file name as an index may give it: a plain name, no folder. */
const SHARD = /^[A-Za-z0-9][A-Za-z0-9._-]{0,250}\.safetensors$/;

/** `file`'s address in repo `id` (checked by parseHubId) on the main branch. */
export function hubFileUrl(id, file) {
  const [org, name] = id.split("/");
  return `${HUB_ORIGIN}/${encodeURIComponent(org)}/${encodeURIComponent(name)}/resolve/main/${file.split("/").map(encodeURIComponent).join("/")}`;
}

/** A failed request, with what to tell the reader. */
class HubError extends Error {
  constructor(message, status = 0) {
    super(message);
    this.status = status;
  }
}

/** What a failed response means, in words naming the repo and the file. */
function refusal(id, file, status) {
  if (status === 401 || status === 403) {
    return `huggingface.co refused ${file} of ${id} (HTTP ${status}): the repo is gated or private, or does not exist. ` +
      "For a gated model, accept its licence on huggingface.co, download config.json and drop it here";
  }
  if (status === 404) return `${id} has no ${file} on huggingface.co (HTTP 404): check the repo id`;
  return `huggingface.co answered HTTP ${status} for ${file} of ${id}`;
}

/** fetch() with the reader's network failures as a HubError. */
async function request(fetcher, id, file, headers = {}) {
  try {
    return await fetcher(hubFileUrl(id, file), { headers, credentials: "omit", redirect: "follow" });
  } catch {
    throw new HubError(`could not reach huggingface.co for ${id}: the Hub needs a network connection ` +
      "(or the page is offline, or a Content-Security-Policy or an extension blocked it)");
  }
}

/**
 * A response's body, at most `most` bytes (a Uint8Array), or null when it is longer: read as a stream and
 * cancelled once past `most`, so a body sent without (or with a false) Content-Length is never held whole.
 */
async function readBounded(response, most) {
  const reader = response.body?.getReader();
  if (!reader) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    return bytes.length > most ? null : bytes;
  }
  const chunks = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > most) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/** A small JSON file of the repo (config.json, the index), at most MAX_CONFIG_BYTES; null for a 404 when `optional`. */
async function fetchText(fetcher, id, file, { optional = false } = {}) {
  const response = await request(fetcher, id, file);
  if (optional && response.status === 404) return null;
  if (!response.ok) throw new HubError(refusal(id, file, response.status), response.status);
  const declared = Number(response.headers.get("content-length"));
  if (declared > MAX_CONFIG_BYTES) {
    await response.body?.cancel();
    throw new HubError(`${file} of ${id} has ${declared} bytes; it is read up to ${MAX_CONFIG_BYTES}`);
  }
  const bytes = await readBounded(response, MAX_CONFIG_BYTES);
  if (bytes === null) throw new HubError(`${file} of ${id} is longer than ${MAX_CONFIG_BYTES} bytes`);
  return new TextDecoder().decode(bytes);
}

/**
 * Bytes [start, end) of a repo file by an HTTP Range request, and the file's size (Content-Range). A server that
 * answers with the whole file (200) is cut off at once: a checkpoint's weights are never downloaded.
 */
async function fetchRange(fetcher, id, file, start, end) {
  const response = await request(fetcher, id, file, { Range: `bytes=${start}-${end - 1}` });
  if (response.status === 404) return null;
  if (response.status !== 206) {
    await response.body?.cancel();
    if (response.ok) throw new HubError(`huggingface.co sent the whole of ${file} of ${id} instead of its first bytes; not read`);
    throw new HubError(refusal(id, file, response.status), response.status);
  }
  const range = /^bytes (\d+)-\d+\/(\d+)$/.exec(response.headers.get("content-range") ?? "");
  if (!range) {
    await response.body?.cancel();
    throw new HubError(`huggingface.co did not say the size of ${file} of ${id} (no readable Content-Range)`);
  }
  // Bytes from elsewhere in the file, read as if they were the ones asked for, would be a wrong header.
  if (Number(range[1]) !== start) {
    await response.body?.cancel();
    throw new HubError(`huggingface.co sent ${file} of ${id} from byte ${range[1]}, not ${start} as asked`);
  }
  const bytes = await readBounded(response, end - start);
  if (bytes === null) throw new HubError(`huggingface.co sent more of ${file} of ${id} than asked for`);
  return { bytes, size: Number(range[2]) };
}

/**
 * The tensor names of a safetensors header the core has read (`bytes`: the file's first bytes, the header whole;
 * `listed`: the names the header Worker listed, when it read it): tensorNames (ui/checkpoint-read.js).
 */
function shardTensorNames(bytes, listed, id, file) {
  const names = listed === undefined ? tensorNames(bytes) : listed;
  if (names === null) throw new HubError(`the tensor names of ${file} of ${id} could not be listed`);
  return names;
}

/**
 * One safetensors file's header from the Hub (readCheckpoint's answer, with `names`, its tensor names, when it
 * was read), or null when the repo lacks it.
 */
async function shardHeader(fetcher, checkpoint, id, file) {
  const first = await fetchRange(fetcher, id, file, 0, 100_000);
  if (first === null) return null;
  let last = first.bytes;
  const read = (kind, bytes, ...rest) => {
    last = bytes;
    return checkpoint(kind, bytes, ...rest);
  };
  const answer = await readCheckpointHeader(read, {
    kind: "safetensors", size: first.size, name: file,
    read: async (start, end) => {
      if (end <= first.bytes.length) return first.bytes.slice(start, end);
      const more = await fetchRange(fetcher, id, file, start, end);
      if (more === null) throw new HubError(`${file} of ${id} disappeared while it was read`);
      return more.bytes;
    },
  });
  return answer.ok ? { ...answer, names: shardTensorNames(last, answer.names, id, file) } : answer;
}

/**
 * A tensor named in more than one shard, as the CLI refuses it (duplicate_tensor, core/src/checkpoint.cpp): its
 * values would be counted twice. `reads`: the shards' answers (shardHeader), `files` their names.
 */
function duplicateTensor(id, files, reads) {
  const seen = new Map();
  for (const [at, read] of reads.entries()) {
    for (const name of read.names) {
      const other = seen.get(name);
      if (other !== undefined) {
        throw new HubError(`tensor ${JSON.stringify(name.slice(0, 100))} of ${id} is in both ${files[other]} and ${files[at]} (its values would be counted twice)`);
      }
      seen.set(name, at);
    }
  }
}

/** The shard names of a model.safetensors.index.json, each once, checked as plain file names. */
function shardNames(id, text) {
  let index;
  try {
    index = JSON.parse(text);
  } catch {
    throw new HubError(`model.safetensors.index.json of ${id} is not valid JSON`);
  }
  const map = index?.weight_map;
  if (map === null || typeof map !== "object" || Array.isArray(map)) throw new HubError(`model.safetensors.index.json of ${id} has no weight_map`);
  const names = [...new Set(Object.values(map))];
  if (names.length > MAX_SHARDS) throw new HubError(`model.safetensors.index.json of ${id} names ${names.length} shards; at most ${MAX_SHARDS} are read`);
  const bad = names.find((name) => typeof name !== "string" || !SHARD.test(name) || name.includes(".."));
  if (bad !== undefined) throw new HubError(`model.safetensors.index.json of ${id} names a shard that is not a plain .safetensors file name`);
  return names;
}

/** Asks the reader before a request per shard (the browser's confirm dialog); false where there is none. */
const askShards = (id) => (count) => globalThis.confirm?.(`${id} is split into ${count} safetensors files: fetch ` +
  `the first bytes of each from huggingface.co (${count} requests) for the exact parameter count?`) ?? false;

/** Adds one header's totals to `sum` (checkpoint_summary::add). */
function addCheckpoint(sum, one) {
  sum.tensors += one.tensors;
  sum.params += one.params;
  sum.bytes += one.bytes;
  sum.params_are_parameters &&= one.params_are_parameters;
  for (const [dtype, d] of Object.entries(one.by_dtype)) {
    const into = (sum.by_dtype[dtype] ??= { tensors: 0, params: 0, bytes: 0 });
    into.tensors += d.tensors;
    into.params += d.params;
    into.bytes += d.bytes;
  }
  return sum;
}

/**
 * The repo's safetensors headers summed: {checkpoint, files} or null when it has no safetensors weights. An index
 * naming more than ASK_SHARDS shards is read only once `confirm(count)` resolves to true.
 */
async function fetchCheckpoint(fetcher, checkpoint, id, confirm) {
  const index = await fetchText(fetcher, id, "model.safetensors.index.json", { optional: true });
  const files = index === null ? ["model.safetensors"] : shardNames(id, index);
  if (files.length > ASK_SHARDS && !(await confirm(files.length))) {
    throw new HubError(`its index names ${files.length} shards; over ${ASK_SHARDS} are fetched only when you agree, and that was declined`);
  }
  const reads = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const at = next++;
      reads[at] = await shardHeader(fetcher, checkpoint, id, files[at]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, files.length) }, worker));
  if (index === null && reads[0] === null) return null;
  const sum = { tensors: 0, params: 0, bytes: 0, params_are_parameters: true, by_dtype: {} };
  for (const [at, read] of reads.entries()) {
    if (read === null) throw new HubError(`${files[at]} of ${id}, named by its index, is missing`);
    if (!read.ok) throw new HubError(read.errors.map((e) => `${e.setting}: ${e.message}`).join("; "));
    addCheckpoint(sum, read.checkpoint);
  }
  duplicateTensor(id, files, reads);
  return { checkpoint: sum, files };
}

/**
 * Loads repo `id` (checked by parseHubId): {ok: true, id, settings, checkpoint, files, note} or {ok: false, id,
 * message, status}. `parse` and `checkpoint` are the engine's parseConfig and readCheckpoint; `fetcher` fetch;
 * `confirm(count)`: whether to read the headers of an index's `count` shards when they are more than ASK_SHARDS
 * (a boolean or its promise; by default the browser's confirm dialog asks the reader, and where there is none
 * they are not read). config.json must load and parse; the safetensors headers, when they fail, leave a note and
 * the config's count.
 */
export async function loadHubModel(id, { parse, checkpoint, fetcher = globalThis.fetch.bind(globalThis), confirm = askShards(id) }) {
  let settings;
  try {
    const parsed = await parse(await fetchText(fetcher, id, "config.json"));
    if (!parsed.ok) {
      return { ok: false, id, status: 0, message: `config.json of ${id}: ${parsed.errors.map((e) => `${e.setting}: ${e.message}`).join("; ")}` };
    }
    settings = parsed.settings;
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    return { ok: false, id, status: error.status, message: error.message };
  }
  try {
    const read = await fetchCheckpoint(fetcher, checkpoint, id, confirm);
    if (read === null) return { ok: true, id, settings, checkpoint: null, files: [], note: "no safetensors weights in the repo: the count is computed from config.json" };
    // As the CLI's --safetensors: the headers' element count is the parameter count unless integers pack several values.
    if (read.checkpoint.params_are_parameters) settings = { ...settings, params: String(read.checkpoint.params) };
    return { ok: true, id, settings, checkpoint: read.checkpoint, files: read.files, note: "" };
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    return { ok: true, id, settings, checkpoint: null, files: [], note: `safetensors headers not read (${error.message}): the count is computed from config.json` };
  }
}
