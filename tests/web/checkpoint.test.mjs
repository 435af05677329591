// SPDX-License-Identifier: MIT
// readCheckpoint (wasm/api.js): checkpoint headers read by the CLI's readers from the first bytes of a file, the
// `need` protocol, and the same totals as `llm-memory --json --safetensors / --gguf` prints.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { loadApi, native } from "./support.mjs";

const api = await loadApi();

/** A .safetensors file: the 8-byte little-endian header length, the JSON header, the data (huggingface/safetensors README). */
function safetensors(header, data_bytes) {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, Buffer.alloc(data_bytes)]);
}

// Hand-counted: "a" BF16 [2, 3] = 6 values x 2 B = 12 B; "b" F32 [4] = 4 values x 4 B = 16 B; 10 values, 28 B.
const header = { a: { dtype: "BF16", shape: [2, 3], data_offsets: [0, 12] }, b: { dtype: "F32", shape: [4], data_offsets: [12, 28] } };
const file = safetensors(header, 28);
const header_length = Buffer.byteLength(JSON.stringify(header));

test("safetensors: the first 8 bytes ask for the header; the header gives the exact count by dtype", () => {
  assert.deepEqual(api.readCheckpoint("safetensors", file.subarray(0, 8), file.length, "m.safetensors"), { ok: false, need: 8 + header_length });
  const read = api.readCheckpoint("safetensors", file.subarray(0, 8 + header_length), file.length, "m.safetensors");
  assert.equal(read.ok, true);
  assert.deepEqual(read.checkpoint, {
    tensors: 2, params: 10, bytes: 28, params_are_parameters: true,
    by_dtype: { BF16: { tensors: 1, params: 6, bytes: 12 }, F32: { tensors: 1, params: 4, bytes: 16 } },
  });
  assert.deepEqual(read.settings, { params: "10" });
  assert.equal(read.architecture, "");
});

test("the totals are the CLI's --safetensors checkpoint object", () => {
  const dir = mkdtempSync(join(tmpdir(), "llm-memory-ckpt-"));
  try {
    writeFileSync(join(dir, "m.safetensors"), file);
    const cli = JSON.parse(native(["--safetensors", join(dir, "m.safetensors"), "--json"]));
    assert.deepEqual(api.readCheckpoint("safetensors", file, file.length, "m.safetensors").checkpoint, cli.checkpoint);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bad input is an error naming the file or the argument, never a throw", () => {
  // A header past the end of the file (the file says 10,000 bytes follow; 8 + header + 28 are there).
  const broken = Buffer.from(file);
  broken.writeBigUInt64LE(10_000n);
  const read = api.readCheckpoint("safetensors", broken, broken.length, "broken.safetensors");
  assert.equal(read.ok, false);
  assert.match(read.errors[0].setting + read.errors[0].message, /broken\.safetensors/);
  // Data offsets that leave a hole: the buffer is 28 bytes, the tensors end at 12.
  const holey = safetensors({ a: header.a }, 28);
  assert.equal(api.readCheckpoint("safetensors", holey, holey.length, "h.safetensors").ok, false);
  assert.equal(api.readCheckpoint("gguf", Buffer.from("NOPE0000"), 8, "x.gguf").ok, false);
  assert.equal(api.readCheckpoint("zip", file, file.length, "x").ok, false);
  assert.equal(api.readCheckpoint("safetensors", "text", 4, "x").ok, false);
  assert.equal(api.readCheckpoint("safetensors", file, -1, "x").ok, false);
  assert.equal(api.readCheckpoint("safetensors", file, Number.NaN, "x").ok, false);
});

/** The first bytes of a GGUF v3 file whose one metadata string is `string_bytes` long (ggml docs/gguf.md layout). */
function ggufWithLongString(string_bytes, length) {
  const head = Buffer.alloc(length);
  head.write("GGUF", 0, "latin1");
  head.writeUInt32LE(3, 4);
  head.writeBigUInt64LE(1n, 8);  // tensors
  head.writeBigUInt64LE(1n, 16); // metadata entries
  head.writeBigUInt64LE(4n, 24); // key length
  head.write("long", 32, "latin1");
  head.writeUInt32LE(8, 36);     // GGUF_TYPE_STRING
  head.writeBigUInt64LE(BigInt(string_bytes), 40);
  return head;
}

test("gguf: metadata past 16 MiB asks for the reader's limit, not one more byte per round (issue 37)", () => {
  const size = 300 * 2 ** 20; // a 300 MiB file whose header holds a 20 MiB string
  // First 1,000 bytes: the header goes on, so the page is asked for the CLI's first read, 16 MiB.
  assert.deepEqual(api.readCheckpoint("gguf", ggufWithLongString(20 * 2 ** 20, 1000), size, "m.gguf"), { ok: false, need: 16 * 2 ** 20 });
  // 16 MiB read and the header still goes on: the whole limit, max_gguf_header_bytes = 256 MiB (was 16 MiB + 1).
  assert.deepEqual(api.readCheckpoint("gguf", ggufWithLongString(20 * 2 ** 20, 16 * 2 ** 20), size, "m.gguf"), { ok: false, need: 256 * 2 ** 20 });
});



/** A ~100 MB safetensors header: one F32 tensor (1 element, 4 bytes) whose shape lists `entries` ones. */
function wideShape(entries) {
  const text = `{"w":{"dtype":"F32","shape":[${"1,".repeat(entries - 1)}1],"data_offsets":[0,4]}}`;
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(text.length));
  return Buffer.concat([length, Buffer.from(text), Buffer.alloc(4)]);
}

test("width: a 100 MB header whose shape lists 50 M entries is refused at the 65th, the core kept (issue 37)", () => {
  // 8 + 50 M x 2 - 1 + 44 bytes of the rest: under max_safetensors_header_bytes (100,000,000).
  const wide = wideShape(49_999_900);
  const read = api.readCheckpoint("safetensors", wide, wide.length, "wide.safetensors");
  assert.equal(read.ok, false);
  assert.match(read.errors[0].message, /tensor "w": too wide .*an array of more than 64 values; a shape lists at most 64 dimensions/);
  // The same core reads the next header (before, the parse aborted the instance).
  assert.equal(api.readCheckpoint("safetensors", file, file.length, "m.safetensors").checkpoint.params, 10);
  // 64 dimensions are read: 1 element, 4 bytes.
  const most = wideShape(64);
  assert.equal(api.readCheckpoint("safetensors", most, most.length, "m.safetensors").checkpoint.bytes, 4);
});

test("width: a config.json of one 2 M-value array is refused naming the limit (issue 37)", () => {
  // 4 MiB (api.js's config cap) of "0," is 2,097,152 values, past json_limits' 1,048,576 per array.
  const config = `{"model_type":"llama","wide":[${"0,".repeat(2_000_000)}0]}`;
  const read = api.parseConfig(config);
  assert.equal(read.ok, false);
  assert.match(read.errors[0].message, /too wide .*an array of more than 1048576 values/);
});
