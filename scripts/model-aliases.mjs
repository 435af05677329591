// SPDX-License-Identifier: MIT
// dist/model-aliases.json: {alias: preset id} for every alias a model preset lists (core/data/models.json), lower
// case. A link may name a preset by an alias (`?model=meta-llama/Llama-3.1-8B-Instruct`); the page's core starts
// with only the preset its first estimate names (docs/wasm.md), so it learns which file to read from this map,
// fetched only when a link's model is no preset it has (web/app.js loadLinkPreset). Ids and repo ids need no
// entry: the core reads a name as its part after the last "/", lower case, without "-hf" (core/src/presets.cpp
// model_key), and web/boot.js preloads models/<that>.json.
import { readFile, writeFile } from "node:fs/promises";

/** The map from the catalogue's entries (llm-memory.models.json: an array of presets). */
export function modelAliases(entries) {
  const map = {};
  for (const entry of entries) for (const alias of entry.aliases ?? []) map[String(alias).toLowerCase()] = entry.id;
  return map;
}

/** Writes `dist`/model-aliases.json from `dist`/llm-memory.models.json. */
export async function writeModelAliases(dist) {
  const entries = JSON.parse(await readFile(`${dist}/llm-memory.models.json`, "utf8"));
  await writeFile(`${dist}/model-aliases.json`, JSON.stringify(modelAliases(entries)));
}
