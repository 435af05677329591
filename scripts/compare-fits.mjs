// SPDX-License-Identifier: MIT
// Differential check of `llm-memory fits` between two CLI builds (compare-cli.mjs does not run the ranking): the
// same machines and tasks through both, the JSON compared byte for byte. For changes that must not move an answer
// (issue 34's fast path: the same formats, bytes and longest contexts). Prints each request's rows and the first
// difference, and exits 1 on any difference.
//   node scripts/compare-fits.mjs OLD_BINARY NEW_BINARY
import { execFileSync } from "node:child_process";

const [oldBin, newBin] = process.argv.slice(2);
if (!oldBin || !newBin) {
  console.error("usage: node scripts/compare-fits.mjs OLD_BINARY NEW_BINARY");
  process.exit(2);
}

/** Every kind of answer: vLLM and llama.cpp formats, offload (-ngl, --n-cpu-moe), several devices, training. */
const requests = [
  ["--gpu", "rtx-4090"],
  ["--gpu", "rtx-3060-12gb", "--ram", "64GB"],
  ["--gpu", "rtx-3060-12gb", "--ram", "16GB", "--seq", "32768"],
  ["--gpu", "m4-16gb"],
  ["--gpu", "m4-max-128gb", "--seq", "131072"],
  ["--gpu", "h100-80gb", "--devices", "8"],
  ["--gpu", "a100-40gb", "--devices", "2"],
  ["--gpu", "rtx-4090", "--devices", "2", "--ram", "64GB"],
  ["--gpu", "t4", "--seq", "2048", "--ram", "32GB"],
  ["--gpu", "h200-141gb", "--seq", "1024"],
  ["--gpu", "rtx-4090", "--task", "qlora"],
  ["--gpu", "rtx-4090", "--task", "lora", "--seq", "2048"],
  ["--gpu", "h100-80gb", "--task", "full", "--devices", "8"],
  ["--gpu", "a100-80gb", "--task", "full", "--seq", "4096"],
  ["--gpu", "rtx-4090", "--sort", "speed", "--moe", "only", "--family", "qwen"],
  // The benchmark's re-rank devices (scripts/bench-fits.mjs), and more host RAM at a longer context.
  ["--gpu", "rtx-4060-ti-16gb", "--ram", "64GB"],
  ["--gpu", "rtx-3090", "--ram", "128GB", "--seq", "16384"],
  ["--gpu", "m4-pro-24gb"],
  ["--gpu", "a100-80gb", "--devices", "8"],
];

const run = (bin, args) => {
  try {
    return execFileSync(bin, args, { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    return `exit ${e.status}\n${e.stdout}\n${e.stderr}`;
  }
};

let differences = 0;
for (const flags of requests) {
  const args = ["fits", ...flags, "--json"];
  const [before, after] = [run(oldBin, args), run(newBin, args)];
  let rows = "?";
  try {
    rows = JSON.parse(after).rows.length;
  } catch {}
  if (before === after) {
    console.log(`same  ${flags.join(" ")} (${rows} rows)`);
    continue;
  }
  ++differences;
  const a = before.split("\n"), b = after.split("\n");
  const line = a.findIndex((text, i) => text !== b[i]);
  console.log(`DIFF  ${flags.join(" ")}: line ${line + 1}\n  old: ${a[line]}\n  new: ${b[line]}`);
}
console.log(`${requests.length} rankings, ${differences} with differences`);
process.exit(differences === 0 ? 0 : 1);
