// SPDX-License-Identifier: MIT
#include "llm_memory/settings.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <variant>

#include "decimal.hpp"
#include "fast_lookups.hpp"
#include "settings_apply.hpp"
#include "settings_layer.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using detail::format_number;
using detail::quoted;

// The page's wasm module compiles this file without the help texts (LLM_MEMORY_NO_SETTING_DOCS; wasm/api.js
// reads them from llm-memory.docs.json beside the module: docs/wasm.md, "Settings docs").
#ifdef LLM_MEMORY_NO_SETTING_DOCS
#define LLM_MEMORY_DOC(doc) ""
#else
#define LLM_MEMORY_DOC(doc) doc
#endif
// The optional last column, `applies`, is pasted after "" so a row without it reads "".
// clang-format off
constexpr std::array table = {
#define LLM_MEMORY_ROW(k, kind, def, lo, hi, choices, unit, group, doc, label, labels, ...)                   \
  setting_def{#k, setting_kind::kind, def, lo, hi, choices, unit, group, LLM_MEMORY_DOC(doc), label, labels,  \
              "" __VA_ARGS__},
    LLM_MEMORY_SETTINGS(LLM_MEMORY_ROW)
#undef LLM_MEMORY_ROW
};
// clang-format on

// The `applies` column's rules; web/ui/applicability.js tests each (tests/web/generated.test.mjs checks it has
// one test per rule).
constexpr std::array rules = {
    applies_rule{"training", "training"},
    applies_rule{"inference", "inference"},
    applies_rule{"eval", "evaluation"},
    applies_rule{"training_or_eval", "training or evaluation"},
    applies_rule{"lora_or_qlora", "LoRA or QLoRA"},
    applies_rule{"qlora", "QLoRA"},
    applies_rule{"full", "full training"},
    applies_rule{"nf4", "NF4 weights"},
    applies_rule{"phased_framework", "a framework's phase model (not generic)"},
    applies_rule{"vllm", "vLLM"},
    applies_rule{"vllm_or_tgi", "vLLM or TGI"},
    applies_rule{"tgi", "TGI"},
    applies_rule{"sglang", "SGLang"},
    applies_rule{"engines", "vLLM, SGLang or TGI"},
    applies_rule{"llamacpp", "llama.cpp or Ollama"},
    applies_rule{"overhead_factor", "overhead = factor"},
    applies_rule{"tp_gt_1", "tensor parallelism (tp > 1)"},
    applies_rule{"encoder_decoder", "an encoder-decoder (architecture)"},
    applies_rule{"int_packed", "gptq, awq or w4a16 weights"},
    applies_rule{"grouped_quant", "gptq, awq, w4a16 or fp8_block weights"},
    applies_rule{"torchtitan", "framework torchtitan"},
};

// A row's `applies` names known rules, each once, in the rules' order (the page lists a hidden field's unmet rules
// in that order).
constexpr bool applies_in_order(std::string_view list) {
  std::size_t next = 0;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view id = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    while (next < rules.size() && rules[next].id != id) ++next;
    if (next == rules.size()) return false;
    ++next;
  }
  return true;
}
constexpr bool all_applies_known() {
  for (const auto& row : table)
    if (!applies_in_order(row.applies)) return false;
  return true;
}
static_assert(all_applies_known(), "a settings row's applies names an unknown rule, or rules out of order");

// Every row has a label; a choice row names each of its choices, in order, and no other row names any.
constexpr bool labelled(const setting_def& row) {
  // Plain loops: Emscripten's libc++ has no std::ranges::count / all_of.
  const auto parts = [](std::string_view list) {
    int n = list.empty() ? 0 : 1;
    for (char c : list) n += c == '|';
    return n;
  };
  if (row.label.empty()) return false;
  if (row.kind != setting_kind::choice) return row.choice_labels.empty();
  return parts(row.choice_labels) == parts(row.choices) && row.choice_labels.find("||") == std::string_view::npos;
}
constexpr bool all_labelled() {
  for (const auto& row : table)
    if (!labelled(row)) return false;
  return true;
}
static_assert(all_labelled(), "a settings row lacks its label or one label per choice");

// Long enough for a hybrid's layer list in N*entry runs (Nemotron-H's irregular patterns: about 460 characters for
// 56 layers, about 1,000 for 118).
constexpr std::size_t max_text_length = 2048;

// A plain decimal number: digits, one point, optional exponent. No inf, nan, hex or spaces.
bool parse_decimal(std::string_view text, double& out) {
  if (text.empty() || text.size() > 64) return false;
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9')
      digit = true;
    else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-')
      return false;
  }
  if (!digit) return false;
  return detail::read_double(text, out) == text.size() && std::isfinite(out);
}

struct suffix {
  std::string_view text;
  double scale;
};

// Longest suffixes first so "GiB" is not read as "B".
constexpr std::array count_suffixes = {suffix{"k", 1e3}, suffix{"m", 1e6}, suffix{"b", 1e9}, suffix{"t", 1e12}};
constexpr std::array byte_suffixes = {
    suffix{"kib", 1024.0}, suffix{"mib", 1048576.0}, suffix{"gib", 1073741824.0}, suffix{"tib", 1099511627776.0},
    suffix{"kb", 1e3},     suffix{"mb", 1e6},        suffix{"gb", 1e9},           suffix{"tb", 1e12},
    suffix{"pb", 1e15},    suffix{"b", 1.0}};

template <std::size_t N>
bool parse_scaled(std::string_view text, const std::array<suffix, N>& suffixes, double& out) {
  const std::string low = detail::lower(text);
  for (const auto& s : suffixes) {
    if (low.size() > s.text.size() && low.ends_with(s.text)) {
      double v = 0;
      if (!parse_decimal(detail::trim(std::string_view(low).substr(0, low.size() - s.text.size())), v)) return false;
      out = v * s.scale;
      return std::isfinite(out);
    }
  }
  return parse_decimal(low, out);
}

std::string range_text(const setting_def& def) {
  return "from " + format_number(def.min_value) + " to " + format_number(def.max_value);
}

error bad(const setting_def& def, std::string_view what, std::string_view text) {
  return {std::string(def.key), std::string(what) + ", got " + quoted(text)};
}

// A runtime's own name for a choice: llama.cpp's -ctk f16 / f32, vLLM's and SGLang's --kv-cache-dtype fp8_e4m3 /
// fp8_e5m2 (one byte each, as fp8).
struct choice_alias {
  std::string_view key;     ///< the settings row
  std::string_view alias;   ///< the runtime's name, lower case
  std::string_view choice;  ///< the row's choice it reads as
};
constexpr std::array choice_aliases = {
    choice_alias{"kv_dtype", "f16", "fp16"},
    choice_alias{"kv_dtype", "f32", "fp32"},
    choice_alias{"kv_dtype", "fp8_e4m3", "fp8"},
    choice_alias{"kv_dtype", "fp8_e5m2", "fp8"},
};

// The table's spelling of `value`, matched case-insensitively ("gib" -> "GiB"), or of the choice it is a runtime's
// name for; empty when not a choice.
// Every resolve parses each layered choice, so the choices are walked in place: no list, no lowered copies.
std::string_view canonical_choice(const setting_def& def, std::string_view value) {
  // The options of `choices` as detail::split(choices, '|') gives them, each trimmed.
  for (std::string_view rest = def.choices;;) {
    const std::size_t bar = rest.find('|');
    const std::string_view option = detail::trim(rest.substr(0, bar));
    if (detail::same_ignoring_case(option, value)) return option;
    if (bar == std::string_view::npos) break;
    rest.remove_prefix(bar + 1);
  }
  for (const auto& a : choice_aliases)
    if (a.key == def.key && detail::same_ignoring_case(a.alias, value)) return a.choice;  // aliases: lower case
  return {};
}

// Parses `text` into the field for `def`; returns the error when it does not fit the row.
template <class T>
std::optional<error> assign(const setting_def& def, std::string_view raw, T& field) {
  const std::string_view text = detail::trim(raw);
  if constexpr (std::is_same_v<T, std::string>) {
    if (def.kind == setting_kind::choice) {
      const std::string_view option = canonical_choice(def, text);
      if (option.empty()) return bad(def, "must be one of " + std::string(def.choices), raw);
      field = std::string(option);
    } else {
      if (text.size() > max_text_length)
        return bad(def, "must be at most " + std::to_string(max_text_length) + " characters", raw);
      field = std::string(text);
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    const std::string low = detail::lower(text);
    if (low == "on" || low == "true" || low == "yes" || low == "1")
      field = true;
    else if (low == "off" || low == "false" || low == "no" || low == "0")
      field = false;
    else
      return bad(def, "must be on or off", raw);
  } else {
    auto parsed = parse_number(def, text);
    if (!parsed.ok()) return parsed.errors().front();
    field = static_cast<T>(parsed.value());
  }
  return std::nullopt;
}

// One parser per row, in table order: a row's index picks its field without comparing keys.
using assigner = std::optional<error> (*)(const setting_def&, std::string_view, setting_values&);
constexpr std::array<assigner, table.size()> assigners = {
#define LLM_MEMORY_ASSIGNER(k, ...) \
  [](const setting_def& def, std::string_view text, setting_values& values) { return assign(def, text, values.k); },
    LLM_MEMORY_SETTINGS(LLM_MEMORY_ASSIGNER)
#undef LLM_MEMORY_ASSIGNER
};

}  // namespace

std::string_view to_string(setting_kind kind) {
  switch (kind) {
    case setting_kind::integer: return "integer";
    case setting_kind::number: return "number";
    case setting_kind::count: return "count";
    case setting_kind::bytes: return "bytes";
    case setting_kind::flag: return "flag";
    case setting_kind::choice: return "choice";
    case setting_kind::text: return "text";
  }
  return "text";
}

std::span<const setting_def> setting_table() { return table; }

std::span<const applies_rule> applies_rules() { return rules; }

const setting_def* find_setting(std::string_view key) {
  // The ranking layers a run's explicit values about 2,000 times: from its first call on, by its index.
  if (const detail::fast_lookups* fast = detail::installed_fast_lookups; fast != nullptr) return fast->setting(key);
  for (const auto& def : table)
    if (def.key == key) return &def;
  return nullptr;
}

result<double> parse_number(const setting_def& def, std::string_view raw) {
  const std::string_view text = detail::trim(raw);
  double v = 0;
  bool ok = false;
  switch (def.kind) {
    case setting_kind::integer: ok = parse_decimal(text, v) && v == std::floor(v); break;
    case setting_kind::number: ok = parse_decimal(text, v); break;
    case setting_kind::count: ok = parse_scaled(text, count_suffixes, v); break;
    case setting_kind::bytes:
      ok = parse_scaled(text, byte_suffixes, v);
      v = std::round(v);
      break;
    default: return bad(def, "is not numeric", raw);
  }
  if (ok && v >= def.min_value && v <= def.max_value) return v;
  switch (def.kind) {
    case setting_kind::integer: return bad(def, "must be an integer " + range_text(def), raw);
    case setting_kind::number: return bad(def, "must be a number " + range_text(def), raw);
    case setting_kind::count:
      return bad(def, "must be a count like 7e9 or 7B (or a fraction up to 1) " + range_text(def), raw);
    default: return bad(def, "must be a size like 80GB, 80GiB or a byte count, " + range_text(def) + " bytes", raw);
  }
}

namespace detail {

void apply_layer(const settings& layer, setting_values& values, std::vector<error>& errors, std::string_view origin) {
  for (const auto& [key, text] : layer) {
    const setting_def* def = find_setting(key);
    if (def == nullptr) {
      // A URL like "?=5" has an empty key: the error still has to name something.
      errors.push_back({key.empty() ? "(empty key)" : key, "unknown setting" + std::string(origin)});
      continue;
    }
    std::optional<error> problem = assigners[static_cast<std::size_t>(def - table.data())](*def, text, values);
    if (problem) {
      problem->message += origin;
      errors.push_back(std::move(*problem));
    }
  }
}

// Each row's field as a member pointer, in table order: data, not a function per row. Read by a switch on the
// pointer's type, not std::visit, whose dispatch tables would be table entries (scripts/split-wasm.mjs keeps every
// table entry in the page's first part, and only the ranking needs these).
using field_pointer = std::variant<double setting_values::*, std::int64_t setting_values::*, bool setting_values::*,
                                   std::string setting_values::*>;

// Filled on first use (the ranking's), not a constant: a constant table is read-only data, which the page's split
// kept in its first part (split-data.mjs keeps an object a first-part address touches, and the end of the array
// before it, which a first-part loop names, is its first byte). Variant's assignment is not constexpr, so this is
// code that fills zeroed memory.
const std::array<field_pointer, table.size()>& fields() {
  static const std::array<field_pointer, table.size()> rows = [] {
    std::array<field_pointer, table.size()> out;
    std::size_t row = 0;
#define LLM_MEMORY_FIELD_POINTER(k, ...) out[row++] = &setting_values::k;
    LLM_MEMORY_SETTINGS(LLM_MEMORY_FIELD_POINTER)
#undef LLM_MEMORY_FIELD_POINTER
    return out;
  }();
  return rows;
}

// Calls `f` with row `row`'s member pointer and `value`'s member of the same type.
template <class Value, class F>
void with_field(std::size_t row, Value& value, const F& f) {
  const field_pointer& field = fields()[row];
  switch (field.index()) {
    case 0: return f(*std::get_if<0>(&field), value.number);
    case 1: return f(*std::get_if<1>(&field), value.integer);
    case 2: return f(*std::get_if<2>(&field), value.flag);
    default: return f(*std::get_if<3>(&field), value.text);
  }
}

parsed_layer parse_layer(const settings& layer) {
  parsed_layer out;
  for (const auto& [key, raw] : layer) {
    const setting_def* def = find_setting(key);
    if (def == nullptr) {
      out.errors.push_back({key.empty() ? "(empty key)" : key, "unknown setting"});
      continue;
    }
    layer_entry entry{static_cast<std::size_t>(def - table.data()), {}};
    const std::string_view text = raw;  // clang 14 (Emscripten 3.1.6) captures no structured binding
    std::optional<error> problem;
    with_field(entry.row, entry.value, [&](auto, auto& value) { problem = assign(*def, text, value); });
    if (problem)
      out.errors.push_back(std::move(*problem));
    else
      out.entries.push_back(std::move(entry));
  }
  return out;
}

void apply_layer(const parsed_layer& layer, setting_values& values, std::vector<error>& errors,
                 std::string_view origin) {
  for (const layer_entry& e : layer.entries)
    with_field(e.row, e.value, [&](auto member, const auto& value) { values.*member = value; });
  for (const error& e : layer.errors) errors.push_back({e.setting, e.message + std::string(origin)});
}

const setting_values& default_values() {
  // The table's defaults, parsed once (they are constants and always valid: tests/core/settings_test.cpp).
  static const setting_values defaults = [] {
    settings text;
    for (const auto& def : table) text.emplace(def.key, def.default_value);
    setting_values parsed;
    std::vector<error> none;
    apply_layer(text, parsed, none, "");
    return parsed;
  }();
  return defaults;
}

}  // namespace detail

settings to_settings(const setting_values& values) {
  settings out;
  auto text = [](const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>)
      return v;
    else if constexpr (std::is_same_v<T, bool>)
      return std::string(v ? "on" : "off");
    else
      return format_number(static_cast<double>(v));
  };
#define LLM_MEMORY_TEXT(k, ...) out.emplace(#k, text(values.k));
  LLM_MEMORY_SETTINGS(LLM_MEMORY_TEXT)
#undef LLM_MEMORY_TEXT
  return out;
}

}  // namespace llm_memory
