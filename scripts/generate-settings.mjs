// SPDX-License-Identifier: MIT
// Writes every copy of the settings table that is not C++ from the table itself (`llm-memory --schema`), so none is
// typed by hand (docs/architecture.md, "Adding a knob"):
//   tests/fuzz/settings.dict   the settings fuzzer's dictionary: every key, every choice, typical values
//   docs/embedding.md          "Settings attributes": one heading per setting, between the settings markers
//   wasm/llm-memory.d.ts       the `Settings` interface, choices as unions of their literals, between the markers
//   node scripts/generate-settings.mjs [--check] [CLI]   (CLI: default $LLM_MEMORY_CLI or build/release/llm-memory)
// --check writes nothing and exits 1 naming each file that differs (tests/web/generated.test.mjs does the same).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { PAGE_DEFAULTS } from "../web/state.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** Typical values the fuzzer should try besides the keys and choices: sizes, counts, edge numbers. */
const DICT_VALUES = ["-1", "0", "0.5", "1e15", "1e308", "24GiB", "7B", "80GB", "GB", "GiB", "NaN", "inf", "off", "on"];

/** The settings fuzzer's dictionary: `key=` for every row, the separators, then every value, sorted. */
export function fuzzDictionary(schema) {
  const values = new Set(DICT_VALUES);
  for (const row of schema) for (const choice of row.choices ?? []) values.add(choice);
  const quote = (text) => JSON.stringify(text);
  return [
    "# libFuzzer dictionary for fuzz_settings: every settings key as \"key=\", the separators and typical values.",
    "# Generated from the settings table by scripts/generate-settings.mjs: do not edit.",
    ...schema.map((row) => quote(`${row.key}=`)),
    quote("&"),
    quote("="),
    ...[...values].sort().map(quote),
  ].join("\n") + "\n";
}

const GROUP_TITLES = {
  model: "Model architecture",
  workload: "Workload",
  finetune: "Fine-tuning",
  precision: "Precision and optimizer",
  parallelism: "Parallelism",
  device: "Device and overheads",
};

/** What the widget says of a setting beyond its row: the page's defaults it starts from (web/state.js). */
const WIDGET_NOTES = {
  model: `The widget's default is the page's, \`${PAGE_DEFAULTS.model}\`; \`model=""\` gives a custom architecture from the attributes below.`,
  gpu: `The widget's default is the page's, \`${PAGE_DEFAULTS.gpu}\`; \`gpu=""\` leaves the device size to \`gpu_memory\`.`,
};

/** 1e6 and above as 1e6, 2.5e7; smaller numbers as written. */
function shortNumber(n) {
  if (Math.abs(n) < 1e6) return String(n);
  const exponent = Math.floor(Math.log10(Math.abs(n)));
  const mantissa = n / 10 ** exponent;
  return Number.isInteger(mantissa) ? `${mantissa}e${exponent}` : String(n);
}

/** The heading's type: "integer 1–1e6 tokens", "flag: on \| off", the choices, or "text". */
function typeText(row) {
  if (row.kind === "choice") return row.choices.join(" \\| ");
  if (row.kind === "flag") return "flag: on \\| off";
  if (row.kind === "text") return "text";
  const unit = row.unit && row.unit !== "bytes" ? ` ${row.unit}` : "";
  return `${row.kind} ${shortNumber(row.min)}–${shortNumber(row.max)}${unit}`;
}

function settingSection(row) {
  const fallback = PAGE_DEFAULTS[row.key] ?? row.default;
  const lines = [`#### \`${row.key}\` (${typeText(row)}; default \`${fallback}\`)`, ""];
  const paragraph = [`${row.doc}.`];
  if (WIDGET_NOTES[row.key]) paragraph.push(WIDGET_NOTES[row.key]);
  if (row.applies) paragraph.push(`Applies only with: ${row.applies.map((r) => r.when).join("; ")}.`);
  lines.push(paragraph.join(" "), "");
  return lines;
}

/** docs/embedding.md's settings reference: one section per group, one heading per setting, in table order. */
export function settingsReference(schema) {
  const lines = [];
  let group = null;
  for (const row of schema) {
    if (row.group !== group) {
      group = row.group;
      lines.push(`### ${GROUP_TITLES[group] ?? group}`, "");
    }
    lines.push(...settingSection(row));
  }
  return lines.join("\n");
}

const FLAG_TYPE = `boolean | "on" | "off" | "true" | "false" | "yes" | "no" | "1" | "0" | 1 | 0`;

/** What `Settings` accepts for `row`: a choice's literals, a flag's spellings, a number or its text. */
function valueType(row) {
  if (row.kind === "choice") return row.choices.map((c) => JSON.stringify(c)).join(" | ");
  if (row.kind === "flag") return "FlagValue";
  if (row.kind === "text") return "string";
  return "number | string";
}

/** What the core writes for `row` (to_settings): a choice as the table spells it, a flag as on or off, else text. */
function resolvedType(row) {
  if (row.kind === "choice") return valueType(row);
  return row.kind === "flag" ? `"on" | "off"` : "string";
}

function fieldDoc(row) {
  const unit = row.unit ? ` [${row.unit}]` : "";
  const fallback = row.default === "" ? "empty" : `\`${row.default}\``;
  return `  /** ${row.label}: ${row.doc.replaceAll("*/", "* /")}${unit}. Default ${fallback}. */`;
}

/**
 * wasm/llm-memory.d.ts's `Settings` (one optional field per row: its label, doc, unit and default) and
 * `ResolvedSettings` (every row as the core writes it back).
 */
export function settingsInterface(schema) {
  const lines = [
    "/** A flag's value: read as on or off (also true/false, yes/no, 1/0). */",
    `export type FlagValue = ${FLAG_TYPE};`,
    "",
    "/**",
    " * Settings as the CLI flags, URL query keys and widget attributes spell them: `{model: \"llama-2-7b\", seq: 4096}`.",
    " * Kinds, defaults, ranges and units: `settingsSchema()` (or `llm-memory --help`). Values may be strings or",
    " * numbers/booleans, which are read as `String(value)`; `null` and `undefined` mean \"not given\". Choices are",
    " * matched without regard to case. Unknown keys and bad values come back as errors naming the setting, and so do",
    " * values of any other type (BigInt, Symbol, objects, arrays, functions) and properties whose getter throws:",
    " * nothing throws.",
    " */",
    "export interface Settings {",
  ];
  for (const row of schema) lines.push(fieldDoc(row), `  ${row.key}?: ${valueType(row)} | null;`);
  lines.push(
    "}",
    "",
    "/** Every setting as the core writes it back (`resolve`, `Estimate.settings`): choices as the table spells them, flags",
    " * as on or off, numbers as text. A `Partial` of it is a set of changes (`Knob.delta`). */",
    "export interface ResolvedSettings {",
  );
  for (const row of schema) lines.push(`  ${row.key}: ${resolvedType(row)};`);
  lines.push("}");
  return lines.join("\n");
}

/** `text` with what lies between the lines `begin` and `end` replaced by `body`. */
function between(text, begin, end, body, file) {
  const start = text.indexOf(`${begin}\n`);
  const stop = text.indexOf(`${end}\n`, start);
  if (start < 0 || stop < 0) throw new Error(`${file}: the markers ${begin} and ${end} are missing`);
  return `${text.slice(0, start + begin.length + 1)}${body}\n${text.slice(stop)}`;
}

/** {path relative to the root: text} of every generated file, from `schema` (the parsed --schema). */
export function generatedFiles(schema, read = (path) => readFileSync(resolve(root, path), "utf8")) {
  const docs = "docs/embedding.md";
  const types = "wasm/llm-memory.d.ts";
  return {
    "tests/fuzz/settings.dict": fuzzDictionary(schema),
    [docs]: between(read(docs), "<!-- settings:begin (scripts/generate-settings.mjs) -->", "<!-- settings:end -->",
      settingsReference(schema), docs),
    [types]: between(read(types), "// settings:begin (scripts/generate-settings.mjs)", "// settings:end",
      settingsInterface(schema), types),
  };
}

/** The files whose committed text differs from what the table generates. */
export function staleFiles(schema) {
  return Object.entries(generatedFiles(schema))
    .filter(([path, text]) => readFileSync(resolve(root, path), "utf8") !== text)
    .map(([path]) => path);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const cli = resolve(root, args.find((a) => a !== "--check") ?? process.env.LLM_MEMORY_CLI ?? "build/release/llm-memory");
  const schema = JSON.parse(execFileSync(cli, ["--schema"], { encoding: "utf8" }));
  if (check) {
    const stale = staleFiles(schema);
    for (const path of stale) console.error(`${path} differs from the settings table: run node scripts/generate-settings.mjs`);
    process.exit(stale.length ? 1 : 0);
  }
  for (const [path, text] of Object.entries(generatedFiles(schema))) writeFileSync(resolve(root, path), text);
}
