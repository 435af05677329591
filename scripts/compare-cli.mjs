// SPDX-License-Identifier: MIT
// Differential check of two CLI builds, for refactors that must not change any output (docs/architecture.md):
//   node scripts/compare-cli.mjs OLD_BINARY NEW_BINARY [--cases N]
// Compares, byte for byte: every golden case and N random settings (default 10,000; valid and invalid) through
// --batch-json; a tenth of them (at most 500) with --json --solve --advise; and 50 sweeps (--json). Prints the
// counts and the first difference, and exits 1 on any difference.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { generator } from "../tests/web/splitmix.mjs";

const [oldBin, newBin, ...rest] = process.argv.slice(2);
if (!oldBin || !newBin) {
  console.error("usage: node scripts/compare-cli.mjs OLD_BINARY NEW_BINARY [--cases N]");
  process.exit(2);
}
const caseCount = rest[0] === "--cases" ? Number(rest[1]) : 10000;
const root = new URL("..", import.meta.url).pathname;
const run = (bin, args) => {
  try {
    return execFileSync(bin, args, { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    return `exit ${e.status}\n${e.stdout}\n${e.stderr}`;
  }
};
const schema = JSON.parse(run(oldBin, ["--schema"]));
// Settings rows the new build adds appear in its settings echo only: dropped before comparing, and counted.
const oldKeys = new Set(schema.map((row) => row.key));
const added = JSON.parse(run(newBin, ["--schema"])).map((row) => row.key).filter((key) => !oldKeys.has(key));
const dropAdded = (value) => {
  if (Array.isArray(value)) value.forEach(dropAdded);
  else if (value && typeof value === "object") {
    for (const key of added) delete value[key];
    Object.values(value).forEach(dropAdded);
  }
  return value;
};
const withoutAdded = (text) => {
  if (added.length === 0) return text;
  try {
    return JSON.stringify(dropAdded(JSON.parse(text)));
  } catch {
    return text;
  }
};
const models = JSON.parse(run(oldBin, ["--list-models", "--json"])).map((m) => m.id);
const gpus = JSON.parse(run(oldBin, ["--list-gpus", "--json"])).map((g) => g.id);

const { pick, one } = generator(20261203);

function randomSettings() {
  const s = {};
  if (pick(0, 2) > 0) {
    s.model = one(models);
  } else {
    const heads = 1 << pick(0, 6);
    s.num_attention_heads = heads;
    s.hidden_size = heads * 64 * pick(1, 3);
    s.num_hidden_layers = pick(1, 96);
    s.num_key_value_heads = Math.max(1, heads >> pick(0, 2));
    s.vocab_size = pick(0, 256000);
    if (pick(0, 3) === 0) s.intermediate_size = s.hidden_size * pick(2, 4);
    if (pick(0, 4) === 0) Object.assign(s, { num_experts: 8, num_experts_per_tok: pick(1, 8), first_k_dense_replace: pick(0, 2) });
  }
  for (const row of schema) {
    if (row.group === "model" && pick(0, 9) !== 0) continue;
    if (pick(0, 3) !== 0) continue;
    if (row.kind === "choice") s[row.key] = one(row.choices);
    else if (row.kind === "flag") s[row.key] = one(["on", "off"]);
  }
  const extras = {
    lora_rank: () => 1 << pick(0, 8),
    lora_targets: () => one(["q_proj,v_proj", "all-linear", "q_proj,k_proj,v_proj,o_proj", "gate_proj,up_proj,down_proj", "x_proj"]),
    trainable_params: () => one(["1", "0.1", "1e9", "5B", "0.25", "1e15"]),
    gpu: () => one(gpus),
    gpu_memory: () => one(["24GB", "80GiB", "40GB", "96e9", "192GB"]),
    overhead_factor: () => one(["1", "1.2", "1.5"]),
    cuda_context: () => one(["0", "650MB", "1GiB"]),
    fragmentation: () => String(pick(0, 20)),
    params: () => one(["0", "7e9", "1e3", "70B"]),
    sliding_window: () => String(pick(0, 8192)),
    sliding_window_pattern: () => String(pick(0, 6)),
  };
  for (const [key, value] of Object.entries(extras)) if (pick(0, 5) === 0) s[key] = value();
  s.batch = 1 << pick(0, 6);
  s.seq = 1 << pick(6, 17);
  const tp = 1 << pick(0, 2), pp = 1 << pick(0, 1);
  Object.assign(s, { tp, pp, devices: tp * pp * (1 << pick(0, 4)), zero: pick(0, 3), grad_accum: pick(1, 8) });
  if (pick(0, 19) === 0) s.devices = pick(1, 64);  // sometimes not a multiple of tp x pp
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, String(v)]));
}

const dir = mkdtempSync(join(tmpdir(), "compare-cli-"));
const golden = ["seeds", "training", "inference"].flatMap(
  (name) => JSON.parse(readFileSync(join(root, "tests/golden", `${name}.json`), "utf8")).cases.map((c) => c.settings));
const cases = [...golden, ...Array.from({ length: caseCount }, randomSettings)];
writeFileSync(join(dir, "cases.json"), JSON.stringify(cases));

let differences = 0;
const compare = (what, a, b) => {
  [a, b] = [withoutAdded(a), withoutAdded(b)];
  if (a === b) return;
  if (differences < 20) {
    const at = [...a].findIndex((c, i) => c !== b[i]);
    console.error(`difference ${differences + 1}: ${what.slice(0, 160)}\n  old: ${a.slice(Math.max(0, at - 60), at + 100)}\n  new: ${b.slice(Math.max(0, at - 60), at + 100)}`);
  }
  if (differences++ === 0) {
    const at = [...a].findIndex((c, i) => c !== b[i]);
    console.error(`first difference: ${what} at byte ${at}\nold: ${a.slice(Math.max(0, at - 200), at + 200)}\nnew: ${b.slice(Math.max(0, at - 200), at + 200)}`);
  }
};
const batchArgs = ["--batch-json", join(dir, "cases.json")];
compare("--batch-json", run(oldBin, batchArgs), run(newBin, batchArgs));

const flagsOf = (s) => Object.entries(s).flatMap(([k, v]) => [`--${k}`, v]);
const solved = cases.filter((_, n) => n % 10 === 0).slice(0, 500);
for (const s of solved) {
  const args = [...flagsOf(s), "--json", "--solve", "--advise"];
  compare(`--solve --advise ${JSON.stringify(s)}`, run(oldBin, args), run(newBin, args));
  const text = [...flagsOf(s), "--solve", "--advise"];
  compare(`text ${JSON.stringify(s)}`, run(oldBin, text), run(newBin, text));
}
const swept = cases.filter((_, n) => n % 97 === 0).slice(0, 50);
for (const s of swept) {
  const { batch, seq, ...others } = s;
  const args = ["sweep", ...flagsOf(others), "--batch", "1:64", "--seq", "256:32768:24", "--json"];
  compare(`sweep ${JSON.stringify(s)}`, run(oldBin, args), run(newBin, args));
}
if (added.length > 0) console.log(`settings the new build adds (left out of the comparison): ${added.join(", ")}`);
console.log(`${cases.length} estimates (${golden.length} golden), ${solved.length} with --solve --advise (JSON and ` +
            `text), ${swept.length} sweeps: ${differences} differences`);
process.exit(differences === 0 ? 0 : 1);
