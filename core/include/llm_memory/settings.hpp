// SPDX-License-Identifier: MIT
// The settings table (settings_list.hpp) as data, the raw key -> text map every front end fills, and the
// parsed values. Resolution (defaults <- model preset <- config.json <- explicit values, and every check) is the
// resolve stage: resolve.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/result.hpp"
#include "llm_memory/settings_list.hpp"

namespace llm_memory {

enum class setting_kind {
  integer,  ///< whole number ("4", "1e3")
  number,   ///< real number ("1.2")
  count,    ///< number with optional K/M/B/T suffix ("7e9", "7B", "0.5")
  bytes,    ///< number with optional unit B/KB/MB/GB/TB/KiB/MiB/GiB/TiB ("80GB")
  flag,     ///< on|off (also true/false, yes/no, 1/0)
  choice,   ///< one of `choices`
  text,     ///< free text (preset ids, module lists)
};

[[nodiscard]] std::string_view to_string(setting_kind kind);

/// One row of the settings table.
struct setting_def {
  std::string_view key;  ///< CLI flag, URL key, widget attribute and JSON key
  setting_kind kind = setting_kind::text;
  std::string_view default_value;  ///< as a user would type it
  double min_value = 0;            ///< inclusive lower bound (numeric kinds)
  double max_value = 0;            ///< inclusive upper bound (numeric kinds)
  std::string_view choices;        ///< "a|b|c" (choice kind)
  std::string_view unit;           ///< unit of the value, for help text
  std::string_view group;          ///< model | workload | finetune | precision | parallelism | device
  std::string_view doc;            ///< one line of help
  std::string_view label;          ///< human name shown by the page and the widget ("Context length")
  std::string_view choice_labels;  ///< human names of `choices`, "A|B|C" in the same order (choice kind)
  std::string_view applies;  ///< "rule,rule" (applies_rules() ids) that must all hold for it to be read; "" = always
};

/// One condition of the table's `applies` column: a setting it names is read only where it holds, so the page
/// hides it elsewhere (web/ui/applicability.js holds each rule's test; the core's "ignored" notes agree).
struct applies_rule {
  std::string_view id;    ///< as the `applies` column spells it ("lora_or_qlora")
  std::string_view when;  ///< words for people: where it holds ("LoRA or QLoRA")
};

/// Every rule the `applies` column may name, in the order a row lists them.
[[nodiscard]] std::span<const applies_rule> applies_rules();

/// Every setting, in display order.
[[nodiscard]] std::span<const setting_def> setting_table();
/// The row for `key`, or nullptr.
[[nodiscard]] const setting_def* find_setting(std::string_view key);

/// Most sequences per optimizer step (batch x grad_accum x data-parallel devices) that resolve() accepts: 2^53,
/// so the effective batch stays an exact integer in JSON (a double in JavaScript). [sequences]
inline constexpr double max_sequences_per_step = 9007199254740992.0;

/// Raw settings as the user typed them (CLI flags, URL query, widget attributes), by key.
using settings = std::map<std::string, std::string, std::less<>>;

namespace detail {
template <setting_kind K>
struct value_type {
  using type = double;
};
template <>
struct value_type<setting_kind::integer> {
  using type = std::int64_t;
};
template <>
struct value_type<setting_kind::flag> {
  using type = bool;
};
template <>
struct value_type<setting_kind::choice> {
  using type = std::string;
};
template <>
struct value_type<setting_kind::text> {
  using type = std::string;
};
}  // namespace detail

/// Every setting parsed and validated; field names are the settings keys. Units as in the table:
/// counts in parameters, sizes in bytes, lengths in tokens.
struct setting_values {
#define LLM_MEMORY_FIELD(key, kind, ...) detail::value_type<setting_kind::kind>::type key{};
  LLM_MEMORY_SETTINGS(LLM_MEMORY_FIELD)
#undef LLM_MEMORY_FIELD
};

/// Parses one value against its row; the error names the setting.
[[nodiscard]] result<double> parse_number(const setting_def& def, std::string_view text);

/// The text form of every resolved setting (for JSON output and URL round-trips).
[[nodiscard]] settings to_settings(const setting_values& values);

}  // namespace llm_memory
