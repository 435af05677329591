// SPDX-License-Identifier: MIT
// `llama-server` and `llama-cli` (llama.cpp). Names, aliases and environment variables are llama.cpp's own
// (common/arg.cpp, common_params_parser_init, 2025 builds): -m/--model, -hf/--hf-repo, -c/--ctx-size
// (LLAMA_ARG_CTX_SIZE, 0 = the model's training context), -ngl/--gpu-layers/--n-gpu-layers (a number, "auto" or
// "all"), -ncmoe/--n-cpu-moe and -cmoe/--cpu-moe (routed experts on the CPU), -np/--parallel, -b/--batch-size (2048),
// -ub/--ubatch-size (512), -fa/--flash-attn [on|off|auto] (a bare flag in older builds, whose -fa took no value),
// -ctk/--cache-type-k and -ctv/--cache-type-v (f16). The server splits -c over its -np slots (n_ctx_seq = n_ctx /
// n_seq_max, llama-context.cpp) unless -kvu unifies them.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

void model(const option_hit& h, launch_read& out) { read_gguf_name(out, h.option, h.value); }

// -hf ggml-org/gemma-3-1b-it-GGUF[:Q4_K_M]: the repo name less -GGUF, the tag (or the name's end) as the GGUF type.
void hf_repo(const option_hit& h, launch_read& out) {
  std::string repo(h.value);
  const auto colon = repo.find(':');
  const std::string tag = colon == std::string::npos ? "" : repo.substr(colon + 1);
  repo.resize(std::min(colon, repo.size()));
  if (lower(repo).ends_with("-gguf")) repo.resize(repo.size() - 5);
  // No tag: llama.cpp picks Q4_K_M when the repo has it; a repo named for one type (…-Q8_0-GGUF) says it.
  read_gguf_name(out, h.option, tag.empty() ? repo : repo + "-" + tag);
}

// The -c given; split over the slots once every option is read.
void ctx_size(const option_hit& h, launch_read& out) {
  if (trim(h.value) == "0") return ignore(out, h.option, "0: the model's training context; give --seq");
  set_setting(out, h.option, "seq", std::string(h.value));
}

void gpu_layers(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  if (v == "auto" || v == "-1")
    return ignore(out, h.option, "auto: llama.cpp fits the layers to free memory; n_gpu_layers stays 999 (all)");
  set_setting(out, h.option, "n_gpu_layers", v == "all" ? "999" : std::string(h.value));
}

// -ncmoe N / --n-cpu-moe N: the routed experts of the first N layers on the CPU; -cmoe / --cpu-moe: of every
// layer (common/arg.cpp: one llm_ffn_exps_block_regex override per layer, or LLM_FFN_EXPS_REGEX for all).
void n_cpu_moe(const option_hit& h, launch_read& out) { set_setting(out, h.option, "n_cpu_moe", std::string(h.value)); }
void cpu_moe(const option_hit& h, launch_read& out) { set_setting(out, h.option, "n_cpu_moe", "999"); }

void parallel(const option_hit& h, launch_read& out) { set_setting(out, h.option, "batch", std::string(h.value)); }
void batch_size(const option_hit& h, launch_read& out) { set_setting(out, h.option, "n_batch", std::string(h.value)); }
void ubatch_size(const option_hit& h, launch_read& out) {
  set_setting(out, h.option, "n_ubatch", std::string(h.value));
}

// -fa on|off|auto; a bare -fa is on. auto is on where the backend supports it (CUDA does).
void flash_attn(const option_hit& h, launch_read& out) {
  const auto v = lower(h.value);
  if (v.empty() || v == "on" || v == "auto" || v == "true" || v == "1" || v == "enabled")
    return set_setting(out, h.option, "attention", "flash");
  if (v == "off" || v == "false" || v == "0") return set_setting(out, h.option, "attention", "eager");
  out.errors.push_back({std::string(h.option), "must be on, off or auto, got " + quoted(h.value)});
}

void cache_type_k(const option_hit& h, launch_read& out) { set_setting(out, h.option, "cache_type_k", lower(h.value)); }
void cache_type_v(const option_hit& h, launch_read& out) { set_setting(out, h.option, "cache_type_v", lower(h.value)); }

// The options' actions (option_row::action), each run by act().
enum action : int {
  a_none,
  a_model,
  a_hf_repo,
  a_ctx_size,
  a_gpu_layers,
  a_parallel,
  a_batch_size,
  a_ubatch_size,
  a_flash_attn,
  a_cache_type_k,
  a_cache_type_v,
  a_n_cpu_moe,
  a_cpu_moe
};

constexpr option_row options[] = {
    {"-m|--model", takes::value, a_model, ""},
    {"-hf|-hfr|--hf-repo", takes::value, a_hf_repo, ""},
    {"-c|--ctx-size", takes::value, a_ctx_size, ""},
    {"-ngl|--gpu-layers|--n-gpu-layers", takes::value, a_gpu_layers, ""},
    {"-np|--parallel", takes::value, a_parallel, ""},
    {"-b|--batch-size", takes::value, a_batch_size, ""},
    {"-ub|--ubatch-size", takes::value, a_ubatch_size, ""},
    {"-fa|--flash-attn", takes::optional, a_flash_attn, ""},
    {"-ctk|--cache-type-k", takes::value, a_cache_type_k, ""},
    {"-ctv|--cache-type-v", takes::value, a_cache_type_v, ""},
    {"-kvu|--kv-unified", takes::flag, 0, "a unified KV buffer: llm-memory models one stream per slot"},
    {"-ncmoe|--n-cpu-moe", takes::value, a_n_cpu_moe, ""},
    {"-cmoe|--cpu-moe", takes::flag, a_cpu_moe, ""},
    {"-ts|--tensor-split|-sm|--split-mode|-ot|--override-tensor|-mg|--main-gpu", takes::value, 0,
     "placement over several devices is not read yet: every layer -ngl names is on one device"},
    {"-fit|--fit", takes::optional, 0,
     "fits -c and -ngl to the free memory at start; the estimate takes the -c and -ngl given (or the defaults)"},
    {"-fitt|--fit-target|-fitc|--fit-ctx", takes::value, 0, "a --fit target: --fit is not modelled"},
    {"--mlock|--no-mmap|--jinja|--cont-batching|-cb|--no-webui|--verbose|-v|--metrics|-cnv|--conversation", takes::flag,
     0, serving_only},
    {"--host|--port|-t|--threads|-tb|--threads-batch|-a|--alias|--api-key|-n|--predict|-p|--prompt|--temp|-s|--seed|"
     "--chat-template|--numa",
     takes::value, 0, serving_only},
};

// Runs one option's action, in command order.
void act(const walk_hit& w, launch_read& out) {
  const option_hit h = w.hit();
  switch (w.action) {
    case a_model: return model(h, out);
    case a_hf_repo: return hf_repo(h, out);
    case a_ctx_size: return ctx_size(h, out);
    case a_gpu_layers: return gpu_layers(h, out);
    case a_parallel: return parallel(h, out);
    case a_batch_size: return batch_size(h, out);
    case a_ubatch_size: return ubatch_size(h, out);
    case a_flash_attn: return flash_attn(h, out);
    case a_cache_type_k: return cache_type_k(h, out);
    case a_cache_type_v: return cache_type_v(h, out);
    case a_n_cpu_moe: return n_cpu_moe(h, out);
    case a_cpu_moe: return cpu_moe(h, out);
    default: return;
  }
}

// The options llama.cpp also reads from the environment (set_env), as the option they stand for; the command
// line wins, so they are walked first.
constexpr env_option env_options[] = {
    {"LLAMA_ARG_MODEL", "--model"},
    {"LLAMA_ARG_CTX_SIZE", "--ctx-size"},
    {"LLAMA_ARG_N_GPU_LAYERS", "--n-gpu-layers"},
    {"LLAMA_ARG_N_PARALLEL", "--parallel"},
    {"LLAMA_ARG_BATCH", "--batch-size"},
    {"LLAMA_ARG_UBATCH", "--ubatch-size"},
    {"LLAMA_ARG_FLASH_ATTN", "--flash-attn"},
    {"LLAMA_ARG_CACHE_TYPE_K", "--cache-type-k"},
    {"LLAMA_ARG_CACHE_TYPE_V", "--cache-type-v"},
    {"LLAMA_ARG_N_CPU_MOE", "--n-cpu-moe"},
    {"LLAMA_ARG_CPU_MOE", "--cpu-moe"},
};

// llama-server's -c is the context of all slots: each holds -c / -np (n_ctx_seq, llama-context.cpp).
void split_context(launch_read& out) {
  if (!out.values.contains("seq") || !out.values.contains("batch")) return;
  // Both were checked by their parsers when read, so they parse here.
  const auto count = [&](const char* key) {
    return static_cast<std::int64_t>(parse_number(*find_setting(key), out.values.at(key)).value());
  };
  const auto ctx = count("seq");
  const auto slots = count("batch");
  if (ctx / slots < 1) {
    out.errors.push_back({"--ctx-size", "holds fewer tokens than -np slots (" + std::to_string(slots) + ")"});
    return;
  }
  out.values["seq"] = std::to_string(ctx / slots);
  for (auto& r : out.read)
    if (r.setting == "seq") r.value = out.values["seq"];
  out.notes.push_back("seq = -c / -np = " + std::to_string(ctx) + " / " + std::to_string(slots) + " tokens per slot" +
                      (ctx % slots != 0 ? " (rounded down, as llama.cpp does)" : ""));
}

void read_llama(const command_line& cmd, launch_read& out, bool server) {
  set_setting(out, out.command, "mode", "inference");
  set_setting(out, out.command, "runtime", "llamacpp");
  const walk_rules rules{options, false, false};
  for (const auto& w : walk(env_as_options(cmd, env_options, out), rules, out)) act(w, out);
  for (const auto& w : walk(cmd.args, rules, out)) act(w, out);
  const auto slots =
      std::find_if(out.read.begin(), out.read.end(), [](const launch_option& r) { return r.setting == "batch"; });
  if (!server && slots != out.read.end()) {
    ignore(out, slots->option, "llama-cli runs one sequence");
    out.read.erase(slots);
    out.values.erase("batch");
  }
  if (server && !out.values.contains("batch"))
    out.notes.push_back("no -np: one slot assumed (batch 1); newer llama-server builds default to 4 with a unified KV");
  split_context(out);
}

}  // namespace

void read_llama_server(const command_line& cmd, launch_read& out) { read_llama(cmd, out, true); }
void read_llama_cli(const command_line& cmd, launch_read& out) { read_llama(cmd, out, false); }

}  // namespace llm_memory::detail
