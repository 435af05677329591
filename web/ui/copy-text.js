// SPDX-License-Identifier: MIT
// Text onto the clipboard, for the page's Copy buttons (the launch command, a log's validation record).

/** Resolves to true once `text` is on the clipboard, false where the page may not write it (no secure context). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
