// SPDX-License-Identifier: MIT
// dist/model-aliases.json: {name: preset id} for every id and listed alias of the model presets
// (core/data/models.json), lower case, as the core reads a model name once its org is cut off (core/src/presets.cpp
// model_key). A link may name a preset by its Hub repo id (`?model=Qwen/Qwen3-14B`,
// `?model=meta-llama/Llama-3.1-8B-Instruct`); the page's core starts with only the preset its first estimate names
// (docs/wasm.md), and a repo id may as well be no preset at all (then the Hub is asked), so the page reads this map,
// only for such a link, to know which preset file to read without asking for one that does not exist
// (web/ui/link-model.js openLinkPreset). A name without "/" needs no map: models/<name>.json exists for every id and alias.
import { readFile, writeFile } from "node:fs/promises";

/** The map from the catalogue's entries (llm-memory.models.json: an array of presets). */
export function modelAliases(entries) {
  const map = {};
  for (const entry of entries) {
    map[String(entry.id).toLowerCase()] = entry.id;
    for (const alias of entry.aliases ?? []) map[String(alias).toLowerCase()] = entry.id;
  }
  return map;
}

/** Writes `dist`/model-aliases.json from `dist`/llm-memory.models.json. */
export async function writeModelAliases(dist) {
  const entries = JSON.parse(await readFile(`${dist}/llm-memory.models.json`, "utf8"));
  await writeFile(`${dist}/model-aliases.json`, JSON.stringify(modelAliases(entries)));
}
