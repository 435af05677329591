// SPDX-License-Identifier: MIT
// The launch readers' shared parts: the option walker, the checked setter and the model-name readers.
#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>

#include "decimal.hpp"
#include "llm_memory/presets.hpp"
#include "readers/readers.hpp"
#include "settings_apply.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

const option_row* find_option(std::span<const option_row> rows, std::string_view name) {
  for (const auto& row : rows)
    for (const auto spelling : split(row.names, '|'))
      if (spelling == name) return &row;
  return nullptr;
}

bool is_option(std::string_view word) {
  return word.size() > 1 && word[0] == '-' && std::isdigit(static_cast<unsigned char>(word[1])) == 0 && word[1] != '.';
}

bool optional_value(std::string_view word) {
  constexpr std::array<std::string_view, 8> values{"on", "off", "auto", "true", "false", "1", "0", "enabled"};
  return std::find(values.begin(), values.end(), lower(word)) != values.end();
}

// The option's name as the rows spell it: vLLM's FlexibleArgumentParser reads `_` in a long option as `-`.
std::string option_name(std::string_view word, bool underscores_are_dashes) {
  std::string name(word);
  if (underscores_are_dashes && name.starts_with("--")) std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

}  // namespace

std::vector<walk_hit> walk(std::span<const std::string> args, const walk_rules& rules, launch_read& out) {
  std::vector<walk_hit> hits;
  const auto positional = [&](std::string_view word) {
    if (rules.positionals)
      hits.push_back({positional_action, std::string(word), std::string(word)});
    else
      ignore(out, word, "an argument this command does not take");
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (word == "--") {
      for (++i; i < args.size(); ++i) positional(args[i]);
      break;
    }
    if (!is_option(word)) {
      positional(word);
      continue;
    }
    const auto eq = word.find('=');
    const std::string name = option_name(word.substr(0, eq), rules.underscores_are_dashes);
    const bool inline_value = eq != std::string_view::npos;
    std::string_view value = inline_value ? word.substr(eq + 1) : std::string_view{};
    const bool next_is_value = i + 1 < args.size() && !is_option(args[i + 1]);
    const option_row* row = find_option(rules.options, name);
    if (row == nullptr) {
      if (!inline_value && next_is_value) ++i;  // an unknown option's value is taken to be the next word
      ignore(out, name, "not read: no memory setting depends on it");
      continue;
    }
    if (!inline_value && row->arity == takes::value) {
      if (i + 1 >= args.size()) {
        out.errors.push_back({name, "needs a value after it"});
        continue;
      }
      value = args[++i];
    } else if (!inline_value && row->arity == takes::optional && next_is_value && optional_value(args[i + 1])) {
      value = args[++i];
    }
    if (row->action != 0)
      hits.push_back({row->action, name, std::string(value)});
    else
      ignore(out, name, row->why);
  }
  return hits;
}

void set_setting(launch_read& out, std::string_view option, std::string_view key, std::string value) {
  std::vector<error> errors;
  setting_values scratch = default_values();
  apply_layer({{std::string(key), value}}, scratch, errors, "");
  if (!errors.empty()) {
    out.errors.push_back({std::string(option), std::string(key) + ": " + errors.front().message});
    return;
  }
  std::erase_if(out.read, [&](const launch_option& r) { return r.setting == key; });
  out.read.push_back({std::string(option), std::string(key), value});
  out.values[std::string(key)] = std::move(value);
}

void devices_from_parallel(launch_read& out) {
  if (!out.values.contains("tp") && !out.values.contains("pp")) return;
  const auto degree = [&](const char* key) {
    const auto v = out.values.find(key);
    return v == out.values.end() ? 1.0 : parse_number(*find_setting(key), v->second).value();  // checked when read
  };
  set_setting(out, "tp x pp", "devices", format_number(degree("tp") * degree("pp")));
  out.notes.push_back("devices = tensor x pipeline parallel = " + out.values["devices"] + " (one engine)");
}

std::vector<std::string> env_as_options(const command_line& cmd, std::span<const env_option> table, launch_read& out) {
  std::vector<std::string> args;
  for (const auto& [name, value] : cmd.env) {
    const env_option* found = nullptr;
    for (const auto& row : table)
      if (row.variable == name) found = &row;
    if (found == nullptr)
      ignore(out, name, "an environment variable llm-memory does not read");
    else
      args.push_back(std::string(found->option) + "=" + value);
  }
  return args;
}

void ignore(launch_read& out, std::string_view option, std::string_view why) {
  out.ignored.push_back({std::string(option), std::string(why)});
}

namespace {

// A checkpoint name without the words that name a variant of the same weights' shape (instruct, chat, it, pt,
// hf, base) and Meta's prefix: "Meta-Llama-3.1-8B-Instruct" and "llama-3.1-8b" both read "llama-3.1-8b".
std::string shape_name(std::string_view name) {
  constexpr std::array<std::string_view, 7> variants{"meta", "instruct", "chat", "it", "pt", "hf", "base"};
  const std::string lowered = lower(name);
  std::string out;
  for (const auto part : split(lowered, '-')) {
    if (std::find(variants.begin(), variants.end(), part) != variants.end()) continue;
    if (!out.empty()) out += '-';
    out += part;
  }
  return out;
}

// The presets whose id or an alias reads as `shape` (exact), or starts with it (prefix).
std::set<std::string> presets_named(const std::string& shape, bool prefix) {
  std::set<std::string> ids;
  for (const auto& p : model_presets()) {
    std::vector<std::string> names = p.aliases;
    names.push_back(p.id);
    for (const auto& n : names) {
      const auto s = shape_name(n);
      if (s == shape || (prefix && s.starts_with(shape + "-"))) ids.insert(p.id);
    }
  }
  return ids;
}

std::string listed(const std::set<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

}  // namespace

std::optional<std::string> single_preset(std::string_view name) {
  const auto base = name.substr(name.find_last_of('/') == std::string_view::npos ? 0 : name.find_last_of('/') + 1);
  if (const auto* exact = find_model(lower(base))) return exact->id;
  const auto ids = presets_named(shape_name(base), false);
  if (ids.size() == 1) return *ids.begin();
  return std::nullopt;
}

void read_model_name(launch_read& out, std::string_view option, std::string_view name) {
  if (const auto id = single_preset(name)) return set_setting(out, option, "model", *id);
  const auto base = name.substr(name.find_last_of('/') == std::string_view::npos ? 0 : name.find_last_of('/') + 1);
  const auto shape = shape_name(base);
  const auto ids = presets_named(shape, false);
  const auto near = ids.empty() ? presets_named(shape, true) : ids;
  const std::string quoted_name = quoted(name);
  if (near.empty())
    out.notes.push_back("model " + quoted_name + ": no preset of that name; give --model PRESET or --config");
  else
    out.notes.push_back("model " + quoted_name + " could be " + listed(near) + ": give --model PRESET");
  ignore(out, option, "no single preset of that name");
}

namespace {

// "name-00001-of-00003" (a split GGUF's part) -> "name".
std::string_view without_split_part(std::string_view stem) {
  const auto of = stem.rfind("-of-");
  if (of == std::string_view::npos || of < 6 || stem[of - 6] != '-') return stem;
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  return digits(stem.substr(of - 5, 5)) && digits(stem.substr(of + 4)) ? stem.substr(0, of - 6) : stem;
}

}  // namespace

std::string gguf_weights(std::string_view type) {
  const std::string t = lower(type);
  if (t == "f16" || t == "fp16") return "fp16";
  if (t == "f32" || t == "fp32") return "fp32";
  if (t == "bf16") return "bf16";
  const auto* row = find_setting("weights_dtype");
  for (const auto choice : split(row->choices, '|'))
    if (choice == t && (choice.starts_with("q") || choice.starts_with("iq"))) return std::string(choice);
  return "";
}

namespace {

bool looks_like_type(std::string_view word) {
  const auto digit_at = word.starts_with("iq") ? 2U : word.starts_with("q") ? 1U : 0U;
  return (digit_at > 0 && word.size() > digit_at && std::isdigit(static_cast<unsigned char>(word[digit_at])) != 0) ||
         word == "f16" || word == "f32" || word == "bf16";
}

}  // namespace

void read_served_model(const option_hit& h, launch_read& out) {
  if (lower(h.value).ends_with(".gguf")) return read_gguf_name(out, h.option, h.value);
  read_model_name(out, h.option, h.value);
}

void read_gguf_name(launch_read& out, std::string_view option, std::string_view file) {
  auto stem = file.substr(file.find_last_of('/') == std::string_view::npos ? 0 : file.find_last_of('/') + 1);
  if (lower(stem).ends_with(".gguf")) stem.remove_suffix(5);
  stem = without_split_part(stem);
  const auto cut = stem.find_last_of("-.");
  const std::string type = cut == std::string_view::npos ? "" : lower(stem.substr(cut + 1));
  if (!looks_like_type(type)) {
    out.notes.push_back("model file " + quoted(file) + " names no GGUF type: give --weights_dtype");
    return read_model_name(out, option, stem);
  }
  if (const auto weights = gguf_weights(type); !weights.empty())
    set_setting(out, option, "weights_dtype", weights);
  else
    out.notes.push_back("GGUF type " + quoted(type) + " has no weights_dtype choice: give --weights_dtype");
  read_model_name(out, option, stem.substr(0, cut));
}

}  // namespace llm_memory::detail
