// SPDX-License-Identifier: MIT
// Framework generic: the seeds' textbook arithmetic. No profile and no phase model (every bucket summed); DDP's and
// DeepSpeed's communication buffers; the device search tries DeepSpeed's ZeRO stages and tp.
#include <array>

#include "frameworks/framework_def.hpp"
#include "settings_apply.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

constexpr std::array<std::int64_t, 4> stages = {0, 1, 2, 3};

// Whether a row's `applies` column names `rule` ("training,phased_framework").
bool names_rule(std::string_view column, std::string_view rule) {
  for (const std::string_view id : split(column, ','))
    if (id == rule) return true;
  return false;
}

// The phase model's settings (the table's `phased_framework` rule, in the table's order): when a generic run sets
// any of them, the note names them all as ignored by the sum.
void notes(const run_spec& r, std::vector<std::string>& out) {
  static const settings defaults = to_settings(default_values());
  const settings values = to_settings(r.values);
  std::vector<std::string_view> keys;
  bool changed = false;
  for (const setting_def& row : setting_table()) {
    if (!names_rule(row.applies, "phased_framework")) continue;
    keys.push_back(row.key);
    const auto key = std::string(row.key);
    changed = changed || values.at(key) != defaults.at(key);
  }
  if (!changed) return;
  std::string list;
  for (std::size_t i = 0; i < keys.size(); ++i)
    list.append(i == 0 ? "" : i + 1 == keys.size() ? " and " : ", ").append(keys[i]);
  out.push_back("framework generic sums every bucket: " + list + " are ignored");
}

}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def generic_framework{
    .kind = framework_kind::generic,
    .printed = "device",  // as hf's
    .phased = false,
    .ddp_buffers = true,
    // The textbook arithmetic: the optimizer state on the CPU at any stage, the parameters too at ZeRO-3.
    .offloads = {.optimizer_from_zero = 0, .params = true},
    .zero_stages = stages,  // DeepSpeed's 0-3
    .searches_tp = true,    // the generic model
    .notes = notes,
};

}  // namespace llm_memory::detail
