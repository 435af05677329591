// SPDX-License-Identifier: MIT
// llm-memory: the command-line front end. Flags are the settings keys; --help comes from the table.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emit_command.hpp"
#include "errors.hpp"
#include "fits_command.hpp"
#include "input_files.hpp"
#include "llm_memory/advise.hpp"
#include "llm_memory/checkpoint.hpp"
#include "llm_memory/config_json.hpp"
#include "llm_memory/estimate.hpp"
#include "llm_memory/gpu_fit.hpp"
#include "llm_memory/launch.hpp"
#include "llm_memory/log.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/resolve.hpp"
#include "llm_memory/settings.hpp"
#include "llm_memory/solve.hpp"
#include "llm_memory/sweep.hpp"
#include "llm_memory/ways_out.hpp"
#include "log_command.hpp"
#include "print.hpp"
#include "text.hpp"

namespace {

using namespace llm_memory;
using namespace llm_memory::cli;

/// The device the page shows when a link names none (web/state.js PAGE_DEFAULTS), so the CLI and the page
/// answer the same question; --gpu "" or --gpu_memory asks for the settings table's 80 GB device instead.
constexpr std::string_view default_gpu = "h100-80gb";

// The settings with the page's device when they name none (neither gpu, even empty, nor gpu_memory).
settings with_default_gpu(settings values) {
  if (!values.contains("gpu") && !values.contains("gpu_memory")) values.emplace("gpu", default_gpu);
  return values;
}

struct options {
  settings values;
  std::optional<std::string> config_path;       ///< --config, when given (an empty path is an error)
  std::optional<std::string> batch_path;        ///< --batch-json, when given
  std::optional<std::string> safetensors_path;  ///< a .safetensors file or a model.safetensors.index.json
  std::optional<std::string> gguf_path;         ///< a .gguf file
  std::vector<std::string> from_paths;          ///< --from (repeatable): launch commands' or recipes' files, "-": stdin
  std::optional<std::string> log_path;          ///< --log: a runtime's startup log, "-" for stdin
  bool as_record = false;                       ///< --as-record: the --log comparison as validation rows
  std::optional<std::string> emit_format;       ///< --emit: write the launch command for the settings (emit.hpp)
  bool json = false;
  bool solve = false;
  bool advise = false;
  bool ways_out = false;  ///< --ways-out: the nearest ways out of a "does not fit" (ways_out.hpp)
  bool gpus = false;      ///< --gpus: the settings on every GPU preset (gpu_fit.hpp)
  bool help = false;
  bool help_all = false;  ///< --help all: every setting (the short --help lists the common ones)
  bool version = false;   ///< --version: the project's version (CMakeLists.txt project())
  bool list_models = false;
  bool list_gpus = false;
  bool schema = false;
  bool sweep = false;  ///< the `sweep` subcommand: --batch and --seq are axes
};

// The short help: the usage, one example per common task and the flags people use first (docs: README.md, "CLI").
void print_help() {
  fmt::print(
      "llm-memory: GPU memory needed to train or run a large language model, per device.\n\n"
      "Usage: llm-memory [--KEY VALUE ...] [--json]      the estimate, as a table or one JSON object\n"
      "       llm-memory sweep [--batch 1:256] [--seq 256:131072] [--KEY VALUE ...] [--json]\n"
      "       llm-memory --help all                       every setting with its default and unit\n\n"
      "Examples:\n"
      "  Inference on a GPU (vLLM unless --runtime sglang, tgi, llamacpp, ollama or transformers):\n"
      "    llm-memory --mode inference --model Qwen/Qwen3-14B --gpu rtx-4090 --seq 32768\n"
      "  LoRA fine-tune (--finetune qlora: a 4-bit base):\n"
      "    llm-memory --model llama-3.1-8b --finetune lora --lora_rank 16 --seq 4096 --gpu a100-40gb\n"
      "  Full fine-tune with DeepSpeed ZeRO-3 on 8 GPUs:\n"
      "    llm-memory --model llama-3.1-70b --framework deepspeed --zero 3 --devices 8 --gpu h100-80gb\n"
      "  A launch command's needs (vllm serve ..., llama-server ...; - reads standard input):\n"
      "    llm-memory --from serve.sh --ways-out\n\n"
      "Settings people change first (the same keys are the page's URL keys and the widget's attributes):\n"
      "  --model ID            preset id, alias or Hub repo id, any case (--list-models)\n"
      "  --mode MODE           train (default) or inference\n"
      "  --gpu ID              GPU preset (--list-gpus); without --gpu or --gpu_memory: {}, as the page\n"
      "  --gpu_memory SIZE     memory of one device instead of a preset (80GB, 24GiB)\n"
      "  --devices N           devices in all; --tp, --pp, --zero split the work over them\n"
      "  --seq N --batch N     tokens per sequence, sequences per micro-batch (inference: concurrent requests)\n"
      "  --weights_dtype T     bf16, fp8, int4, nf4, q4_k_m, ...   --finetune full|lora|qlora\n\n"
      "Other flags:\n"
      "  --json      one JSON object (its \"version\" and \"schema_version\": docs/wasm.md, \"Versions\")\n"
      "  --ways-out  the nearest changes that fit      --solve   devices, micro-batch and sequence that fit\n"
      "  --advise    each knob one step, bytes saved   --gpus    every GPU preset: fits, devices needed\n"
      "  --from FILE|-, --config PATH, --safetensors PATH, --gguf PATH   read settings from files\n"
      "  --list-models, --list-gpus, --schema, --version, --batch-json FILE: see --help all\n"
      "  fits --gpu ID [--devices N] [--ram 64GB] [--task run|lora|qlora|full] [--seq N] [--family TEXT]\n"
      "       [--min-params 1B] [--max-params 70B] [--moe only|none] [--sort size|context|speed] [--json]:\n"
      "       every model preset on the machine: best format that fits, runtime, longest context, speed bound\n"
      "Exit codes: 0 ok, 2 invalid input (one line per problem, naming the setting).\n",
      default_gpu);
}

// --help all: the usage and every row of the settings table, then every other flag.
void print_help_all() {
  fmt::print(
      "llm-memory: GPU memory needed to train or run a large language model, per device.\n\n"
      "Usage: llm-memory [--KEY VALUE ...] [--config config.json] [--json]\n"
      "       llm-memory sweep [--batch 1:256] [--seq 256:131072] [--KEY VALUE ...] [--json]\n"
      "         total memory over micro-batch x sequence and the largest micro-batch that fits each sequence;\n"
      "         an axis is a value, a:b (doubling from a) or a:b:n (n evenly spaced values)\n"
      "       llm-memory --list-models [--json] | --list-gpus [--json] | --schema\n"
      "       llm-memory fits --gpu ID [--devices N] [--ram SIZE] [--task run|lora|qlora|full] [--seq N] [--json]\n"
      "         every model preset ranked on the machine (filters --family, --min-params, --max-params, --moe;\n"
      "         --sort size|context|speed)\n\n"
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
               def.default_value.empty() ? "none" : def.default_value, def.unit.empty() ? "" : ", unit: ", def.unit);
  }
  fmt::print(
      "\nThe CLI's device: without --gpu or --gpu_memory, --gpu {0} (the page's default); --gpu \"\" gives the\n"
      "settings table's gpu_memory (80GB), as the JavaScript API and --batch-json do.\n"
      "\nOther flags:\n"
      "  --config PATH       read the architecture from a Hugging Face config.json (explicit flags win)\n"
      "  --safetensors PATH  read a .safetensors file's header, or a model.safetensors.index.json and the headers\n"
      "                      of the shards beside it: tensors, parameters and bytes by dtype (sets params)\n"
      "  --gguf PATH         read a GGUF file's header: parameters and bytes by tensor type (sets params) and the\n"
      "                      architecture's metadata as settings (config.json and explicit flags win)\n"
      "  --from FILE|-       read a launch command (vllm serve ..., llama-server ...) or a training recipe\n"
      "                      (torchtune, axolotl, LLaMA-Factory, DeepSpeed, accelerate, TRL, litgpt, Megatron,\n"
      "                      tune run; repeat to combine,\n"
      "                      later files win) into settings; explicit flags win (docs/readers.md)\n"
      "  --log FILE|-        read a vLLM, SGLang, llama.cpp / Ollama or TGI startup log, nvidia-smi output,\n"
      "                      torch.cuda.memory_summary() or memory_stats(), or a torchtune / litgpt run: its\n"
      "                      settings estimated, its figures beside ours item by item; --as-record writes them\n"
      "                      as validation rows\n"
      "  --emit FORMAT       the launch command or config for the settings (--json: with what it cannot carry):\n"
      "                      {1}\n"
      "  --json              print one JSON object instead of the table, with \"version\" (the project's) and\n"
      "                      \"schema_version\" (the shape's, docs/wasm.md \"Versions\")\n"
      "  --solve             also answer: devices needed, largest micro-batch, longest sequence (JSON: \"solve\")\n"
      "  --advise            also re-estimate with each knob moved one step, by bytes saved, then the ways out\n"
      "                      (JSON: \"advice\")\n"
      "  --ways-out          also list the nearest ways out of a \"does not fit\": first on your own devices and\n"
      "                      stack (another split, knobs, a weights format, a shorter context or micro-batch),\n"
      "                      then more of the same device, then another GPU (JSON: \"ways_out\")\n"
      "  --gpus              instead: which GPU presets fit, devices needed on each (with the split) and headroom\n"
      "  --list-models       list the model presets     --list-gpus   list the GPU presets\n"
      "  --schema            print the settings table as JSON\n"
      "  --version           print the version\n"
      "  --batch-json FILE   estimate every settings object of a JSON array; print a JSON array of results\n"
      "                      (for scripts and tests: one process for many estimates, the settings as the\n"
      "                      JavaScript API reads them: no default GPU)\n"
      "Exit codes: 0 ok, 2 invalid input (one line per problem, naming the setting).\n",
      default_gpu, emit_format_list());
}

// A file flag given twice is an error rather than the last one silently winning.
std::optional<error> take_path(std::optional<std::string>& slot, const std::string& key, const std::string& value) {
  if (slot && *slot != value)
    return error{key, fmt::format("given twice (\"{}\" and \"{}\"); give one file", *slot, value)};
  slot = value;
  return std::nullopt;
}

// Usage errors go through here: as text lines on stderr and, under --json anywhere on the line, as the errors
// object on stdout too (the flags are not all read when the error is found).
int usage_error(int argc, char** argv, const std::vector<error>& errors) {
  print_errors(errors);
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--json") {
      fmt::print("{}\n", errors_to_json(errors));
      break;
    }
  return exit_usage;
}

// Returns the first usage error, or nothing when every argument was read.
std::optional<error> parse_args(int argc, char** argv, options& opt) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json") {
      opt.json = true;
      continue;
    }
    if (arg == "--solve") {
      opt.solve = true;
      continue;
    }
    if (arg == "--advise") {
      opt.advise = true;
      continue;
    }
    if (arg == "--ways-out") {
      opt.ways_out = true;
      continue;
    }
    if (arg == "--gpus") {
      opt.gpus = true;
      continue;
    }
    if (arg == "--as-record") {
      opt.as_record = true;
      continue;
    }
    if (arg == "--help" || arg == "-h" || arg == "--help=all") {
      opt.help = true;
      opt.help_all = arg == "--help=all";
      if (i + 1 < argc && std::string_view(argv[i + 1]) == "all") {
        opt.help_all = true;
        ++i;
      }
      continue;
    }
    if (arg == "--version") {
      opt.version = true;
      continue;
    }
    if (arg == "--list-models") {
      opt.list_models = true;
      continue;
    }
    if (arg == "--list-gpus") {
      opt.list_gpus = true;
      continue;
    }
    if (arg == "--schema") {
      opt.schema = true;
      continue;
    }
    if (arg == "sweep" && i == 1) {
      opt.sweep = true;
      continue;
    }
    if (!arg.starts_with("--")) {
      return error{"llm-memory", fmt::format("unexpected argument \"{}\"; settings are given as --key value", arg)};
    }
    std::string key = arg.substr(2), value;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return error{key, "missing value after --" + key};
    }
    if (key.empty())
      return error{"llm-memory", fmt::format("\"{}\" names no setting; settings are given as --key value", arg)};
    if (key == "config" || key == "safetensors" || key == "gguf") {
      auto& slot = key == "config" ? opt.config_path : key == "gguf" ? opt.gguf_path : opt.safetensors_path;
      if (auto repeated = take_path(slot, key, value)) return repeated;
      continue;
    }
    if (key == "from") {
      opt.from_paths.push_back(value);
      continue;
    }
    if (key == "log") {
      if (auto repeated = take_path(opt.log_path, key, value)) return repeated;
      continue;
    }
    if (key == "emit") {
      opt.emit_format = value;
      continue;
    }
    if (key == "batch-json") {
      if (auto repeated = take_path(opt.batch_path, key, value)) return repeated;
      continue;
    }
    if (find_setting(key) == nullptr) return error{key, "unknown setting; see llm-memory --help"};
    const auto [it, inserted] = opt.values.emplace(key, value);
    if (!inserted && it->second != value)
      return error{key, fmt::format("given twice with different values (\"{}\" and \"{}\")", it->second, value)};
  }
  return std::nullopt;
}

// "79.65 GiB (85.52 GB)": a device's capacity in both units, as the page shows it.
std::string capacity_text(double bytes) {
  return fmt::format("{:.2f} GiB ({:.2f} GB)", bytes / 1073741824.0, bytes / 1e9);
}

// --gpus: one line per GPU preset: fits at the current device count, devices needed with the split, headroom.
int print_gpu_fit(const resolve_inputs& inputs, bool json) {
  const auto spec = resolve(inputs.explicit_values, inputs.config, inputs.gguf_file);
  if (!spec.ok()) {
    print_errors(spec.errors());
    if (json) fmt::print("{}\n", errors_to_json(spec.errors()));
    return exit_usage;
  }
  const gpu_fit_result fit = gpu_fit(spec.value());
  if (json) {
    fmt::print("{}\n", gpu_fit_to_json(fit));
    return 0;
  }
  fmt::print("{:<16} {:<22} {:<8} {:<30} {}\n", "gpu", "memory per device", "fits now", "devices needed",
             "headroom per device");
  for (const auto& g : fit.rows) {
    std::string needed = g.needed.found ? std::to_string(g.needed.value) : "none";
    // The answer's split: the parallel settings it changes (the delta names only those).
    std::string split;
    for (const char* key : {"tp", "pp", "zero"})
      if (const auto it = g.needed.delta.find(key); g.needed.found && it != g.needed.delta.end())
        split += (split.empty() ? "" : ", ") + std::string(key == std::string_view("zero") ? "ZeRO" : key) + " " +
                 it->second;
    if (!split.empty()) needed += " (" + split + ")";
    fmt::print("{:<16} {:<22} {:<8} {:<30} {}\n", g.id, capacity_text(g.memory_bytes), g.fits ? "yes" : "no", needed,
               g.needed.found ? capacity_text(g.headroom_bytes) : g.needed.message);
  }
  return 0;
}

int list_models(bool json) {
  if (json) {
    fmt::print("{}\n", models_json());
    return 0;
  }
  for (const auto& p : model_presets()) {
    auto r = estimate(settings{{"model", p.id}});
    std::string also;
    for (const auto& alias : p.aliases) also += (also.empty() ? "  also " : ", ") + alias;
    fmt::print("{:<28} {:<28} {:>18}{}\n", p.id, p.name, detail::group_digits(r.ok() ? r.value().params : 0), also);
  }
  return 0;
}

int list_gpus(bool json) {
  if (json) {
    fmt::print("{}\n", gpus_json());
    return 0;
  }
  // The memory an estimate compares with, which figure it is, and the marketed size beside it.
  for (const auto& g : gpu_presets())
    fmt::print("{:<22} {:<64} {:>18} B  {} (marketed {:g} GB)\n", g.id, g.name, detail::group_digits(g.memory_bytes),
               basis_words(g.basis), g.marketed_bytes / 1073741824.0);
  return 0;
}

// --batch-json FILE: a JSON array of settings objects in, a JSON array of results out (the --json shape, or
// {"ok": false, "errors": [...]}), one process for many estimates: scripting, and the native-vs-wasm tests.
// Values may be strings, numbers or booleans; numbers and booleans are read as their JSON text.
int batch_json(const std::string& path) {
  const auto text = read_input_file("batch-json", path);
  if (!text.ok()) {
    print_errors(text.errors());
    return exit_usage;
  }
  if (const auto refused = check_json_text(text.value(), "batch-json")) {
    print_error(*refused);
    return exit_usage;
  }
  const auto cases = nlohmann::json::parse(text.value(), nullptr, false);
  if (cases.is_discarded() || !cases.is_array()) {
    print_error({"batch-json", fmt::format("\"{}\" is not a JSON array of settings objects", path)});
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
int sweep_command(const resolve_inputs& inputs, bool json) {
  const settings& values = inputs.explicit_values;
  sweep_request request{values, inputs.config};
  request.gguf_file = inputs.gguf_file;
  if (const auto it = values.find("batch"); it != values.end()) request.batch = it->second;
  if (const auto it = values.find("seq"); it != values.end()) request.seq = it->second;
  const auto run = run_sweep(request);
  if (!run.ok()) {
    print_errors(run.errors());
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

// --from FILE: the launch command's text, read into settings (launch.hpp).
launch_read read_from(const std::string& path) {
  const auto text = read_input_file("from", path);
  if (!text.ok()) return launch_read{.errors = text.errors()};
  return read_launch(text.value());
}

// Every --from file read, later files over earlier ones (combine_launches).
launch_read read_all_from(const std::vector<std::string>& paths) {
  std::vector<launch_file> files;
  for (const auto& path : paths) files.push_back({path == "-" ? "standard input" : path, read_from(path)});
  return combine_launches(files);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "fits") return llm_memory::cli::run_fits(argc, argv);
  options opt;
  if (const auto refused = parse_args(argc, argv, opt)) return usage_error(argc, argv, {*refused});
  if (opt.help) {
    opt.help_all ? print_help_all() : print_help();
    return 0;
  }
  if (opt.version) {
    fmt::print("llm-memory {}\n", version());
    return 0;
  }
  if (opt.schema) {
    fmt::print("{}\n", settings_schema_json());
    return 0;
  }
  if (opt.list_models) return list_models(opt.json);
  if (opt.list_gpus) return list_gpus(opt.json);
  if (opt.batch_path) return batch_json(*opt.batch_path);

  settings config;
  if (opt.config_path) {
    const auto text = read_input_file("config", *opt.config_path);
    const auto parsed = text.ok() ? parse_config(text.value()) : result<settings>(text.errors());
    if (!parsed.ok()) {
      print_errors(parsed.errors());
      if (opt.json) fmt::print("{}\n", errors_to_json(parsed.errors()));
      return exit_usage;
    }
    config = parsed.value();
  }

  std::optional<checkpoint_summary> checkpoint;
  std::shared_ptr<const gguf_placement> gguf_file;  // --gguf: the weights are the file's tensors
  if (opt.safetensors_path) {
    auto read = read_safetensors(*opt.safetensors_path);
    if (!read.ok()) {
      print_errors(read.errors());
      if (opt.json) fmt::print("{}\n", errors_to_json(read.errors()));
      return exit_usage;
    }
    checkpoint = read.value();
    // The headers' element count is the parameter count unless integer containers pack several values.
    if (!checkpoint->packed) config["params"] = fmt::format("{:.0f}", checkpoint->elements);
  }

  if (opt.gguf_path) {
    if (checkpoint) return usage_error(argc, argv, {{"gguf", "give --safetensors or --gguf, not both"}});
    auto read = read_gguf(*opt.gguf_path);
    if (!read.ok()) {
      print_errors(read.errors());
      if (opt.json) fmt::print("{}\n", errors_to_json(read.errors()));
      return exit_usage;
    }
    checkpoint = read.value().tensors;
    gguf_file = std::make_shared<const gguf_placement>(read.value().placement);
    for (const auto& [key, value] : read.value().fields) config.emplace(key, value);  // config.json wins
    config["params"] = fmt::format("{:.0f}", checkpoint->elements);  // every GGUF element is a parameter
  }

  std::optional<launch_read> from;
  if (!opt.from_paths.empty()) {
    from = read_all_from(opt.from_paths);
    if (!from->errors.empty()) {
      print_errors(from->errors);
      if (opt.json) fmt::print("{}\n", errors_to_json(from->errors));
      return exit_usage;
    }
    for (const auto& [key, value] : from->values) opt.values.emplace(key, value);  // explicit flags win
  }
  std::optional<log_read> log;
  if (opt.log_path) {
    log = read_log_file(*opt.log_path);
    if (!log->settings.errors.empty()) {
      print_errors(log->settings.errors);
      if (opt.json) fmt::print("{}\n", errors_to_json(log->settings.errors));
      return exit_usage;
    }
    for (const auto& [key, value] : log->settings.values) opt.values.emplace(key, value);  // explicit flags win
  }

  const resolve_inputs inputs{with_default_gpu(opt.values), config, gguf_file};
  if (opt.sweep) return sweep_command(inputs, opt.json);
  if (opt.gpus) return print_gpu_fit(inputs, opt.json);
  const auto spec = resolve(inputs.explicit_values, config, gguf_file);
  const estimate_result r = spec.ok() ? estimate(spec.value()) : estimate_result{};
  const auto refused = spec.ok() ? beyond_exact_bytes(r) : std::nullopt;
  if (!spec.ok() || refused) {
    const std::vector<error> errors = refused ? std::vector<error>{*refused} : spec.errors();
    print_errors(errors);
    if (opt.json) fmt::print("{}\n", errors_to_json(errors));
    return exit_usage;
  }
  // The ways out are found from the solver's and the knob search's answers; --advise's text ends with them, so it
  // lists the same ways, totals and words as the page's verdict (its JSON is unchanged: "advice" alone).
  const bool ways_shown = opt.ways_out || (opt.advise && !opt.json);
  const auto solved = opt.solve || ways_shown ? solve(spec.value()) : solve_result{};
  const auto advice = opt.advise || ways_shown ? advise(spec.value()) : advice_result{};
  const auto ways = ways_shown ? ways_out(spec.value(), solved, advice) : ways_out_result{};
  if (log) return log_output({*opt.log_path, opt.as_record, opt.json}, opt.values, *log, spec.value(), r);
  if (opt.emit_format) return emit_output(*opt.emit_format, spec.value(), opt.json);
  if (opt.json) {
    const auto* shown_solve = opt.solve ? &solved : nullptr;
    const auto* shown_advice = opt.advise ? &advice : nullptr;
    const auto* shown_checkpoint = checkpoint ? &*checkpoint : nullptr;
    const auto* shown_ways = opt.ways_out ? &ways : nullptr;
    if (from)
      fmt::print("{}\n", to_json(r, *from, shown_ways, shown_solve, shown_advice, 2, shown_checkpoint));
    else
      fmt::print("{}\n", opt.ways_out ? to_json(r, ways, shown_solve, shown_advice, 2, shown_checkpoint)
                                      : to_json(r, shown_solve, shown_advice, 2, shown_checkpoint));
    return 0;
  }
  if (from) print_from(opt.from_paths.size() == 1 ? opt.from_paths.front() : "", *from, opt.values);
  if (checkpoint) print_checkpoint(*checkpoint);
  print_table(spec.value(), r);
  if (opt.solve) print_solve(solved, r.inference ? spec.value().values.seq : 0);
  if (opt.advise) print_advice(advice, spec.value().units);
  if (ways_shown) print_ways_out(ways, spec.value().units);
  return 0;
}
