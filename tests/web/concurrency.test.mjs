// SPDX-License-Identifier: MIT
// Inference's one concurrency figure (issue 36 item 4): whole requests of the context at once, in the words of a
// serving runtime, the same on the page (web/ui/format.js requestsText: the runtime line, the solver, the verdict's
// room) and in the CLI (cli/print.cpp), where vLLM's own log gives the fraction ("maximum concurrency ... 110.70x").
import assert from "node:assert/strict";
import { test } from "node:test";

import { requestsText } from "../../web/ui/format.js";
import { cli } from "./support.mjs";

test("requests are whole: the fraction the KV cache holds, rounded down", () => {
  assert.equal(requestsText(110.703125, "4096"), "110 requests of 4,096 tokens at once");
  assert.equal(requestsText(1.4, 32768), "1 request of 32,768 tokens at once");
  assert.equal(requestsText(0.7, 32768), "not one request of 32,768 tokens at once");
  assert.equal(requestsText(2000, 128), "2,000 requests of 128 tokens at once");
});

test("the CLI says one figure: the runtime line's requests are the solver's micro-batch", () => {
  const args = ["--mode", "inference", "--model", "llama-3.1-8b", "--seq", "4096", "--gpu", "h100-80gb"];
  const json = JSON.parse(cli([...args, "--json", "--solve"]));
  const requests = Math.floor(json.runtime.max_concurrency);
  assert.equal(json.solve.max_batch.value, requests, "the solver's search and the runtime's KV capacity agree");
  const text = cli([...args, "--solve"]);
  const said = `${requests.toLocaleString("en-US")} requests of 4,096 tokens at once`;
  assert.ok(text.includes(`vllm: KV cache holds ${json.runtime.kv_capacity_tokens.toLocaleString("en-US")} tokens · ${said}\n`), text);
  assert.ok(text.includes(`max_batch    ${said} fit\n`), text);
  assert.doesNotMatch(text, /maximum concurrency|\d\.\d\dx/);
});
