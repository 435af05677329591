// SPDX-License-Identifier: MIT
// The first control of the page: the task — Run (inference) · LoRA · QLoRA · Full training · Evaluate (one forward
// pass, mode eval) — a radio group over the settings mode and finetune, with the inference runtime (Run) or the training framework (the
// others) beside it. The core's framework or runtime profile brings each task's recipe (QLoRA: NF4 base,
// double quantisation, ...; docs/methodology.md §8). Event:
//   "edit" {changes}   settings to apply (key -> text; null drops the override, back to the default)
import { h } from "./dom.js";

/** The tasks: id, label, and the settings each sets (null: the table's default, train / full). */
export const TASKS = [
  ["inference", "Run (inference)", { mode: "inference", finetune: null }],
  ["lora", "LoRA", { mode: null, finetune: "lora" }],
  ["qlora", "QLoRA", { mode: null, finetune: "qlora" }],
  ["full", "Full training", { mode: null, finetune: null }],
  ["eval", "Evaluate", { mode: "eval", finetune: null }],
];

/** The task of resolved `settings`: "inference", "eval", or the finetune method. */
export function taskOf(settings) {
  if (settings.mode === "inference" || settings.mode === "eval") return settings.mode;
  return settings.finetune ?? "full";
}

/**
 * Short names of the frameworks and runtimes, for the task sentence ("LoRA with HF Trainer + peft"); the
 * selects show the settings table's choice_labels.
 */
export const STACK_NAMES = {
  framework: {
    generic: "textbook arithmetic (generic)", hf: "HF Trainer", deepspeed: "DeepSpeed", fsdp: "PyTorch FSDP",
    torchtune: "torchtune", litgpt: "LitGPT", megatron: "Megatron-LM", unsloth: "Unsloth",
  },
  runtime: {
    auto: "automatic", transformers: "Transformers", vllm: "vLLM", sglang: "SGLang", tgi: "TGI",
    llamacpp: "llama.cpp", ollama: "Ollama",
  },
};

/** The label of `value` of `row` (a settings-schema row): the table's choice_labels, else the short name. */
export function choiceLabel(row, value) {
  return row.choice_labels?.[row.choices.indexOf(value)] || (STACK_NAMES[row.key]?.[value] ?? value);
}

export class TaskPicker extends EventTarget {
  #radios;
  #stacks = {};

  /** `schema`: the settings table (for the framework and runtime choices and their help text). */
  constructor(container, schema) {
    super();
    this.#radios = TASKS.map(([id, label, changes]) => {
      const input = h("input", { type: "radio", name: "task", value: id, id: `task-${id}` });
      input.addEventListener("change", () => {
        if (input.checked) this.#emit(changes);
      });
      return h("label", { class: "segment", for: `task-${id}` }, input, label);
    });
    const stacks = ["runtime", "framework"].map((key) => {
      const row = schema.find((r) => r.key === key);
      if (!row) return null;
      const id = `stack-${key}`;
      const select = h("select", { id, name: key, "aria-describedby": `${id}-help` },
        row.choices.map((choice) => h("option", { value: choice, text: choiceLabel(row, choice) })));
      select.addEventListener("change", () => this.#emit({ [key]: select.value }));
      const help = h("p", { class: "help visually-hidden", id: `${id}-help`, text: `${row.doc} (setting ${key})` });
      const field = h("div", { class: "stack-field", dataset: { key } },
        h("label", { for: id, text: row.label ?? (key === "runtime" ? "Inference runtime" : "Training framework") }),
        select,
        help);
      this.#stacks[key] = { select, field, help, row };
      return field;
    });
    container.replaceChildren(h("fieldset", { class: "task-picker" },
      h("legend", { text: "Task" }),
      h("div", { class: "segments" }, this.#radios),
      stacks));
  }

  /** Writes the runtime's and the framework's help texts from `docs` ({key: doc}) where their rows had none. */
  showDocs(docs) {
    for (const [key, { help, row }] of Object.entries(this.#stacks)) {
      if (!row.doc && docs[key]) help.textContent = `${docs[key]} (setting ${key})`;
    }
  }

  #emit(changes) {
    this.dispatchEvent(new CustomEvent("edit", { detail: { changes } }));
  }

  /** Shows the task of `settings` (resolved) and its runtime or framework. */
  update(settings) {
    const task = taskOf(settings);
    for (const label of this.#radios) {
      const input = label.firstChild;
      input.checked = input.value === task;
      label.classList.toggle("checked", input.checked);
    }
    const inference = task === "inference";
    for (const [key, { select, field }] of Object.entries(this.#stacks)) {
      field.hidden = inference !== (key === "runtime");
      if (settings[key] !== undefined && select.value !== settings[key]) select.value = settings[key];
    }
  }
}
