// SPDX-License-Identifier: MIT
// The page's first load (issue 31's budget, 150 KB) of one or more builds, file by file: every file a fresh visit to
// the start page requests before any action and before the idle warm-up, less the catalogue (tests/browser/support.mjs
// firstLoad, as scripts/perf-web.mjs counts it), each gzip -9 with node's zlib, KB = 1024 B.
//   node scripts/first-load.mjs [DIST...]   (default: dist/; e.g. /work/main/dist dist for before/after)
import { dist, firstLoad, gzipSizes, start } from "../tests/browser/support.mjs";

const CATALOGUE = "llm-memory.models.json";
const dists = process.argv.slice(2).length ? process.argv.slice(2) : [dist];
const columns = [];
for (const dir of dists) {
  const session = await start({ dir });
  try {
    const { paths, page } = await firstLoad(session.context, session.url);
    await page.close();
    columns.push(new Map((await gzipSizes(dir, paths)).filter(([file]) => file !== CATALOGUE)));
  } finally {
    await session.close();
  }
}
// chunks/ by count (their names carry hashes), every other file by name.
const key = (file) => (file.startsWith("chunks/") ? "chunks/" : file);
const rows = new Map();
columns.forEach((column, i) => {
  for (const [file, bytes] of column) {
    const row = rows.get(key(file)) ?? { files: dists.map(() => 0), bytes: dists.map(() => 0) };
    row.files[i]++;
    row.bytes[i] += bytes;
    rows.set(key(file), row);
  }
});
console.log(`| file | ${dists.join(" | ")} |\n| --- |${dists.map(() => " ---: |").join("")}`);
for (const [file, row] of rows) {
  const name = file === "chunks/" ? `chunks/ (${row.files.join(" / ")} files)` : file;
  console.log(`| ${name} | ${row.bytes.map((b) => `${b.toLocaleString("en")} B`).join(" | ")} |`);
}
const totals = columns.map((column) => [...column.values()].reduce((a, b) => a + b, 0));
console.log(`| **first load** | ${totals.map((t) => `**${(t / 1024).toFixed(1)} KB** (${t.toLocaleString("en")} B)`).join(" | ")} |`);
