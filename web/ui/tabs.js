// SPDX-License-Identifier: MIT
// The result tabs (Breakdown · What fits · Knobs · Heatmap): the WAI-ARIA tabs pattern over markup that
// index.html already holds (a role="tablist" of buttons, each aria-controls its role="tabpanel"), so the
// prerendered Breakdown panel is on screen before any script runs. Selection follows focus: the arrow keys,
// Home and End move between tabs (one tab stop, roving tabindex); a link to a panel (#panel-knobs) opens it.
// Event: "tab" {id}   a panel was shown (the heatmap redraws at its new width by itself: ResizeObserver).

export class Tabs extends EventTarget {
  #tabs;

  /** `list`: the element with role="tablist". */
  constructor(list) {
    super();
    this.#tabs = [...list.querySelectorAll('[role="tab"]')];
    for (const tab of this.#tabs) {
      tab.addEventListener("click", () => this.select(tab.getAttribute("aria-controls")));
      tab.addEventListener("keydown", (event) => this.#key(event, tab));
    }
    const open = () => {
      const id = location.hash.slice(1);
      if (this.#tabs.some((tab) => tab.getAttribute("aria-controls") === id)) this.select(id);
    };
    window.addEventListener("hashchange", open);
    open();
  }

  /** The id of the panel shown. */
  get selected() {
    return this.#tabs.find((tab) => tab.getAttribute("aria-selected") === "true")?.getAttribute("aria-controls");
  }

  /** Shows the panel `id` (and hides the others); `focus`: move the focus to its tab. */
  select(id, { focus = false } = {}) {
    for (const tab of this.#tabs) {
      const on = tab.getAttribute("aria-controls") === id;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      document.getElementById(tab.getAttribute("aria-controls")).hidden = !on;
      if (on && focus) tab.focus();
    }
    this.dispatchEvent(new CustomEvent("tab", { detail: { id } }));
  }

  #key(event, tab) {
    const at = this.#tabs.indexOf(tab);
    const last = this.#tabs.length - 1;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: last }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = this.#tabs[(to + this.#tabs.length) % this.#tabs.length];
    this.select(next.getAttribute("aria-controls"), { focus: true });
  }
}
