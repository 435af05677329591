// SPDX-License-Identifier: MIT
// Shared by the browser tests and scripts/perf-web.mjs: Debian's Chromium driven by playwright-core (no
// browser download), and dist/ served on the loopback interface.
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "../../scripts/serve.mjs";

export const root = fileURLToPath(new URL("../..", import.meta.url));
/** The built page: dist/, or LLM_MEMORY_DIST (as scripts/build-web.mjs). */
export const dist = process.env.LLM_MEMORY_DIST ?? join(root, "dist");

/** Flags that work on this machine and in CI (design.md, toolchain notes). */
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"];

/** Headless Debian Chromium (CHROMIUM overrides /usr/bin/chromium) with the flags above. */
const LAUNCH = { executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args: FLAGS };

/** The two widths the page is checked at: a laptop and a phone (docs/web.md, "Layout"). */
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Starts headless Chromium with a fresh profile and serves `dir` (default dist/).
 * Resolves to {context, url, close()}.
 */
export async function start({ dir = dist } = {}) {
  const profile = await mkdtemp(join(tmpdir(), "llm-memory-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { ...LAUNCH, viewport: DESKTOP });
  // Generous: CI machines with two shared cores start Chromium slowly.
  context.setDefaultTimeout(120_000);
  context.setDefaultNavigationTimeout(120_000);
  const { server, url } = await serve(dir, 0);
  return {
    context,
    url,
    async close() {
      await context.close();
      await new Promise((done) => server.close(done));
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Opens `url` in a new page and waits until the calculator has rendered (or failed to start). */
export async function open(context, url, { viewport } = {}) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const problems = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.problems = problems;
  await page.goto(url);
  await page.waitForSelector("body[data-ready]");
  return page;
}

/**
 * Opens the closed <details> `selector` by a click on its summary, as a visitor would. A click can miss when the
 * page's idle warm-up moves the layout between Playwright's stability check and the click (a loaded CI machine):
 * then it clicks again; the group fails with what it shows if it never opens.
 */
export async function openGroup(page, selector) {
  for (let click = 0; click < 3; click += 1) {
    if (await page.locator(`${selector}[open]`).count()) return;
    await page.click(`${selector} > summary`);
    try {
      await page.waitForSelector(`${selector}[open]`, { state: "attached", timeout: 5000 });
      return;
    } catch {
      // missed: click again
    }
  }
  throw new Error(`${selector} did not open: ${await page.textContent(selector)}`);
}

/** data-bytes of a bucket row ("total" included) as a number. */
export async function bucketBytes(page, bucket) {
  return Number(await page.getAttribute(`tr[data-bucket="${bucket}"]`, "data-bytes"));
}

/**
 * Waits until the deferred answers (the URL, the solver, the knob table, the ways out) show the current
 * settings. The default page shows the ways out prerendered into index.html (#results[data-answers=
 * "prerendered"]) and computes its answers once the visitor acts (web/app.js): a key press that changes nothing
 * (Shift) stands for that action.
 */
export async function settled(page) {
  await page.waitForSelector('body[data-ready="true"], html[data-dormant]');
  // The start page asleep (its core not started: web/wake.js): the same key press wakes it.
  if (await page.locator("html[data-dormant]").count()) {
    await page.keyboard.press("Shift");
    await page.waitForSelector('body[data-ready="true"]');
  }
  await page.waitForSelector('#results:is([data-answers="ready"], [data-answers="prerendered"])');
  if (await page.getAttribute("#results", "data-answers") === "prerendered") {
    await page.keyboard.press("Shift");
    await page.waitForSelector('#results[data-answers="ready"]');
  }
}

/**
 * Shows the result tab `name` (breakdown, fits, knobs, heatmap: docs/web.md, "Layout") by clicking it; the
 * heatmap, drawn only while its tab is open (its code imported the first time), once it shows the settings.
 */
export async function showTab(page, name) {
  await page.click(`#tab-${name}`);
  await page.waitForSelector(`#panel-${name}:not([hidden])`);
  // Their answers (solve, advise) follow the click on the default page (settled).
  if (name === "fits" || name === "knobs") await page.waitForSelector('#results[data-answers="ready"]');
  if (name === "heatmap") await page.waitForSelector('#heatmap[data-state="ready"]');
}

/**
 * Every request a fresh visit to `url` makes before any user action (HTTP cache cleared): until the page is
 * ready (or, the start page, asleep until its wake: web/wake.js), its deferred answers drawn and the network idle
 * for half a second. Resolves to the same-origin paths requested, each once, in order ("/" for the page itself),
 * and the page (left open). The page's idle time (which wakes the start page's core, and the warm-up: the core's
 * rest and the catalogue, Engine.warmWhenIdle) is not part of the first load: unless `warm`, the page never hears
 * that it is idle (requestIdleCallback never calls back), as for a visitor who acts before it is, so what each
 * action fetches can be told.
 */
export function firstLoad(context, url, { warm = false } = {}) {
  return visit(context, url, async (page) => {
    await page.waitForSelector(warm ? 'body[data-ready="true"]' : 'body[data-ready="true"], html[data-dormant]');
    if (await page.locator("html[data-dormant]").count()) return;
    // The default page's answers are prerendered until the visitor acts (settled).
    await page.waitForSelector('#results:is([data-answers="ready"], [data-answers="prerendered"])');
  }, { idle: warm });
}

/**
 * Every request a fresh visit to `url` makes (HTTP cache cleared) until `ready(page)` resolves and the network
 * has been idle for half a second: {paths, page} as firstLoad's. `idle: false`: requestIdleCallback never calls
 * back (firstLoad).
 */
export async function visit(context, url, ready, { idle = true } = {}) {
  const page = await context.newPage();
  if (!idle) await page.addInitScript(() => (window.requestIdleCallback = () => 0));
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.clearBrowserCache");
  await cdp.detach();
  const origin = new URL(url).origin;
  const paths = [];
  page.on("request", (request) => {
    const at = new URL(request.url());
    if (at.origin === origin && !paths.includes(at.pathname)) paths.push(at.pathname);
  });
  await page.goto(url);
  await ready(page);
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(500);
  return { paths, page };
}

/** gzip -9 size of the file each request path names in `dir` ("/" is index.html): [[file, bytes], …]. */
export async function gzipSizes(dir, paths) {
  return Promise.all(paths.map(async (path) => {
    const file = path === "/" ? "index.html" : decodeURIComponent(path.slice(1));
    return [file, gzipSync(await readFile(join(dir, file)), { level: 9 }).length];
  }));
}

/** The files of `dir`/chunks (the page's split code: scripts/build-web.mjs) as "chunks/NAME"; [] when none. */
export async function chunkFiles(dir) {
  const names = await readdir(join(dir, "chunks")).catch(() => []);
  return names.map((name) => `chunks/${name}`);
}
