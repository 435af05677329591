// SPDX-License-Identifier: MIT
// A log's figures beside the estimate: each item's figure of ours (the quantity tests/validation/published.json
// names it by), in the log's unit, the signed difference, and the item that diverges most.
#include <cmath>
#include <string>

#include "json_value.hpp"
#include "llm_memory/log.hpp"
#include "llm_memory/report.hpp"

namespace llm_memory {

using detail::json;
using detail::parse_json;

namespace {

struct ours_figure {
  std::string quantity{};         ///< as published.json's "quantity" names it
  std::optional<double> value{};  ///< bytes, tokens or requests; none when the estimate has no such term
};

std::optional<double> positive(double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; }

// A term the estimate holds as an item of a bucket ("CUDA graphs" of vLLM's overhead).
ours_figure item_named(const estimate_result& r, std::string_view name) {
  for (const auto& b : r.buckets)
    for (const auto& i : b.items)
      if (i.name == name) return {"item:" + b.key + ":" + std::string(name), i.bytes};
  return {"item:overhead:" + std::string(name), std::nullopt};
}

// Ours for one item of a log of `format`. vLLM's available KV memory is the budget's remainder; SGLang logs the
// pool it allocated (runtime_report kv_pool: the token capacity's K + V buffers, not the KV bucket of `seq`);
// llama.cpp logs its buffers (runtime_report's).
ours_figure ours_of(std::string_view item, std::string_view format, const estimate_result& r) {
  const runtime_report& rt = r.runtime;
  const bool buffers = rt.has_buffers;
  if (item == "weights")
    return format == "llamacpp"
               ? ours_figure{"runtime:buffers.model", buffers ? positive(rt.model_buffer) : std::nullopt}
               : ours_figure{"parameters", r.bytes("parameters")};
  if (item == "host_weights") return {"runtime:buffers.host", buffers ? std::optional(rt.host_buffer) : std::nullopt};
  if (item == "kv_memory") {
    if (format == "vllm") return {"runtime:kv_available", r.inference ? std::optional(rt.kv_available) : std::nullopt};
    if (format == "sglang") return {"runtime:kv_pool", positive(rt.kv_pool)};
    return {"runtime:buffers.kv", buffers ? std::optional(rt.kv_buffer) : std::nullopt};
  }
  if (item == "kv_tokens") return {"runtime:kv_capacity_tokens", positive(rt.kv_capacity_tokens)};
  if (item == "max_concurrency") return {"runtime:max_concurrency", positive(rt.max_concurrency)};
  if (item == "cuda_graphs") return item_named(r, "CUDA graphs");
  if (item == "compute_buffer")
    return {"runtime:buffers.compute", buffers ? std::optional(rt.compute_buffer) : std::nullopt};
  // nvidia-smi counts the whole device; memory_summary(), memory_stats(), torchtune and litgpt print the caching
  // allocator's peaks (estimate.hpp peak_memory).
  if (item == "device_used") return {"peak.device", positive(r.peak.device)};
  if (item == "peak_allocated") return {"peak.allocated", positive(r.peak.allocated)};
  if (item == "peak_reserved") return {"peak.reserved", positive(r.peak.reserved)};
  if (item == "host_compute_buffer")
    return {"runtime:buffers.host_compute", buffers ? std::optional(rt.host_compute_buffer) : std::nullopt};
  return {};
}

double in_unit(double v, std::string_view unit) {
  if (unit == "GiB") return v / 1073741824.0;
  if (unit == "MiB") return v / 1048576.0;
  if (unit == "GB") return v / 1e9;  // litgpt's `/ 1e9`
  return v;                          // tokens, requests
}

}  // namespace

reconciliation reconcile(const log_read& log, const estimate_result& r) {
  reconciliation rec;
  double worst = -1;
  for (const auto& f : log.figures) {
    const ours_figure o = ours_of(f.item, log.format, r);
    reconcile_row row{f, std::nullopt, o.quantity};
    if (o.value) row.ours = in_unit(*o.value, f.unit);
    if (row.ours && f.value != 0 && std::fabs(row.difference() / f.value) > worst) {
      worst = std::fabs(row.difference() / f.value);
      rec.largest = f.item;
    }
    rec.rows.push_back(std::move(row));
  }
  return rec;
}

namespace {

// Four decimals: the logs print two (GiB, MiB) or whole tokens; more digits would only be noise.
json rounded(double v) { return std::round(v * 1e4) / 1e4; }

json row_object(const reconcile_row& row) {
  json o = json::object();
  o["item"] = row.logged.item;
  o["label"] = row.logged.label;
  o["line"] = row.logged.line;
  o["unit"] = row.logged.unit;
  o["log"] = row.logged.value;
  o["ours"] = row.ours ? rounded(*row.ours) : json(nullptr);
  o["difference"] = row.ours ? rounded(row.difference()) : json(nullptr);
  o["quantity"] = row.quantity;
  return o;
}

}  // namespace

std::string reconciliation_to_json(const log_read& log, const reconciliation& rec, int indent) {
  json o = json::object();
  o["format"] = log.format;
  o["from"] = parse_json(launch_to_json(log.settings, -1));
  json rows = json::array();
  for (const auto& row : rec.rows) rows.push_back(row_object(row));
  o["rows"] = std::move(rows);
  o["largest"] = rec.largest.empty() ? json(nullptr) : json(rec.largest);
  return o.dump(indent);
}

std::string validation_records(const log_read& log, const reconciliation& rec, const settings& used,
                               std::string_view source, int indent) {
  json rows = json::array();
  json values = json::object();
  for (const auto& [key, value] : used) values[key] = value;
  const auto runtime = used.find("runtime");
  for (const auto& row : rec.rows) {
    if (!row.ours) continue;
    json o = json::object();
    o["name"] = log.settings.command + ": " + row.logged.label + " (line " + std::to_string(row.logged.line) + ")";
    o["source"] = std::string(source);
    o["kind"] = "published log";
    // A training log, nvidia-smi and memory_summary name no runtime: a training row of published.json has none.
    if (runtime != used.end())
      o["runtime"] = runtime->second;
    else if (log.format == "vllm" || log.format == "sglang" || log.format == "llamacpp" || log.format == "tgi")
      o["runtime"] = log.format;
    o["settings"] = values;
    o["quantity"] = json::array({json(row.quantity)});
    o["published"] = row.logged.value;
    o["unit"] = row.logged.unit;
    o["why"] = "read by llm-memory --log: the estimate gives " + json(rounded(*row.ours)).dump() + " " +
               row.logged.unit + "; give a tolerance, and the reason for it, once the source is checked";
    rows.push_back(std::move(o));
  }
  return rows.dump(indent);
}

}  // namespace llm_memory
