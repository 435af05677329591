#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Where a .wasm's bytes go: section sizes, and the code section per function and per group of functions
// (namespace or library), with names from the module's name section. Build one with names first:
//   the link command of build/wasm/wasm/CMakeFiles/llm_memory_wasm.dir/link.txt plus --profiling-funcs
//   (docs/performance.md, "Where the module's bytes go"). Mangled names are demangled with c++filt.
// Usage: node scripts/wasm-sizes.mjs FILE.wasm [TOP]    (TOP: how many functions to list, default 40)
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { readU32 } from "./wasm-binary.mjs";

const [file, top = "40"] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/wasm-sizes.mjs FILE.wasm [TOP]");
  process.exit(2);
}
const bytes = readFileSync(file);
let at = 8;
const u32 = () => {
  let value;
  [value, at] = readU32(bytes, at);
  return value;
};
const SECTIONS = ["custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "datacount"];
const sections = [];
let imported = 0;
const bodies = [];
const names = new Map();
while (at < bytes.length) {
  const id = bytes[at++];
  const size = u32();
  const start = at;
  let name = SECTIONS[id] ?? `#${id}`;
  if (id === 0) {
    const length = u32();
    name = `custom "${bytes.subarray(at, at + length).toString()}"`;
    at += length;
    if (name === 'custom "name"') {
      while (at < start + size) {
        const kind = bytes[at++];
        const length = u32();
        const end = at + length;
        if (kind === 1) {
          for (let n = u32(); n > 0; --n) {
            const index = u32();
            const l = u32();
            names.set(index, bytes.subarray(at, at + l).toString());
            at += l;
          }
        }
        at = end;
      }
    }
  } else if (id === 2) {
    for (let n = u32(); n > 0; --n) {
      for (let k = 0; k < 2; ++k) {
        const length = u32();
        at += length;
      }
      const kind = bytes[at++];
      if (kind === 0) { u32(); imported++; } else if (kind === 1) { at++; const f = bytes[at++]; u32(); if (f & 1) u32(); }
      else if (kind === 2) { const f = bytes[at++]; u32(); if (f & 1) u32(); } else { at += 2; }
    }
  } else if (id === 10) {
    for (let n = u32(); n > 0; --n) {
      const length = u32();
      bodies.push({ bytes: bytes.subarray(at, at + length) });
      at += length;
    }
  }
  sections.push({ name, size, gzip: gzipSync(bytes.subarray(start, start + size), { level: 9 }).length });
  at = start + size;
}
const mangled = bodies.map((_, i) => names.get(imported + i) ?? `function ${imported + i}`);
let demangled = mangled;
try {
  demangled = execFileSync("c++filt", { input: mangled.join("\n"), maxBuffer: 1 << 26 }).toString().split("\n");
} catch {}
bodies.forEach((body, i) => (body.name = demangled[i] || mangled[i]));

const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`${file}: ${bytes.length} B raw, ${gzipSync(bytes, { level: 9 }).length} B gzip`);
console.log("\nsection                       raw        gzip (alone)");
for (const s of sections) console.log(`${s.name.padEnd(24)} ${String(s.size).padStart(9)} ${String(s.gzip).padStart(9)}`);

// Groups: the first namespace (or library) a function's name names.
const group = (name) => {
  const n = name.replace(/^(void|bool|int|unsigned|double|char|auto|std::[\w:<>, *&]+?)\s+/, "");
  if (/nlohmann/.test(n)) return "nlohmann-json";
  if (/^llm_memory::/.test(n) || /llm_memory::/.test(n.split("(")[0])) {
    return "llm_memory core";
  }
  if (/^emscripten::|^_embind|embind|^EmscriptenBindingInitializer/.test(n)) return "Embind";
  if (/^std::/.test(n)) return "std (libc++)";
  if (/^\(anonymous namespace\)::/.test(n)) return "wasm/bindings.cpp (with the core inlined)";
  if (/^__|^(printf|vfprintf|fmt_|pop_arg|strto|memcpy|memset|memmove|strlen|emmalloc|malloc|free|sbrk|dlmalloc)/.test(n)) return "libc / runtime";
  if (/^function \d+$/.test(n)) return "unnamed";
  return "other";
};
const groups = new Map();
for (const b of bodies) {
  const g = group(b.name);
  const entry = groups.get(g) ?? { size: 0, count: 0, parts: [] };
  entry.size += b.bytes.length;
  entry.count += 1;
  entry.parts.push(b.bytes);
  groups.set(g, entry);
}
const total = bodies.reduce((sum, b) => sum + b.bytes.length, 0);
console.log(`\ncode: ${bodies.length} functions, ${total} B (bodies)\n\ngroup                                     raw   share   gzip alone`);
for (const [g, e] of [...groups].sort((a, b) => b[1].size - a[1].size)) {
  const gz = gzipSync(Buffer.concat(e.parts), { level: 9 }).length;
  console.log(`${g.slice(0, 42).padEnd(42)} ${String(e.size).padStart(9)} ${(100 * e.size / total).toFixed(1).padStart(6)} % ${String(gz).padStart(9)}   (${e.count} functions)`);
}
console.log(`\nlargest ${top} functions (raw bytes):`);
for (const b of [...bodies].sort((a, b) => b.bytes.length - a.bytes.length).slice(0, Number(top)))
  console.log(`${String(b.bytes.length).padStart(7)}  ${b.name.length > 150 ? `${b.name.slice(0, 150)}…` : b.name}`);
