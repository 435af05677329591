// SPDX-License-Identifier: MIT
// `llm-memory fits --gpu ID [--devices N] [--ram 64GB] [--task run|lora|qlora|full] [--seq N] [--family TEXT]
// [--min-params 1B] [--max-params 70B] [--moe only|none] [--sort size|context|speed] [--json]`: every model preset
// ranked on the machine (core: fits.hpp).
#include "fits_command.hpp"

#include <fmt/core.h>

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm_memory/fits.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/settings.hpp"
#include "text.hpp"

namespace llm_memory::cli {
namespace {

constexpr int exit_usage = 2;

template <class E>
std::optional<E> choice_of(std::string_view text, std::initializer_list<std::pair<std::string_view, E>> choices) {
  for (const auto& [name, value] : choices)
    if (name == text) return value;
  return std::nullopt;
}

// A value read through a settings row's parser (sizes such as "64GB", counts such as "8B"), its errors renamed to
// the flag.
std::optional<double> number_as(const char* row, const std::string& flag, const std::string& text,
                                std::vector<error>& errors) {
  const auto parsed = parse_number(*find_setting(row), text);
  if (parsed.ok()) return parsed.value();
  for (error e : parsed.errors()) errors.push_back({flag, e.message});
  return std::nullopt;
}

// One flag and its value into the request; false when the flag is unknown.
bool apply_flag(const std::string& key, const std::string& value, fits_request& q, std::vector<error>& errors) {
  if (key == "gpu") {
    q.gpu = value;
  } else if (key == "devices" || key == "seq") {
    if (const auto v = number_as(key.c_str(), key, value, errors))
      (key == "seq" ? q.seq : q.devices) = std::llround(*v);
  } else if (key == "ram") {
    if (const auto v = number_as("host_ram", key, value, errors)) q.ram_bytes = *v;
  } else if (key == "min-params" || key == "max-params") {
    if (const auto v = number_as("params", key, value, errors))
      (key == "min-params" ? q.min_params : q.max_params) = *v;
  } else if (key == "family") {
    q.family = value;
  } else if (key == "task") {
    const auto t = choice_of<fits_task>(
        value,
        {{"run", fits_task::run}, {"lora", fits_task::lora}, {"qlora", fits_task::qlora}, {"full", fits_task::full}});
    t ? void(q.task = *t)
      : errors.push_back({"task", "must be run, lora, qlora or full, got " + detail::quoted(value)});
  } else if (key == "sort") {
    const auto s = choice_of<fits_sort>(
        value, {{"size", fits_sort::size}, {"context", fits_sort::context}, {"speed", fits_sort::speed}});
    s ? void(q.sort = *s) : errors.push_back({"sort", "must be size, context or speed, got " + detail::quoted(value)});
  } else if (key == "moe") {
    const auto m =
        choice_of<fits_moe>(value, {{"any", fits_moe::any}, {"only", fits_moe::only}, {"none", fits_moe::none}});
    m ? void(q.moe = *m) : errors.push_back({"moe", "must be any, only or none, got " + detail::quoted(value)});
  } else {
    return false;
  }
  return true;
}

std::string gb(double bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); }

void print_rows(const fits_result& r) {
  fmt::print("{} x {} ({:.2f} GiB each): {} of {} models fit\n", r.devices, r.gpu, r.memory_bytes / 1073741824.0,
             r.fitting, r.rows.size());
  fmt::print("{:<36} {:>8} {:<8} {:<12} {:>9} {:>9} {:>10} {:>12}\n", "model", "params", "format", "runtime", "context",
             "offload", "memory", "decode t/s*");
  for (const auto& f : r.rows) {
    if (!f.fits) continue;
    // Training rows have no decode: "-" rather than a speed of 0.
    const std::string decode = f.decode_tokens_per_s > 0 ? fmt::format("{:.1f}", f.decode_tokens_per_s) : "-";
    fmt::print("{:<36} {:>7.1f}B {:<8} {:<12} {:>9} {:>8.0f}% {:>10} {:>12}\n", f.model, f.params / 1e9, f.format,
               f.runtime, f.max_context, f.offloaded_share * 100, gb(f.total_bytes), decode);
  }
  fmt::print("* an upper bound: the bytes a token reads over the memory bandwidth (docs/methodology.md)\n");
}

}  // namespace

int run_fits(int argc, char** argv) {
  fits_request q;
  bool json = false;
  std::vector<error> errors;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
      continue;
    }
    if (!arg.starts_with("--") || i + 1 >= argc) {
      errors.push_back({"fits", "expected --flag value, got " + detail::quoted(arg)});
      break;
    }
    const std::string key = arg.substr(2);
    if (!apply_flag(key, argv[++i], q, errors)) errors.push_back({key, "unknown flag of fits; see llm-memory --help"});
  }
  if (q.gpu.empty() && errors.empty()) errors.push_back({"gpu", "fits needs --gpu ID (llm-memory --list-gpus)"});
  const auto ranked = errors.empty() ? fits(q) : result<fits_result>(errors);
  if (!ranked.ok()) {
    for (const auto& e : ranked.errors()) fmt::print(stderr, "{}\n", to_string(e));
    if (json) fmt::print("{}\n", errors_to_json(ranked.errors()));
    return exit_usage;
  }
  if (json)
    fmt::print("{}\n", fits_to_json(ranked.value()));
  else
    print_rows(ranked.value());
  return 0;
}

}  // namespace llm_memory::cli
