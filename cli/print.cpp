// SPDX-License-Identifier: MIT
// The CLI's text output (print.hpp).
#include "print.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm_memory/fits.hpp"
#include "llm_memory/presets.hpp"
#include "text.hpp"

namespace llm_memory::cli {
namespace {

using detail::group_digits;

// Inference's one concurrency figure, in the words of a serving runtime: whole requests of `seq` tokens at once.
std::string requests_text(double requests, std::int64_t seq) {
  const double whole = std::floor(requests);
  const std::string tokens = group_digits(static_cast<double>(seq));
  if (whole < 1) return "not one request of " + tokens + " tokens at once";
  return group_digits(whole) + (whole == 1 ? " request of " : " requests of ") + tokens + " tokens at once";
}

// The runtime's report in its own words: vLLM's log lines, SGLang's and TGI's token counts, llama.cpp's buffers.
void print_runtime(const runtime_report& rt, std::int64_t seq, double unit, const char* unit_name) {
  const std::string_view name = runtime_name(rt.name);
  constexpr double mib = 1048576.0;
  if (rt.has_buffers) {
    fmt::print(
        "{}: model buffer {:.2f} MiB (host {:.2f} MiB) · KV buffer {:.2f} MiB ({} cells) · compute buffer "
        "{:.2f} MiB (host {:.2f} MiB)\n",
        name, rt.model_buffer / mib, rt.host_buffer / mib, rt.kv_buffer / mib, rt.kv_cells, rt.compute_buffer / mib,
        rt.host_compute_buffer / mib);
    return;
  }
  if (rt.budget <= 0) {
    fmt::print("{}: allocates what it needs (no preallocated budget)\n", name);
    return;
  }
  fmt::print("{}: budget {:.2f} {} · available KV cache memory {:.2f} GiB{}\n", name, rt.budget / unit, unit_name,
             rt.kv_available / 1073741824.0,
             rt.kv_shortfall > 0 ? fmt::format(" (the budget is {:.2f} GiB short)", rt.kv_shortfall / 1073741824.0)
                                 : std::string());
  // vLLM logs the fraction ("maximum concurrency ... 1.40x"); one whole figure reads as the requests it serves.
  if (rt.kv_capacity_tokens > 0)
    fmt::print("{}: KV cache holds {} tokens · {}\n", name, group_digits(rt.kv_capacity_tokens),
               requests_text(rt.max_concurrency, seq));
  else if (rt.max_concurrency > 0)
    fmt::print("{}: {}\n", name, requests_text(rt.max_concurrency, seq));
}

// A delta as command-line flags: "--key value ...".
std::string flags_of(const settings& delta) {
  std::string out;
  for (const auto& [key, value] : delta) out += fmt::format("{}--{} {}", out.empty() ? "" : " ", key, value);
  return out;
}

void print_cheapest(const knob_combination& c, double unit, const char* u) {
  if (!c.searched) return;
  if (!c.found) {
    fmt::print("  cheapest combination that fits: none of up to {} knobs ({} combinations estimated)\n", c.max_knobs,
               c.evaluated);
    return;
  }
  std::string names;
  for (const auto& name : c.names) names += (names.empty() ? "" : " + ") + name;
  fmt::print("  cheapest combination that fits ({} knob{}, throughput cost {}{}): {}\n", c.names.size(),
             c.names.size() == 1 ? "" : "s", c.cost, c.same_hardware ? ", same hardware" : ", adds devices", names);
  fmt::print("    total {:.2f} {}: {}\n", c.total_bytes / unit, u, flags_of(c.delta));
}

// A way out's delta as flags, with the settings it drops ("--gpu h200-141gb, drops --gpu_memory").
std::string way_flags(const way_out& w) {
  std::string out = flags_of(w.delta);
  for (const auto& key : w.cleared) out += fmt::format(", drops --{}", key);
  return out;
}

// A ways-out group's heading, as the page's verdict words it (web/ui/verdict.js GROUP_HEADINGS).
std::string_view group_heading(std::string_view group) {
  if (group == "own") return "on your own devices and stack";
  if (group == "more") return "with more of the same device";
  return "on another device";
}

// The speed bound (fits.hpp, docs/methodology.md "Speed bound"): labelled as the upper bound it is.
void print_speed(const estimate_result& r, const gpu_preset& gpu) {
  const auto speed = speed_of(r, gpu);
  if (!speed) return;
  fmt::print(
      "speed bound (upper bound: every byte read once at {}'s peak bandwidth): decode {:.1f} tokens/s per "
      "sequence, {:.1f} tokens/s for the batch of {}",
      gpu.name, speed->decode_tokens_per_s, speed->batch_tokens_per_s, r.settings.batch);
  if (speed->prefill_tokens_per_s > 0)
    fmt::print("; prefill at most {:.0f} tokens/s (dense bf16 FLOPs)", speed->prefill_tokens_per_s);
  fmt::print("\n");
}

// A hybrid's layers group by group: "12 × full_attention + moe layer (mixer … + MLP … + norms …)".
void print_hybrid_layers(const param_breakdown& p) {
  for (const layer_group& g : p.groups) {
    if (g.count == 0) continue;
    fmt::print(" · {} × {} + {} layer (mixer {} + {} {}{} + norms {})", g.count, name_of(g.mixer), name_of(g.mlp),
               group_digits(g.params.attention), g.mlp == mlp_kind::moe ? "experts" : "MLP", group_digits(g.params.mlp),
               g.params.router > 0 ? " + router " + group_digits(g.params.router) : "", group_digits(g.params.norms));
  }
}

}  // namespace

void print_table(const run_spec& spec, const estimate_result& r) {
  const bool gib = spec.units == display_units::gib;
  const double unit = gib ? 1073741824.0 : 1e9;
  const char* unit_name = gib ? "GiB" : "GB";
  const auto& s = r.settings;
  fmt::print(
      "llm-memory — {} · {}{} · weights {} · {} · batch {} × seq {}\n", s.model.empty() ? "custom model" : s.model,
      s.mode, spec.train() && !spec.eval() ? " (" + s.finetune + ", " + s.optimizer + ")" : "", s.weights_dtype,
      s.devices == 1
          ? "1 device"
          : fmt::format("{} devices (dp {} × tp {} × pp {}, ZeRO {})", s.devices, r.data_parallel, s.tp, s.pp, s.zero),
      s.batch, s.seq);
  fmt::print("parameters {} · trainable {}\n", group_digits(r.params), group_digits(r.trainable_params));
  // The exact count from the architecture, by component (param_breakdown in --json).
  const auto& p = r.model.params;
  fmt::print("  embedding {} · lm_head {} · final norm {}", group_digits(p.embedding), group_digits(p.lm_head),
             group_digits(p.final_norm));
  if (r.model.hybrid()) {
    print_hybrid_layers(p);
  } else if (const auto dense = p.layers_with(mlp_kind::dense); dense > 0) {
    const layer_params& layer = p.layer_with(mlp_kind::dense);
    fmt::print(
        " · {} × layer (attention {} + MLP {} + norms {}){}", dense, group_digits(layer.attention),
        group_digits(layer.mlp), group_digits(layer.norms),
        p.layer_sets() < r.model.layers ? fmt::format(" shared by {} layers (num_hidden_groups)", r.model.layers) : "");
  }
  if (p.encoder_layers > 0)
    fmt::print(" · {} × encoder layer (attention {} + MLP {} + norms {})", p.encoder_layers,
               group_digits(p.encoder_layer.attention), group_digits(p.encoder_layer.mlp),
               group_digits(p.encoder_layer.norms));
  if (p.extra > 0) fmt::print(" · other {}", group_digits(p.extra));
  if (p.moe_layers() > 0 && !r.model.hybrid()) {
    const layer_params& moe = p.layer_with(mlp_kind::moe);
    fmt::print(" · {} × MoE layer (attention {} + experts {} + router {} + norms {})", p.moe_layers(),
               group_digits(moe.attention), group_digits(moe.mlp), group_digits(moe.router), group_digits(moe.norms));
  }
  if (p.moe_layers() > 0) fmt::print(" · active per token {}", group_digits(p.active));
  fmt::print("\n\n");
  fmt::print("{:<58} {:>12}\n", fmt::format("per device{}", r.stage == "only" ? "" : " (" + r.stage + " stage)"),
             unit_name);
  for (const auto& b : r.buckets) {
    fmt::print("{:<58} {:>12.2f}\n", b.label, b.bytes / unit);
    for (const auto& i : b.items) fmt::print("  {:<56} {:>12.3f}   {}\n", i.name, i.bytes / unit, i.formula);
  }
  fmt::print("{:<58} {:>12.2f}\n", "Total", r.total_bytes / unit);
  if (spec.train()) {
    // The peak as PyTorch and nvidia-smi report it; the framework's own log prints one of the three.
    fmt::print("{:<58} {:>12}\n",
               fmt::format("peak at phase {} (framework {} prints {})", r.peak.phase, s.framework, r.peak.printed), "");
    fmt::print("  {:<56} {:>12.2f}\n", "allocated (torch.cuda.max_memory_allocated)", r.peak.allocated / unit);
    fmt::print("  {:<56} {:>12.2f}\n", "reserved (torch.cuda.max_memory_reserved)", r.peak.reserved / unit);
    fmt::print("  {:<56} {:>12.2f}\n", "device (nvidia-smi; compared with the GPU)", r.peak.device / unit);
    if (r.phases.size() > 1)
      for (const auto& ph : r.phases)
        fmt::print("  {:<56} {:>12.2f}\n", "allocated at " + ph.phase, ph.allocated / unit);
  }
  fmt::print("{:<58} {:>12.2f}\n", "Device memory", r.gpu_memory_bytes / unit);
  if (r.cpu_bytes > 0) fmt::print("{:<58} {:>12.2f}\n", "CPU RAM (offloaded)", r.cpu_bytes / unit);
  const double over = r.total_bytes - r.gpu_memory_bytes;
  if (r.fits)
    fmt::print("\nfits\n");
  else if (over > 0)
    fmt::print("\ndoes not fit: {:.2f} {} over\n", over / unit, unit_name);
  else
    fmt::print("\ndoes not fit in RAM: {:.2f} {} offloaded, host_ram {:.2f} {}\n", r.cpu_bytes / unit, unit_name,
               s.host_ram / unit, unit_name);
  if (r.inference) print_runtime(r.runtime, s.seq, unit, unit_name);
  if (const gpu_preset* gpu = find_gpu(s.gpu); gpu != nullptr) print_speed(r, *gpu);
  for (const auto& note : r.notes) fmt::print("note: {}\n", note);
}

void print_solve(const solve_result& s, std::int64_t inference_seq) {
  fmt::print("\nsolve (exact search on the estimate; everything else held but the settings each answer sets):\n");
  fmt::print("  fits now: {}\n", s.fits ? "yes" : "no");
  for (const auto* a : {&s.min_devices, &s.max_batch, &s.max_seq}) {
    // Inference's micro-batch is its concurrent requests: said as the runtime line says it.
    const bool requests = a == &s.max_batch && inference_seq > 0 && a->found;
    fmt::print("  {:<12} {}\n", a->key,
               requests ? requests_text(static_cast<double>(a->value), inference_seq) + " fit" : a->message);
    // Setting by setting what the answer changes (issue 36: a ZeRO stage the device search moved is named).
    if (a->found) fmt::print("    {}\n", flags_of(a->delta));
  }
}

void print_advice(const advice_result& a, display_units units) {
  const bool gib = units == display_units::gib;
  const double unit = gib ? 1073741824.0 : 1e9;
  const char* u = gib ? "GiB" : "GB";
  fmt::print("\nadvice (each knob moved as far as it goes, re-estimated; same hardware first, by bytes saved):\n");
  fmt::print("  {:<56} {:>14} {:>12} {:<12} {}\n", "knob", fmt::format("saved {}", u), fmt::format("total {}", u),
             "drains", "fits");
  for (const auto& k : a.knobs) {
    // A knob that adds memory says what it costs (issue 17 item 4).
    const std::string saved = k.saved_bytes < 0 ? fmt::format("costs +{:.2f}", k.added_bytes() / unit)
                                                : fmt::format("{:.2f}", k.saved_bytes / unit);
    fmt::print("  {:<56} {:>14} {:>12.2f} {:<12} {}\n", k.name, saved, k.total_bytes / unit,
               k.drains.empty() ? "-" : k.drains, k.fits ? "yes" : "no");
    fmt::print("    {}{}\n", flags_of(k.delta), k.note.empty() ? "" : "  (" + k.note + ")");
  }
  for (const auto& k : a.skipped) fmt::print("  skipped: {}: {}\n", k.name, k.reason);
  print_cheapest(a.cheapest, unit, u);
}

void print_ways_out(const ways_out_result& w, display_units units) {
  const bool gib = units == display_units::gib;
  const double unit = gib ? 1073741824.0 : 1e9;
  const char* u = gib ? "GiB" : "GB";
  if (w.fits) {
    fmt::print("\nways out: none needed (it fits)\n");
    return;
  }
  if (w.ways.empty()) {
    fmt::print("\nways out: no single change found that fits\n");
    return;
  }
  fmt::print("\nnearest ways out (one change each):\n");
  std::string group;
  for (const auto& way : w.ways) {
    if (way.group != group) fmt::print("  {}:\n", group_heading(group = way.group));
    fmt::print("    {:<11} {} -> {:.2f} {} ({})\n", way.way, way.text, way.total_bytes / unit, u,
               way.fits ? "fits" : "does not fit");
    fmt::print("      {}{}\n", way_flags(way), way.note.empty() ? "" : "  (" + way.note + ")");
  }
}

void print_checkpoint(const checkpoint_summary& c) {
  fmt::print("checkpoint: {} tensors, {} values, {} bytes\n", c.tensors, group_digits(c.elements),
             group_digits(c.bytes));
  for (const auto& [name, d] : c.by_dtype)
    fmt::print("  {:<12} {:>6} tensors {:>20} values {:>20} bytes\n", name, d.tensors, group_digits(d.elements),
               group_digits(d.bytes));
  if (c.packed)
    fmt::print("  (packed integer containers: values are not parameters; params is not taken from the checkpoint)\n");
}

// The "read from FILE:" block: each option read (and the explicit flag that overrides it), the ignored ones by
// name, the notes.
void print_from(const std::string& path, const launch_read& from, const settings& values) {
  if (path.empty())  // several files: the command names each
    fmt::print("read from {}:\n", from.command);
  else
    fmt::print("read from {} ({}):\n", path == "-" ? "standard input" : path, from.command);
  for (const auto& r : from.read) {
    const auto& used = values.at(r.setting);
    const std::string file = r.file.empty() ? "" : r.file + ": ";
    const std::string over = r.overridden                        ? " (a later file sets it)"
                             : used != from.values.at(r.setting) ? fmt::format(" (--{} {} given)", r.setting, used)
                                                                 : "";
    fmt::print("  {}{} -> {} {}{}\n", file, r.option, r.setting, r.value, over);
  }
  // The ignored options, one line per file (in the order the files came).
  for (std::size_t i = 0; i < from.ignored.size();) {
    const std::string& file = from.ignored[i].file;
    std::string ignored;
    for (; i < from.ignored.size() && from.ignored[i].file == file; ++i)
      ignored += (ignored.empty() ? "" : ", ") + from.ignored[i].option;
    fmt::print("  ignored{}: {}\n", file.empty() ? "" : " (" + file + ")", ignored);
  }
  for (const auto& n : from.notes) fmt::print("  note: {}\n", n);
  fmt::print("\n");
}

}  // namespace llm_memory::cli
