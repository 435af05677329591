// SPDX-License-Identifier: MIT
// Number formatting for display. Bytes stay exact integers everywhere else; they are converted only here.

const GB = 1e9;
const GIB = 2 ** 30;

// Plain digit grouping instead of Intl.NumberFormat / toLocaleString: the first Intl call loads locale data,
// which alone took tens of milliseconds of the page's start (docs/performance.md).
function grouped(value, digits) {
  const [whole, fraction] = Math.abs(value).toFixed(digits).split(".");
  const sign = value < 0 && Number(whole + (fraction ?? "")) !== 0 ? "-" : "";
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ",")}${fraction ? `.${fraction}` : ""}`;
}

/** "14.00 GB" or "13.04 GiB" (units: the `units` setting, "GB" or "GiB"). */
export function formatBytes(bytes, units = "GB") {
  const scale = units === "GiB" ? GIB : GB;
  const value = bytes / scale;
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 100 ? 1 : 2;
  return `${grouped(value, digits)} ${units}`;
}

/** At most two decimals, trailing zeros dropped: 80 -> "80", 85.8993 -> "85.9", 79.6475 -> "79.65". */
function trimmed(value) {
  return grouped(value, 2).replace(/\.?0+$/, "");
}

/**
 * A device's capacity in both units, GiB first as GPU memory is sold: "80 GiB (85.9 GB)" (A100 80GB),
 * "79.65 GiB (85.52 GB)" (H100, what CUDA reports).
 */
export function formatCapacity(bytes) {
  return `${trimmed(bytes / GIB)} GiB (${trimmed(bytes / GB)} GB)`;
}

/** Signed: "-1.20 GB" / "+0.50 GB" (for savings that can be negative). */
export function formatSignedBytes(bytes, units = "GB") {
  return bytes > 0 ? `+${formatBytes(bytes, units)}` : formatBytes(bytes, units);
}

/** 8030261248 -> "8,030,261,248". */
export function formatCount(count) {
  return grouped(Math.round(count), 0);
}

/** 8030261248 -> "8.03 B" (parameters, short form). */
export function formatShortCount(count) {
  for (const [scale, suffix] of [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "K"]]) {
    if (count >= scale) return `${(count / scale).toFixed(2)} ${suffix}`;
  }
  return String(count);
}

/** Share of a whole as "12.3 %" ("0 %" when the whole is 0). */
export function formatShare(part, whole) {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : "0 %";
}

/**
 * A byte count as the shortest exact text the bytes settings accept ("80GB", "1GiB", "81559MiB"), so a
 * resolved value shown in a form field reads well and still means exactly the same number; a count that is no
 * whole number of MiB as GiB or MiB to two decimals ("460.8MiB"), under 1 MiB as it is.
 */
export function bytesSettingText(bytes) {
  const n = Number(bytes);
  if (!Number.isFinite(n)) return String(bytes);
  if (n === 0) return "0";
  const candidates = [[1e12, "TB"], [2 ** 40, "TiB"], [1e9, "GB"], [2 ** 30, "GiB"], [1e6, "MB"], [2 ** 20, "MiB"]];
  for (const [scale, suffix] of candidates) {
    if (n % scale === 0) return `${n / scale}${suffix}`;
  }
  // Not a whole number of any unit (a measured CUDA context, 483183821): GiB or MiB to two decimals, never raw
  // bytes (issue 36). Only shown: an edited field sends the text typed.
  if (Math.abs(n) < 2 ** 20) return String(n);
  return Math.abs(n) >= 2 ** 30 ? `${Number((n / 2 ** 30).toFixed(2))}GiB` : `${Number((n / 2 ** 20).toFixed(2))}MiB`;
}

/**
 * Inference's one concurrency figure, in a serving runtime's words (the CLI's too, cli/print.cpp): whole requests
 * of `seq` tokens at once, "110 requests of 4,096 tokens at once" (vLLM logs the fraction, 110.70x).
 */
export function requestsText(requests, seq) {
  const whole = Math.floor(requests);
  const tokens = formatCount(Number(seq));
  if (!(whole >= 1)) return `not one request of ${tokens} tokens at once`;
  return `${formatCount(whole)} request${whole === 1 ? "" : "s"} of ${tokens} tokens at once`;
}
