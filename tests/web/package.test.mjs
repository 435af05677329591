// SPDX-License-Identifier: MIT
// The npm package (issue 11 part 5, issue 7 part 3): what `npm pack` would publish holds every file that
// package.json's exports and types name, and the package imports by its own name in node.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { test } from "node:test";

import { root } from "./support.mjs";

const manifest = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8"));

function targets(node) {
  if (typeof node === "string") return [node];
  return Object.values(node).flatMap(targets);
}

test("npm pack publishes every file the exports and types name, and the licence", () => {
  const run = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const packed = new Set(JSON.parse(run.stdout)[0].files.map((f) => f.path));
  const named = [...targets(manifest.exports), manifest.types].map((p) => p.replace(/^\.\//, ""));
  for (const path of named) assert.ok(packed.has(path), `${path} is named in package.json but not packed (build dist/ first)`);
  assert.ok(packed.has("LICENSE"));
  assert.ok(!manifest.private, "the package can be published");
});

test("import from \"llm-memory\" loads the JS API and estimates", async () => {
  const { load } = await import("llm-memory");
  const api = await load();
  // Llama 2 7B at 4096 tokens, fp16 KV cache: 2 (K and V) x 32 layers x 4096 tokens x 4096 wide x 2 bytes.
  const estimate = api.estimate({ model: "llama-2-7b", mode: "inference", seq: 4096 });
  assert.equal(estimate.bytes.kv_cache, 2 * 32 * 4096 * 4096 * 2);
});
