// SPDX-License-Identifier: MIT
// The solver's answers: devices needed, largest micro-batch (inference: concurrent requests), longest sequence,
// each with the core's sentence and a button that applies it. A render function; `onApply(delta, title)` receives
// the settings to merge and what they are ("largest micro-batch: 5"), for the page's note of what changed.
import { h } from "./dom.js";
import { formatBytes, formatCount, requestsText } from "./format.js";

// The knob table's code comes with the solver's panel on the page (web/controller.js renderKnobs): both draw the
// core's rest's answers.
export { renderKnobs } from "./knobs.js";

const ANSWERS = [
  ["min_devices", "Devices needed", "devices"],
  ["max_batch", "Largest micro-batch", "sequences"],
  ["max_seq", "Longest sequence", "tokens"],
];

/** `current`: the resolved settings, so an answer that changes nothing offers no Apply button. */
export function renderSolver(container, solve, { units = "GB", current = {}, onApply } = {}) {
  if (!solve?.ok) {
    container.replaceChildren(h("p", { class: "muted", text: "No solver answers for these settings." }));
    return;
  }
  // Inference's micro-batch is its concurrent requests: one figure, worded as the runtime line words it.
  const inference = current.mode === "inference";
  const rows = ANSWERS.map(([key, answer_title, unit]) => {
    const answer = solve[key];
    const requests = inference && key === "max_batch";
    const title = requests ? "Concurrent requests" : answer_title;
    const unit_text = answer.value === 1 ? unit.replace(/s$/, "") : unit;
    const count = requests ? requestsText(answer.value, current.seq) : `${formatCount(answer.value)} ${unit_text}`;
    const value = answer.found ? `${count}${answer.at_limit ? " or more" : ""}` : "none fits";
    const changes = Object.entries(answer.delta).some(([key, text]) => current[key] !== text);
    const apply = answer.found && changes && onApply
      ? h("button", { type: "button", class: "secondary", "aria-label": `Apply: ${title.toLowerCase()} ${answer.value}`, text: "Apply",
                      on: { click: () => onApply(answer.delta, `${title.toLowerCase()}: ${answer.value}`) } })
      : null;
    return h("div", { class: "answer", dataset: { answer: key, value: String(answer.value), found: String(answer.found) } },
      h("dt", { text: title }),
      h("dd", {}, h("strong", { text: value }),
        answer.found ? h("span", { class: "muted", text: ` · ${formatBytes(answer.total, units)} per device` }) : null,
        apply,
        h("span", { class: "answer-message", text: answer.message })));
  });
  container.replaceChildren(h("dl", { class: "answers" }, rows));
}
