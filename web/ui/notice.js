// SPDX-License-Identifier: MIT
// The notice above the results: what a link held that the page ignored (unknown keys, invalid values), and
// input errors. Text only, so a hostile link shows as the text it is.
import { h } from "./dom.js";

export class Notice {
  #container;

  constructor(container) {
    this.#container = container;
  }

  /** Shows `title` and one line per problem ({message}); an empty list hides the notice. */
  show(title, problems) {
    if (!problems.length) {
      this.hide();
      return;
    }
    const close = h("button", { type: "button", class: "secondary close", "aria-label": "Dismiss notice", text: "×",
                                on: { click: () => this.hide() } });
    this.#container.replaceChildren(h("div", { class: "notice-body" },
      h("p", {}, h("strong", { text: title })),
      h("ul", {}, problems.map((p) => h("li", { text: p.message })))), close);
    this.#container.hidden = false;
  }

  hide() {
    this.#container.hidden = true;
    this.#container.replaceChildren();
  }
}
