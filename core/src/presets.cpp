// SPDX-License-Identifier: MIT
// Presets are parsed from the JSON compiled in from core/data/ (the page's wasm module is handed the models'
// entries by JS instead, each with its config.json's settings written out: entry_with_settings): each model when
// first asked for, the GPUs once.
#include "llm_memory/presets.hpp"

#include "json_value.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <mutex>
#include <vector>

#include "embedded_data.hpp"
#include "fast_lookups.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using json = detail::json;

std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// An entry's aliases (its "aliases" strings).
std::vector<std::string> aliases_of(const json& entry) {
  std::vector<std::string> out;
  if (const auto it = entry.find("aliases"); it != entry.end() && it->is_array())
    for (const auto& alias : *it)
      if (alias.is_string()) out.push_back(alias.get<std::string>());
  return out;
}

model_preset make_model(const json& m) {
  model_preset p;
  p.id = str(m, "id");
  p.name = str(m, "name");
  p.hf_repo = str(m, "hf_repo");
  p.source = str(m, "source");
  p.note = str(m, "note");
  p.aliases = aliases_of(m);
  if (const auto it = m.find("official_params"); it != m.end() && it->is_number_integer())
    p.official_params = it->get<std::int64_t>();
  if (const auto it = m.find("config"); it != m.end()) {
    auto fields = detail::preset_config(it->dump());
    if (fields.ok()) p.fields = fields.value();
  }
  // The page's presets come with their config.json read already (wasm/preset_settings.cpp).
  if (const auto it = m.find("settings"); it != m.end() && it->is_object())
    for (const auto& [key, value] : it->members())
      p.fields[key] = value.is_string() ? value.get<std::string>() : value.dump();
  // The Hub checkpoint's storage format (quantization_config) is kept apart: resolve makes it the default of the
  // runs that load the checkpoint as shipped (inference outside llama.cpp / Ollama), not of every run naming it.
  for (const char* key : {"weights_dtype", "double_quant", "quant_bits", "quant_group_size", "quant_skip_layers"})
    if (const auto field = p.fields.find(key); field != p.fields.end()) {
      p.shipped.insert(*field);
      p.fields.erase(field);
    }
  return p;
}

// A number field of a catalogue entry, 0 when absent or null (a figure not published).
double number(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

constexpr double gib = 1073741824.0;

device_backend backend_of(std::string_view name) {
  for (const device_backend b :
       {device_backend::cuda, device_backend::rocm, device_backend::metal, device_backend::xpu, device_backend::gaudi})
    if (backend_name(b) == name) return b;
  return device_backend::cuda;
}

// The memory an estimate compares with: what the framework sees where it is published, else the driver's total,
// else the marketed size; Apple silicon's is Metal's working set of the unified memory (docs/devices.md).
void pick_memory(gpu_preset& p) {
  if (p.backend == device_backend::metal) {
    p.basis = memory_basis::working_set;
    p.memory_bytes = metal_working_set_bytes(p.unified_memory_bytes);
  } else if (p.visible_bytes > 0) {
    p.basis = memory_basis::framework;
    p.memory_bytes = p.visible_bytes;
  } else if (p.reported_bytes > 0) {
    p.basis = memory_basis::driver;
    p.memory_bytes = p.reported_bytes;
  } else {
    p.basis = memory_basis::nominal;
    p.memory_bytes = p.marketed_bytes;
  }
}

gpu_preset make_gpu(const json& g) {
  gpu_preset p;
  p.id = str(g, "id");
  p.aliases = aliases_of(g);
  p.name = str(g, "name");
  p.vendor = str(g, "vendor");
  p.segment = str(g, "segment");
  p.backend = backend_of(str(g, "backend"));
  p.marketed_bytes = number(g, "marketed_gb") * gib;
  p.visible_bytes = number(g, "visible_bytes");
  p.reported_bytes = number(g, "reported_bytes");
  if (const auto it = g.find("unified"); it != g.end() && it->is_boolean() && it->get<bool>())
    p.unified_memory_bytes = p.marketed_bytes;
  p.bandwidth_bytes_per_s = number(g, "bandwidth_gb_s") * 1e9;
  p.bf16_flops = number(g, "bf16_tflops") * 1e12;
  p.fp8_flops = number(g, "fp8_tflops") * 1e12;
  p.interconnect = str(g, "interconnect");
  p.source = str(g, "source");
  p.note = str(g, "note");
  pick_memory(p);
  return p;
}

std::vector<gpu_preset> load_gpus() {
  std::vector<gpu_preset> out;
  const json root = detail::parse_json(detail::gpus_json);
  if (!root.is_object() || !root.contains("gpus")) return out;
  for (const auto& g : root["gpus"]) out.push_back(make_gpu(g));
  return out;
}

// One preset of the catalogue: its id and entry text (the preset mapped from it sits at the same index).
struct model_slot {
  std::string_view id;       ///< the preset id
  std::string_view text;     ///< the entry's JSON (static data, or a string owned by the store)
  std::string_view aliases;  ///< the entry's aliases, each followed by one space (embedded_model::aliases)
  bool mapped = false;       ///< whether the preset has been mapped from `text` yet

  [[nodiscard]] bool named(std::string_view name) const {
    if (name.empty()) return false;
    if (id == name) return true;
    for (std::size_t at = aliases.find(name); at != std::string_view::npos; at = aliases.find(name, at + 1))
      if ((at == 0 || aliases[at - 1] == ' ') && at + name.size() < aliases.size() && aliases[at + name.size()] == ' ')
        return true;
    return false;
  }
};

// Calls `f` with each alias of a list as model_slot holds them (each followed by one space).
template <class F>
void for_each_alias(std::string_view aliases, const F& f) {
  for (std::size_t at = aliases.find(' '); at != std::string_view::npos; at = aliases.find(' ')) {
    f(aliases.substr(0, at));
    aliases.remove_prefix(at + 1);
  }
}

// Levenshtein distance: the fewest insertions, deletions and substitutions that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "a, b <word> c": ids for an error message.
std::string listed(const std::vector<std::string_view>& ids, std::string_view word) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i)
    out += (i == 0 ? "" : i + 1 == ids.size() ? " " + std::string(word) + " " : ", ") + std::string(ids[i]);
  return out;
}

// The preset key a model box's text names: lower-case, without a Hugging Face organisation ("Qwen/") or the
// "-hf" suffix, as the ids are written (model_preset::id).
std::string model_key(std::string_view text) {
  std::string key = detail::lower(detail::trim(text));
  if (const std::size_t slash = key.rfind('/'); slash != std::string::npos) key.erase(0, slash + 1);
  if (key.ends_with("-hf")) key.resize(key.size() - 3);
  return key;
}

// An entry's aliases as model_slot holds them: each followed by one space.
std::string alias_list(const json& entry) {
  std::string out;
  for (const std::string& alias : aliases_of(entry)) out += alias + ' ';
  return out;
}

// The catalogue's presets, each mapped from its config.json on first use: an estimate needs one (the page's
// first result waits for it), the listings need them all; either way a preset is mapped once. The native build
// starts with every preset compiled in; the page's wasm module starts empty and is handed entries (add_models).
class model_store {
 public:
  model_store() {
    for (const auto& e : detail::model_entries) slots_.push_back({e.id, e.json, e.aliases});
    presets_.resize(slots_.size());
  }

  const model_preset* find(std::string_view id) {
    const std::lock_guard guard(lock_);
    const std::size_t i = index(id);
    return i < slots_.size() ? &mapped(i) : nullptr;
  }

  // The presets `key` names (its id or an alias), and, when none or several do, up to 3 ids nearest to it.
  result<const model_preset*> lookup(std::string_view key, std::string_view typed) {
    const std::lock_guard guard(lock_);
    std::vector<std::size_t> hits;
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].named(key)) hits.push_back(i);
    if (hits.size() == 1) return &mapped(hits.front());
    if (hits.size() > 1) {
      std::vector<std::string_view> ids;
      for (const std::size_t i : hits) ids.push_back(slots_[i].id);
      return error{"model", "model " + detail::quoted(typed) + " names several presets (" + listed(ids, "and") +
                                "); give one of their ids"};
    }
    const std::vector<std::string_view> near = nearest(key);
    return error{"model", "unknown model " + detail::quoted(typed) + ": not a preset" +
                              (near.empty() ? std::string() : "; did you mean " + listed(near, "or") + "?") +
                              " (the CLI's --list-models and the page's model picker list them)"};
  }

  std::span<const model_preset> all() {
    const std::lock_guard guard(lock_);
    for (std::size_t i = 0; i < slots_.size(); ++i) mapped(i);
    return presets_;
  }

  // Adds the entries of `entries` (a JSON array of entry objects) in their order, ahead of presets added
  // earlier that it does not hold (so the whole catalogue handed over after one of its presets lists in file
  // order); an id already present keeps its entry and mapping.
  std::size_t add(const json& entries) {
    const std::lock_guard guard(lock_);
    std::vector<model_slot> slots;
    std::vector<model_preset> presets;
    std::size_t added = 0;
    const auto move_from = [&](std::size_t i) {
      slots.push_back(slots_[i]);
      presets.push_back(std::move(presets_[i]));
      slots_[i].id = {};  // taken
    };
    for (const auto& entry : entries) {
      const std::string id = str(entry, "id");
      if (id.empty() || std::any_of(slots.begin(), slots.end(), [&](const model_slot& s) { return s.id == id; }))
        continue;
      if (const std::size_t i = index_of_id(id); i < slots_.size()) {
        move_from(i);
        continue;
      }
      const std::string_view owned_id = owned_.emplace_back(id);
      const std::string_view owned_text = owned_.emplace_back(entry.dump());
      slots.push_back({owned_id, owned_text, owned_.emplace_back(alias_list(entry))});
      presets.emplace_back();
      ++added;
    }
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (!slots_[i].id.empty()) move_from(i);
    slots_ = std::move(slots);
    presets_ = std::move(presets);
    ++generation_;
    return added;
  }

  std::size_t generation() {
    const std::lock_guard guard(lock_);
    return generation_;
  }

 private:
  // The first slot that `matches`; slots_.size() when none does.
  template <class Match>
  std::size_t first(const Match& matches) const {
    return static_cast<std::size_t>(std::find_if(slots_.begin(), slots_.end(), matches) - slots_.begin());
  }
  // The slot named `name` (its id or an alias).
  std::size_t index(std::string_view name) const {
    return first([&](const model_slot& s) { return s.named(name); });
  }
  std::size_t index_of_id(std::string_view id) const {
    return first([&](const model_slot& s) { return s.id == id; });
  }

  // Up to `suggestions` preset ids whose id or an alias is within a few edits of `key`, the nearest first (ties in
  // catalogue order): a typo or a missing suffix, not an unrelated name.
  std::vector<std::string_view> nearest(std::string_view key) const {
    constexpr std::size_t suggestions = 3;
    constexpr std::size_t longest_name = 100;  // longer text is no typo of an id (and the distance is quadratic)
    if (key.size() > longest_name) return {};
    const std::size_t limit = std::max<std::size_t>(3, key.size() / 3);
    std::vector<std::pair<std::size_t, std::size_t>> scored;  // (distance, slot)
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      std::size_t best = edit_distance(key, slots_[i].id);
      for_each_alias(slots_[i].aliases,
                     [&](std::string_view alias) { best = std::min(best, edit_distance(key, alias)); });
      if (best <= limit) scored.emplace_back(best, i);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string_view> out;
    for (std::size_t k = 0; k < scored.size() && k < suggestions; ++k) out.push_back(slots_[scored[k].second].id);
    return out;
  }

  const model_preset& mapped(std::size_t i) {
    if (!slots_[i].mapped) {
      presets_[i] = make_model(detail::parse_json(slots_[i].text));
      slots_[i].mapped = true;
    }
    return presets_[i];
  }

  std::mutex lock_;
  std::vector<model_slot> slots_;
  std::vector<model_preset> presets_;  // presets_[i] mapped from slots_[i]
  std::deque<std::string> owned_;      // ids and entry texts handed over by add_models; a deque keeps them in place
  std::size_t generation_ = 0;         // how many add()s: a preset's address holds until the next
};

model_store& models() {
  static model_store store;
  return store;
}

}  // namespace

double metal_working_set_bytes(double unified_bytes) {
  // 32 GiB machines were measured at 2/3, 48 GiB at 3/4; 36 GiB, unmeasured, is taken at the lower fraction.
  constexpr double small_machine_limit = 36.0 * 1073741824.0;
  const double fraction = unified_bytes <= small_machine_limit ? 2.0 / 3.0 : 3.0 / 4.0;
  return std::floor(unified_bytes * fraction);
}

std::span<const model_preset> model_presets() { return models().all(); }

const model_preset* find_model(std::string_view id) { return models().find(id); }

result<const model_preset*> lookup_model(std::string_view text) {
  return models().lookup(model_key(text), detail::trim(text));
}

result<std::size_t> add_models(std::string_view json_text) {
  const json parsed = detail::parse_json(json_text);
  const bool entry = parsed.is_object() && parsed.contains("id");
  const bool valid = entry || (parsed.is_array() && std::all_of(parsed.begin(), parsed.end(), [](const json& e) {
                                 return e.is_object() && e.contains("id") && e["id"].is_string();
                               }));
  if (!valid)
    return error{"models", "must be a model preset object or an array of them, as core/data/models.json holds"};
  const json entries = entry ? json::array({parsed}) : parsed;
  for (const auto& e : entries)
    if (const auto it = e.find("config"); it != e.end())
      if (const auto config = detail::preset_config(it->dump()); !config.ok())
        return error{"models", "entry " + detail::quoted(str(e, "id")) + ", config." + config.errors().front().setting +
                                   ": " + config.errors().front().message};
  return models().add(entries);
}

namespace detail {

std::size_t catalogue_generation() { return models().generation(); }

std::string entry_with_settings(const embedded_model& entry) {
  json out = parse_json(entry.json);
  std::erase_if(out.members(), [](const auto& member) { return member.first == "config"; });
  // Every setting the config.json gives, the shipped format with them (make_model keeps it apart again on load).
  const model_preset preset = make_model(parse_json(entry.json));
  settings all = preset.fields;
  all.insert(preset.shipped.begin(), preset.shipped.end());
  out["settings"] = object_of(all);
  return out.dump();
}

}  // namespace detail

std::span<const gpu_preset> gpu_presets() {
  static const std::vector<gpu_preset> presets = load_gpus();
  return presets;
}

const gpu_preset* find_gpu(std::string_view id) {
  // Every estimate and each ranking's runs look their device up: from the first ranking on, by its index.
  if (const detail::fast_lookups* fast = detail::installed_fast_lookups; fast != nullptr) return fast->gpu(id);
  for (const auto& p : gpu_presets())
    if (p.id == id || std::find(p.aliases.begin(), p.aliases.end(), id) != p.aliases.end()) return &p;
  return nullptr;
}

std::string_view basis_words(memory_basis basis) {
  switch (basis) {
    case memory_basis::framework: return "what PyTorch reports (total_memory)";
    case memory_basis::driver: return "the driver's total (nvidia-smi); PyTorch sees a few hundred MiB less";
    case memory_basis::nominal: return "the marketed size: no reported figure is published";
    case memory_basis::working_set: return "Metal's default working set of the unified memory";
  }
  return "";
}

std::string_view backend_name(device_backend backend) {
  switch (backend) {
    case device_backend::cuda: return "cuda";
    case device_backend::rocm: return "rocm";
    case device_backend::metal: return "metal";
    case device_backend::xpu: return "xpu";
    case device_backend::gaudi: return "gaudi";
  }
  return "";
}

}  // namespace llm_memory
