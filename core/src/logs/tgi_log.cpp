// SPDX-License-Identifier: MIT
// A Text Generation Inference startup log. Settings: the launcher's "Args { ... }" (launcher/src/main.rs logs its
// clap `Args` in Rust's Debug form: `field: value`, an Option as `Some(v)` or `None`, an enum by its variant name;
// one line in 1.x, pretty-printed over many lines from 2.0) and its "Default `field` to N" lines, read as the
// `text-generation-launcher` options the fields stand for (readers/tgi.cpp). Figures: the router's "Setting max batch
// total tokens to N" (router/src/main.rs in 1.x-2.2, router/src/server.rs from 2.3, backends/v3 in 3.x) and the
// server's "KV-cache blocks: N, size: S" (server/text_generation_server/models/flash_causal_lm.py warmup, 2.1 and
// later): both the KV pool in tokens.
#include <array>
#include <string>

#include "logs/logs.hpp"
#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// The Args fields that are launcher options, by their option names.
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> fields{{
    {"model_id", "--model-id"},
    {"num_shard", "--num-shard"},
    {"quantize", "--quantize"},
    {"dtype", "--dtype"},
    {"kv_cache_dtype", "--kv-cache-dtype"},
    {"max_input_tokens", "--max-input-tokens"},
    {"max_input_length", "--max-input-length"},
    {"max_total_tokens", "--max-total-tokens"},
    {"max_batch_prefill_tokens", "--max-batch-prefill-tokens"},
    {"max_batch_total_tokens", "--max-batch-total-tokens"},
    {"max_batch_size", "--max-batch-size"},
    {"cuda_memory_fraction", "--cuda-memory-fraction"},
}};

// `Some(4)` -> "4", `Some("x")` -> "x" (pretty-printed: `Some( 4, )`), `None` -> "".
std::string unwrapped(std::string_view value) {
  value = trim(value);
  if (value.starts_with("Some(") && value.ends_with(')')) value = trim(value.substr(5, value.size() - 6));
  if (value.ends_with(',')) value = trim(value.substr(0, value.size() - 1));
  if (value == "None") return "";
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
  return std::string(value);
}

// An enum variant as clap names its value: BitsandbytesNf4 -> bitsandbytes-nf4, Awq -> awq. The dtype's
// variants are named by hand in the launcher (BFloat16 -> bfloat16): lower case only.
std::string clap_value(const std::string& variant, bool kebab) {
  std::string out;
  for (std::size_t i = 0; i < variant.size(); ++i) {
    const char c = variant[i];
    const bool upper = c >= 'A' && c <= 'Z';
    if (upper && i > 0 && kebab) out += '-';
    out += upper ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

void args_fields(std::string_view text, std::size_t line, log_command& cmd) {
  for (auto& [key, value] : python_pairs(text, ':'))
    for (const auto& [field, option] : fields) {
      if (key != field) continue;
      std::string v = unwrapped(value);
      if (v.empty()) continue;
      if (field == "quantize" || field == "dtype" || field == "kv_cache_dtype") v = clap_value(v, field == "quantize");
      if (field == "kv_cache_dtype" && v.starts_with("fp8") && v.size() > 3 && v[3] != '_')
        v.insert(3, "_");  // Fp8e4m3fn is named fp8_e4m3fn
      cmd.add(std::string(option), v, line);
    }
}

// "Default `max_total_tokens` to 4096": the launcher's value for a field the Args left None (launcher/src/main.rs,
// 2.1 and later), read as its option.
void launcher_default(const log_line& l, log_command& cmd) {
  const auto t = after(l.text, "Default `");
  if (!t) return;
  const auto tick = t->find('`');
  if (tick == std::string_view::npos) return;
  const auto value = after(t->substr(tick), " to ");
  for (const auto& [field, option] : fields)
    if (t->substr(0, tick) == field && value && leading_number(*value))
      cmd.add(std::string(option), format_number(*leading_number(*value)), l.number);
}

// "ghcr.io/huggingface/text-generation-inference:2.2.0" (the image a docker log names) -> tgi_version, the
// release whose warmup sizes the pool (the setting's choices: 3.3, 3.1, 3.0, 2.4, 1.4.1 for 1.4.1-2.3, 1.0).
void image_version(const log_line& l, log_read& out) {
  const auto tag = after(l.text, "text-generation-inference:");
  if (!tag) return;
  const auto parts = split(tag->substr(0, tag->find_first_not_of("0123456789.")), '.');
  if (parts.size() < 2 || !leading_number(parts[0]) || !leading_number(parts[1])) return;
  const double patch = parts.size() > 2 && leading_number(parts[2]) ? *leading_number(parts[2]) : 0;
  const double v = *leading_number(parts[0]) * 10000 + *leading_number(parts[1]) * 100 + patch;
  const char* choice = v >= 30300   ? "3.3"
                       : v >= 30100 ? "3.1"
                       : v >= 30000 ? "3.0"
                       : v >= 20400 ? "2.4"
                       : v >= 10401 ? "1.4.1"
                                    : "1.0";
  set_setting(out.settings, "line " + std::to_string(l.number) + " image tag", "tgi_version", choice);
}

void figure_line(const log_line& l, log_read& out) {
  if (const auto t = after(l.text, "Setting max batch total tokens to ")) {
    if (const auto n = leading_number(*t))
      set_figure(out, {"kv_tokens", "Setting max batch total tokens", *n, "tokens", l.number});
    return;
  }
  const auto blocks = after(l.text, "KV-cache blocks: ");
  const auto size = blocks ? after(*blocks, "size: ") : std::nullopt;
  if (blocks && size && leading_number(*blocks) && leading_number(*size))
    set_figure(out, {"kv_tokens", "KV-cache blocks x size", *leading_number(*blocks) * *leading_number(*size), "tokens",
                     l.number});
}

}  // namespace

void read_tgi_log(std::span<const log_line> lines, log_read& out) {
  log_command cmd{"text-generation-launcher", {}, {}};
  std::string block;          // the multi-line `Args {` ... `}`, joined (a `Some(` may span lines)
  std::size_t args_line = 0;  // where it opened; 0: not in one
  for (const auto& l : lines) {
    if (args_line != 0) {
      if (!trim(l.text).starts_with('}')) {
        block += " " + std::string(trim(l.text));
        if (block.size() <= max_log_line_bytes) continue;
      }
      args_fields(block, args_line, cmd);
      args_line = 0;
      continue;
    }
    if (const auto args = after(l.text, "Args {")) {
      if (trim(*args).empty()) {
        args_line = l.number;
        block.clear();
      } else {
        args_fields(*args, l.number, cmd);
      }
      continue;
    }
    launcher_default(l, cmd);
    image_version(l, out);
    figure_line(l, out);
  }
  read_log_command(cmd, out);
}

}  // namespace llm_memory::detail
