// SPDX-License-Identifier: MIT
// Takes the README's screenshot (docs/screenshot.png): the page at 1280 x 860 in the light scheme, on the
// issue's example (Llama 3 8B, full fine-tune, 8 x H100, ZeRO-3). Run after `npm run build`:
//   node scripts/screenshot-web.mjs
import { join } from "node:path";
import { open, root, start } from "../tests/browser/support.mjs";

const session = await start();
try {
  const page = await open(session.context, `${session.url}?v=1&devices=8&zero=3`, { viewport: { width: 1280, height: 860 } });
  await page.emulateMedia({ colorScheme: "light" });
  await page.waitForSelector('#results[data-answers="ready"]');
  await page.screenshot({ path: join(root, "docs", "screenshot.png") });
} finally {
  await session.close();
}
