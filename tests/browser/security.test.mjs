// SPDX-License-Identifier: MIT
// Security of the page, the iframe embed and <llm-memory> in headless Chromium (issue #9, part 5;
// docs/robustness.md): script-injection attempts through every string input run nothing, the
// Content-Security-Policy blocks inline script, and the page fetches nothing but its own static files.
// Injection is tried twice on the page: with its CSP, and with the CSP stripped, so that the page's own rule
// (text only, never markup: web/ui/dom.js) is tested on its own and not hidden behind the CSP.
// Also the URL notice for hostile links (part 4), which tests/web/url.test.mjs pins without a browser.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { bucketBytes, open, openGroup, settled, start } from "./support.mjs";

/** Each payload, if it ever ran, would set window.__pwned and open a dialog. */
const PAYLOADS = [
  '<img id="pwned-img" src=x onerror="window.__pwned=1;alert(1)">',
  '<script id="pwned-script">window.__pwned=2;alert(2)</script>',
  '"><svg id="pwned-svg" onload="window.__pwned=3;alert(3)">',
  "'><iframe id=\"pwned-frame\" srcdoc=\"<script>parent.__pwned=4</script>\"></iframe>",
  "javascript:window.__pwned=5;alert(5)",
];

let session;

before(async () => {
  session = await start();
});

after(async () => {
  await session?.close();
});

/** The start of `payload` as the notices quote it (JSON-style, quotes escaped). */
const shown = (payload) => JSON.stringify(payload).slice(1, 13);

/** Records dialogs on `page` (dismissing them) and returns the list. */
function watchDialogs(page) {
  const dialogs = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss().catch(() => {});
  });
  return dialogs;
}

/** Serves the page's HTML without its Content-Security-Policy (the rest of dist/ unchanged). */
async function withoutCsp(page) {
  await page.route(/\/(index\.html)?(\?.*)?$/, async (route) => {
    const response = await route.fetch();
    const body = (await response.text()).replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "");
    assert.ok(!body.includes("Content-Security-Policy"));
    await route.fulfill({ response, body });
  });
}

/**
 * What a payload would have left behind, searched in the document and every open shadow root: elements
 * with a pwned-* id, script/iframe/svg/img elements the page does not make (its own: the scripts in <head> and
 * the stacked bar's <svg class="bar">), inline on* handler attributes.
 */
function traces(page) {
  return page.evaluate(() => {
    const found = [];
    const walk = (root) => {
      for (const element of root.querySelectorAll("*")) {
        const tag = element.localName;
        if (element.id.startsWith("pwned")) found.push(`#${element.id}`);
        const own_bar = tag === "svg" && element.getAttribute("class") === "bar" && element.parentNode.classList.contains("stacked-bar");
        if (["iframe", "svg", "img", "object", "embed"].includes(tag) && !own_bar) found.push(tag);
        if (tag === "script" && element.parentNode !== document.head) found.push("script");
        for (const attribute of element.attributes) if (attribute.name.startsWith("on")) found.push(`${tag}[${attribute.name}]`);
        if (element.shadowRoot) walk(element.shadowRoot);
      }
    };
    walk(document);
    return { found, pwned: window.__pwned ?? null };
  });
}

/** Asserts that nothing ran and nothing of the payloads became markup (after a pause for handlers). */
async function assertClean(page, dialogs, what) {
  await page.waitForTimeout(150);
  assert.deepEqual(await traces(page), { found: [], pwned: null }, what);
  assert.deepEqual(dialogs, [], what);
}

for (const csp of [true, false]) {
  describe(`the page ${csp ? "with" : "without"} its CSP`, () => {
    test("payloads in every text setting, a choice, a number and unknown keys/values of the URL run nothing", async () => {
      const probe = await open(session.context, session.url);
      const text_keys = await probe.evaluate(() =>
        window.llmMemoryApp.engine.schema.filter((row) => row.kind === "text").map((row) => row.key));
      await probe.close();
      // The settings table's free-text settings (model, gpu, lora_targets at the time of writing).
      assert.ok(text_keys.includes("model") && text_keys.includes("gpu") && text_keys.includes("lora_targets"));
      for (const payload of PAYLOADS) {
        const query = new URLSearchParams({ v: "1" });
        for (const key of text_keys) query.set(key, payload);
        query.set("mode", payload);
        query.set("seq", payload);
        query.set(payload, payload);
        query.set("note", payload);
        const page = await session.context.newPage();
        const dialogs = watchDialogs(page);
        if (!csp) await withoutCsp(page);
        await page.goto(`${session.url}?${query}`);
        await page.waitForSelector('body[data-ready="true"]');
        const notice = await page.textContent("#notice");
        assert.ok(notice.includes(shown(payload)), `the payload shows as text: ${notice}`);
        assert.ok(await bucketBytes(page, "total") > 0, "the page defaults still estimate");
        await settled(page);
        await assertClean(page, dialogs, `URL payload ${payload}`);
        await page.close();
      }
    });

    test("a pasted or dropped config.json with payloads in its strings runs nothing", async () => {
      const page = await session.context.newPage();
      const dialogs = watchDialogs(page);
      if (!csp) await withoutCsp(page);
      await page.goto(session.url);
      await page.waitForSelector('body[data-ready="true"]');
      await openGroup(page, ".config");
      const valid = (payload) => JSON.stringify({
        model_type: "llama", _name_or_path: payload, architectures: [payload], torch_dtype: payload, hidden_act: payload,
        hidden_size: 512, num_hidden_layers: 2, num_attention_heads: 8, intermediate_size: 1024, vocab_size: 1000,
      });
      for (const payload of PAYLOADS) {
        // A model_type the importer does not know: its error message quotes the payload.
        await page.fill("#config-text", JSON.stringify({ model_type: payload, [payload]: payload, hidden_size: payload }));
        await page.click("text=Use this config");
        await page.waitForSelector("#config-error", { state: "visible" });
        await assertClean(page, dialogs, `pasted config ${payload}`);
        // A valid config whose free-text fields carry the payload.
        await page.fill("#config-text", valid(payload));
        await page.click("text=Use this config");
        await page.waitForSelector("#config-error", { state: "hidden" });
        await assertClean(page, dialogs, `pasted valid config ${payload}`);
        // The same text dropped as a file.
        await page.evaluate((text) => {
          const data = new DataTransfer();
          data.items.add(new File([text], "config.json", { type: "application/json" }));
          document.querySelector(".drop-zone").dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        }, valid(payload));
        await page.waitForFunction(() => document.querySelector("#config-text").value.includes("_name_or_path"));
        await assertClean(page, dialogs, `dropped config ${payload}`);
      }
      await page.close();
    });
  });
}

test("the CSP blocks an inline script added at run time and reports the violation", async () => {
  const page = await open(session.context, session.url);
  const result = await page.evaluate(async () => {
    const violation = new Promise((done) => document.addEventListener("securitypolicyviolation",
      (event) => done({ directive: event.effectiveDirective, disposition: event.disposition }), { once: true }));
    const script = document.createElement("script");
    script.textContent = "window.__pwned = 1";
    document.body.append(script);
    const handler = document.createElement("div");
    handler.setAttribute("onclick", "window.__pwned = 2");
    document.body.append(handler);
    handler.click();
    return { violation: await violation, pwned: window.__pwned ?? null };
  });
  assert.deepEqual(result, { violation: { directive: "script-src-elem", disposition: "enforce" }, pwned: null });
  await page.close();
});

test("the CSP of the page, the embed and the single file forbid inline script, eval and foreign origins", async () => {
  for (const path of ["", "embed.html", "llm-memory.html"]) {
    const page = await session.context.newPage();
    await page.goto(`${session.url}${path}`);
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content");
    const directives = Object.fromEntries(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    assert.deepEqual(directives["default-src"], ["'none'"], path);
    for (const value of directives["script-src"]) assert.match(value, /^('self'|'wasm-unsafe-eval'|'sha256-[A-Za-z0-9+/=]+')$/, path);
    // The page alone may fetch from the Hugging Face Hub (issue 18: repo ids in the model box): exactly its origin
    // and the LFS CDN that resolve/main redirects a checkpoint to (docs/web.md, "Hub repo ids"); nothing else.
    if (path === "") {
      const hub = directives["connect-src"].filter((value) => value.startsWith("https:"));
      assert.deepEqual(hub, ["https://huggingface.co", "https://*.hf.co"]);
      directives["connect-src"] = directives["connect-src"].filter((value) => !hub.includes(value));
    }
    for (const name of ["script-src", "connect-src", "img-src", "style-src"]) {
      for (const value of directives[name] ?? []) assert.doesNotMatch(value, /^'unsafe-(inline|eval|hashes)'$|\*|https?:/, `${path} ${name}`);
    }
    assert.deepEqual(directives["base-uri"], ["'none'"], path);
    await page.close();
  }
});

test("the page requests only its own origin's static files, and nothing once the first result is shown", async () => {
  const page = await session.context.newPage();
  const requests = [];
  page.on("request", (request) => requests.push(request.url()));
  await page.goto(`${session.url}?model=llama-2-7b`);
  await page.waitForSelector('body[data-ready="true"]');
  await settled(page);
  const origin = new URL(session.url).origin;
  const foreign = requests.filter((url) => !url.startsWith("data:") && new URL(url).origin !== origin);
  assert.deepEqual(foreign, []);
  for (const url of requests.filter((u) => !u.startsWith("data:"))) {
    // models/<id>.json: the one model preset the first estimate names; llm-memory.models.json: every preset,
    // read once when the model picker first needs it (docs/performance.md); llm-memory.docs.json: the
    // settings' help texts, which the page's module is compiled without, read when a form is first pointed at
    // (docs/wasm.md); chunks/: the code app.js
    // shares with the parts imported on a user action (scripts/build-web.mjs); llm-memory.first.wasm and
    // llm-memory.rest.wasm: the core's two parts (a link with settings fetches both at once: docs/wasm.md);
    // fits-worker.js: the Worker the idle warm-up starts, which can come before `settled` on a quiet machine.
    assert.match(new URL(url).pathname, /^\/(index\.html|boot\.js|app\.js|chunks\/[A-Za-z0-9_-]+\.js|styles\.css|llm-memory\.(first|rest)\.wasm|models\/[a-z0-9._-]+\.json|llm-memory\.(models|docs)\.json|fits-worker\.js)?$/, url);
  }
  const loaded = requests.length;

  // Every kind of input: a field, a choice, a preset, the units, a config.json, a knob, copy link.
  await page.fill('input[name="batch"]', "4");
  await page.check("#task-inference");
  await page.selectOption("#gpu-select", "a100-40gb");
  await page.fill("#model-search", "qwen2.5-7b");
  await page.check('input[name="units"][value="GiB"]');
  await openGroup(page, ".config");
  await page.fill("#config-text", JSON.stringify({ model_type: "gpt2", n_embd: 768, n_layer: 12, n_head: 12, vocab_size: 50257 }));
  await page.click("text=Use this config");
  await settled(page);
  await page.click("#tab-knobs");
  const knob = page.locator("#knobs tbody tr button").first();
  if (await knob.count()) await knob.click();
  await page.click("#copy-link");
  await settled(page);
  await page.waitForTimeout(300);
  // The catalogue (the model picker) and the settings' help texts (the form, when first pointed at) come later, and
  // the idle warm-up (Engine.warmWhenIdle, issue 36 item 9) fetches the core's rest and the tabs' code chunks: all
  // static files of this origin without a query, so no setting the user typed leaves the page; so is the Worker
  // that ranks "What runs on my machine", which the warm-up starts (web/fits-worker.js: it reads the same files).
  const warmed = /^\/(llm-memory\.(models|docs)\.json|llm-memory\.rest\.wasm|chunks\/[A-Za-z0-9_-]+\.js|fits-worker\.js)$/;
  const later = requests.slice(loaded).filter((url) => !(warmed.test(new URL(url).pathname) && !new URL(url).search));
  assert.deepEqual(later, [], "no request after the first result but the catalogue, the help texts and the warm-up's static files");
  await page.close();
});

describe("<llm-memory> and the iframe embed", () => {
  const host = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="../widget.js"></script></head><body>${body}</body></html>`;

  /** A blog-like page without any CSP: only the widget's own discipline keeps payloads inert. */
  async function blog(markup) {
    const page = await session.context.newPage();
    const dialogs = watchDialogs(page);
    const name = `test/security-${Math.random().toString(36).slice(2)}.html`;
    await page.route(session.url + name, (route) => route.fulfill({ contentType: "text/html", body: host(markup) }));
    await page.goto(session.url + name);
    await page.waitForFunction(() => [...document.querySelectorAll("llm-memory")].every((w) => w.estimate));
    return { page, dialogs };
  }

  test("payloads in every attribute (settings, widget options, unknown ones) run nothing", async () => {
    const { page, dialogs } = await blog('<llm-memory model="llama-2-7b"></llm-memory>');
    const keys = await page.evaluate(() => [...new Set([...document.querySelector("llm-memory").constructor.observedAttributes])]);
    for (const payload of PAYLOADS) {
      await page.evaluate(({ payload, keys }) => {
        const widget = document.querySelector("llm-memory");
        for (const name of ["model", "gpu", "lora_targets", "mode", "seq", "controls", "show", "compact", "title", "note", ...keys]) {
          widget.setAttribute(name, payload);
        }
        widget.setAttribute("controls", `model,gpu,lora_targets,${payload}`);
      }, { payload, keys });
      await page.waitForTimeout(50);
      const shadow_text = await page.evaluate(() => document.querySelector("llm-memory").shadowRoot.textContent);
      assert.ok(shadow_text.includes(payload.slice(0, 20)), "the payload shows as text in the widget's notes");
      await assertClean(page, dialogs, `widget attribute ${payload}`);
    }
    await page.close();
  });

  test("payloads written in the host page's markup and in the settings property run nothing", async () => {
    const attribute = PAYLOADS[0].replaceAll('"', "&quot;");
    const { page, dialogs } = await blog(`<llm-memory model="${attribute}" gpu="${attribute}" foo="${attribute}"></llm-memory>`);
    await page.evaluate((payloads) => {
      document.querySelector("llm-memory").settings = { model: payloads[1], lora_targets: payloads[2], gpu: payloads[3], pwned_key: payloads[4] };
    }, PAYLOADS);
    await assertClean(page, dialogs, "widget markup and settings property");
    await page.close();
  });

  test("the iframe embed's query runs nothing", async () => {
    for (const payload of PAYLOADS) {
      const page = await session.context.newPage();
      const dialogs = watchDialogs(page);
      const query = new URLSearchParams({ v: "1", model: payload, gpu: payload, lora_targets: payload, controls: payload, show: payload, [payload]: "1" });
      await page.goto(`${session.url}embed.html?${query}`);
      await page.waitForFunction(() => document.querySelector("llm-memory")?.estimate);
      const notes = await page.evaluate(() => document.body.textContent + document.querySelector("llm-memory").shadowRoot.textContent);
      assert.ok(notes.includes(shown(payload)), notes);
      await assertClean(page, dialogs, `embed query ${payload}`);
      await page.close();
    }
  });
});

test("a hostile link shows one notice naming each problem and keeps the rest of the state", async () => {
  const long = "q".repeat(100_000);
  const search = `?v=3&model=llama-2-7b&seq=1024&seq=4096&mode=inference&foo=1&Batch=2&gpu=%E0%A4%A&lora_targets=${long}&grad_accum=`;
  const page = await open(session.context, `${session.url}${search}`);
  const lines = await page.locator("#notice li").allTextContents();
  assert.deepEqual(lines.length, 7, lines.join("\n"));
  assert.match(lines[0], /unknown link version "3"; read as version 2/);
  for (const pattern of [/"foo" ignored/, /"Batch" ignored \(keys are lower-case: batch\)/, /bad percent-encoding/,
                         /"lora_targets": value is 100000 characters long/, /"seq" appears 2 times; the last value "4096" is used/,
                         /grad_accum: must be an integer/]) {
    assert.ok(lines.some((line) => pattern.test(line)), `${pattern} in ${lines.join(" | ")}`);
  }
  // model, seq (the last), mode kept; gpu (dropped) falls back to the page default h100-80gb.
  assert.equal(await bucketBytes(page, "kv_cache"), 2_147_483_648);
  assert.equal(await page.inputValue("#gpu-select"), "h100-80gb");
  await settled(page);
  assert.equal(new URL(page.url()).search, "?v=2&model=llama-2-7b&mode=inference&seq=4096", "the URL keeps the rest, canonical");
  assert.deepEqual(page.problems, []);
  await page.close();
});
