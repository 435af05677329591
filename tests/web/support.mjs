// SPDX-License-Identifier: MIT
// Shared by tests/web/*.test.mjs: the wasm API under test, the native CLI to compare with, the golden files.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/// The JS API module: dist/llm-memory.js (LLM_MEMORY_WASM overrides), or its single-file variant.
export async function loadApi(variant = "split") {
  const path = variant === "single"
    ? resolve(root, "dist/llm-memory.single.js")
    : resolve(root, process.env.LLM_MEMORY_WASM ?? "dist/llm-memory.js");
  const { load } = await import(path);
  return load();
}

/**
 * web/engine.js's exports. It imports "./llm-memory.js", which the build points at dist/: a copy of it (and of
 * web/core-parts.js, which it imports too) is given that neighbour in a temporary folder, removed when the
 * process exits.
 */
export async function importEngine() {
  const dir = mkdtempSync(join(tmpdir(), "llm-memory-engine-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  for (const file of ["engine.js", "core-parts.js"]) copyFileSync(join(root, "web", file), join(dir, file));
  const glue = pathToFileURL(resolve(root, process.env.LLM_MEMORY_WASM ?? "dist/llm-memory.js")).href;
  writeFileSync(join(dir, "llm-memory.js"), `export * from ${JSON.stringify(glue)};\n`);
  return import(pathToFileURL(join(dir, "engine.js")).href);
}

const cliPath = resolve(root, process.env.LLM_MEMORY_CLI ?? "build/release/llm-memory");

/// Runs the native CLI as it is; returns its stdout (a non-zero exit is fine: --json prints errors as JSON).
export function cli(args) {
  const run = spawnSync(cliPath, args, { encoding: "utf8", maxBuffer: 1 << 30 });
  if (run.error) throw new Error(`cannot run the native CLI ${cliPath} (set LLM_MEMORY_CLI): ${run.error.message}`);
  return run.stdout;
}

/**
 * Runs the native CLI as the API reads settings: the CLI's own device, when none is named, is the page's H100
 * (cli/main.cpp); `--gpu=` asks it for the settings table's 80 GB one, the API's.
 */
export function native(args) {
  const names_gpu = args.some((a) => /^--gpu(_memory)?(=|$)/.test(a));
  return cli(names_gpu ? args : [...args, "--gpu="]);
}

/// Native results for many settings objects in one process (llm-memory --batch-json).
export function nativeBatch(cases) {
  const dir = mkdtempSync(join(tmpdir(), "llm-memory-"));
  try {
    const file = join(dir, "cases.json");
    writeFileSync(file, JSON.stringify(cases));
    return JSON.parse(native(["--batch-json", file]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/// Every case of tests/golden/*.json as {file, case}.
export function goldenCases() {
  const dir = join(root, "tests/golden");
  return readdirSync(dir).filter((f) => f.endsWith(".json")).sort().flatMap((file) =>
    JSON.parse(readFileSync(join(dir, file), "utf8")).cases.map((body) => ({ file, body })));
}

/// Same paths as tests/golden/golden_test.cpp: "bytes.total", or "item:<bucket>:<item name>" for an item's bytes.
export function lookup(out, path) {
  if (path.startsWith("item:")) {
    const colon = path.indexOf(":", 5);
    const bucket = path.slice(5, colon), name = path.slice(colon + 1);
    return out.buckets?.find((b) => b.key === bucket)?.items.find((i) => i.name === name)?.bytes;
  }
  let node = out;
  for (const part of path.split(".")) {
    if (node === null || typeof node !== "object" || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}
