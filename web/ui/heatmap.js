// SPDX-License-Identifier: MIT
// The heatmap: memory per device over micro-batch × sequence length (both in powers of two), from the core's
// sweep kernel (docs/sweep.md): the same estimate as the table, for a whole grid at once. It marks the fit
// frontier (the largest micro-batch that fits at each sequence length: the device-capacity contour) and the
// user's point. Drawn by hand on a <canvas> (a hundred rectangles and a few labels need no chart library).
// The canvas is a picture (role="img"); the caption says the answer in words and a table lists the frontier.
// Pointing at a cell (or moving the keyboard cursor over the cells) reads it out: micro-batch, sequence, bytes
// and fit; clicking it (or Enter) sets the micro-batch and the sequence length.
// Used by the page (app.js) and the widget (widget.js).
import { h, uid } from "./dom.js";
import { formatBytes, formatCapacity, formatCount } from "./format.js";

/** The grid's default extent: micro-batch 1..256, sequence 256..131072 tokens (powers of two). */
const BATCH_HI = 256;
const SEQ_LO = 256;
const SEQ_HI = 131072;
/** Colour scale: full strength at capacity / 2^SCALE_OCTAVES and below, and at capacity × 2^SCALE_OCTAVES and above. */
const SCALE_OCTAVES = 4;

const pow2floor = (n) => 2 ** Math.floor(Math.log2(n));
const pow2ceil = (n) => 2 ** Math.ceil(Math.log2(n));

/**
 * The sweep's axes for `settings` (the resolved settings): powers of two, micro-batch 1..256 and sequence
 * 256..131072, the sequence bounded by the model's max_position_embeddings when it states one (at least up to
 * 2048), both widened to include the user's own micro-batch and sequence length.
 */
export function heatmapAxes(settings) {
  const batch = Number(settings.batch);
  const seq = Number(settings.seq);
  const context = Number(settings.max_position_embeddings);
  const seq_hi = context > 0 ? Math.min(SEQ_HI, Math.max(pow2ceil(context), 8 * SEQ_LO)) : SEQ_HI;
  return {
    batch: `1:${Math.max(BATCH_HI, pow2ceil(batch))}`,
    seq: `${Math.min(SEQ_LO, pow2floor(seq))}:${Math.max(seq_hi, pow2ceil(seq))}`,
  };
}

/**
 * Runs the sweep for the heatmap: `sweep(inputs, axes)` is the wasm API's (through the engine). Returns
 * {ok: true, grid, batch, seq, max_batch} with `max_batch` the largest micro-batch that fits at the user's
 * own sequence length (a second, one-column sweep when that length is not on the grid), or the sweep's
 * {ok: false, errors}.
 */
export function sweepHeatmap(sweep, inputs, settings) {
  const grid = sweep(inputs, heatmapAxes(settings));
  if (!grid.ok) return grid;
  const seq = Number(settings.seq);
  const column = grid.seq.indexOf(seq);
  let max_batch = column >= 0 ? grid.max_batch[column] : undefined;
  if (max_batch === undefined) {
    const at = sweep(inputs, { batch: "1", seq: String(seq) });
    if (!at.ok) return at;
    max_batch = at.max_batch[0];
  }
  return { ok: true, grid, batch: Number(settings.batch), seq, max_batch };
}

/** 131072 -> "128K", 1048576 -> "1M" (binary prefixes: the axes are powers of two). */
function axisLabel(n) {
  if (n >= 2 ** 20) return `${n / 2 ** 20}M`;
  if (n >= 1024) return `${n / 1024}K`;
  return String(n);
}

/** "20 GB": three significant digits, for the legend's ticks. */
function shortBytes(bytes, units) {
  const value = bytes / (units === "GiB" ? 2 ** 30 : 1e9);
  return `${Number(value.toPrecision(3))} ${units}`;
}

/** A CSS colour as [r, g, b], normalised by the canvas (which accepts any CSS colour syntax). */
function rgb(ctx, css, fallback) {
  ctx.fillStyle = fallback;
  ctx.fillStyle = css.trim() || fallback;
  const value = ctx.fillStyle;
  if (value.startsWith("#")) return [1, 3, 5].map((i) => parseInt(value.slice(i, i + 2), 16));
  return value.match(/[\d.]+/g).slice(0, 3).map(Number);
}

const mix = (a, b, t) => `rgb(${a.map((v, i) => Math.round(v + (b[i] - v) * t)).join(",")})`;

/**
 * Cell colour for `ratio` = memory / capacity: the "fits" hue below the device, the "over" hue above it, mixed
 * with the background: a quarter strength at the device itself (so the two sides stay apart), full strength
 * SCALE_OCTAVES octaves away.
 */
function cellColour(colours, ratio, fits) {
  const octaves = ratio > 0 ? Math.abs(Math.log2(ratio)) : SCALE_OCTAVES;
  const strength = 0.25 + 0.75 * Math.min(1, octaves / SCALE_OCTAVES);
  return mix(colours.bg, fits ? colours.fits : colours.over, strength);
}

export class Heatmap {
  #figure;
  #canvas;
  #caption;
  #readout;
  /** The focusable box around the canvas that takes the keyboard. */
  #cursor_box;
  /** The cell under the pointer or the keyboard cursor: {i, j} (row = micro-batch, column = sequence), or null. */
  #cursor = null;
  /** The plot's geometry from the last draw (CSS px), for hit-testing the pointer. */
  #layout = null;
  /** The cell the readout shows ("i,j", "none"), so a pointer moving within one cell redraws nothing. */
  #shown = null;
  #on_pick;
  #frontier_body;
  #data = null;
  #units = "GB";
  /** The figure's width (CSS px), from the ResizeObserver: reading clientWidth after the caption and table
      change would force a layout of the whole page in every update. */
  #width = null;
  #drawn_width = 0;

  /**
   * `onPick({batch, seq})`: a cell was clicked, or chosen with Enter or Space (values as settings text); without
   * it the chart only reads out the cell under the pointer.
   */
  constructor(container, { onPick } = {}) {
    const caption_id = uid("heatmap-caption");
    const readout_id = uid("heatmap-readout");
    this.#on_pick = onPick;
    // The picture is an image (role img, named, described by the caption); the cursor over its cells is the
    // focusable application around it: the arrow keys move it (read out below the chart), Enter or Space picks.
    this.#canvas = h("canvas", { role: "img", "aria-describedby": caption_id });
    this.#cursor_box = h("div", { class: "heatmap-cursor", tabindex: "0", role: "application",
                                  "aria-roledescription": "heatmap", "aria-describedby": readout_id,
                                  "aria-label": "Heatmap cells: arrow keys move between cells, Enter uses the cell's micro-batch and sequence length" },
      this.#canvas);
    this.#caption = h("figcaption", { id: caption_id });
    this.#readout = h("p", { class: "heatmap-readout", id: readout_id, "aria-live": "polite", dataset: { cell: "" } });
    this.#frontier_body = h("tbody");
    const table = h("table", { class: "heatmap-frontier" },
      h("caption", { text: "The frontier: the largest micro-batch that fits at each sequence length of the chart" }),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num", text: "Sequence (tokens)" }),
        h("th", { scope: "col", class: "num", text: "Largest micro-batch that fits" }))),
      this.#frontier_body);
    this.#figure = h("figure", { class: "heatmap", dataset: { renders: "0" } }, this.#cursor_box, this.#readout, this.#caption,
      h("details", {}, h("summary", { text: "Frontier as a table" }), h("div", { class: "table-wrap" }, table)));
    container.replaceChildren(this.#figure);
    // Redraw at the new width (phones turning, the widget's column resizing) and on a colour-scheme change.
    if (typeof ResizeObserver === "function") {
      new ResizeObserver((entries) => {
        this.#width = Math.floor(entries.at(-1).contentRect.width);
        if (this.#width !== this.#drawn_width) this.#draw();
      }).observe(this.#figure);
    }
    globalThis.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", () => this.#draw());
    this.#listen();
  }

  #listen() {
    const canvas = this.#canvas;
    const box = this.#cursor_box;
    canvas.addEventListener("pointermove", (e) => this.#point(this.#cellAt(e.offsetX, e.offsetY)));
    canvas.addEventListener("pointerleave", () => {
      // getRootNode(): inside the widget's shadow root, document.activeElement is the widget itself.
      if (box.getRootNode().activeElement !== box) this.#point(null);
    });
    canvas.addEventListener("click", (e) => this.#pick(this.#cellAt(e.offsetX, e.offsetY)));
    box.addEventListener("focus", () => this.#point(this.#cursor ?? this.#userCell()));
    box.addEventListener("blur", () => this.#point(null));
    box.addEventListener("keydown", (e) => {
      const step = { ArrowUp: [1, 0], ArrowDown: [-1, 0], ArrowRight: [0, 1], ArrowLeft: [0, -1] }[e.key];
      if (step && this.#data) {
        e.preventDefault();
        const { i, j } = this.#cursor ?? this.#userCell() ?? { i: 0, j: 0 };
        const rows = this.#data.grid.batch.length;
        const cols = this.#data.grid.seq.length;
        this.#point({ i: Math.max(0, Math.min(rows - 1, i + step[0])), j: Math.max(0, Math.min(cols - 1, j + step[1])) });
      } else if ((e.key === "Enter" || e.key === " ") && this.#cursor) {
        e.preventDefault();
        this.#pick(this.#cursor);
      }
    });
  }

  /** The cell at CSS pixel (x, y) of the canvas, or null outside the plot. */
  #cellAt(x, y) {
    const layout = this.#layout;
    if (!layout || !this.#data) return null;
    const j = Math.floor((x - layout.left) / layout.cell_w);
    const i = Math.floor((layout.top + layout.plot_h - y) / layout.cell_h);
    return i >= 0 && i < layout.rows && j >= 0 && j < layout.cols ? { i, j } : null;
  }

  /** The cell nearest the user's own micro-batch and sequence length (log scale). */
  #userCell() {
    if (!this.#data) return null;
    const { grid, batch, seq } = this.#data;
    const nearest = (axis, v) => {
      let best = 0;
      for (let k = 1; k < axis.length; k++) if (Math.abs(Math.log2(axis[k] / v)) < Math.abs(Math.log2(axis[best] / v))) best = k;
      return best;
    };
    return { i: nearest(grid.batch, batch), j: nearest(grid.seq, seq) };
  }

  /** The readout of `cell`: micro-batch, sequence, bytes per device and whether it fits. */
  #cellInfo({ i, j }) {
    const { grid } = this.#data;
    const batch = grid.batch[i];
    const seq = grid.seq[j];
    return { batch, seq, bytes: grid.total[i * grid.seq.length + j], fits: batch <= grid.max_batch[j] };
  }

  /** Moves the cursor to `cell` (null: none): the readout says what is there and the chart outlines it. */
  #point(cell, { draw = true } = {}) {
    const key = cell && this.#data ? `${cell.i},${cell.j}` : "none";
    this.#cursor = cell;
    if (key === this.#shown) return;
    this.#shown = key;
    if (!cell || !this.#data) {
      this.#readout.textContent = this.#on_pick && this.#data
        ? "Point at a cell, or focus the chart and use the arrow keys, to read it; click or press Enter to use its micro-batch and sequence length."
        : "";
      this.#readout.dataset.cell = "";
    } else {
      const { batch, seq, bytes, fits } = this.#cellInfo(cell);
      const use = this.#on_pick ? " Click or press Enter to use it." : "";
      this.#readout.textContent = `Micro-batch ${formatCount(batch)} × sequence ${formatCount(seq)} tokens: ` +
        `${formatBytes(bytes, this.#units)} per device, ${fits ? "fits" : "does not fit"} (${formatCapacity(this.#data.capacity)}).${use}`;
      Object.assign(this.#readout.dataset, { cell: `${cell.i},${cell.j}`, batch: String(batch), seq: String(seq),
                                            bytes: String(Math.round(bytes)), fits: String(fits) });
    }
    if (draw) this.#draw();
  }

  #pick(cell) {
    if (!cell || !this.#data || !this.#on_pick) return;
    const { batch, seq } = this.#cellInfo(cell);
    this.#on_pick({ batch: String(batch), seq: String(seq) });
  }

  /** Shows `result` (sweepHeatmap's) for `estimate` (the table's, at the user's point). */
  update(result, { estimate, units = "GB" }) {
    this.#units = units;
    const figure = this.#figure;
    figure.dataset.renders = String(Number(figure.dataset.renders) + 1);
    if (!result.ok) {
      this.#data = null;
      delete figure.dataset.frontier;
      this.#caption.textContent = `No chart for these settings: ${result.errors.map((e) => `${e.setting}: ${e.message}`).join("; ")}.`;
      this.#canvas.hidden = true;
      this.#cursor_box.hidden = true;
      this.#cursor = null;
      this.#shown = null;
      this.#readout.textContent = "";
      this.#readout.dataset.cell = "";
      this.#frontier_body.replaceChildren();
      return;
    }
    this.#canvas.hidden = false;
    this.#cursor_box.hidden = false;
    this.#data = { ...result, total: estimate.bytes.total, capacity: Number(result.grid.gpu_memory) };
    const { grid, batch, seq, max_batch } = result;
    const frontier = Array.from(grid.seq, (s, j) => [s, grid.max_batch[j]]);
    Object.assign(figure.dataset, {
      frontier: JSON.stringify(frontier), batch: String(batch), seq: String(seq), maxBatch: String(max_batch),
    });
    this.#describe();
    // A new grid: the cursor keeps its cell when it is still on the chart, and its readout is redone.
    const cursor = this.#cursor && this.#cursor.i < grid.batch.length && this.#cursor.j < grid.seq.length ? this.#cursor : null;
    this.#shown = null;
    this.#point(cursor, { draw: false });
    this.#frontier_body.replaceChildren(...frontier.map(([s, n]) => h("tr", {},
      h("td", { class: "num", text: formatCount(s) }), h("td", { class: "num", text: n > 0 ? formatCount(n) : "none" }))));
    this.#draw();
  }

  #describe() {
    const { grid, batch, seq, max_batch, total, capacity } = this.#data;
    const device = `${formatCapacity(capacity)} per device`;
    const at = `at sequence length ${formatCount(seq)}`;
    const answer = max_batch > 0
      ? `Fits up to micro-batch ${formatCount(max_batch)} ${at} (${device}).`
      : `No micro-batch fits ${at}: micro-batch 1 needs more than ${device}.`;
    const yours = `The dot is your micro-batch ${formatCount(batch)}: ${formatBytes(total, this.#units)}.`;
    const anything = grid.max_batch.some((n) => n > 0)
      ? "The line is the largest micro-batch that fits at each sequence length; cells above it do not fit."
      : "Nothing on the chart fits this device.";
    this.#caption.textContent = `${answer} ${yours} ${anything} Colour: memory per device, blue where it fits, orange where it does not, fainter near the device's capacity.`;
    const b = grid.batch;
    const s = grid.seq;
    this.#canvas.setAttribute("aria-label", `Heatmap of memory per device over micro-batch ${formatCount(b[0])} to ${formatCount(b[b.length - 1])} and sequence length ${formatCount(s[0])} to ${formatCount(s[s.length - 1])} tokens`);
  }

  #draw() {
    const data = this.#data;
    const width = (this.#width ??= this.#figure.clientWidth);
    this.#drawn_width = width;
    if (!data || width === 0) return;
    const { grid } = data;
    const rows = grid.batch.length;
    const cols = grid.seq.length;
    const canvas = this.#canvas;
    const ctx = canvas.getContext("2d");
    const style = getComputedStyle(this.#figure);
    const colours = {
      bg: rgb(ctx, style.getPropertyValue("--bg"), "#ffffff"),
      fits: rgb(ctx, style.getPropertyValue("--heat-fits"), "#3b6fd4"),
      over: rgb(ctx, style.getPropertyValue("--heat-over"), "#d9480f"),
    };
    const fg = style.getPropertyValue("--fg").trim() || style.color;
    const bg = `rgb(${colours.bg.join(",")})`;
    const font = `12px ${style.fontFamily}`;

    // Layout in CSS pixels: y-axis title and ticks on the left, x ticks and title below, then the legend.
    ctx.font = font;
    const y_tick_width = Math.max(...Array.from(grid.batch, (b) => ctx.measureText(axisLabel(b)).width));
    const left = Math.ceil(y_tick_width) + 24;
    const right = 10;
    const top = 8;
    const plot_w = Math.max(40, width - left - right);
    const plot_h = Math.round(Math.min(320, Math.max(rows * 16, plot_w * 0.5, 160)));
    const axis_h = 36;
    const legend_h = 40;
    const height = top + plot_h + axis_h + legend_h;
    const dpr = globalThis.devicePixelRatio || 1;
    // Resizing a canvas reallocates it: only when the size changes.
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = font;

    const cell_w = plot_w / cols;
    const cell_h = plot_h / rows;
    // Positions in cell units: column j spans [j, j + 1] around seq[j] (log2), row i likewise (upwards).
    const x = (seq) => left + (Math.log2(seq / grid.seq[0]) + 0.5) * cell_w;
    const y = (batch) => top + plot_h - (Math.log2(batch / grid.batch[0]) + 0.5) * cell_h;
    this.#layout = { left, top, plot_w, plot_h, cell_w, cell_h, rows, cols };
    const capacity = data.capacity;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const total = grid.total[i * cols + j];
        ctx.fillStyle = cellColour(colours, capacity > 0 ? total / capacity : Infinity, grid.batch[i] <= grid.max_batch[j]);
        ctx.fillRect(left + j * cell_w, top + plot_h - (i + 1) * cell_h, cell_w - 1, cell_h - 1);
      }
    }

    // Ticks, skipping labels that would collide.
    ctx.fillStyle = fg;
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    const row_step = Math.ceil(14 / cell_h);
    for (let i = 0; i < rows; i += row_step) ctx.fillText(axisLabel(grid.batch[i]), left - 4, top + plot_h - (i + 0.5) * cell_h);
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    const widest = Math.max(...Array.from(grid.seq, (s) => ctx.measureText(axisLabel(s)).width));
    const col_step = Math.ceil((widest + 6) / cell_w);
    for (let j = 0; j < cols; j += col_step) ctx.fillText(axisLabel(grid.seq[j]), left + (j + 0.5) * cell_w, top + plot_h + 4);
    ctx.fillText("sequence length (tokens)", left + plot_w / 2, top + plot_h + 20);
    ctx.save();
    ctx.translate(10, top + plot_h / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "middle";
    ctx.fillText("micro-batch", 0, 0);
    ctx.restore();

    // The frontier: at each sequence column, a level at the largest micro-batch that fits (0: the bottom edge,
    // beyond the top row: the top edge), joined into a staircase; drawn over a halo so it reads on any cell.
    const level = (n) => Math.max(top, Math.min(top + plot_h, n > 0 ? y(n) : top + plot_h));
    if (grid.max_batch.some((n) => n > 0)) {
      ctx.beginPath();
      for (let j = 0; j < cols; j++) {
        const yj = level(grid.max_batch[j]);
        if (j === 0) ctx.moveTo(left, yj);
        else ctx.lineTo(left + j * cell_w, yj);
        ctx.lineTo(left + (j + 1) * cell_w - 1, yj);
      }
      ctx.lineJoin = "round";
      ctx.strokeStyle = bg;
      ctx.lineWidth = 5;
      ctx.stroke();
      ctx.strokeStyle = fg;
      ctx.lineWidth = 2.5;
      ctx.stroke();
    }

    // The user's point.
    ctx.beginPath();
    ctx.arc(x(data.seq), y(data.batch), 5, 0, 2 * Math.PI);
    ctx.fillStyle = fg;
    ctx.fill();
    ctx.strokeStyle = bg;
    ctx.lineWidth = 2;
    ctx.stroke();

    // The cursor's cell (pointer or keyboard), outlined.
    if (this.#cursor) {
      const { i, j } = this.#cursor;
      ctx.lineWidth = 2;
      ctx.strokeStyle = bg;
      ctx.strokeRect(left + j * cell_w - 1, top + plot_h - (i + 1) * cell_h - 1, cell_w + 1, cell_h + 1);
      ctx.strokeStyle = fg;
      ctx.strokeRect(left + j * cell_w + 0.5, top + plot_h - (i + 1) * cell_h + 0.5, cell_w - 2, cell_h - 2);
    }

    // Legend: the colour scale from capacity / 16 to capacity × 16, the device's capacity in the middle.
    const legend_top = top + plot_h + axis_h + 4;
    const legend_w = Math.min(plot_w, 420);
    const legend_left = left + (plot_w - legend_w) / 2;
    const steps = 64;
    for (let k = 0; k < steps; k++) {
      const octave = -SCALE_OCTAVES + (2 * SCALE_OCTAVES * (k + 0.5)) / steps;
      ctx.fillStyle = cellColour(colours, 2 ** octave, octave <= 0);
      ctx.fillRect(legend_left + (k * legend_w) / steps, legend_top, legend_w / steps + 0.5, 10);
    }
    ctx.fillStyle = fg;
    ctx.fillRect(legend_left + legend_w / 2 - 1, legend_top - 3, 2, 16);
    ctx.textBaseline = "top";
    const ticks = legend_w >= 380 ? [-4, -2, 0, 2, 4] : [-4, 0, 4];
    for (const octave of ticks) {
      const text = `${octave === -SCALE_OCTAVES ? "≤" : octave === SCALE_OCTAVES ? "≥" : ""}${shortBytes(capacity * 2 ** octave, this.#units)}`;
      ctx.textAlign = octave === -SCALE_OCTAVES ? "left" : octave === SCALE_OCTAVES ? "right" : "center";
      ctx.fillText(text, legend_left + ((octave + SCALE_OCTAVES) / (2 * SCALE_OCTAVES)) * legend_w, legend_top + 14);
    }
  }
}
