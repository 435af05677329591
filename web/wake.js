// SPDX-License-Identifier: MIT
// The start page before its core runs (docs/web.md, "Start-up"): index.html holds the whole default page,
// prerendered at build time (scripts/prerender.mjs), so the core's first part is neither fetched nor compiled
// until it is needed: the visitor's first action or the page's first idle period, whichever comes first (the
// wake). What the visitor did to the prerendered controls meanwhile is carried over to the live ones app.js
// builds once the core is up: values typed or chosen, groups opened, the focus and its caret, buttons pressed.

/** The prerendered containers app.js draws again with live controls, in drawControls' order (scripts/prerender.mjs draws them). */
export const CONTROLS = ["task-picker", "units-toggle", "model-picker", "device-count", "gpu-picker", "parallel-split", "settings-form", "config-drop", "embed"];

/** Where `element` is: the nearest element with an id at or above it, and the child indices down from there. */
function locate(element) {
  const steps = [];
  let node = element;
  while (!node.id) {
    const parent = node.parentElement;
    if (!parent) return null;
    steps.unshift([...parent.children].indexOf(node));
    node = parent;
  }
  return { id: node.id, steps };
}

/** The element at `place` (locate's) in the document now, or null. */
function find(place) {
  let node = place ? document.getElementById(place.id) : null;
  for (const step of place?.steps ?? []) node = node?.children[step] ?? null;
  return node;
}

/**
 * Marks the page asleep (html[data-dormant]) and resolves at the wake: the first of `actions` (event types, heard
 * on the document), a pointer over one of `forms` (whose help texts the core reads: Engine.settingDocs) or `idle()`
 * resolving, to a Carry holding the buttons pressed until the live page is built.
 */
export function dormant(actions, idle, forms = []) {
  const root = document.documentElement;
  root.dataset.dormant = "";
  const carry = new Carry();
  return new Promise((done) => {
    let woken = false;
    const wake = (acted) => {
      if (woken) return;
      woken = true;
      for (const type of actions) document.removeEventListener(type, act, true);
      for (const form of forms) form.removeEventListener("pointerover", hover);
      carry.acted = acted;
      done(carry);
    };
    const act = () => wake(true);
    // A pointer over a form asks for its help texts, not for the answers an action ends (App.#wake).
    const hover = () => wake(false);
    for (const type of actions) document.addEventListener(type, act, true);
    for (const form of forms) form.addEventListener("pointerover", hover, { passive: true });
    idle().then(() => wake(false));
  });
}

/** What the visitor did to the prerendered page; `capture()` just before the live controls replace it. */
class Carry {
  /** Whether a visitor's action woke the page (else its idle time did). */
  acted = false;
  #clicks = [];
  #record = (event) => {
    const button = event.target.closest?.("button");
    if (button) this.#clicks.push(locate(button));
  };
  #state = null;

  constructor() {
    document.addEventListener("click", this.#record, true);
  }

  /** Reads the prerendered controls' state: the values that differ from the markup's, the groups, the focus. */
  capture() {
    const values = [];
    const groups = [];
    for (const id of CONTROLS) {
      const container = document.getElementById(id);
      for (const control of container.querySelectorAll("input, select, textarea")) {
        const changed = control.type === "checkbox" || control.type === "radio" ? control.checked !== control.defaultChecked
          : control.tagName === "SELECT" ? [...control.options].some((o) => o.selected !== o.defaultSelected)
            : control.value !== control.defaultValue;
        if (changed) values.push({ place: locate(control), value: control.value, checked: control.checked });
      }
      for (const details of container.querySelectorAll("details")) groups.push({ place: locate(details), open: details.open });
    }
    const active = document.activeElement;
    let focus = null;
    if (active && CONTROLS.some((id) => document.getElementById(id).contains(active))) {
      focus = { place: locate(active) };
      try {
        focus.selection = active.selectionStart === null ? null : [active.selectionStart, active.selectionEnd, active.selectionDirection];
      } catch {
        focus.selection = null;  // inputs without a caret (number, radio) throw
      }
    }
    this.#state = { values, groups, focus };
  }

  /**
   * Applies the captured state to the live controls that replaced the prerendered ones: each value through the
   * event its control reports edits with, the groups, the focus and caret, then the buttons pressed, in order.
   */
  restore() {
    document.removeEventListener("click", this.#record, true);
    const { values, groups, focus } = this.#state ?? { values: [], groups: [], focus: null };
    for (const { place, open } of groups) {
      const details = find(place);
      if (details?.tagName === "DETAILS" && details.open !== open) details.open = open;
    }
    // Focused first, so that the edits below leave the text being typed as it is (SettingsForm.update).
    const focused = find(focus?.place);
    focused?.focus({ preventScroll: true });
    for (const { place, value, checked } of values) {
      const control = find(place);
      if (!control) continue;
      if (control.type === "checkbox" || control.type === "radio") {
        control.checked = checked;
        // A radio button unchecked by its group's other button reports nothing; the checked one does.
        if (checked || control.type === "checkbox") control.dispatchEvent(new Event("change", { bubbles: true }));
        continue;
      }
      control.value = value;
      if (control.tagName === "SELECT") {
        control.dispatchEvent(new Event("change", { bubbles: true }));
        continue;
      }
      control.dispatchEvent(new Event("input", { bubbles: true }));
      // Text the visitor has left (or pressed Enter in) was committed; the one still being typed is not.
      if (control !== focused) control.dispatchEvent(new Event("change", { bubbles: true }));
    }
    if (focused && focus.selection) focused.setSelectionRange(...focus.selection);
    for (const place of this.#clicks) find(place)?.click();
    this.#clicks = [];
  }
}
