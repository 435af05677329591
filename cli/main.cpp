// SPDX-License-Identifier: MIT
// llm-memory: the command-line front end. Flags are the settings keys; --help comes from the table.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/advise.hpp"
#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/settings.hpp"
#include "llm_memory/solve.hpp"
#include "llm_memory/sweep.hpp"

namespace {

using namespace llm_memory;

constexpr int exit_usage = 2;

struct options {
  settings values;
  std::string config_path;
  std::string batch_path;
  bool json = false;
  bool solve = false;
  bool advise = false;
  bool help = false;
  bool list_models = false;
  bool list_gpus = false;
  bool schema = false;
  bool sweep = false;  ///< the `sweep` subcommand: --batch and --seq are axes
};

void print_help() {
  fmt::print(
      "llm-memory: GPU memory needed to train or run a large language model, per device.\n\n"
      "Usage: llm-memory [--KEY VALUE ...] [--config config.json] [--json]\n"
      "       llm-memory sweep [--batch 1:256] [--seq 256:131072] [--KEY VALUE ...] [--json]\n"
      "         total memory over micro-batch x sequence and the largest micro-batch that fits each sequence;\n"
      "         an axis is a value, a:b (doubling from a) or a:b:n (n evenly spaced values)\n"
      "       llm-memory --list-models [--json] | --list-gpus [--json] | --schema\n\n"
      "Settings (the same keys work as URL query keys and widget attributes):\n");
  std::string_view group;
  for (const auto& def : setting_table()) {
    if (def.group != group) {
      group = def.group;
      fmt::print("\n  [{}]\n", group);
    }
    std::string accepted;
    switch (def.kind) {
      case setting_kind::choice: accepted = std::string(def.choices); break;
      case setting_kind::flag: accepted = "on|off"; break;
      case setting_kind::text: accepted = "text"; break;
      default: accepted = std::string(to_string(def.kind)); break;
    }
    fmt::print("  --{:<32} {}\n  {:<34} {} (default: {}{}{})\n", def.key, accepted, "", def.doc,
               def.default_value.empty() ? "none" : def.default_value, def.unit.empty() ? "" : ", unit: ",
               def.unit);
  }
  fmt::print(
      "\nOther flags:\n"
      "  --config PATH       read the architecture from a Hugging Face config.json (explicit flags win)\n"
      "  --json              print one JSON object instead of the table\n"
      "  --solve             also answer: devices needed, largest micro-batch, longest sequence (JSON: \"solve\")\n"
      "  --advise            also re-estimate with each knob moved one step, by bytes saved (JSON: \"advice\")\n"
      "  --list-models       list the model presets     --list-gpus   list the GPU presets\n"
      "  --schema            print the settings table as JSON\n"
      "  --batch-json FILE   estimate every settings object of a JSON array; print a JSON array of results\n"
      "                      (for scripts and tests: one process for many estimates)\n"
      "Exit codes: 0 ok, 2 invalid input (one line per problem, naming the setting).\n");
}

// Returns false (after printing) on a usage error.
bool parse_args(int argc, char** argv, options& opt) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json") { opt.json = true; continue; }
    if (arg == "--solve") { opt.solve = true; continue; }
    if (arg == "--advise") { opt.advise = true; continue; }
    if (arg == "--help" || arg == "-h") { opt.help = true; continue; }
    if (arg == "--list-models") { opt.list_models = true; continue; }
    if (arg == "--list-gpus") { opt.list_gpus = true; continue; }
    if (arg == "--schema") { opt.schema = true; continue; }
    if (arg == "sweep" && i == 1) { opt.sweep = true; continue; }
    if (!arg.starts_with("--")) {
      fmt::print(stderr, "llm-memory: unexpected argument \"{}\"; settings are given as --key value\n", arg);
      return false;
    }
    std::string key = arg.substr(2), value;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      fmt::print(stderr, "{}: missing value after --{}\n", key, key);
      return false;
    }
    if (key == "config") { opt.config_path = value; continue; }
    if (key == "batch-json") { opt.batch_path = value; continue; }
    if (find_setting(key) == nullptr) {
      fmt::print(stderr, "{}: unknown setting; see llm-memory --help\n", key);
      return false;
    }
    const auto [it, inserted] = opt.values.emplace(key, value);
    if (!inserted && it->second != value) {
      fmt::print(stderr, "{}: given twice with different values (\"{}\" and \"{}\")\n", key, it->second, value);
      return false;
    }
  }
  return true;
}

std::string group_digits(double v) {
  const std::string digits = fmt::format("{:.0f}", v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0 && digits[i - 1] != '-') out += ',';
    out += digits[i];
  }
  return out;
}

void print_table(const run_spec& spec, const estimate_result& r) {
  const bool gib = spec.units == display_units::gib;
  const double unit = gib ? 1073741824.0 : 1e9;
  const char* unit_name = gib ? "GiB" : "GB";
  const auto& s = r.settings;
  fmt::print("llm-memory — {} · {}{} · weights {} · {} · batch {} × seq {}\n",
             s.model.empty() ? "custom model" : s.model, s.mode,
             spec.train() ? " (" + s.finetune + ", " + s.optimizer + ")" : "", s.weights_dtype,
             s.devices == 1 ? "1 device" : fmt::format("{} devices (dp {} × tp {} × pp {}, ZeRO {})", s.devices,
                                                        r.data_parallel, s.tp, s.pp, s.zero),
             s.batch, s.seq);
  fmt::print("parameters {} · trainable {}\n", group_digits(r.params), group_digits(r.trainable_params));
  // The exact count from the architecture, by component (param_breakdown in --json).
  const auto& p = r.model.params;
  fmt::print("  embedding {} · lm_head {} · final norm {}", group_digits(p.embedding), group_digits(p.lm_head),
             group_digits(p.final_norm));
  if (p.dense_layers > 0)
    fmt::print(" · {} × layer (attention {} + MLP {} + norms {})", p.dense_layers, group_digits(p.dense_layer.attention),
               group_digits(p.dense_layer.mlp), group_digits(p.dense_layer.norms));
  if (p.moe_layers > 0)
    fmt::print(" · {} × MoE layer (attention {} + experts {} + router {} + norms {}) · active per token {}",
               p.moe_layers, group_digits(p.moe_layer.attention), group_digits(p.moe_layer.mlp),
               group_digits(p.moe_layer.router), group_digits(p.moe_layer.norms), group_digits(p.active));
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
    fmt::print("{:<58} {:>12}\n", fmt::format("peak at phase {} (framework {} prints {})", r.peak.phase,
                                               s.framework, r.peak.printed), "");
    fmt::print("  {:<56} {:>12.2f}\n", "allocated (torch.cuda.max_memory_allocated)", r.peak.allocated / unit);
    fmt::print("  {:<56} {:>12.2f}\n", "reserved (torch.cuda.max_memory_reserved)", r.peak.reserved / unit);
    fmt::print("  {:<56} {:>12.2f}\n", "device (nvidia-smi; compared with the GPU)", r.peak.device / unit);
    if (r.phases.size() > 1)
      for (const auto& ph : r.phases)
        fmt::print("  {:<56} {:>12.2f}\n", "allocated at " + ph.phase, ph.allocated / unit);
  }
  fmt::print("{:<58} {:>12.2f}\n", "Device memory", r.gpu_memory_bytes / unit);
  if (r.cpu_bytes > 0) fmt::print("{:<58} {:>12.2f}\n", "CPU RAM (offloaded)", r.cpu_bytes / unit);
  fmt::print("\n{}\n", r.fits ? "fits" : fmt::format("does not fit: {:.2f} {} over", (r.total_bytes - r.gpu_memory_bytes) / unit, unit_name));
  for (const auto& note : r.notes) fmt::print("note: {}\n", note);
}

void print_solve(const solve_result& s) {
  fmt::print("\nsolve (exact search on the estimate; everything else held):\n");
  fmt::print("  fits now: {}\n", s.fits ? "yes" : "no");
  for (const auto* a : {&s.min_devices, &s.max_batch, &s.max_seq}) fmt::print("  {:<12} {}\n", a->key, a->message);
}

void print_advice(const advice_result& a, display_units units) {
  const bool gib = units == display_units::gib;
  const double unit = gib ? 1073741824.0 : 1e9;
  fmt::print("\nadvice (each knob moved one step, re-estimated; by bytes saved):\n");
  fmt::print("  {:<56} {:>12} {:>12} {:<12} {}\n", "knob", fmt::format("saved {}", gib ? "GiB" : "GB"),
             fmt::format("total {}", gib ? "GiB" : "GB"), "drains", "fits");
  for (const auto& k : a.knobs) {
    std::string delta;
    for (const auto& [key, value] : k.delta) delta += fmt::format("{}--{} {}", delta.empty() ? "" : " ", key, value);
    fmt::print("  {:<56} {:>12.2f} {:>12.2f} {:<12} {}\n", k.name, k.saved_bytes / unit, k.total_bytes / unit,
               k.drains.empty() ? "-" : k.drains, k.fits ? "yes" : "no");
    fmt::print("    {}{}\n", delta, k.note.empty() ? "" : "  (" + k.note + ")");
  }
  for (const auto& k : a.skipped) fmt::print("  skipped: {}: {}\n", k.name, k.reason);
}

int list_models(bool json) {
  if (json) {
    fmt::print("{}\n", models_json());
    return 0;
  }
  for (const auto& p : model_presets()) {
    auto r = estimate(settings{{"model", p.id}});
    fmt::print("{:<28} {:<28} {:>18}\n", p.id, p.name, group_digits(r.ok() ? r.value().params : 0));
  }
  return 0;
}

int list_gpus(bool json) {
  if (json) {
    fmt::print("{}\n", gpus_json());
    return 0;
  }
  for (const auto& g : gpu_presets()) fmt::print("{:<20} {:<36} {:>18} B\n", g.id, g.name, group_digits(g.memory_bytes));
  return 0;
}

// --batch-json FILE: a JSON array of settings objects in, a JSON array of results out (the --json shape, or
// {"ok": false, "errors": [...]}), one process for many estimates: scripting, and the native-vs-wasm tests.
// Values may be strings, numbers or booleans; numbers and booleans are read as their JSON text.
int batch_json(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  const auto cases = nlohmann::json::parse(text.str(), nullptr, false);
  if (!file || cases.is_discarded() || !cases.is_array()) {
    fmt::print(stderr, "batch-json: \"{}\" is not a readable JSON array of settings objects\n", path);
    return exit_usage;
  }
  fmt::print("[");
  for (std::size_t n = 0; n < cases.size(); ++n) {
    if (!cases[n].is_object()) {
      fmt::print("{}\n{}", n == 0 ? "" : ",",
                 errors_to_json({{"batch-json", "entry " + std::to_string(n) + " is not an object"}}));
      continue;
    }
    settings input;
    for (const auto& [key, value] : cases[n].items())
      input[key] = value.is_string() ? value.get<std::string>() : value.dump();
    const auto r = estimate(input);
    fmt::print("{}\n{}", n == 0 ? "" : ",", r.ok() ? to_json(r.value()) : errors_to_json(r.errors()));
  }
  fmt::print("\n]\n");
  return 0;
}

// `llm-memory sweep`: the --batch and --seq values are axes (sweep.hpp parse_axis); every other flag is a setting.
int sweep_command(const settings& values, const settings& config, bool json) {
  sweep_request request{values, config};
  if (const auto it = values.find("batch"); it != values.end()) request.batch = it->second;
  if (const auto it = values.find("seq"); it != values.end()) request.seq = it->second;
  const auto run = run_sweep(request);
  if (!run.ok()) {
    for (const auto& e : run.errors()) fmt::print(stderr, "{}\n", to_string(e));
    if (json) fmt::print("{}\n", errors_to_json(run.errors()));
    return exit_usage;
  }
  if (json) {
    fmt::print("{}\n", sweep_to_json(run.value()));
    return 0;
  }
  const sweep_grid& g = run.value().grid;
  const double capacity = run.value().lowered.gpu_memory;
  const bool gib = run.value().lowered.spec.units == display_units::gib;
  const double unit = gib ? 1073741824.0 : 1e9;
  const std::size_t n = g.seq.size();
  fmt::print("total memory per device, {} (* = over {:.1f} {})\n{:>10}", gib ? "GiB" : "GB", capacity / unit,
             gib ? "GiB" : "GB", "batch\\seq");
  for (const double s : g.seq) fmt::print(" {:>9.0f}", s);
  for (std::size_t i = 0; i < g.batch.size(); ++i) {
    fmt::print("\n{:>10.0f}", g.batch[i]);
    for (std::size_t j = 0; j < n; ++j) {
      const double t = g.total[i * n + j];
      fmt::print(" {:>8.1f}{}", t / unit, t > capacity ? '*' : ' ');
    }
  }
  fmt::print("\n{:>10}", "max batch");
  for (const auto b : g.max_batch) fmt::print(" {:>9}", b);
  fmt::print("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  if (!parse_args(argc, argv, opt)) return exit_usage;
  if (opt.help) {
    print_help();
    return 0;
  }
  if (opt.schema) {
    fmt::print("{}\n", settings_schema_json());
    return 0;
  }
  if (opt.list_models) return list_models(opt.json);
  if (opt.list_gpus) return list_gpus(opt.json);
  if (!opt.batch_path.empty()) return batch_json(opt.batch_path);

  settings config;
  if (!opt.config_path.empty()) {
    std::ifstream file(opt.config_path, std::ios::binary);
    if (!file) {
      fmt::print(stderr, "config: cannot read \"{}\"\n", opt.config_path);
      return exit_usage;
    }
    std::stringstream text;
    text << file.rdbuf();
    auto parsed = parse_config(text.str());
    if (!parsed.ok()) {
      for (const auto& e : parsed.errors()) fmt::print(stderr, "{}\n", to_string(e));
      if (opt.json) fmt::print("{}\n", errors_to_json(parsed.errors()));
      return exit_usage;
    }
    config = parsed.value();
  }

  if (opt.sweep) return sweep_command(opt.values, config, opt.json);
  const auto spec = resolve(opt.values, config);
  if (!spec.ok()) {
    for (const auto& e : spec.errors()) fmt::print(stderr, "{}\n", to_string(e));
    if (opt.json) fmt::print("{}\n", errors_to_json(spec.errors()));
    return exit_usage;
  }
  const estimate_result r = estimate(spec.value());
  const auto solved = opt.solve ? solve(spec.value()) : solve_result{};
  const auto advice = opt.advise ? advise(spec.value(), opt.values, config) : advice_result{};
  if (opt.json) {
    fmt::print("{}\n", to_json(r, opt.solve ? &solved : nullptr, opt.advise ? &advice : nullptr));
    return 0;
  }
  print_table(spec.value(), r);
  if (opt.solve) print_solve(solved);
  if (opt.advise) print_advice(advice, spec.value().units);
  return 0;
}
