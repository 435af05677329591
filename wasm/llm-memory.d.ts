// SPDX-License-Identifier: MIT
// Types of the llm-memory JS API (dist/llm-memory.js and dist/llm-memory.single.js), written by hand
// (Emscripten 3.1.6 has no --emit-tsd). Every object is plain data: nothing to delete().
//
// Units: byte counts are JS numbers holding whole bytes, exact below 2^53 (9 PB); parameter counts are
// whole parameters. All byte values are PER DEVICE (the most-loaded one) unless the field says otherwise.

/**
 * Settings as the CLI flags, URL query keys and widget attributes spell them: `{model: "llama-2-7b", seq: 4096}`.
 * Keys, kinds, defaults, ranges and units: `settingsSchema()` (or `llm-memory --help`). Values may be strings
 * or numbers/booleans, which are read as `String(value)`; `null` and `undefined` mean "not given".
 * Unknown keys and bad values come back as errors naming the setting, and so do values of any other type
 * (BigInt, Symbol, objects, arrays, functions) and properties whose getter throws: nothing throws.
 */
export type Settings = Record<string, string | number | boolean | null | undefined>;

/**
 * One problem with the input: the one error shape of the API, the page and the widget (docs/embedding.md,
 * "Errors: one shape"; the widget's notes, LlmMemoryProblem in widget.d.ts, are the same object).
 */
export interface SettingError {
  /**
   * The settings key it concerns, or what stands in for one: "config.json", "settings", "config", "axes",
   * "checkpoint", "models", "calculator" (the core could not answer).
   */
  setting: string;
  /** What is wrong and what is accepted, e.g. `must be an integer from 1 to 10000000, got "0"`. */
  message: string;
}

/** Invalid input: never an exception, always this value. */
export interface Failure {
  ok: false;
  /** Every problem found, at least one. */
  errors: SettingError[];
}

/** One line inside a bucket. */
export interface Item {
  /** e.g. "fp32 master weights". */
  name: string;
  /** Bytes per device. */
  bytes: number;
  /** How it was computed, with the numbers used. */
  formula: string;
}

export type BucketKey = "parameters" | "gradients" | "optimizer" | "activations" | "kv_cache" | "overhead";

/** One bucket of device memory. */
export interface Bucket {
  key: BucketKey;
  /** Display name. */
  label: string;
  /** Bytes per device: the sum of the items. */
  bytes: number;
  /** What the bucket covers. */
  includes: string;
  /** What it assumes, and what it leaves out. */
  assumes: string;
  items: Item[];
}

/** Parameters of one transformer layer, by component (parameters). */
export interface LayerParams {
  /** q/k/v/o (or MLA) weights and biases, and q/k norms. */
  attention: number;
  /** Dense MLP, or routed + shared experts. */
  mlp: number;
  /** Per-layer norms. */
  norms: number;
  /** MoE gate; present only for MoE layers. */
  router?: number;
  /** Sum of the above. */
  total: number;
}

/** Exact parameter count of the architecture (parameters). */
export interface ParamBreakdown {
  /** Token (+ learned position) embeddings. */
  embedding: number;
  /** Output projection; 0 when tied to the embedding. */
  lm_head: number;
  /** Norm after the last layer. */
  final_norm: number;
  /** Number of dense layers (layers). */
  dense_layers: number;
  dense_layer: LayerParams;
  /** Number of MoE layers (layers); present only for MoE models. */
  moe_layers?: number;
  moe_layer?: LayerParams;
  /** All parameters. */
  total: number;
  /** Parameters used per token (MoE: shared + top-k experts). */
  active: number;
}

/** The estimate: exactly what `llm-memory --json` prints for the same settings. */
export interface Estimate {
  ok: true;
  /** Total parameters (the `params` override when given). */
  params: number;
  /** Parameters that get gradients and optimizer state. */
  trainable_params: number;
  /** Bytes per device, by bucket, and their total. */
  bytes: Record<BucketKey | "total", number>;
  /** Host RAM for offloaded state, per device's share (bytes). */
  cpu_bytes: number;
  /** Total devices (devices). */
  devices: number;
  /** Data-parallel degree: devices / (tp x pp) (devices). */
  data_parallel: number;
  /** batch x grad_accum x data_parallel (sequences per optimizer step). */
  effective_batch: number;
  /** Which pipeline stage is reported: "only" (pp = 1), else the most loaded of "first" and "last". */
  stage: "only" | "first" | "last";
  /** bytes.total <= gpu_memory. */
  fits: boolean;
  /** Capacity of one device (bytes). */
  gpu_memory: number;
  /** Every bucket, in BucketKey order, each present (possibly 0 bytes). */
  buckets: Bucket[];
  param_breakdown: ParamBreakdown;
  /** Assumptions applied and settings that were ignored. */
  notes: string[];
  /** Every resolved setting as text (defaults, preset and explicit values merged): a full, shareable state. */
  settings: Record<string, string>;
}

/** How one bucket changes under a knob (bytes per device). */
export interface BucketChange {
  bucket: BucketKey;
  before: number;
  after: number;
  /** before - after; negative when the knob adds memory. */
  saved: number;
}

/** One knob moved one step and re-estimated. */
export interface Knob {
  /** Stable identifier, e.g. "zero", "recompute". */
  id: string;
  /** For people, e.g. "ZeRO stage 1 -> 2". */
  name: string;
  /** Settings to merge over the current ones to apply the knob. */
  delta: Record<string, string>;
  /** Bucket with the largest decrease ("" when none decreased). */
  drains: BucketKey | "";
  /** Buckets whose bytes changed. */
  changes: BucketChange[];
  /** Per-device total with the knob applied (bytes). */
  total: number;
  /** Total now - total with the knob (bytes; negative = costs memory). */
  saved: number;
  /** -saved: what the knob costs (bytes; positive = adds memory, shown as "costs +X"). */
  added: number;
  /** Throughput cost tier, 0 (none or faster) to 3 (large), docs/solve-and-advise.md. */
  tier: number;
  /** Host RAM for offloaded state with the knob applied (bytes). */
  cpu_bytes: number;
  /** The total with the knob applied fits one device. */
  fits: boolean;
  /** What else the step changes or assumes ("" when nothing). */
  note: string;
}

/** The knob diagnosis: the object `llm-memory --json --advise` prints under "advice", plus ok. */
export interface Advice {
  ok: true;
  /** Per-device total now (bytes). */
  total: number;
  /** Capacity of one device (bytes). */
  gpu_memory: number;
  /** The setting fits now. */
  fits: boolean;
  /** The bucket holding the most bytes now. */
  largest_bucket: BucketKey;
  /** Same hardware first, each group by bytes saved, largest first. */
  knobs: Knob[];
  /** Knobs left out: they changed nothing, or gave invalid settings. */
  skipped: { name: string; reason: string }[];
  /** The cheapest combination of knobs that fits; null when the setting fits already. */
  cheapest: KnobCombination | null;
}

/** The fewest knobs, then the lowest sum of tiers, then the smallest total; same hardware searched first. */
export interface KnobCombination {
  /** A combination of at most max_knobs fits. */
  found: boolean;
  /** Its knobs' ids, in knob-table order. */
  knobs: string[];
  /** Its knobs' names. */
  names: string[];
  /** Settings to merge over the current ones to apply every knob of it. */
  delta: Record<string, string>;
  /** Per-device total with the combination applied (bytes). */
  total: number;
  /** Host RAM with the combination applied (bytes). */
  cpu_bytes: number;
  /** Sum of the knobs' throughput tiers. */
  cost: number;
  /** Found without adding devices. */
  same_hardware: boolean;
  /** The largest combination searched (knobs). */
  max_knobs: number;
  /** Combinations estimated. */
  evaluated: number;
}

/** One solver answer: the varied setting(s) at the fit boundary, everything else held. */
export interface SolveAnswer {
  /** Some value within the searched range fits. */
  found: boolean;
  /** Devices (min_devices), sequences (max_batch) or tokens (max_seq) at the boundary; 0 when !found. */
  value: number;
  /** Largest value searched (same unit as value). */
  limit: number;
  /** value == limit and it fits: the true maximum may be larger. */
  at_limit: boolean;
  /** Settings keys the search changed. */
  varied: string[];
  /** Per-device total at `value` (bytes); 0 when !found. */
  total: number;
  /** Settings that apply the answer (empty when !found). */
  delta: Record<string, string>;
  /** One line for people, e.g. "largest micro-batch that fits: 3". */
  message: string;
}

/** The solver: the object `llm-memory --json --solve` prints under "solve", plus ok. */
export interface Solve {
  ok: true;
  /** The current setting fits one device. */
  fits: boolean;
  /** Per-device total of the current setting (bytes). */
  total: number;
  /** Capacity of one device (bytes). */
  gpu_memory: number;
  /** gpu_memory - total (bytes); negative when it does not fit. */
  headroom: number;
  /** Smallest device count that fits, for the chosen ZeRO stage. */
  min_devices: SolveAnswer;
  /** Largest micro-batch that fits (0 when batch 1 does not). */
  max_batch: SolveAnswer;
  /** Longest sequence (inference: context) that fits (0 when 1 does not). */
  max_seq: SolveAnswer;
}

/** One of the nearest ways out of a "does not fit" (`llm-memory --ways-out --json`, under "ways_out"). */
export interface WayOut {
  /** Which kind of change, in the order they are listed. */
  way: "devices" | "gpu" | "weights" | "context" | "batch" | "knob";
  /** For people, e.g. "4 × NVIDIA H100 80GB SXM with ZeRO-3", "sequences of 1,024 tokens (from 4,096)". */
  text: string;
  /** Per-device total with the change applied (bytes). */
  total: number;
  /** The settings fit one device with the change applied (a weights format or a knob may only come nearer). */
  fits: boolean;
  /** Settings to merge over the current ones to apply the change; null drops a setting (back to its default). */
  delta: Record<string, string | null>;
  /** What else the change assumes (a knob's note; "" when nothing). */
  note: string;
}

/**
 * The nearest ways out (docs/solve-and-advise.md, "Ways out"), with the solver's and the knob search's answers
 * they were found from (as solve() and advise() return them), plus ok.
 */
export interface WaysOut {
  ok: true;
  /** The settings fit already: no ways out are searched. */
  fits: boolean;
  /** At most one of each kind, in the order devices, gpu, weights, context, batch, knob; empty when none. */
  ways: WayOut[];
  solve: Solve;
  advice: Advice;
}

/** One GPU preset's answer for the current settings (`llm-memory --gpus --json`, one row). */
export interface GpuFitRow {
  /** GPU preset id, e.g. "h100-80gb". */
  id: string;
  /** e.g. "NVIDIA H100 80GB SXM". */
  name: string;
  /** Usable memory of one device (bytes). */
  memory: number;
  /** The current device count (the devices setting). */
  devices: number;
  /** The current settings fit on `devices` of this GPU. */
  fits: boolean;
  /** Per-device total at the current device count (bytes). */
  total: number;
  /** Devices needed on this GPU: the solver's min_devices answer, the parallel split in its delta. */
  needed: SolveAnswer;
  /** memory - per-device total at needed.value devices (bytes); 0 when !needed.found. */
  headroom: number;
}

/** Which GPUs fit: every GPU preset, in the catalogue's order, plus ok. */
export interface GpuFit {
  ok: true;
  gpus: GpuFitRow[];
}

/** Axes of a sweep: "a" (one value), "a:b" (a, 2a, 4a, ... <= b) or "a:b:n" (n evenly spaced integers). */
export interface SweepAxes {
  /** Micro-batch axis (sequences); default "1:256". */
  batch?: string;
  /** Sequence axis (tokens); default "256:131072". */
  seq?: string;
  /** "simd" (default) or "scalar": the same numbers, for benchmarks. */
  kernel?: "simd" | "scalar";
}

/** Total memory over micro-batch x sequence (docs/sweep.md). Every array is a copy, safe to keep. */
export interface Sweep {
  ok: true;
  /** Micro-batch of each row (sequences). */
  batch: Float64Array;
  /** Sequence length of each column (tokens). */
  seq: Float64Array;
  /** Bytes per device, row-major: total[i * seq.length + j] at batch[i], seq[j]. */
  total: Float64Array;
  /** Largest micro-batch that fits gpu_memory at each seq (sequences; 0 when batch 1 does not). */
  max_batch: Float64Array;
  /** The kernel's input: bytes at batch 0, one per pipeline stage. */
  fixed: Float64Array;
  /** The kernel's input: bytes per sequence, [stage][seq column] row-major. */
  slope: Float64Array;
  /** Capacity of one device (bytes). */
  gpu_memory: number;
  /** estimate() exceeds total by at most this many bytes (it rounds each item up), and by no less than -1. */
  rounding_bound: number;
  /** The SIMD instruction set used: "wasm-simd128" in WebAssembly. */
  isa: string;
}

/** One row of the settings table (`llm-memory --schema`). */
export interface SettingSchema {
  /** CLI flag, URL query key, widget attribute and JSON key. */
  key: string;
  /** Human name the page and the widget show ("Context length"). */
  label: string;
  kind: "integer" | "number" | "count" | "bytes" | "flag" | "choice" | "text";
  /** As a user would type it. */
  default: string;
  /** Inclusive lower bound, in `unit` (numeric kinds only). */
  min?: number;
  /** Inclusive upper bound, in `unit` (numeric kinds only). */
  max?: number;
  /** Allowed values (choice kind only). */
  choices?: string[];
  /** Human names of `choices`, in the same order (choice kind only). */
  choice_labels?: string[];
  /** Unit of the value ("bytes", "tokens", "%", ... or ""). */
  unit: string;
  /** model | workload | finetune | precision | parallelism | device. */
  group: string;
  /** One line of help. */
  doc: string;
}

/** A model preset (`llm-memory --list-models --json`). */
export interface ModelPreset {
  /** Settings value for `model`: Hugging Face repo name, lower-case, no organisation. */
  id: string;
  /** Other values `model` takes for this preset: repo names of variants with the same count (instruct, chat, base). */
  aliases: string[];
  /** Display name, e.g. "Llama 2 7B". */
  name: string;
  /** e.g. "meta-llama/Llama-2-7b-hf". */
  hf_repo: string;
  /** Exact count computed from the architecture (parameters). */
  params: number;
  /** Published exact count (parameters); 0 when none is published. */
  official_params: number;
  /** Where official_params comes from. */
  source: string;
  /** Why the computed count may differ, when it does. */
  note: string;
}

/** A GPU preset (`llm-memory --list-gpus --json`). */
export interface GpuPreset {
  /** Settings value for `gpu`, e.g. "h100-80gb". */
  id: string;
  /** e.g. "NVIDIA H100 80GB SXM". */
  name: string;
  /** Usable device memory (bytes); Apple silicon: Metal's default working set of the unified memory. */
  memory_bytes: number;
  /** Unified memory shared with the CPU (bytes; Apple silicon); 0 for a discrete GPU. */
  unified_memory_bytes: number;
  /** Where the figure comes from. */
  source: string;
  /** Remarks on the figure ("" when none). */
  note: string;
}

/** The API: every call is synchronous and returns fresh plain objects. */
export interface LlmMemory {
  /**
   * The estimate for `settings`. `config` (architecture settings from parseConfig) sits under the
   * explicit settings, as the CLI's --config does.
   */
  estimate(settings: Settings, config?: Settings): Estimate | Failure;
  /**
   * Every setting resolved (defaults, preset, config, `settings`) and checked as estimate() checks it, each as
   * its text (the `settings` object of an estimate), without computing the estimate; or the errors, each
   * naming its setting. One call tells whether a link is valid.
   */
  resolve(settings: Settings, config?: Settings): { ok: true; settings: Record<string, string> } | Failure;
  /** The exact JSON text `llm-memory --json` prints (estimate() parses it). */
  estimateJson(settings: Settings, config?: Settings): string;
  /** Every applicable knob moved one step and re-estimated, by bytes saved. */
  advise(settings: Settings, config?: Settings): Advice | Failure;
  /** Devices needed, largest micro-batch and longest sequence that fit. */
  solve(settings: Settings, config?: Settings): Solve | Failure;
  /**
   * The nearest ways out of a "does not fit" (more devices with their split, another GPU, a weights format, a
   * shorter context or micro-batch, a knob), with the solve() and advise() answers they come from: one call.
   */
  waysOut(settings: Settings, config?: Settings): WaysOut | Failure;
  /** The settings on every GPU preset: fits at the current device count, devices needed (with the split), headroom. */
  gpuFit(settings: Settings, config?: Settings): GpuFit | Failure;
  /** Total memory over a micro-batch x sequence grid and the largest micro-batch per sequence. */
  sweep(settings: Settings, axes?: SweepAxes, config?: Settings): Sweep | Failure;
  /** Milliseconds per run of the sweep kernel alone on an nBatch x nSeq grid, timed in wasm (benchmarks). */
  sweepKernelMs(settings: Settings, nBatch: number, nSeq: number, kernel: "simd" | "scalar", reps: number): number;
  /** The settings table the forms are built from. */
  settingsSchema(): SettingSchema[];
  /**
   * The model presets. The module with a separate .wasm (llm-memory.js) compiles none in: it lists those
   * handed over so far, every one once the catalogue is read (load() without `presets`, or loadPresets()).
   */
  listModels(): ModelPreset[];
  /**
   * Reads model presets beside the module (dist/models/<id>.json, or without ids the whole catalogue,
   * dist/llm-memory.models.json) and hands them to the core; settings naming a preset it has not been handed
   * get "unknown model". Resolves at once for the single-file module, which carries every preset.
   */
  loadPresets(ids?: Iterable<string>): Promise<void>;
  /** Whether every model preset is in (always true for the single-file module). */
  readonly presetsComplete: boolean;
  listGpus(): GpuPreset[];
  /** A Hugging Face config.json (text, or an already parsed object) mapped onto architecture settings. */
  parseConfig(config: string | object): { ok: true; settings: Record<string, string> } | Failure;
  /**
   * A checkpoint header read by the CLI's readers (--safetensors, --gguf) from the file's first bytes: `kind`
   * "safetensors" (the 8-byte length, then the JSON header) or "gguf"; `fileSize` the whole file's [bytes];
   * `name` the file's name, for errors. `{ok: false, need}` asks to call again with the first `need` bytes.
   */
  readCheckpoint(kind: "safetensors" | "gguf", bytes: Uint8Array | ArrayBuffer, fileSize: number, name: string):
    CheckpointRead | { ok: false; need: number } | Failure;
}

/** Tensors of one dtype in a checkpoint's headers. */
export interface CheckpointDtype {
  tensors: number;
  /** Elements of these tensors [values]. */
  params: number;
  /** Their data [bytes]. */
  bytes: number;
}

/** What readCheckpoint read (the `checkpoint` object of `llm-memory --json --safetensors/--gguf`). */
export interface CheckpointRead {
  ok: true;
  checkpoint: {
    tensors: number;
    /** Elements of every tensor [values]. */
    params: number;
    /** Tensor data, headers excluded [bytes]. */
    bytes: number;
    /** False when integer containers pack several values (then `params` is not the parameter count). */
    params_are_parameters: boolean;
    /** Per dtype as the header spells it (BF16, F32, Q4_K, ...). */
    by_dtype: Record<string, CheckpointDtype>;
  };
  /** GGUF general.architecture; "" for safetensors. */
  architecture: string;
  /** Settings the checkpoint gives, as the CLI layers them under explicit values: params, GGUF architecture fields. */
  settings: Record<string, string>;
}

/** Emscripten module options, e.g. `wasmBinary` (the .wasm bytes) or `locateFile`. */
export interface LoadOptions {
  /**
   * Model presets to read while the core compiles (ids); the rest on loadPresets(). Without it the whole
   * catalogue is read before load() resolves. Ignored by the single-file module (every preset inside).
   */
  presets?: Iterable<string>;
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, scriptDirectory: string) => string;
  [option: string]: unknown;
}

/**
 * Instantiates the WebAssembly core. Without options every caller shares one instance; with options a new one
 * is made. In node the .wasm beside the module is read from disk; in browsers it is fetched from the URL of
 * the module (the single-file variant carries it inline).
 */
export function load(options?: LoadOptions): Promise<LlmMemory>;

/** The raw Emscripten factory (bindings return JSON text); prefer load(). */
export default function llm_memory_core(options?: LoadOptions): Promise<unknown>;
