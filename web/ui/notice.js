// SPDX-License-Identifier: MIT
// The notice above the results: what a link held that the page ignored (unknown keys, invalid values), and
// input errors. Text only, so a hostile link shows as the text it is; capped in lines and characters, so a
// hostile link cannot fill the page (docs/robustness.md).
import { h } from "./dom.js";

/** Lines a notice shows at most (the last says how many more there were). */
export const MAX_NOTICE_LINES = 20;
/** Characters of one line at most; longer messages end in "…". */
export const MAX_NOTICE_CHARS = 300;

/** `text` cut to MAX_NOTICE_CHARS, never between the two halves of a surrogate pair. */
function shorten(text) {
  if (text.length <= MAX_NOTICE_CHARS) return text;
  let end = MAX_NOTICE_CHARS - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * The messages of `problems` ({message}) as the notice shows them: at most MAX_NOTICE_LINES lines of at most
 * MAX_NOTICE_CHARS characters; when there are more, the last line says how many were left out.
 */
export function noticeLines(problems) {
  const messages = problems.map((p) => String(p?.message ?? ""));
  if (messages.length <= MAX_NOTICE_LINES) return messages.map(shorten);
  const shown = messages.slice(0, MAX_NOTICE_LINES - 1).map(shorten);
  return [...shown, `… and ${messages.length - shown.length} more problems not shown`];
}

export class Notice {
  #container;

  constructor(container) {
    this.#container = container;
  }

  /** Shows `title` and one line per problem ({message}), capped (noticeLines); an empty list hides the notice. */
  show(title, problems) {
    if (!problems.length) {
      this.hide();
      return;
    }
    const close = h("button", { type: "button", class: "secondary close", "aria-label": "Dismiss notice", text: "×",
                                on: { click: () => this.hide() } });
    this.#container.replaceChildren(h("div", { class: "notice-body" },
      h("p", {}, h("strong", { text: title })),
      h("ul", {}, noticeLines(problems).map((line) => h("li", { text: line })))), close);
    this.#container.hidden = false;
  }

  hide() {
    this.#container.hidden = true;
    this.#container.replaceChildren();
  }
}
