// SPDX-License-Identifier: MIT
// Reads a big checkpoint header off the page's main thread (issue 37; ui/checkpoint-read.js starts it above
// WORKER_BYTES): the core's readCheckpoint on this Worker's own instance of the whole module (llm-memory.wasm
// beside this script, no model presets: a header's reading needs none), and for safetensors the tensor names the
// Hub loader compares across shards. Bundled to dist/checkpoint-worker.js (scripts/build-web.mjs).
import { load } from "./llm-memory.js";
import { tensorNames } from "./ui/checkpoint-read.js";

/** The core, loaded on the first header; a core that threw is retired (wasm/api.js) and the next load is fresh. */
let core = null;

async function answer({ kind, bytes, size, name }) {
  try {
    core ??= load({ presets: [], docs: false });
    const out = (await core).readCheckpoint(kind, bytes, size, name);
    if (out.ok && kind === "safetensors") out.names = tensorNames(bytes);
    return out;
  } catch (error) {
    core = null;
    const why = String(error?.message ?? error).slice(0, 200);
    return { ok: false, errors: [{ setting: kind, message: `${String(name).slice(0, 200)}: the header could not be read (${why})` }] };
  }
}

self.onmessage = async ({ data }) => {
  self.postMessage({ id: data.id, answer: await answer(data) });
};
