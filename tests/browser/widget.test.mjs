// SPDX-License-Identifier: MIT
// <llm-memory> and the iframe embed in headless Chromium (docs/embedding.md). Needs dist/ built
// (scripts/build-wasm.sh, then node scripts/build-web.mjs, which also builds the widget).
// Test pages are served from the same origin as dist/ (under /test/), so they load ../widget.js as a blog would.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { bucketBytes, dist, open, root, start } from "./support.mjs";

// Hand-derived bytes (docs/methodology.md), Llama 2 7B (Meta's config: 32 layers, 32 heads of 128, no GQA):
// KV cache = 2 (K and V) x 32 layers x 1 sequence x 4096 tokens x 32 kv heads x 128 head_dim x 2 B (bf16)
//          = 2^1 x 2^5 x 2^12 x 2^5 x 2^7 x 2^1 = 2^31.
const KV_LLAMA2_7B_4096 = 2147483648;
// Weights: 6,738,415,616 parameters (the count Meta publishes for Llama-2-7b) x 2 B.
const WEIGHTS_LLAMA2_7B = 6738415616 * 2;
// No runtime named: vLLM (issue 22), whose weights include the rotary cos/sin cache
// max_position_embeddings 4096 x head_dim 128 x 2 B (docs/methodology.md 5.1).
const ROTARY_LLAMA2_7B = 4096 * 128 * 2;

const artifacts = join(root, "test-artifacts");
const cli = join(root, process.env.LLM_MEMORY_CLI ?? "build/release/llm-memory");

/** The native CLI's (or, without a native build, the wasm API's) estimate for `settings`. */
async function reference(settings) {
  if (existsSync(cli)) {
    const args = Object.entries(settings).flatMap(([key, value]) => [`--${key}`, value]);
    const run = spawnSync(cli, [...args, "--json"], { encoding: "utf8" });
    return JSON.parse(run.stdout);
  }
  const { load } = await import(join(dist, "llm-memory.js"));
  return (await load()).estimate(settings);
}

const html = (body, head = "") => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">${head}
<script type="module" src="../widget.js"></script></head><body>${body}</body></html>`;

describe("<llm-memory>", () => {
  let browser;
  let wasm_requests = 0;

  before(async () => {
    browser = await start();
    await mkdir(artifacts, { recursive: true });
    browser.context.on("request", (request) => {
      // The core's first part (or, on a host without the parts, the whole module; docs/wasm.md).
      if (/\/llm-memory(\.first)?\.wasm$/.test(request.url())) wasm_requests += 1;
    });
  });
  after(() => browser?.close());

  /** Opens a test page made of `markup` and waits until every widget has rendered. */
  async function openPage(markup, { viewport, head } = {}) {
    const page = await browser.context.newPage();
    if (viewport) await page.setViewportSize(viewport);
    const problems = [];
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    const name = `test/page-${Math.random().toString(36).slice(2)}.html`;
    await page.route(browser.url + name, (route) => route.fulfill({ contentType: "text/html", body: typeof markup === "string" && markup.startsWith("<!doctype") ? markup : html(markup, head) }));
    await page.goto(browser.url + name);
    // Rendered, or failed to start (e.g. a widget.js bundled with another build's wasm glue): fail fast.
    await page.waitForFunction(() => [...document.querySelectorAll("llm-memory")]
      .every((w) => w.estimate || w.shadowRoot.querySelector(".status.field-error")));
    const failures = await page.evaluate(() => [...document.querySelectorAll("llm-memory")]
      .filter((w) => !w.estimate).map((w) => w.shadowRoot.querySelector(".status").textContent));
    assert.deepEqual(failures, []);
    page.problems = problems;
    return page;
  }

  /** Closes a page opened by openPage, which must have logged no errors. */
  async function done(page) {
    assert.deepEqual(page.problems, []);
    await page.close();
  }

  /** {bucket: bytes} of the rows in widget `index`'s shadow root. */
  const rows = (page, index = 0) => page.evaluate((i) => Object.fromEntries(
    [...document.querySelectorAll("llm-memory")[i].shadowRoot.querySelectorAll("tr[data-bucket][data-bytes]")]
      .map((row) => [row.dataset.bucket, Number(row.dataset.bytes)])), index);

  test("done-when: one script tag and one element show the KV cache row of Llama 2 7B at 4096 tokens", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>');
    const bytes = await rows(page);
    assert.equal(bytes.kv_cache, KV_LLAMA2_7B_4096);
    assert.equal(bytes.parameters, WEIGHTS_LLAMA2_7B + ROTARY_LLAMA2_7B);
    await done(page);
  });

  test("a core call that throws: the engine swaps a fresh core in, and the widget keeps its settings and says so", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>');
    await page.evaluate(() => {
      // The next answer's JSON.parse throws once (as a call that ran out of stack would; wasm/api.js), then the
      // real one is back for the fresh core (issue 37).
      const parse = JSON.parse;
      JSON.parse = () => {
        JSON.parse = parse;
        throw new RangeError("Maximum call stack size exceeded");
      };
      document.querySelector("llm-memory").setAttribute("seq", "8192");
    });
    await page.waitForFunction(() => /restarted/.test(document.querySelector("llm-memory").shadowRoot.querySelector(".problems").textContent));
    const note = await page.evaluate(() => document.querySelector("llm-memory").shadowRoot.querySelector(".problems").textContent);
    assert.match(note, /The calculator stopped \(Maximum call stack size exceeded\) and was restarted; these settings are kept/);
    // The settings drawn again on the fresh core: 8192 tokens, twice the KV cache of 4096.
    assert.equal((await rows(page)).kv_cache, 2 * KV_LLAMA2_7B_4096);
    await done(page);
  });

  test("two widgets with different attributes show their own totals, equal to the CLI's", async () => {
    const a = { model: "llama-2-7b", mode: "inference", seq: "4096", gpu: "rtx-4090" };
    const b = { model: "meta-llama-3-8b", mode: "train", finetune: "lora", seq: "4096", gpu: "h100-80gb", batch: "2" };
    const element = (settings) => `<llm-memory ${Object.entries(settings).map(([k, v]) => `${k}="${v}"`).join(" ")}></llm-memory>`;
    const page = await openPage(element(a) + element(b));
    for (const [index, settings] of [a, b].entries()) {
      const expected = await reference(settings);
      assert.equal(expected.ok, true);
      const shown = await rows(page, index);
      assert.equal(shown.total, expected.bytes.total, `widget ${index} total`);
      for (const bucket of expected.buckets) assert.equal(shown[bucket.key], bucket.bytes, `widget ${index} ${bucket.key}`);
    }
    const totals = await Promise.all([0, 1].map((i) => rows(page, i).then((r) => r.total)));
    assert.notEqual(totals[0], totals[1]);
    await done(page);
  });

  test("the wasm is fetched once for the whole page, however many widgets", async () => {
    const before_count = wasm_requests;
    const page = await openPage('<llm-memory seq="1024"></llm-memory><llm-memory seq="2048"></llm-memory><llm-memory seq="4096"></llm-memory>');
    assert.equal(wasm_requests - before_count, 1);
    await done(page);
  });

  test("changing attributes re-renders once per task, with one llm-memory-change event", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>');
    const result = await page.evaluate(async () => {
      const widget = document.querySelector("llm-memory");
      const events = [];
      widget.addEventListener("llm-memory-change", (event) => events.push(event.detail));
      widget.setAttribute("seq", "8192");
      widget.setAttribute("batch", "2");
      await new Promise((done) => setTimeout(done, 50));
      const kv = widget.shadowRoot.querySelector('tr[data-bucket="kv_cache"]').dataset.bytes;
      return { count: events.length, kv: Number(kv), event_kv: events[0]?.estimate.bytes.kv_cache, seq: events[0]?.settings.seq };
    });
    // Twice the tokens and twice the sequences: 2^31 x 2 x 2.
    assert.deepEqual(result, { count: 1, kv: 4 * KV_LLAMA2_7B_4096, event_kv: 4 * KV_LLAMA2_7B_4096, seq: "8192" });
    await done(page);
  });

  test("show=advice draws the knob table once the core's rest is in, each knob's saving the API's", async () => {
    const { load } = await import(join(dist, "llm-memory.js"));
    const { PAGE_DEFAULTS } = await import(join(root, "web/state.js"));
    const advice = (await load()).advise({ ...PAGE_DEFAULTS, model: "llama-2-7b", finetune: "lora" });
    assert.equal(advice.ok, true);
    const page = await openPage('<llm-memory model="llama-2-7b" finetune="lora" show="table,advice"></llm-memory>');
    // The knob search is in the core's rest, fetched when the element first draws its table (docs/wasm.md).
    await page.waitForFunction(() => document.querySelector("llm-memory").shadowRoot.querySelector("tr[data-knob]"));
    const shown = await page.evaluate(() => Object.fromEntries([...document.querySelector("llm-memory").shadowRoot
      .querySelectorAll("tr[data-knob]")].map((row) => [row.dataset.knob, Number(row.dataset.saved)])));
    assert.deepEqual(shown, Object.fromEntries(advice.knobs.map((knob) => [knob.id, knob.saved])));
    await done(page);
  });

  test("show=heatmap draws the chart; its frontier is the solver's max micro-batch and follows the attributes", async () => {
    const { load } = await import(join(dist, "llm-memory.js"));
    const { PAGE_DEFAULTS } = await import(join(root, "web/state.js"));
    const api = await load();
    const page = await openPage('<llm-memory model="llama-3.2-1b" show="heatmap"></llm-memory>');
    // The sweep is in the core's rest, fetched when the first heatmap asks for it (docs/wasm.md).
    await page.waitForFunction(() => document.querySelector("llm-memory").shadowRoot.querySelector("figure.heatmap")?.dataset.frontier);
    const read = () => page.evaluate(() => {
      const root = document.querySelector("llm-memory").shadowRoot;
      const figure = root.querySelector('[part="heatmap"] figure.heatmap');
      const canvas = figure.querySelector("canvas");
      const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      const colours = new Set();
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] === 255) colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
      return { seq: Number(figure.dataset.seq), max_batch: Number(figure.dataset.maxBatch), frontier: JSON.parse(figure.dataset.frontier),
               colours: colours.size, bar_hidden: root.querySelector('[part="bar"]').hidden, caption: figure.querySelector("figcaption").textContent };
    });
    const solver = (seq) => api.solve({ ...PAGE_DEFAULTS, model: "llama-3.2-1b", seq }).max_batch.value;
    let shown = await read();
    assert.ok(shown.colours > 20, `the canvas is drawn (${shown.colours} colours)`);
    assert.equal(shown.bar_hidden, true, "only the views named in show");
    assert.equal(shown.seq, 2048);
    assert.ok(solver("2048") > 0);
    assert.equal(shown.max_batch, solver("2048"));
    assert.equal(new Map(shown.frontier).get(2048), solver("2048"));
    assert.match(shown.caption, /^Fits up to micro-batch \d+ at sequence length 2,048/);
    await page.evaluate(() => document.querySelector("llm-memory").setAttribute("seq", "1024"));
    await page.waitForFunction(() => document.querySelector("llm-memory").shadowRoot.querySelector("figure.heatmap").dataset.seq === "1024");
    shown = await read();
    assert.equal(shown.max_batch, solver("1024"));
    assert.ok(shown.max_batch > solver("2048"), "a shorter sequence fits more");
    await done(page);
  });

  test("controls limits the inputs the reader gets; none means read-only", async () => {
    const page = await openPage(
      '<llm-memory model="llama-2-7b" controls="batch,seq,recompute"></llm-memory><llm-memory model="llama-2-7b"></llm-memory>');
    const names = await page.evaluate(() => [...document.querySelectorAll("llm-memory")].map((w) =>
      [...w.shadowRoot.querySelectorAll("input, select, textarea")].map((c) => c.name || c.type).sort()));
    assert.deepEqual(names, [["batch", "recompute", "seq"], []]);
    // The reader's edit becomes the attribute, and the table follows it.
    const before_edit = (await rows(page, 0)).activations;
    await page.evaluate(() => {
      const input = document.querySelector("llm-memory").shadowRoot.querySelector('input[name="batch"]');
      input.value = "4";
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await page.waitForFunction(() => document.querySelector("llm-memory").estimate.settings.batch === "4");
    assert.equal(await page.getAttribute("llm-memory", "batch"), "4");
    assert.ok((await rows(page, 0)).activations > before_edit);
    await done(page);
  });

  test("typing in a widget's field keeps the text being typed while it re-renders", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" finetune="lora" controls="lora_targets"></llm-memory>');
    const field = page.locator('llm-memory >> input[name="lora_targets"]');
    await field.fill("");
    await field.pressSequentially("q_proj, v_proj, o_proj");
    await page.waitForFunction(() => document.querySelector("llm-memory").estimate.settings.lora_targets.includes("o_proj"));
    assert.equal(await field.inputValue(), "q_proj, v_proj, o_proj");
    await done(page);
  });

  test("invalid attribute values fall back to the default with a visible note", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" batch="0" mode="serve" seq="4096" sequence="9"></llm-memory>');
    const state = await page.evaluate(() => {
      const widget = document.querySelector("llm-memory");
      const notes = widget.shadowRoot.querySelector('[part="problems"]');
      return { batch: widget.estimate.settings.batch, mode: widget.estimate.settings.mode, hidden: notes.hidden,
               text: notes.textContent, visible: notes.getBoundingClientRect().height > 0 };
    });
    assert.equal(state.batch, "1");
    assert.equal(state.mode, "train");
    assert.equal(state.hidden, false);
    assert.ok(state.visible);
    assert.match(state.text, /batch: .*"0".*using "1"/);
    assert.match(state.text, /mode: .*"serve".*using "train"/);
    assert.match(state.text, /sequence: not a setting/);
    // A valid value removes the note.
    await page.evaluate(() => {
      const widget = document.querySelector("llm-memory");
      widget.setAttribute("batch", "1");
      widget.setAttribute("mode", "inference");
      widget.removeAttribute("sequence");
    });
    await page.waitForFunction(() => document.querySelector("llm-memory").shadowRoot.querySelector('[part="problems"]').hidden);
    assert.equal((await rows(page)).kv_cache, KV_LLAMA2_7B_4096);
    await done(page);
  });

  test("no CSS leaks in or out of the shadow root", async () => {
    const style = "<style>td, th { color: rgb(255, 0, 0) !important; border: 5px solid rgb(255, 0, 0); font-family: serif; }" +
      " p { text-indent: 3em; }</style>";
    const page = await openPage('<table><tr><td id="outside">page cell</td></tr></table>' +
      '<p class="verdict fits" id="light">page paragraph named like the widget\'s</p>' +
      '<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>', { head: style });
    const styles = await page.evaluate(() => {
      const root = document.querySelector("llm-memory").shadowRoot;
      const cell = getComputedStyle(root.querySelector('tr[data-bucket="kv_cache"] td'));
      const verdict = getComputedStyle(root.querySelector(".verdict"));
      const outside = getComputedStyle(document.getElementById("outside"));
      const light = getComputedStyle(document.getElementById("light"));
      return { cell_color: cell.color, cell_border: cell.borderTopWidth, verdict_indent: verdict.textIndent,
               outside_color: outside.color, outside_border: outside.borderTopWidth,
               light_background: light.backgroundColor, light_border: light.borderLeftWidth };
    });
    assert.notEqual(styles.cell_color, "rgb(255, 0, 0)");
    assert.equal(styles.cell_border, "0px");
    assert.equal(styles.verdict_indent, "0px");
    // The page keeps its own look: the widget's rules for .verdict do not reach the page's paragraph.
    assert.equal(styles.outside_color, "rgb(255, 0, 0)");
    assert.equal(styles.outside_border, "5px");
    assert.equal(styles.light_background, "rgba(0, 0, 0, 0)");
    assert.equal(styles.light_border, "0px");
    await done(page);
  });

  test("custom properties and parts theme it from outside", async () => {
    const style = "<style>llm-memory { --llm-memory-kv-cache: rgb(1, 2, 3); } llm-memory::part(verdict) { outline: 4px solid rgb(4, 5, 6); }</style>";
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>', { head: style });
    const themed = await page.evaluate(() => {
      const root = document.querySelector("llm-memory").shadowRoot;
      return { swatch: getComputedStyle(root.querySelector("tbody.bucket-kv_cache .swatch")).backgroundColor,
               verdict: getComputedStyle(root.querySelector('[part="verdict"]')).outlineColor };
    });
    assert.deepEqual(themed, { swatch: "rgb(1, 2, 3)", verdict: "rgb(4, 5, 6)" });
    await done(page);
  });

  for (const width of [320, 480, 720, 1200]) {
    test(`lays out cleanly at ${width} px`, async () => {
      const page = await openPage(
        '<llm-memory model="llama-2-7b" mode="inference" seq="4096" compact></llm-memory>' +
        '<llm-memory model="meta-llama-3-8b" controls="batch,seq,recompute,zero,devices" show="bar,table,advice"></llm-memory>',
        { viewport: { width, height: 900 }, head: "<style>body { margin: 0 16px; }</style>" });
      const layout = await page.evaluate(() => ({
        page_width: document.documentElement.scrollWidth,
        widgets: [...document.querySelectorAll("llm-memory")].map((w) => {
          const box = w.getBoundingClientRect();
          const overflowing = [...w.shadowRoot.querySelectorAll(".verdict, .bar, .controls, .legend, .summary")]
            .filter((e) => e.getBoundingClientRect().right > box.right + 0.5).map((e) => e.className);
          return { right: box.right, overflowing };
        }),
      }));
      assert.ok(layout.page_width <= width, `page scrolls sideways: ${layout.page_width} > ${width}`);
      for (const widget of layout.widgets) {
        assert.ok(widget.right <= width, `widget wider than the page: ${widget.right}`);
        assert.deepEqual(widget.overflowing, []);
      }
      await page.screenshot({ path: join(artifacts, `widget-${width}.png`), fullPage: true });
      await done(page);
    });
  }

  test("the single-file build works without llm-memory.wasm", async () => {
    const before_count = wasm_requests;
    const page = await openPage(html('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>')
      .replace("../widget.js", "../widget.single.js"));
    assert.equal((await rows(page)).kv_cache, KV_LLAMA2_7B_4096);
    assert.equal(wasm_requests, before_count);
    await done(page);
  });

  test("define() tolerates a tag that is taken and registers other tags", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>');
    const result = await page.evaluate(async () => {
      const { LlmMemoryElement } = await import("../widget.js");
      LlmMemoryElement.define();
      // A constructor registers once per registry: another tag takes a subclass.
      class GpuMemory extends LlmMemoryElement {}
      GpuMemory.define("gpu-memory");
      const other = document.createElement("gpu-memory");
      other.setAttribute("model", "llama-2-7b");
      other.setAttribute("mode", "inference");
      document.body.append(other);
      const estimate = await other.ready;
      return { same: customElements.get("llm-memory") === LlmMemoryElement, kv: estimate.bytes.kv_cache,
               seq: estimate.settings.seq };
    });
    // The default context is 2048 tokens (settings table): half the 4096-token figure.
    assert.deepEqual(result, { same: true, kv: KV_LLAMA2_7B_4096 / 2, seq: "2048" });
    await done(page);
  });

  test("properties write attributes; the class-only module defines nothing until asked", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>');
    const result = await page.evaluate(async () => {
      const widget = document.querySelector("llm-memory");
      widget.compact = true;
      widget.show = ["table"];
      widget.controls = ["seq"];
      widget.settings = { model: "llama-2-7b", mode: "inference", seq: 1024 };
      const attributes = Object.fromEntries([...widget.attributes].map((a) => [a.name, a.value]));
      const element_module = await import("../widget-element.js");
      const before_define = customElements.get("memory-estimate");
      element_module.LlmMemoryElement.define("memory-estimate");
      return { attributes, before_define: before_define === undefined,
               defined: customElements.get("memory-estimate") === element_module.LlmMemoryElement };
    });
    assert.deepEqual(result.attributes, { model: "llama-2-7b", mode: "inference", seq: "1024", compact: "", show: "table", controls: "seq" });
    assert.equal(result.before_define, true);
    assert.equal(result.defined, true);
    // 1024 tokens: a quarter of the 4096-token KV cache.
    await page.waitForFunction(() => document.querySelector("llm-memory").estimate.settings.seq === "1024");
    assert.equal((await rows(page)).kv_cache, KV_LLAMA2_7B_4096 / 4);
    await done(page);
  });

  test("the element's children are its fallback: shown without the module or the wasm, hidden once it renders", async () => {
    const markup = '<llm-memory model="llama-2-7b" mode="inference" seq="4096"><p id="fallback">KV cache 2.1 GB</p></llm-memory>';
    // Rendered: the estimate replaces the fallback.
    const page = await openPage(markup);
    assert.equal(await page.isVisible("#fallback"), false);
    assert.equal((await rows(page)).kv_cache, KV_LLAMA2_7B_4096);
    await done(page);
    // The wasm cannot be fetched (a blocked CDN): the start-up error and the fallback both show.
    const blocked = await browser.context.newPage();
    await blocked.route(/\.wasm$/, (route) => route.abort());
    const name = `test/fallback-${Math.random().toString(36).slice(2)}.html`;
    await blocked.route(browser.url + name, (route) => route.fulfill({ contentType: "text/html", body: html(markup) }));
    await blocked.goto(browser.url + name);
    await blocked.waitForFunction(() => document.querySelector("llm-memory").shadowRoot.querySelector(".status.field-error"));
    assert.equal(await blocked.isVisible("#fallback"), true);
    // No module at all (scripts blocked): the browser shows the children as ordinary content.
    await blocked.route(/widget\.js$/, (route) => route.abort());
    await blocked.reload();
    assert.equal(await blocked.textContent("#fallback"), "KV cache 2.1 GB");
    assert.equal(await blocked.isVisible("#fallback"), true);
    await blocked.close();
  });

  test("the settings property notes keys that cannot be settings and keeps the rest", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>');
    const result = await page.evaluate(async () => {
      const widget = document.querySelector("llm-memory");
      await widget.ready;
      widget.settings = { model: "llama-2-7b", mode: "inference", seq: 2048, "<img src=x>": 1, Batch: 2 };
      await new Promise((resolve) => setTimeout(resolve, 50));
      const first = { seq: widget.estimate.settings.seq, notes: widget.shadowRoot.querySelector('[part="problems"]').textContent };
      widget.settings = 42;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { first, after: widget.shadowRoot.querySelector('[part="problems"]').textContent,
               attributes: [...widget.attributes].map((a) => a.name) };
    });
    assert.equal(result.first.seq, "2048");
    assert.match(result.first.notes, /"<img src=x>": not a setting; ignored/);
    assert.match(result.first.notes, /"Batch": not a setting; ignored/);
    assert.match(result.after, /settings: must be an object/);
    assert.deepEqual(result.attributes, ["model", "mode", "seq"], "a non-object changes nothing");
    await done(page);
  });

  test("the settings property writes settings keys only: no handler, style, id or other attribute gets through", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>');
    const hostile = {
      model: "llama-2-7b", mode: "inference", seq: 2048,
      onmouseover: "window.__pwned = 1", onclick: "window.__pwned = 2", onfocus: "window.__pwned = 3", onanimationstart: "x",
      style: "position: fixed; inset: 0", id: "taken", hidden: "", popover: "auto", slot: "x", is: "x", class: "evil",
      tabindex: "0", autofocus: "", inert: "", "data-x": "1", "aria-hidden": "true", "xml:lang": "x", "a b": "1",
      "<img src=x>": "1", controls: "seq", show: "advice", compact: "", Batch: "2", "": "1", "\u00e9": "1",
    };
    const result = await page.evaluate(async (settings) => {
      const widget = document.querySelector("llm-memory");
      await widget.ready;
      // Also an accessor that throws and values of other types: noted, never written.
      const odd = { ...settings, get tp() { throw new Error("boom"); }, batch: { toString: () => "onclick" }, pp: Symbol("x") };
      // Every note, from the change event (the widget shows the first 20 lines).
      let problems = [];
      widget.addEventListener("llm-memory-change", (e) => (problems = e.detail.problems.map((p) => p.message)));
      widget.settings = odd;
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Set before the element knows the settings table (not yet upgraded): applied once it does.
      const early = document.createElement("llm-memory");
      early.settings = { ...settings, seq: 1024 };
      document.body.append(early);
      await early.ready;
      await new Promise((resolve) => setTimeout(resolve, 50));
      const names = (element) => [...element.attributes].map((a) => a.name).sort();
      return { attributes: names(widget), early: names(early), seq: widget.estimate.settings.seq, early_seq: early.estimate.settings.seq,
               notes: problems.join("\n"), pwned: window.__pwned ?? null };
    }, hostile);
    assert.deepEqual(result.attributes, ["mode", "model", "seq"]);
    assert.deepEqual(result.early, ["mode", "model", "seq"]);
    assert.equal(result.seq, "2048");
    assert.equal(result.early_seq, "1024");
    assert.equal(result.pwned, null);
    for (const key of ["onmouseover", "style", "id", "hidden", "popover", "slot", "is", "class", "data-x", "a b", "controls"]) {
      assert.ok(result.notes.includes(`${JSON.stringify(key)}: not a setting; ignored`), `${key}: ${result.notes}`);
    }
    assert.match(result.notes, /"tp": could not be read; ignored/);
    assert.match(result.notes, /"batch": must be text, a number or a boolean; ignored/);
    assert.match(result.notes, /"pp": must be text, a number or a boolean; ignored/);
    // Hovering the widget runs nothing.
    await page.hover("llm-memory");
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
    await done(page);
  });

  // theme="auto" (issue 19 item 9): on a host page that offers both schemes the reader's decides; a page that
  // declares none is drawn light by the browser, and so is the widget (tests/browser/embed-drop-hub.test.mjs).
  test("follows the reader's colour scheme where the host page offers both", async () => {
    const page = await openPage('<llm-memory model="llama-2-7b" mode="inference" seq="4096"></llm-memory>',
      { head: '<meta name="color-scheme" content="light dark">' });
    const background = () => page.evaluate(() => getComputedStyle(document.querySelector("llm-memory")).backgroundColor);
    await page.emulateMedia({ colorScheme: "light" });
    await page.waitForFunction(() => document.querySelector("llm-memory").scheme === "light");
    const light = await background();
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForFunction(() => document.querySelector("llm-memory").scheme === "dark");
    const dark = await background();
    assert.equal(light, "rgb(255, 255, 255)");
    assert.equal(dark, "rgb(13, 17, 23)");
    await done(page);
  });

  test("the blog-post example renders its three widgets", async () => {
    const page = await browser.context.newPage();
    const problems = [];
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    await page.goto(`${browser.url}examples/blog-post.html`);
    await page.waitForFunction(() => [...document.querySelectorAll("llm-memory")].every((w) => w.estimate));
    assert.equal(await page.locator("llm-memory").count(), 3);
    assert.equal((await rows(page, 0)).kv_cache, KV_LLAMA2_7B_4096);
    await page.screenshot({ path: join(artifacts, "widget-blog-post.png"), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("iframe embed", () => {
  let browser;
  before(async () => {
    browser = await start();
  });
  after(() => browser?.close());

  test("embed.html renders the state of its query and reports its height to the parent", async () => {
    const page = await browser.context.newPage();
    const problems = [];
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    await page.route(`${browser.url}test/embed-host.html`, (route) => route.fulfill({ contentType: "text/html", body: `<!doctype html>
<html><head><link rel="icon" href="data:,"></head><body><p>host</p><iframe id="frame" style="width: 100%; height: 150px; border: 0"
src="../embed.html?v=1&model=llama-2-7b&mode=inference&seq=4096&controls=seq&bogus=1"></iframe>
<script>
  window.heights = [];
  addEventListener("message", (event) => {
    if (event.data?.type !== "llm-memory:height") return;
    window.heights.push(event.data.height);
    document.getElementById("frame").style.height = event.data.height + "px";
  });
</script></body></html>` }));
    await page.setViewportSize({ width: 600, height: 900 });
    await page.goto(`${browser.url}test/embed-host.html`);
    const frame = page.frameLocator("#frame");
    const kv = await frame.locator('llm-memory tr[data-bucket="kv_cache"]').getAttribute("data-bytes");
    assert.equal(Number(kv), KV_LLAMA2_7B_4096);
    await page.waitForFunction(() => window.heights.length > 0 && window.heights.at(-1) > 300);
    const measured = await page.evaluate(() => ({
      reported: window.heights.at(-1),
      content: Math.ceil(document.getElementById("frame").contentDocument.getElementById("embed").getBoundingClientRect().height),
    }));
    assert.equal(measured.reported, measured.content);
    // The reader gets the controls the link names, and the link's unknown key is reported, not applied.
    assert.deepEqual(await frame.locator("llm-memory input, llm-memory select").evaluateAll((c) => c.map((e) => e.name)), ["seq"]);
    assert.match(await frame.locator(".notice").textContent(), /bogus/);
    // Growing the content (more controls) reports a new height.
    const first = measured.reported;
    await frame.locator("llm-memory").evaluate((w) => w.setAttribute("show", "bar,table,advice"));
    await page.waitForFunction((h) => window.heights.at(-1) > h, first);
    await page.screenshot({ path: join(root, "test-artifacts", "embed-iframe.png"), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("the page's Embed button", () => {
  let browser;
  before(async () => {
    browser = await start();
  });
  after(() => browser?.close());

  test("both snippets reproduce the page's estimate for the current state", async () => {
    const state = "?v=2&model=llama-2-7b&mode=inference&seq=4096&batch=2";
    const page = await open(browser.context, `${browser.url}index.html${state}`);
    const page_total = await bucketBytes(page, "total");
    await page.click("#embed-open");
    await page.fill('.embed-dialog input[type="text"]', "batch,seq");
    const [element, iframe] = await page.locator(".embed-dialog textarea").evaluateAll((areas) => areas.map((a) => a.value));
    assert.match(element, new RegExp(`^<script type="module" src="${browser.url}widget.js"></script>`));
    assert.match(element, /<llm-memory model="llama-2-7b" mode="inference" batch="2" seq="4096" gpu="h100-80gb" controls="batch,seq"><\/llm-memory>$/);
    assert.match(iframe, /<iframe class="llm-memory" src="[^"]*embed\.html\?v=2&amp;model=llama-2-7b&amp;mode=inference&amp;batch=2&amp;seq=4096&amp;controls=batch,seq"/);
    await page.close();

    // Pasted into someone's page, each snippet shows the same total.
    const host = await browser.context.newPage();
    await host.route(`${browser.url}test/pasted.html`, (route) => route.fulfill({ contentType: "text/html",
      body: `<!doctype html><html><head><link rel="icon" href="data:,"></head><body>${element}\n${iframe}</body></html>` }));
    await host.goto(`${browser.url}test/pasted.html`);
    const widget_total = await host.locator('llm-memory >> tr[data-bucket="total"]').getAttribute("data-bytes");
    assert.equal(Number(widget_total), page_total);
    const framed_total = await host.frameLocator("iframe.llm-memory").locator('llm-memory tr[data-bucket="total"]').getAttribute("data-bytes");
    assert.equal(Number(framed_total), page_total);
    // The snippet's optional script fits the frame to the height the embed reports.
    await host.waitForFunction(() => {
      const frame = document.querySelector("iframe.llm-memory");
      const content = frame.contentDocument?.getElementById("embed");
      return content && Math.abs(frame.getBoundingClientRect().height - content.getBoundingClientRect().height) < 1;
    });
    await host.close();
  });
});

describe("docs/embedding.md", () => {
  test("documents every settings attribute with the widget's default in its heading", async () => {
    const { load } = await import(join(dist, "llm-memory.js"));
    const { PAGE_DEFAULTS } = await import(join(root, "web/state.js"));
    const schema = (await load()).settingsSchema();
    const text = await readFile(join(root, "docs/embedding.md"), "utf8");
    const headings = new Map([...text.matchAll(/^#### `([a-z0-9_]+)` \((.*); default `(.*)`\)$/gm)].map((m) => [m[1], m[3]]));
    for (const row of schema) {
      assert.ok(headings.has(row.key), `docs/embedding.md has no heading for ${row.key}`);
      assert.equal(headings.get(row.key), PAGE_DEFAULTS[row.key] ?? row.default, `default of ${row.key}`);
    }
    for (const name of ["controls", "compact", "show", "theme"]) assert.match(text, new RegExp(`^#### \`${name}\` \\(`, "m"));
  });
});
