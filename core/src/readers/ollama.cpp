// SPDX-License-Identifier: MIT
// Ollama: `ollama serve` / `ollama run MODEL` with the server's environment (envconfig/config.go, 0.9 - 0.13:
// OLLAMA_CONTEXT_LENGTH, OLLAMA_NUM_PARALLEL, OLLAMA_FLASH_ATTENTION, OLLAMA_KV_CACHE_TYPE), and a Modelfile's
// FROM and PARAMETER lines (docs/modelfile.md: num_ctx, num_gpu). Each of the num_parallel slots holds num_ctx
// tokens (llm/server.go multiplies the context by the slots), so seq = num_ctx and batch = the slots.
#include <algorithm>
#include <string>

#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// "llama3.1" -> "llama-3.1": Ollama's library names drop the dash our presets keep.
std::string dashed(std::string_view name) {
  const auto digit = name.find_first_of("0123456789");
  if (digit == std::string_view::npos || digit == 0 || name[digit - 1] == '-') return std::string(name);
  return std::string(name.substr(0, digit)) + "-" + std::string(name.substr(digit));
}

// A library tag's size word ("8b", "0.5b", "e2b"): the part of the tag the preset name carries.
bool is_size(std::string_view word) {
  return word.size() >= 2 && (word.back() == 'b' || word.back() == 'm') &&
         word.find_first_of("0123456789") != std::string_view::npos &&
         word.substr(0, word.size() - 1).find_first_not_of("0123456789.xe") == std::string_view::npos;
}

void flash_attention(std::string_view option, std::string_view value, launch_read& out) {
  const auto v = lower(value);
  if (v == "1" || v == "true" || v == "on") return set_setting(out, option, "attention", "flash");
  if (v == "0" || v == "false" || v == "off") return set_setting(out, option, "attention", "eager");
  out.errors.push_back({std::string(option), "must be 1 or 0 (true or false), got " + quoted(value)});
}

// OLLAMA_KV_CACHE_TYPE: f16, q8_0 or q4_0; Ollama keeps f16 when flash attention is off (llm/server.go).
void kv_cache_type(std::string_view option, std::string_view value, launch_read& out) {
  set_setting(out, option, "kv_dtype", lower(value));
}

void read_environment(const command_line& cmd, launch_read& out) {
  for (const auto& [name, value] : cmd.env) {
    if (name == "OLLAMA_CONTEXT_LENGTH")
      set_setting(out, name, "seq", value);
    else if (name == "OLLAMA_NUM_PARALLEL")
      set_setting(out, name, "batch", value);
    else if (name == "OLLAMA_FLASH_ATTENTION")
      flash_attention(name, value, out);
    else if (name == "OLLAMA_KV_CACHE_TYPE")
      kv_cache_type(name, value, out);
    else if (name == "OLLAMA_GPU_OVERHEAD")
      ignore(out, name, "a reserve Ollama keeps free per GPU: llm-memory adds Ollama's own minimum (457 MiB)");
    else
      ignore(out, name, "an environment variable llm-memory does not read");
  }
}

// A quantized KV type with flash attention off: Ollama falls back to f16, so the type is not kept.
void kv_needs_flash(launch_read& out) {
  const auto kv = out.values.find("kv_dtype");
  const auto attention = out.values.find("attention");
  if (kv == out.values.end() || attention == out.values.end() || attention->second != "eager") return;
  if (kv->second == "f16" || kv->second == "fp16" || kv->second == "auto") return;
  ignore(out, "OLLAMA_KV_CACHE_TYPE", "Ollama keeps an f16 cache when flash attention is off");
  std::erase_if(out.read, [](const launch_option& r) { return r.setting == "kv_dtype"; });
  out.values.erase(kv);
}

void positional(std::string_view word, launch_read& out) {
  if (out.values.contains("model") ||
      std::any_of(out.ignored.begin(), out.ignored.end(), [](const auto& i) { return i.option == "model"; }))
    return ignore(out, word, "a prompt or a second argument: no memory setting depends on it");
  read_ollama_model(out, "model", word);
}

constexpr option_row run_options[] = {
    {"--verbose|--insecure|--nowordwrap|--hidethinking", takes::flag, 0, serving_only},
    {"--keepalive|--format|--think", takes::value, 0, serving_only},
};

void start(launch_read& out) {
  set_setting(out, out.command, "mode", "inference");
  set_setting(out, out.command, "runtime", "ollama");
}

}  // namespace

void read_ollama_model(launch_read& out, std::string_view option, std::string_view name) {
  std::string repo(name);
  const auto colon = repo.rfind(':');
  const auto slash = repo.rfind('/');
  std::string tag =
      colon == std::string::npos || (slash != std::string::npos && colon < slash) ? "" : repo.substr(colon + 1);
  if (!tag.empty()) repo.resize(colon);
  // hf.co/ORG/NAME-GGUF[:TYPE]: a Hub GGUF repo, read as llama-server's -hf reads it.
  if (lower(repo).starts_with("hf.co/") || lower(repo).starts_with("huggingface.co/")) {
    if (lower(repo).ends_with("-gguf")) repo.resize(repo.size() - 5);
    return read_gguf_name(out, option, tag.empty() ? repo : repo + "-" + tag);
  }
  std::string size;
  std::string type;
  for (const auto part : split(tag, '-')) {
    if (is_size(lower(part)) && size.empty()) size = lower(part);
    if (!gguf_weights(part).empty()) type = gguf_weights(part);
  }
  if (!type.empty())
    set_setting(out, option, "weights_dtype", type);
  else {
    set_setting(out, option, "weights_dtype", "q4_k_m");
    out.notes.push_back("model " + quoted(name) +
                        ": a library tag without a type is Q4_K_M (Ollama's default); give --weights_dtype if not");
  }
  const std::string base = size.empty() ? repo : repo + "-" + size;
  if (!single_preset(base))
    if (const auto id = single_preset(dashed(base))) return set_setting(out, option, "model", *id);
  read_model_name(out, option, base);
}

void read_ollama(const command_line& cmd, launch_read& out) {
  start(out);
  read_environment(cmd, out);
  // `ollama run`'s words are the model (and a prompt); `ollama serve` takes none.
  const bool run = out.command == "ollama run";
  const walk_rules rules{run ? std::span<const option_row>(run_options) : std::span<const option_row>{}, false, run};
  for (const auto& w : walk(cmd.args, rules, out)) positional(w.option, out);
  kv_needs_flash(out);
}

bool is_modelfile(std::string_view text) {
  for (const auto line : split(text, '\n')) {
    const auto t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    return lower(t.substr(0, 5)) == "from ";
  }
  return false;
}

namespace {

// One PARAMETER line: num_ctx -> seq, num_gpu -> n_gpu_layers; the sampling and other options are listed.
void parameter(const std::string& where, std::string_view name, std::string_view value, launch_read& out) {
  const std::string option = where + " PARAMETER " + std::string(name);
  if (name == "num_ctx") return set_setting(out, option, "seq", std::string(value));
  if (name == "num_gpu") return set_setting(out, option, "n_gpu_layers", std::string(value));
  if (name == "num_batch")
    return ignore(out, option, "Ollama's runner sets llama.cpp's n_batch from it: give --n_batch and --n_ubatch");
  ignore(out, option, "sampling or serving: no memory setting depends on it");
}

}  // namespace

void read_modelfile(std::string_view text, launch_read& out) {
  start(out);
  std::size_t number = 0;
  bool in_block = false;  // inside a """ ... """ value (TEMPLATE, SYSTEM, MESSAGE)
  for (const auto raw : split(text, '\n')) {
    ++number;
    const auto line = trim(raw);
    const std::size_t quotes = [&] {
      std::size_t n = 0;
      for (auto at = line.find(R"(""")"); at != std::string_view::npos; at = line.find(R"(""")", at + 3)) ++n;
      return n;
    }();
    if (in_block || line.empty() || line[0] == '#') {
      in_block = in_block != (quotes % 2 == 1);
      continue;
    }
    in_block = quotes % 2 == 1;
    const std::string where = "line " + std::to_string(number) + ":";
    const auto space = line.find_first_of(" \t");
    const std::string instruction = lower(line.substr(0, space));
    const auto rest = space == std::string_view::npos ? std::string_view{} : trim(line.substr(space));
    if (instruction == "from") {
      if (lower(rest).ends_with(".gguf"))
        read_gguf_name(out, where + " FROM", rest);
      else
        read_ollama_model(out, where + " FROM", rest);
    } else if (instruction == "parameter") {
      const auto gap = rest.find_first_of(" \t");
      if (gap == std::string_view::npos)
        out.errors.push_back({where + " PARAMETER", "needs a name and a value"});
      else
        parameter(where, lower(rest.substr(0, gap)), trim(rest.substr(gap)), out);
    } else {
      ignore(out, where + " " + std::string(line.substr(0, space)),
             "a prompt, template, licence or adapter: no memory setting depends on it");
    }
  }
}

}  // namespace llm_memory::detail
