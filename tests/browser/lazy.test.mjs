// SPDX-License-Identifier: MIT
// Issue 19 item 11, in headless Chromium: the code only a user action needs is fetched when that action happens
// (docs/web.md, "Start-up"). A plain visit to the start page fetches the chunks app.js imports (preloaded beside
// it) and no other, and no part of the core: the visitor's first action fetches the first part and the rest once
// (the start page is prerendered whole, its ways out included; a link with settings fetches both at once);
// opening the Heatmap tab, the What fits tab, the Embed button, a chosen file, a Hub repo id, the box for a
// command, config or log, "What runs on my machine" and "Copy launch command" each fetch theirs, which then works;
// after the eight every chunk but a link's model loader has been fetched. The heatmap and the GPU table are drawn
// only while their tab is open.
// Run after `npm run build`: node --test tests/browser/lazy.test.mjs
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chunkFiles, dist, firstLoad, openGroup, settled, showTab, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
});
after(() => session?.close());

/** The chunks index.html preloads (those app.js imports at once), as request paths. */
async function preloaded() {
  const html = await readFile(join(dist, "index.html"), "utf8");
  return [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => `/${m[1]}`);
}


/** The heatmap's figure: the frontier (seq -> max micro-batch), the user's point and the draws so far. */
const heatmapOf = (page) => page.$eval("figure.heatmap", (figure) => ({
  frontier: Object.fromEntries(JSON.parse(figure.dataset.frontier)),
  seq: Number(figure.dataset.seq),
  max_batch: Number(figure.dataset.maxBatch),
  renders: Number(figure.dataset.renders),
}));

test("a plain visit fetches no lazy chunk; the heatmap and fits tabs, Embed, a file, a Hub id, the paste box, What runs on my machine and Copy launch command each fetch theirs, which works", async () => {
  const chunks = (await chunkFiles(dist)).map((file) => `/${file}`);
  const eager = await preloaded();
  for (const file of eager) assert.ok(chunks.includes(file), `${file} is a chunk`);
  // The heatmap, the GPU table, the embed dialog, the file reader and the Hub loader: five at least.
  assert.ok(chunks.length - eager.length >= 5, JSON.stringify({ chunks, eager }));
  await session.context.route("https://huggingface.co/**", (route) => route.abort("internetdisconnected"));

  // `paths` goes on collecting the page's requests after the load.
  const { paths, page } = await firstLoad(session.context, session.url);
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const fetched = () => paths.filter((path) => path.startsWith("/chunks/"));
  assert.deepEqual(fetched().sort(), [...eager].sort(), "before any action: app.js's own chunks only");
  // No part of the core: the start page is whole in index.html and starts its core at its wake (web/wake.js).
  const cores = () => paths.filter((path) => path.endsWith(".wasm"));
  assert.deepEqual(cores(), [], "before any action: no part of the core");
  assert.equal(await page.$$eval("#heatmap > *", (nodes) => nodes.length), 0, "the heatmap is not drawn while its tab is closed");
  assert.equal(await page.$$eval("#gpu-fit > *", (nodes) => nodes.length), 0, "nor the GPU table");

  /** Runs `action` and returns the chunks it fetched (none fetched before). */
  const fetchedBy = async (action) => {
    const had = fetched();
    await action();
    return fetched().filter((path) => !had.includes(path));
  };

  // The heatmap. The start page is Llama 3.1 8B served by vLLM on one RTX 4090 at 8,192 tokens, which fits:
  // the frontier at the page's length is the solver's largest batch, at least the one request shown.
  assert.ok((await fetchedBy(() => showTab(page, "heatmap"))).length >= 1, "opening the tab fetches the heatmap");
  await page.waitForSelector('#heatmap[data-state="ready"]');
  assert.deepEqual(cores(), ["/llm-memory.first.wasm", "/llm-memory.rest.wasm"], "and the rest of the core, once");
  let map = await heatmapOf(page);
  assert.equal(map.seq, 8192);
  assert.ok(map.frontier[8192] >= 1);
  assert.equal(map.max_batch, map.frontier[8192]);
  // While open it follows the settings; while closed it is not recomputed, and opening it draws the new ones.
  await page.fill('input[name="seq"]', "4096");
  await settled(page);
  await page.waitForSelector('#heatmap[data-state="ready"]');
  map = await heatmapOf(page);
  assert.equal(map.seq, 4096);
  await showTab(page, "breakdown");
  await page.fill('input[name="seq"]', "1024");
  await settled(page);
  assert.deepEqual(await heatmapOf(page), map, "not redrawn behind a closed tab");
  await showTab(page, "heatmap");
  const reopened = await heatmapOf(page);
  assert.equal(reopened.seq, 1024);
  assert.equal(reopened.renders, map.renders + 1);

  // What fits: one row per GPU preset; the start settings fit the RTX 4090 they are on.
  assert.ok((await fetchedBy(async () => {
    await showTab(page, "fits");
    await page.waitForSelector('#gpu-fit[data-state="ready"] tr[data-gpu]');
  })).length >= 1, "opening What fits fetches the GPU table");
  const presets = await page.evaluate(() => window.llmMemoryApp.engine.gpus.length);
  assert.equal(await page.locator("#gpu-fit tr[data-gpu]").count(), presets);
  assert.equal(await page.getAttribute('#gpu-fit tr[data-gpu="rtx-4090"]', "data-fits"), "true");

  // The Embed button: the dialog opens with the snippet of the page's settings (seq 1024 set above).
  assert.ok((await fetchedBy(async () => {
    await page.click("#embed-open");
    await page.waitForSelector(".embed-dialog[open]");
  })).length >= 1, "the Embed button fetches the dialog");
  assert.match(await page.inputValue(".embed-dialog textarea"), /<llm-memory[^>]* seq="1024"/);
  await page.click(".embed-dialog >> text=Close");

  // The config drop zone: opening its group fetches its code (web/ui/drop-target.js); before, only the closed
  // group is on the page.
  assert.equal(await page.locator("#config-file").count(), 0, "no drop zone before its group is opened");
  assert.ok((await fetchedBy(async () => {
    await openGroup(page, ".config");
    await page.waitForSelector("#config-file");
  })).some((path) => path.startsWith("/chunks/")), "opening the group fetches the drop zone's code");
  // A chosen config.json: its architecture replaces the preset (hidden_size 2048 as given).
  const config = { hidden_size: 2048, num_hidden_layers: 4, num_attention_heads: 16, intermediate_size: 5632, vocab_size: 32000 };
  assert.ok((await fetchedBy(async () => {
    await page.setInputFiles("#config-file", { name: "config.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(config)) });
    await page.waitForFunction(() => window.llmMemoryApp.state.overrides.hidden_size === "2048");
  })).length >= 1, "a chosen file fetches the file reader");

  // A Hub repo id with no network: the loader is fetched from the page's origin and says the Hub is unreachable.
  assert.ok((await fetchedBy(async () => {
    await page.fill("#model-search", "test-org/Tiny-Model");
    await page.press("#model-search", "Enter");
    await page.waitForFunction(() => document.getElementById("hub-status").textContent.startsWith("Could not load test-org/Tiny-Model"));
  })).length >= 1, "a repo id fetches the Hub loader");
  assert.match(await page.textContent("#hub-status"), /could not reach huggingface\.co/);
  // The box for a command, config or log: opened, it fetches its code (tests/browser/paste-box.test.mjs uses it).
  assert.ok((await fetchedBy(async () => {
    await page.click("#paste-box > summary");
    await page.waitForSelector("#paste-text");
  })).length >= 1, "opening the paste box fetches its code");
  // "What runs on my machine": opened, it fetches its code and ranks (tests/browser/fits-view.test.mjs uses it).
  assert.ok((await fetchedBy(async () => {
    await page.click("#fits-view > summary");
    await page.waitForSelector('#fits-view-status[data-state="ready"]');
  })).length >= 1, "opening What runs on my machine fetches its code");
  // "Copy launch command" (an inference run's, under the breakdown) fetches its code on first use
  // (tests/browser/emit-copy.test.mjs).
  await showTab(page, "breakdown");
  assert.ok((await fetchedBy(async () => {
    await page.evaluate(() => window.llmMemoryApp.edit({ mode: "inference", runtime: "vllm" }));
    await page.click("#emit-copy");
    await page.waitForSelector("#emit-text");
  })).length >= 1, "Copy launch command fetches its code");
  // All but the one a link's repo id imports before the page starts (web/ui/link-model.js: newcomer.test.mjs).
  const others = chunks.filter((file) => !file.startsWith("/chunks/link-model-"));
  assert.equal(others.length, chunks.length - 1);
  assert.deepEqual(fetched().sort(), others.sort(), "after the eight actions, every chunk has been fetched");
  assert.deepEqual(cores(), ["/llm-memory.first.wasm", "/llm-memory.rest.wasm"], "the rest of the core fetched once in all");
  assert.deepEqual(errors, []);
  await page.close();
  await session.context.unroute("https://huggingface.co/**");
});

test("the default page shows its prerendered answers without the core; the first action fetches both parts, and they stay", async () => {
  const { paths, page } = await firstLoad(session.context, session.url);
  const cores = () => paths.filter((path) => path.endsWith(".wasm"));
  assert.equal(await page.getAttribute("html", "data-dormant"), "", "asleep until the visitor acts");
  assert.deepEqual(cores(), [], "a visit that only reads: no part of the core");
  // The start settings fit: the prerendered answer is the room left (the solver's, in the rest).
  const room = await page.textContent("#ways-out");
  assert.match(room, /^Room on this device: /);
  await settled(page);  // a key press: the visitor's first action
  assert.deepEqual(cores(), ["/llm-memory.first.wasm", "/llm-memory.rest.wasm"], "the action fetched both parts, once");
  assert.equal(await page.textContent("#ways-out"), room, "the core's answer is the prerendered one");
  // A way out on settings that do not fit applies its change (the listener app.js puts on the list).
  await page.fill('input[name="seq"]', "131072");
  await settled(page);
  const way = page.locator("#ways-out li[data-delta]").first();
  const delta = JSON.parse(await way.getAttribute("data-delta"));
  assert.ok(Object.keys(delta).length > 0, JSON.stringify(delta));
  await way.locator("button").click();
  await settled(page);
  // The settings now resolve to the change (an override equal to what resolves anyway, pp 1 beside a stated tp,
  // is not kept in the link).
  const resolved = await page.evaluate(() => window.llmMemoryApp.last.settings);
  for (const [key, value] of Object.entries(delta)) assert.equal(resolved[key], value, key);
  assert.match(await page.textContent("#change-note"), /^Applied /);
  await page.close();
});

test("the settings' help texts are not part of the first load; pointing at the form reads them and shows them", async () => {
  const { paths, page } = await firstLoad(session.context, session.url);
  const docs = () => paths.filter((path) => path === "/llm-memory.docs.json");
  assert.deepEqual(docs(), [], "a visit that only reads: no help texts");
  const help = '#settings-form .field[data-key="seq"] .help';
  assert.equal(await page.textContent(help), " Key: seq", "the key shows before its doc");
  // The doc the native --schema writes for seq, from the file the build wrote (wasm/setting_docs.cpp).
  const { seq } = JSON.parse(await readFile(join(dist, "llm-memory.docs.json"), "utf8"));
  assert.ok(seq.length > 10, seq);
  await page.hover('#settings-form .field[data-key="seq"] input');
  await page.waitForFunction(([selector, text]) => document.querySelector(selector).textContent === text, [help, `${seq} Key: seq`]);
  assert.deepEqual(docs(), ["/llm-memory.docs.json"], "read on the first pointer over the form");
  await page.close();
});

test("a link with settings fetches the rest at once, beside the first part", async () => {
  const { paths, page } = await firstLoad(session.context, `${session.url}?v=2&seq=4096`);
  assert.equal(await page.getAttribute("#results", "data-answers"), "ready");
  assert.deepEqual(paths.filter((path) => path.endsWith(".wasm")).sort(), ["/llm-memory.first.wasm", "/llm-memory.rest.wasm"]);
  assert.ok(await page.locator("#ways-out li[data-delta]").count() > 0, "its own ways out");
  await page.close();
});

test("a link is marked before its body is parsed: the prerendered controls are not laid out, app.js is preloaded and the first part compiling; its verdict, live region and form follow", async () => {
  // Issue 36 item 9: index.html's inline head script (allowed by its CSP hash) marks html[data-link], and
  // styles.css takes the start page's prerendered controls and result out of the layout until app.js has drawn the
  // link's own. app.js is held back here, so what is seen is the page before it runs.
  let release;
  const held = new Promise((done) => (release = done));
  // This page's own route: no other page waits, whatever happens here.
  const page = await session.context.newPage();
  const requested = [];
  page.on("request", (request) => requested.push(new URL(request.url()).pathname));
  await page.route("**/app.js", async (route) => {
    await held;
    await route.continue();
  });
  // Parsed ("interactive"): DOMContentLoaded would wait for app.js, a deferred module.
  await page.goto(`${session.url}?v=2&model=llama-2-7b&mode=inference&seq=4096`, { waitUntil: "commit" });
  // And styled: a render-blocking stylesheet still loading when the parse ends (two test files at a time on a loaded
  // machine) leaves the computed style unstyled, which no frame ever shows.
  await page.waitForFunction(() => document.readyState !== "loading" &&
                                   document.querySelector('link[rel="stylesheet"][href="styles.css"]')?.sheet != null);
  const before = await page.evaluate(() => ({
    link: document.documentElement.dataset.link,
    prerendered: "prerendered" in document.documentElement.dataset,
    form: getComputedStyle(document.getElementById("settings-form")).display,
    elements: document.querySelectorAll("#settings-form *").length,
    gpus: getComputedStyle(document.getElementById("gpu-picker")).display,
    result: getComputedStyle(document.getElementById("results-table")).display,
    // The form's box: none (display: none has no layout box).
    box: document.getElementById("settings-form").getClientRects().length,
    preloads: [...document.querySelectorAll('link[fetchpriority="high"]')].map((link) => `${link.rel} ${link.getAttribute("href")}`),
    // The head script's compile of the first part, which web/boot.js hands to the engine (docs/web.md, "Start-up").
    compiling: globalThis.llmMemoryEarly?.module instanceof Promise,
  }));
  release();
  assert.deepEqual(before, { link: "", prerendered: true, form: "none", elements: before.elements, gpus: "none", result: "none", box: 0,
                             preloads: ["modulepreload app.js"], compiling: true });
  assert.ok(requested.includes("/llm-memory.first.wasm"), "its fetch started before app.js ran");
  assert.ok(before.elements > 50, `the prerendered form is in the document, unlaid (${before.elements} elements)`);
  await page.waitForSelector('body[data-ready="true"]');
  await settled(page);
  // The link's verdict, said once in the polite live region; then the full form, live.
  assert.match(await page.textContent('#verdict-head [elementtiming="verdict"]'), /^(Fits|Does not fit):/);
  assert.equal(await page.getAttribute("#verdict-live", "aria-live"), "polite");
  await page.waitForFunction(() => document.getElementById("verdict-live").textContent.length > 0);
  const line = await page.textContent('#verdict-head [elementtiming="verdict"]');
  assert.ok((await page.textContent("#verdict-live")).endsWith(` ${line}`), "the live region says the verdict");
  assert.equal(await page.isVisible('#settings-form input[name="seq"]'), true, "the live form is shown");
  assert.equal(await page.inputValue('input[name="seq"]'), "4096", "with the link's settings");
  const verdict = await page.textContent("#verdict-head");
  await page.fill('input[name="seq"]', "131072");
  await settled(page);
  assert.notEqual(await page.textContent("#verdict-head"), verdict, "and it works: a longer context redraws the verdict");
  assert.match(page.url(), /seq=131072/);
  await page.close();
  // The start page: not marked, its prerendered controls laid out as before.
  const { page: plain } = await firstLoad(session.context, session.url);
  assert.deepEqual(await plain.evaluate(() => [document.documentElement.dataset.link, getComputedStyle(document.getElementById("settings-form")).display]),
                   [undefined, "block"]);
  assert.equal(await plain.locator('link[fetchpriority="high"]').count(), 0, "and nothing preloaded for it");
  assert.equal(await plain.evaluate(() => "llmMemoryEarly" in globalThis), false, "nor compiled before its wake");
  await plain.close();
  // The single file (no .wasm beside it) is marked too, and preloads nothing.
  const single = await session.context.newPage();
  await single.goto(`${session.url}llm-memory.html?v=2&seq=4096`);
  await single.waitForSelector('body[data-ready="true"]');
  assert.equal(await single.evaluate(() => document.documentElement.dataset.link), "");
  assert.equal(await single.locator('link[fetchpriority="high"]').count(), 0);
  await single.close();
});

test("a link's verdict is painted alone first: the results and the controls are built after its frame, then live; the live region says the model's name", async () => {
  // Issue 36 item 9 (docs/web.md, "Start-up"): app.js draws a link's verdict (App.drawVerdict) and waits for its
  // frame before it builds the results and the controls (App.build, buildControls). Seen from the page: in the
  // animation frame after the verdict appears, the verdict is shown and nothing else has been built; the verdict's
  // own paint (its element timing) comes before the settings form gets its fields.
  const page = await session.context.newPage();
  await page.addInitScript(() => {
    const seen = (window.linkOrder = { frame: null, form_at: null });
    new MutationObserver((records) => {
      const root = document.documentElement;
      if (!root || !("started" in root.dataset)) return;
      if (seen.form_at === null && document.getElementById("settings-form")?.childElementCount) seen.form_at = performance.now();
      // The link's own verdict drawn (the start page's prerendered one was parsed before app.js started).
      const drawn = records.some((r) => r.target.id === "verdict-head" && [...r.addedNodes].some((n) => n.getAttribute?.("elementtiming") === "verdict"));
      if (seen.frame !== null || !drawn) return;
      seen.frame = "waiting";
      requestAnimationFrame(() => {
        const style = getComputedStyle(document.getElementById("verdict-head"));
        seen.frame = {
          verdict: document.querySelector('#verdict-head [elementtiming="verdict"]').textContent,
          shown: `${style.display} ${style.visibility}`,
          results: getComputedStyle(document.getElementById("results-table")).display,
          fields: document.getElementById("settings-form").childElementCount,
          models: document.getElementById("model-picker").childElementCount,
          ready: document.body.dataset.ready ?? null,
        };
      });
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`${session.url}?v=2&model=llama-2-7b&mode=inference&seq=4096`);
  await page.waitForSelector('body[data-ready="true"]');
  await settled(page);
  const line = await page.textContent('#verdict-head [elementtiming="verdict"]');
  const { frame, form_at, painted } = await page.evaluate(async () => ({
    ...window.linkOrder,
    painted: Math.min(...await new Promise((done) => new PerformanceObserver((list) => done(list.getEntries()
      .filter((e) => e.identifier === "verdict").map((e) => e.renderTime))).observe({ type: "element", buffered: true }))),
  }));
  assert.deepEqual(frame, { verdict: line, shown: "block visible", results: "none", fields: 0, models: 0, ready: null },
                   "its frame shows the link's own verdict, the same as after, and nothing else is built yet");
  assert.ok(painted < form_at, `the verdict painted (${painted} ms) before the settings form was built (${form_at} ms)`);
  // Nothing lost: the results and the live controls with the link's settings, the URL, the focus left where it was.
  assert.ok(await page.locator("#results-table tr").count() > 1, "the results drawn");
  assert.equal(await page.isVisible("#results-table"), true);
  assert.equal(await page.inputValue('input[name="seq"]'), "4096");
  assert.match(page.url(), /model=llama-2-7b/);
  assert.equal(await page.evaluate(() => document.activeElement === document.body), true, "no control took the focus");
  assert.equal(await page.evaluate(() => "verdict" in document.documentElement.dataset), false);
  // The keys the link was read against, built into app.js (scripts/build-web.mjs), are the core's schema's.
  const keys = await page.evaluate(() => [window.llmMemoryApp.engine.keys, window.llmMemoryApp.engine.schema.map((row) => row.key)]);
  assert.ok(keys[0].length > 100);
  assert.deepEqual(keys[0], keys[1]);
  // The polite live region says the verdict with the catalogue's name for the model, as the verdict shows it.
  const { name } = JSON.parse(await readFile(join(dist, "models", "llama-2-7b.json"), "utf8"));
  await page.waitForFunction((text) => document.getElementById("verdict-live").textContent.startsWith(text), `${name} · `);
  assert.ok((await page.textContent("#task-sentence")).startsWith(`${name} · `));
  assert.ok((await page.textContent("#verdict-live")).endsWith(` ${line}`));
  await page.fill('input[name="seq"]', "131072");
  await settled(page);
  assert.match(page.url(), /seq=131072/, "and the form is live");
  await page.close();
});

test("a link to a hybrid model answers once the rest is in: its estimate met a recurrent layer kind's placeholder", async () => {
  // Granite 4.0-H's Mamba-2 layers: their rows are in llm-memory.rest.wasm (scripts/split-wasm.mjs REST_ROWS); the
  // engine loads the rest and the page draws again (Engine#awaitRest, onRestIn).
  const { page } = await firstLoad(session.context, `${session.url}?v=2&model=granite-4.0-h-small&mode=inference&seq=8192`);
  await settled(page);
  const settings = await page.evaluate(() => window.llmMemoryApp.last.settings);
  assert.equal(settings.model, "granite-4.0-h-small");
  assert.match(await page.textContent("#results-table"), /Mamba state \(SSM \+ conv, per sequence\)/);
  assert.equal(await page.isVisible("#input-status"), false, "no error left in view");
  assert.equal(await page.isVisible("#notice"), false, "nothing in the link was ignored");
  await page.close();
});

test("a rest of the core that cannot be fetched is an error in the heatmap, and the next settings fetch it again", async () => {
  await session.context.route("**/llm-memory.rest.wasm", (route) => route.abort("internetdisconnected"));
  const { page } = await firstLoad(session.context, session.url);
  await showTab(page, "heatmap");
  assert.match(await page.textContent("#heatmap figcaption"),
    /No chart for these settings: calculator: this answer's code \(llm-memory\.rest\.wasm\) could not be loaded \(.+\); reload the page if it persists\./);
  await session.context.unroute("**/llm-memory.rest.wasm");
  await page.fill('input[name="seq"]', "1024");
  await settled(page);
  await page.waitForSelector('#heatmap[data-state="ready"]');
  assert.equal((await heatmapOf(page)).seq, 1024, "drawn once the rest is in");
  await page.close();
});

test("idle after its first answer, the page fetches the core's rest and the catalogue; What fits, Knobs and the model box then fetch neither", async () => {
  // Issue 36 item 9: firstLoad({warm: true}) lets the page hear that it is idle (Engine.warmWhenIdle).
  const { paths, page } = await firstLoad(session.context, session.url, { warm: true });
  await page.waitForSelector('body[data-warm="true"]');
  const core = () => paths.filter((path) => path.endsWith(".wasm") || path.endsWith(".json"));
  const warmed = ["/llm-memory.first.wasm", "/llm-memory.models.json", "/llm-memory.rest.wasm", "/models/llama-3.1-8b.json"];  // the start page's model (web/state.js START_OVERRIDES)
  assert.deepEqual(core().sort(), warmed, "the rest and the catalogue, not the help texts");
  // The answers the first action would draw are drawn while idle (App.prepareAnswers), into their hidden panels:
  // the knob table's rows and the solver's answer; the ways out, the same as the prerendered ones, drawn live.
  assert.equal(await page.getAttribute("#results", "data-answers"), "ready", "the answers of the settings shown, drawn while idle");
  assert.ok(await page.locator("#panel-knobs[hidden] #knobs tbody tr").count() > 0, "the knob table, in its hidden panel");
  assert.ok(await page.locator("#panel-fits[hidden] #solver > *").count() > 0, "the solver's answer, in its hidden panel");
  // The presets are in: the model box lists every entry of llm-memory.models.json on its first focus.
  const presets = JSON.parse(await readFile(join(dist, "llm-memory.models.json"), "utf8")).length;
  await page.click("#model-search");
  await page.waitForFunction((n) => document.querySelectorAll("#model-presets option").length === n, presets);
  // The GPU table is drawn whole into its hidden panel while idle (App.prepareGpuFit): one row per GPU preset.
  const gpus = await page.evaluate(() => window.llmMemoryApp.engine.gpus.length);
  assert.ok(gpus > 100, `the GPU presets (${gpus})`);
  assert.equal(await page.getAttribute("#gpu-fit", "data-state"), "ready", "prepared before the click");
  assert.equal(await page.locator("#gpu-fit tr[data-gpu]").count(), gpus, "every GPU's row, before the click");
  assert.equal(await page.locator("#panel-fits").isHidden(), true, "in its hidden panel");
  // Its first click paints the rows a screen can show, 12 (web/app.js FIRST_GPU_ROWS), and the others the frame
  // after: until then they are unpainted (visibility: hidden), laid out as ever.
  assert.equal(await page.locator("#gpu-fit tbody tr[data-later]").count(), gpus - 12, "the rows past the first screen wait");
  assert.equal(await page.locator("#gpu-fit tbody tr:not([data-later])").count(), 12);
  // What fits' hidden panel is laid out (styles.css), unseen and taking no room: its table has its width already.
  const hidden_fits = await page.evaluate(() => ({
    table: document.querySelector("#gpu-fit table").getBoundingClientRect().width,
    panel: document.querySelector("#panel-fits").getBoundingClientRect().height,
    visibility: getComputedStyle(document.querySelector("#panel-fits")).visibility,
  }));
  assert.ok(hidden_fits.table > 0, `the hidden GPU table is laid out (${hidden_fits.table} px wide)`);
  assert.deepEqual([hidden_fits.panel, hidden_fits.visibility], [0, "hidden"], "and takes no room, unseen");
  // A click on a tab shows its answer in the click's own task: nothing is drawn after it (the frame only paints).
  const shownInClick = async (name, answer) => {
    await page.evaluate(([tab, selector]) => {
      window.shownInClick = new Promise((done) => {
        document.querySelector(tab).addEventListener("click", () => done(Boolean(document.querySelector(selector))), { once: true });
      });
    }, [`#tab-${name}`, answer]);
    await showTab(page, name);
    return page.evaluate(() => window.shownInClick);
  };
  assert.equal(await shownInClick("knobs", '#results[data-answers="ready"] #panel-knobs:not([hidden]) #knobs tbody tr'), true,
               "the knob table shown in the click's task");
  assert.equal(await shownInClick("fits", '#panel-fits:not([hidden]) #gpu-fit[data-state="ready"] tr[data-gpu]'), true,
               "the GPU table shown in the click's task");
  await page.waitForSelector('#gpu-fit[data-state="ready"] tr[data-gpu]');
  assert.equal(await page.locator("#gpu-fit tr[data-gpu]").count(), gpus, "the table the click shows is whole");
  // Every row, shown the frame after the click: reachable by a screen reader (the accessibility tree leaves
  // visibility: hidden out, Playwright's roles too), by find-in-page and by the keyboard (the last row's button).
  await page.waitForFunction(() => !document.querySelector("#gpu-fit tr[data-later]"));
  assert.equal(await page.locator("#gpu-fit").getByRole("row").count(), gpus + 1, "the header row and one per GPU, in the accessibility tree");
  assert.equal(await page.locator("#gpu-fit tbody tr:last-child").isVisible(), true);
  // It is the default's: the current GPU (an RTX 4090, web/state.js START_OVERRIDES) is the marked row.
  assert.equal(await page.getAttribute('#gpu-fit tr[aria-current="true"]', "data-gpu"), await page.evaluate(() => window.llmMemoryApp.last.settings.gpu));
  assert.deepEqual(core().sort(), warmed, "the clicks fetched no part of the core again");
  await page.close();
});
