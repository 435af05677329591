// SPDX-License-Identifier: MIT
// Registers <llm-memory> (the entry point of dist/widget.js, which exports what widget.js exports). Importing
// it twice, or on a page that already defined the tag, is harmless: a tag that is taken is left as it is.
// For another tag name or registry, import the class from widget.js (dist/widget-element.js) and call
// LlmMemoryElement.define(tag, registry) instead.
import { LlmMemoryElement } from "./widget.js";

LlmMemoryElement.define();
if (typeof window === "object" && !window.LlmMemoryElement) window.LlmMemoryElement = LlmMemoryElement;

export * from "./widget.js";
