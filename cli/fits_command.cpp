// SPDX-License-Identifier: MIT
// `llm-memory fits --gpu ID [--devices N] [--ram 64GB] [--task run|lora|qlora|full] [--seq N] [--family TEXT]
// [--min-params 1B] [--max-params 70B] [--moe only|none] [--sort size|context|speed] [--json]`: every model preset
// ranked on the machine (core: fits.hpp).
#include "fits_command.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

#include "errors.hpp"
#include "llm_memory/fits.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/settings.hpp"
#include "text.hpp"

namespace llm_memory::cli {
namespace {

// "--min-params" is the request's "min_params" (fits_request_from), and its errors name the flag again.
std::string key_of(std::string flag) {
  std::replace(flag.begin(), flag.end(), '-', '_');
  return flag;
}

// The request's errors in the CLI's words: flags (dashes) for keys, and the two messages about flags themselves.
std::vector<error> named_as_flags(std::vector<error> errors) {
  for (error& e : errors) {
    std::replace(e.setting.begin(), e.setting.end(), '_', '-');
    if (e.message.starts_with("unknown key")) e.message = "unknown flag of fits; see llm-memory --help";
    if (e.setting == "gpu" && e.message.starts_with("the ranking needs"))
      e.message = "fits needs --gpu ID (llm-memory --list-gpus)";
  }
  return errors;
}

// `fits --help`: the subcommand's flags (the same words as --help's fits line, with every filter).
void print_fits_help() {
  fmt::print(
      "Usage: llm-memory fits --gpu ID [--devices N] [--ram SIZE] [--task run|lora|qlora|full] [--seq N] [--json]\n"
      "  every model preset ranked on the machine: the best format that fits, the runtime, the longest context,\n"
      "  what is offloaded to host RAM, the memory used and an upper bound on decode speed.\n"
      "  --gpu ID          GPU or machine preset (llm-memory --list-gpus)\n"
      "  --devices N       devices of that kind (default 1)\n"
      "  --ram SIZE        host RAM for offloaded layers (64GB, 32GiB); without it none is offloaded\n"
      "  --task T          run (inference, default), lora, qlora or full\n"
      "  --seq N           the context each row must hold (default 8192); rows show the longest\n"
      "  --family TEXT     only models whose id or name contains TEXT\n"
      "  --min-params P    --max-params P   parameter range (1B, 70B)\n"
      "  --moe any|only|none   mixture-of-experts models: all (default), only, or none\n"
      "  --sort size|context|speed   fitting rows by most parameters (default), longest context, fastest\n"
      "Example: llm-memory fits --gpu rtx-4090 --ram 64GB --task run\n");
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
    // A MoE model's experts in host RAM (--n-cpu-moe N) read "moe N"; whole layers, their share.
    const std::string offload = f.n_cpu_moe > 0 && f.offloaded_share == 0
                                    ? fmt::format("moe {}", f.n_cpu_moe)
                                    : fmt::format("{:.0f}%", f.offloaded_share * 100);
    fmt::print("{:<36} {:>7.1f}B {:<8} {:<12} {:>9} {:>9} {:>10} {:>12}\n", f.model, f.params / 1e9, f.format,
               f.runtime, f.max_context, offload, gb(f.total_bytes), decode);
  }
  fmt::print("* an upper bound: the bytes a token reads over the memory bandwidth (docs/methodology.md)\n");
}

}  // namespace

int run_fits(int argc, char** argv) {
  settings flags;
  bool json = false;
  std::vector<error> errors;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      print_fits_help();
      return 0;
    }
    if (!arg.starts_with("--") || i + 1 >= argc) {
      errors.push_back({"fits", "expected --flag value, got " + detail::quoted(arg)});
      break;
    }
    flags.insert_or_assign(key_of(arg.substr(2)), argv[++i]);
  }
  const auto request = errors.empty() ? fits_request_from(flags) : result<fits_request>(errors);
  const auto ranked = request.ok() ? fits(request.value()) : result<fits_result>(named_as_flags(request.errors()));
  if (!ranked.ok()) {
    print_errors(ranked.errors());
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
