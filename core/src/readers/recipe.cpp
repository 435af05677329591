// SPDX-License-Identifier: MIT
// The training-recipe readers' shared parts (recipe.hpp).
#include "readers/recipe.hpp"

#include <array>

#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

bool row_looks_into(std::span<const key_row> rows, const std::string& path) {
  for (const auto& row : rows)
    if (row.path.starts_with(path + ".")) return true;
  return false;
}

const key_row* row_of(std::span<const key_row> rows, const std::string& path) {
  for (const auto& row : rows)
    if (row.path == path) return &row;
  return nullptr;
}

void walk_object(const json& obj, const std::string& prefix, std::span<const key_row> rows, launch_read& out,
                 std::vector<key_hit>& hits) {
  for (const auto& [key, value] : obj.members()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (const auto* row = row_of(rows, path)) {
      if (row->action != 0)
        hits.push_back({row->action, path, &value});
      else
        ignore(out, path, row->why);
    } else if (value.is_object() && row_looks_into(rows, path)) {
      walk_object(value, path, rows, out, hits);
    } else {
      ignore(out, path, "not read: no memory setting depends on it");
    }
  }
}

}  // namespace

std::vector<key_hit> walk_keys(const json& doc, std::span<const key_row> rows, launch_read& out) {
  std::vector<key_hit> hits;
  walk_object(doc, "", rows, out, hits);
  return hits;
}

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_array()) {
    std::string joined;
    for (const auto& item : v) joined += (joined.empty() ? "" : ",") + scalar_text(item);
    return joined;
  }
  return v.dump();
}

std::optional<bool> truth(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  const std::string t = lower(scalar_text(v));
  if (t == "true" || t == "yes" || t == "on" || t == "1") return true;
  if (t == "false" || t == "no" || t == "off" || t == "0") return false;
  return std::nullopt;
}

std::optional<bool> read_truth(launch_read& out, const key_hit& hit) {
  const auto t = truth(*hit.value);
  if (!t) out.errors.push_back({hit.path, "must be true or false, got " + quoted(scalar_text(*hit.value))});
  return t;
}

bool is_auto(launch_read& out, const key_hit& hit) {
  if (lower(scalar_text(*hit.value)) != "auto") return false;
  ignore(out, hit.path, "\"auto\": the Trainer fills it from its own arguments; give them (or the setting)");
  return true;
}

void set_from(launch_read& out, const key_hit& hit, std::string_view key) {
  if (hit.value->is_null()) return ignore(out, hit.path, "null: the framework's default");
  if (hit.value->is_object() || hit.value->is_array())
    return out.errors.push_back({hit.path, std::string(key) + ": must be one value, got a list or a mapping"});
  set_setting(out, hit.path, key, scalar_text(*hit.value));
}

namespace {

struct optim_name {
  std::string_view name;       // TrainingArguments.optim
  std::string_view optimizer;  // the optimizer setting
  std::string_view impl;       // optimizer_impl ("": the framework's)
};

// transformers training_args.py OptimizerNames (v4.57): the ones with a state layout we model.
constexpr std::array<optim_name, 14> optim_names{{
    {"adamw_torch", "adamw", "foreach"},      // torch.optim.AdamW, foreach on CUDA
    {"adamw_hf", "adamw", "foreach"},         // removed in 4.47: its own loop, one state-sized transient
    {"adamw_torch_fused", "adamw", "fused"},  //
    {"adamw_apex_fused", "adamw", "fused"},   //
    {"adamw_bnb_8bit", "adamw_8bit", ""},     // bitsandbytes AdamW8bit
    {"adamw_8bit", "adamw_8bit", ""},         // the same (an alias in OptimizerNames)
    {"paged_adamw_8bit", "adamw_8bit", "paged"},
    {"paged_adamw_32bit", "adamw", "paged"},
    {"paged_adamw", "adamw", "paged"},
    {"lion_32bit", "lion", ""},
    {"paged_lion_32bit", "lion", "paged"},
    {"sgd", "sgd", ""},
    {"adafactor", "adafactor", ""},
    {"adamw_torch_4bit", "", ""},  // torchao 4-bit states: no such optimizer setting
}};

}  // namespace

void read_hf_optim(launch_read& out, const key_hit& hit) {
  const std::string name = lower(scalar_text(*hit.value));
  for (const auto& row : optim_names) {
    if (row.name != name || row.optimizer.empty()) continue;
    set_setting(out, hit.path, "optimizer", std::string(row.optimizer));
    if (!row.impl.empty()) set_setting(out, hit.path, "optimizer_impl", std::string(row.impl));
    return;
  }
  ignore(out, hit.path, "an optimizer with no optimizer setting of its kind: give --optimizer");
}

void read_peft_key(launch_read& out, const key_hit& hit) {
  switch (static_cast<peft_action>(hit.action)) {
    case peft_load_in_4bit:
    case peft_load_in_8bit:
      if (read_truth(out, hit) == true)
        set_setting(out, hit.path, "weights_dtype", hit.action == peft_load_in_4bit ? "nf4" : "int8");
      return;
    case peft_lora_rank: return set_from(out, hit, "lora_rank");
    case peft_lora_dropout: return set_from(out, hit, "lora_dropout");
    case peft_lora_targets: return set_setting(out, hit.path, "lora_targets", scalar_text(*hit.value));
  }
}

void lora_on_nf4_is_qlora(launch_read& out, std::string_view key) {
  const auto weights = out.values.find("weights_dtype");
  const auto method = out.values.find("finetune");
  if (weights != out.values.end() && weights->second == "nf4" && method != out.values.end() && method->second == "lora")
    set_setting(out, key, "finetune", "qlora");
}

void read_hf_attention(launch_read& out, const key_hit& hit) {
  const std::string name = lower(scalar_text(*hit.value));
  if (name == "flash_attention_2" || name == "flash_attention_3" || name == "fa2" || name == "flash")
    return set_setting(out, hit.path, "attention", "flash");
  if (name == "sdpa" || name == "eager") return set_setting(out, hit.path, "attention", name);
  ignore(out, hit.path, "an attention implementation with no attention setting of its kind");
}

void training_run(launch_read& out, std::string_view framework, std::string_view tool) {
  set_setting(out, out.command, "mode", "train");
  set_setting(out, out.command, "framework", std::string(framework));
  if (!tool.empty())
    out.notes.push_back(std::string(tool) + " has no profile of its own yet: its nearest, framework " +
                        std::string(framework) + ", is used");
}

void note_file(launch_read& out, const key_hit& hit, std::string_view what) {
  if (hit.value->is_null()) return ignore(out, hit.path, "null: none");
  out.notes.push_back(hit.path + " names " + std::string(what) + " " + quoted(scalar_text(*hit.value)) +
                      ": it is not opened; give it as another --from to read it");
}

bool is_document(std::string_view text) {
  for (const auto line : split(text, '\n')) {
    const auto t = trim(line);
    if (t.empty() || t.starts_with('#')) continue;
    if (t.starts_with('{') || t == "---") return true;
    // `key:` or `key: value`, the key a plain word (a command's first word never ends with a colon).
    const auto colon = t.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    if (colon + 1 < t.size() && t[colon + 1] != ' ' && t[colon + 1] != '\t' && t[colon + 1] != '\r') return false;
    const auto key = t.substr(0, colon);
    return key.find_first_of(" \t\"'=$") == std::string_view::npos;
  }
  return false;
}

}  // namespace llm_memory::detail
