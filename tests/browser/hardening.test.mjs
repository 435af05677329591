// SPDX-License-Identifier: MIT
// Issue 20 in headless Chromium: a core call that fails shows an error and no earlier numbers (item 2), and the
// engine swaps a fresh core in under the same settings (issue 37); the
// notice of a hostile link is capped (item 5); only embed.html may be framed by another site (item 5,
// frame-ancestors, sent as a header by scripts/serve.mjs because browsers ignore it in a <meta> CSP).
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { serve } from "../../scripts/serve.mjs";
import { bucketBytes, open, start } from "./support.mjs";

let session;

before(async () => {
  session = await start();
});

after(async () => {
  await session?.close();
});

test("a core call that throws shows an error and no numbers of earlier settings; the next one recovers", async () => {
  const page = await open(session.context, `${session.url}?model=llama-2-7b&mode=inference&seq=4096`);
  await page.waitForSelector("#results-table tr[data-bucket]");
  // tests/golden/inference.json: 2 (K, V) x 32 layers x 4096 tokens x 32 heads x 128 x 2 B.
  assert.equal(await bucketBytes(page, "kv_cache"), 2_147_483_648);
  // Every core answer reaches the page through JSON.parse (wasm/api.js): make it throw, as a call that ran
  // out of stack or memory would.
  const failed = await page.evaluate(() => {
    const parse = JSON.parse;
    JSON.parse = () => {
      throw new RangeError("Maximum call stack size exceeded");
    };
    try {
      window.llmMemoryApp.edit({ seq: "8192" });
    } finally {
      JSON.parse = parse;
    }
    return {
      status: document.getElementById("input-status").textContent,
      status_hidden: document.getElementById("input-status").hidden,
      rows: document.querySelectorAll("#results-table tr[data-bucket]").length,
      summary: document.getElementById("summary").textContent,
      bar: document.getElementById("stacked-bar").textContent,
      heatmap_hidden: document.getElementById("heatmap").hidden,
    };
  });
  assert.equal(failed.status_hidden, false);
  assert.match(failed.status, /calculator: the calculation failed \(Maximum call stack size exceeded\); it is restarting; your settings are kept/);
  assert.deepEqual([failed.rows, failed.summary, failed.bar, failed.heatmap_hidden], [0, "", "", true]);
  // The engine swaps a fresh core in (issue 37); the page says so, as text, and draws the settings it kept.
  await page.waitForFunction(() => /restarted/.test(document.getElementById("notice").textContent));
  assert.match(await page.textContent("#notice"), /The calculator stopped and was restarted; your settings are kept:\s*Maximum call stack size exceeded/);
  await page.waitForSelector("#results-table tr[data-bucket]");
  assert.equal(await bucketBytes(page, "kv_cache"), 2_147_483_648);
  // The next edit computes again (8192 tokens: twice the KV cache).
  await page.evaluate(() => window.llmMemoryApp.edit({ seq: "8192" }));
  await page.waitForSelector("#results-table tr[data-bucket]");
  assert.equal(await bucketBytes(page, "kv_cache"), 2 * 2_147_483_648);
  assert.equal(await page.isHidden("#input-status"), true);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the notice of a hostile link is capped in lines and characters, and says how many were left out", async () => {
  // 40 unknown keys (read as 20 lines by the link reader), and 30 settings with values the core refuses,
  // each quoted in its message: 999 characters long.
  const unknown = Array.from({ length: 40 }, (_, i) => `junk${i}=1`);
  const schema = ["hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size", "batch",
    "seq", "grad_accum", "devices", "tp", "pp", "lora_rank", "head_dim", "num_key_value_heads", "max_position_embeddings"];
  const bad = schema.map((key) => `${key}=${"x".repeat(999)}`);
  const page = await open(session.context, `${session.url}?${[...unknown, ...bad].join("&")}`);
  const lines = await page.locator("#notice li").allTextContents();
  assert.equal(lines.length, 20, lines.join("\n"));
  for (const line of lines) assert.ok(line.length <= 300, `${line.length} characters: ${line.slice(0, 80)}…`);
  assert.match(lines.at(-1), /^… and \d+ more problems not shown$/);
  // 20 lines from the link reader plus one per refused setting, less the 19 shown.
  assert.equal(Number(lines.at(-1).match(/\d+/)[0]), 20 + schema.length - 19);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("another site can frame embed.html but not the page (frame-ancestors header)", async () => {
  // The host page comes from a second server: another port is another origin. (A page fulfilled by
  // page.route would count as a public site, which Chromium does not let frame a loopback address at all.)
  const dir = await mkdtemp(join(tmpdir(), "llm-memory-host-"));
  await writeFile(join(dir, "host.html"), `<!doctype html><iframe id="page" src="${session.url}index.html"></iframe>` +
    `<iframe id="embed" src="${session.url}embed.html?model=llama-2-7b&mode=inference&seq=4096"></iframe>`);
  const host = await serve(dir, 0);
  const page = await session.context.newPage();
  const refusals = [];
  page.on("console", (message) => /frame-ancestors|Refused to (display|frame)/i.test(message.text()) && refusals.push(message.text()));
  await page.goto(`${host.url}host.html`);
  const embed = page.frames().find((frame) => frame.url().includes("/embed.html"));
  assert.ok(embed, page.frames().map((f) => f.url()).join(", "));
  await embed.waitForFunction(() => document.querySelector("llm-memory")?.estimate);
  assert.equal(await embed.evaluate(() => document.querySelector("llm-memory").estimate.bytes.kv_cache), 2_147_483_648);
  // The page's frame was refused: Chromium shows its error page in place of index.html.
  const urls = page.frames().map((frame) => frame.url());
  assert.equal(urls.some((url) => url.endsWith("/index.html")), false, urls.join(", "));
  assert.ok(urls.some((url) => url.startsWith("chrome-error:")), urls.join(", "));
  assert.ok(refusals.length > 0, "Chromium reports the refused frame");
  await page.close();
  // The session's Chromium keeps its sockets to the host server after the page closes, and close() waits for them.
  host.server.closeAllConnections();
  await new Promise((done) => host.server.close(done));
  await rm(dir, { recursive: true, force: true });
});
