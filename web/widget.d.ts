// SPDX-License-Identifier: MIT
// Types of <llm-memory> (dist/widget.js, dist/widget-element.js, dist/widget.single.js), written by hand.
// Attributes, defaults and events: docs/embedding.md. Estimate and its units: llm-memory.d.ts.
import type { Estimate } from "./llm-memory.js";

/**
 * A note shown in the widget for something it ignored (an invalid value, an unknown attribute): the one error
 * shape of the JS API and the page ({setting, message}, docs/embedding.md "Errors"), its message a whole line.
 */
export interface LlmMemoryProblem {
  /** The attribute (a settings key, or theme, show, controls, settings) it concerns. */
  setting: string;
  /** For people, e.g. `batch: must be an integer from 1 to 10000000, got "0"; ignored, using "1"`. */
  message: string;
}

/** Detail of `llm-memory-change`, sent after every render. */
export interface LlmMemoryChangeDetail {
  /** The estimate on screen (the same object as `llm-memory --json` prints); bytes are per device. */
  estimate: Estimate;
  /** Every resolved setting as text (attributes, the model preset and defaults merged). */
  settings: Record<string, string>;
  /** What was ignored, as shown in the widget; empty when nothing was. */
  problems: LlmMemoryProblem[];
}

export type LlmMemoryChangeEvent = CustomEvent<LlmMemoryChangeDetail>;

/** Views `show` accepts. */
export type LlmMemoryView = "bar" | "table" | "advice" | "heatmap";

export declare class LlmMemoryElement extends HTMLElement {
  /** Registers the class as `tag` in `registry`; a tag already defined is left as it is. */
  static define(tag?: string, registry?: CustomElementRegistry): typeof LlmMemoryElement;
  /**
   * The settings attributes (key -> text as written). Setting it replaces them all; null removes a key, and
   * null for the whole object removes every one. Keys that cannot be settings keys are noted and skipped.
   */
  get settings(): Record<string, string>;
  set settings(settings: Record<string, string | number | boolean | null | undefined> | null);
  /** The `controls` attribute as a list of settings keys the reader may change. */
  controls: string[];
  /** The `compact` attribute. */
  compact: boolean;
  /** The `show` attribute; ["bar", "table"] when absent. */
  show: LlmMemoryView[];
  /** The estimate on screen; null before the first render. */
  readonly estimate: Estimate | null;
  /** Resolves with the first estimate once it is on screen. */
  readonly ready: Promise<Estimate>;
  addEventListener<K extends keyof LlmMemoryElementEventMap>(
    type: K, listener: (this: LlmMemoryElement, event: LlmMemoryElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

export interface LlmMemoryElementEventMap extends HTMLElementEventMap {
  "llm-memory-change": LlmMemoryChangeEvent;
}

/** The shared engine the widgets use (the wasm module, loaded once per page). */
export declare function sharedEngine(): Promise<unknown>;

declare global {
  interface HTMLElementTagNameMap {
    "llm-memory": LlmMemoryElement;
  }
  interface Window {
    LlmMemoryElement: typeof LlmMemoryElement;
  }
}
