// SPDX-License-Identifier: MIT
// The --emit command (emit_command.hpp).
#include "emit_command.hpp"

#include <cstdio>

#include <fmt/core.h>

#include "errors.hpp"
#include "json_value.hpp"
#include "llm_memory/emit.hpp"
#include "llm_memory/report.hpp"
#include "text.hpp"

namespace llm_memory::cli {

namespace {

std::string emitted_json(const std::string& format, const emitted& out) {
  detail::json o = detail::json::object();
  o["format"] = format;
  o["text"] = out.text;
  detail::json missing = detail::json::array();
  for (const auto& key : out.not_carried) missing.push_back(key);
  o["not_carried"] = std::move(missing);
  return o.dump(2);
}

}  // namespace

std::string emit_format_list() {
  const auto formats = detail::split(emit_formats, '|');
  std::string out;
  for (std::size_t i = 0; i < formats.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == formats.size() ? " or " : ", ") + std::string(formats[i]);
  return out;
}

int emit_output(const std::string& format, const run_spec& spec, bool json) {
  const auto out = emit(spec.values, format);
  if (!out.ok()) {
    print_errors(out.errors());
    if (json) fmt::print("{}\n", errors_to_json(out.errors()));
    return exit_usage;
  }
  if (json) {
    fmt::print("{}\n", emitted_json(format, out.value()));
    return 0;
  }
  const std::string& text = out.value().text;
  fmt::print("{}", text);
  std::string missing;
  for (const auto& key : out.value().not_carried) missing += (missing.empty() ? "" : ", ") + key;
  if (missing.empty()) return 0;
  // A JSON config has no comment syntax: the line goes beside it, so the file stays one a reader takes.
  const bool is_json = detail::trim(text).starts_with('{');
  fmt::print(is_json ? stderr : stdout, "# not carried by this command: {}\n", missing);
  return 0;
}

}  // namespace llm_memory::cli
