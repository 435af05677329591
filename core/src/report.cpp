// SPDX-License-Identifier: MIT
#include "llm_memory/report.hpp"

#include "json_bytes.hpp"
#include "llm_memory/presets.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using json = detail::json;
using detail::json_bytes;

json layer_json(const layer_params& layer) {
  json j = {
      {"attention", json_bytes(layer.attention)}, {"mlp", json_bytes(layer.mlp)}, {"norms", json_bytes(layer.norms)}};
  if (layer.router > 0) j["router"] = json_bytes(layer.router);
  j["total"] = json_bytes(layer.total());
  return j;
}

json answer_json(const solve_answer& a) {
  const json delta = detail::object_of(a.delta);
  return {{"found", a.found},       {"value", a.value},    {"limit", a.limit},
          {"at_limit", a.at_limit}, {"varied", a.varied},  {"total", json_bytes(a.total_bytes)},
          {"delta", delta},         {"message", a.message}};
}

json solve_object(const solve_result& r) {
  return {{"fits", r.fits},
          {"total", json_bytes(r.total_bytes)},
          {"gpu_memory", json_bytes(r.gpu_memory_bytes)},
          {"headroom", json_bytes(r.headroom_bytes)},
          {"min_devices", answer_json(r.min_devices)},
          {"max_batch", answer_json(r.max_batch)},
          {"max_seq", answer_json(r.max_seq)}};
}

json knob_json(const knob_advice& k) {
  const json delta = detail::object_of(k.delta);
  json changes = json::array();
  for (const auto& c : k.changes)
    changes.push_back({{"bucket", c.bucket},
                       {"before", json_bytes(c.before)},
                       {"after", json_bytes(c.after)},
                       {"saved", json_bytes(c.saved())}});
  return {{"id", k.id},
          {"name", k.name},
          {"delta", delta},
          {"drains", k.drains},
          {"changes", changes},
          {"total", json_bytes(k.total_bytes)},
          {"saved", json_bytes(k.saved_bytes)},
          {"added", json_bytes(k.added_bytes())},
          {"tier", k.tier},
          {"cpu_bytes", json_bytes(k.cpu_bytes)},
          {"fits", k.fits},
          {"note", k.note}};
}

// The cheapest combination (advise.hpp): null when the setting fits already (nothing searched).
json combination_json(const knob_combination& c) {
  if (!c.searched) return nullptr;
  const json delta = detail::object_of(c.delta);
  return {{"found", c.found},
          {"knobs", c.ids},
          {"names", c.names},
          {"delta", delta},
          {"total", json_bytes(c.total_bytes)},
          {"cpu_bytes", json_bytes(c.cpu_bytes)},
          {"cost", c.cost},
          {"same_hardware", c.same_hardware},
          {"max_knobs", c.max_knobs},
          {"evaluated", c.evaluated}};
}

json advice_object(const advice_result& r) {
  json knobs = json::array();
  for (const auto& k : r.knobs) knobs.push_back(knob_json(k));
  json skipped = json::array();
  for (const auto& s : r.skipped) skipped.push_back({{"name", s.name}, {"reason", s.reason}});
  return {{"total", json_bytes(r.total_bytes)},
          {"gpu_memory", json_bytes(r.gpu_memory_bytes)},
          {"fits", r.fits},
          {"largest_bucket", r.largest_bucket},
          {"knobs", knobs},
          {"skipped", skipped},
          {"cheapest", combination_json(r.cheapest)}};
}

// One way out: its delta with the settings it clears as null (the page's edit drops a null key).
json way_json(const way_out& w) {
  json delta = detail::object_of(w.delta);
  for (const auto& key : w.cleared) delta[key] = nullptr;
  return {{"way", w.way},   {"group", w.group}, {"text", w.text}, {"total", json_bytes(w.total_bytes)},
          {"fits", w.fits}, {"delta", delta},   {"note", w.note}};
}

json ways_out_object(const ways_out_result& r) {
  json ways = json::array();
  for (const auto& w : r.ways) ways.push_back(way_json(w));
  return {{"fits", r.fits}, {"ways", ways}};
}

json buckets_json(const estimate_result& r) {
  json buckets = json::array();
  for (const auto& b : r.buckets) {
    json items = json::array();
    for (const auto& i : b.items)
      items.push_back({{"name", i.name}, {"bytes", json_bytes(i.bytes)}, {"formula", i.formula}});
    buckets.push_back({{"key", b.key},
                       {"label", b.label},
                       {"bytes", json_bytes(b.bytes)},
                       {"includes", b.includes},
                       {"assumes", b.assumes},
                       {"items", items}});
  }
  return buckets;
}

json peak_json(const estimate_result& r) {
  json phases = json::array();
  for (const auto& p : r.phases) phases.push_back({{"phase", p.phase}, {"allocated", json_bytes(p.allocated)}});
  return {{"allocated", json_bytes(r.peak.allocated)},
          {"reserved", json_bytes(r.peak.reserved)},
          {"device", json_bytes(r.peak.device)},
          {"phase", r.peak.phase},
          {"printed", r.peak.printed},
          {"phases", phases}};
}

// A hybrid's layers, group by group: the token mixer, the MLP, how many and one layer's parameters.
json groups_json(const param_breakdown& p) {
  json groups = json::array();
  for (const layer_group& g : p.groups)
    if (g.count > 0)
      groups.push_back(
          {{"mixer", name_of(g.mixer)}, {"mlp", name_of(g.mlp)}, {"layers", g.count}, {"layer", layer_json(g.params)}});
  return groups;
}

json breakdown_json(const model_spec& m) {
  const param_breakdown& p = m.params;
  json breakdown = {{"embedding", json_bytes(p.embedding)},
                    {"lm_head", json_bytes(p.lm_head)},
                    {"final_norm", json_bytes(p.final_norm)},
                    {"dense_layers", p.layers_with(mlp_kind::dense)},
                    {"dense_layer", layer_json(p.layer_with(mlp_kind::dense))}};
  if (p.moe_layers() > 0) {
    breakdown["moe_layers"] = p.moe_layers();
    breakdown["moe_layer"] = layer_json(p.layer_with(mlp_kind::moe));
  }
  if (m.hybrid()) breakdown["layer_groups"] = groups_json(p);
  if (p.encoder_layers > 0) {  // an encoder-decoder's encoder stack (dense_layer is then the decoder layer)
    breakdown["encoder_layers"] = p.encoder_layers;
    breakdown["encoder_layer"] = layer_json(p.encoder_layer);
  }
  if (p.extra > 0) breakdown["extra"] = json_bytes(p.extra);
  breakdown["total"] = json_bytes(p.total);
  breakdown["active"] = json_bytes(p.active);
  return breakdown;
}

// The runtime's own terms: a budget with its KV capacity (vLLM, SGLang, TGI) or llama.cpp's buffers.
json runtime_json(const runtime_report& r) {
  json out = {{"name", runtime_name(r.name)}};
  if (r.has_buffers) {
    out["buffers"] = {{"model", json_bytes(r.model_buffer)},
                      {"host", json_bytes(r.host_buffer)},
                      {"kv", json_bytes(r.kv_buffer)},
                      {"compute", json_bytes(r.compute_buffer)},
                      {"host_compute", json_bytes(r.host_compute_buffer)}};
    out["kv_cells"] = r.kv_cells;
    out["max_context"] = r.max_context;
    return out;
  }
  if (r.budget <= 0) return out;
  json items = json::array();
  for (const auto& t : r.terms)
    items.push_back({{"name", t.name}, {"bytes", json_bytes(t.bytes)}, {"formula", t.formula}});
  out["budget"] = json_bytes(r.budget);
  out["items"] = items;
  out["kv_available"] = json_bytes(r.kv_available);
  out["kv_capacity_tokens"] = json_bytes(r.kv_capacity_tokens);
  if (r.kv_pool > 0) out["kv_pool"] = json_bytes(r.kv_pool);
  out["max_concurrency"] = r.max_concurrency;
  out["max_context"] = r.max_context;
  return out;
}

// {"tensors", "params", "bytes", "by_dtype": {dtype: {"tensors", "params", "bytes"}}}; params counts elements.
json checkpoint_object(const checkpoint_summary& c) {
  json by_dtype = json::object();
  for (const auto& [name, d] : c.by_dtype)
    by_dtype[name] = {{"tensors", d.tensors}, {"params", json_bytes(d.elements)}, {"bytes", json_bytes(d.bytes)}};
  return {{"tensors", c.tensors},
          {"params", json_bytes(c.elements)},
          {"bytes", json_bytes(c.bytes)},
          {"params_are_parameters", !c.packed},
          {"by_dtype", by_dtype}};
}

// A row's `applies` column as [{rule, when}], in its order: the page hides the setting while a rule fails and
// says which (web/ui/applicability.js).
json applies_json(std::string_view column) {
  json list = json::array();
  for (auto id : detail::split(column, ','))
    for (const auto& rule : applies_rules())
      if (rule.id == id) list.push_back({{"rule", rule.id}, {"when", rule.when}});
  return list;
}

json errors_list(const std::vector<error>& errors) {
  json list = json::array();
  for (const auto& e : errors) list.push_back({{"setting", e.setting}, {"message", e.message}});
  return list;
}

// What a launch command said: {ok, command, settings, read, ignored, notes, errors}.
json launch_object(const launch_read& r) {
  json read = json::array();
  for (const auto& o : r.read) {
    json entry = {{"option", o.option}, {"setting", o.setting}, {"value", o.value}};
    if (!o.file.empty()) entry["file"] = o.file;  // several files combined (combine_launches)
    if (o.overridden) entry["overridden"] = true;
    read.push_back(std::move(entry));
  }
  json ignored = json::array();
  for (const auto& o : r.ignored) {
    json entry = {{"option", o.option}, {"why", o.why}};
    if (!o.file.empty()) entry["file"] = o.file;
    ignored.push_back(std::move(entry));
  }
  return {{"ok", r.errors.empty()}, {"command", r.command}, {"settings", detail::object_of(r.values)}, {"read", read},
          {"ignored", ignored},     {"notes", r.notes},     {"errors", errors_list(r.errors)}};
}

// The speed bound (fits.hpp): an upper bound, every byte read once at the peak bandwidth.
json speed_json(const speed_bound& s) {
  return {{"upper_bound", true},
          {"device_bytes_per_token", json_bytes(s.device_bytes_per_token)},
          {"host_bytes_per_token", json_bytes(s.host_bytes_per_token)},
          {"decode_tokens_per_s", s.decode_tokens_per_s},
          {"batch_tokens_per_s", s.batch_tokens_per_s},
          {"prefill_tokens_per_s", s.prefill_tokens_per_s},
          {"formula", s.formula}};
}

// The estimate's object, as to_json writes it.
json estimate_object(const estimate_result& r, const solve_result* solved, const advice_result* advice,
                     const checkpoint_summary* checkpoint) {
  json bytes = json::object();
  for (const auto& b : r.buckets) bytes[b.key] = json_bytes(b.bytes);
  bytes["total"] = json_bytes(r.total_bytes);

  const json settings_json = detail::object_of(to_settings(r.settings));

  json out = {{"ok", true},
              {"version", version()},
              {"schema_version", json_schema_version},
              {"params", json_bytes(r.params)},
              {"trainable_params", json_bytes(r.trainable_params)},
              {"bytes", bytes},
              {"cpu_bytes", json_bytes(r.cpu_bytes)},
              {"devices", r.settings.devices},
              {"data_parallel", r.data_parallel},
              {"effective_batch", r.effective_batch},
              {"stage", r.stage},
              {"fits", r.fits},
              {"gpu_memory", json_bytes(r.gpu_memory_bytes)},
              {"peak", peak_json(r)},
              {"buckets", buckets_json(r)},
              {"param_breakdown", breakdown_json(r.model)},
              {"notes", r.notes},
              {"settings", settings_json}};
  if (r.inference) out["runtime"] = runtime_json(r.runtime);
  if (r.settings.host_ram > 0) out["fits_in_ram"] = r.fits_in_ram;  // only where host_ram asks for the check
  if (const gpu_preset* gpu = find_gpu(r.settings.gpu); gpu != nullptr)
    if (const auto speed = speed_of(r, *gpu)) out["speed"] = speed_json(*speed);
  if (solved != nullptr) out["solve"] = solve_object(*solved);
  if (advice != nullptr) out["advice"] = advice_object(*advice);
  if (checkpoint != nullptr) out["checkpoint"] = checkpoint_object(*checkpoint);
  return out;
}

}  // namespace

std::string_view version() { return LLM_MEMORY_VERSION; }

std::string to_json(const estimate_result& r, const solve_result* solved, const advice_result* advice, int indent,
                    const checkpoint_summary* checkpoint) {
  return estimate_object(r, solved, advice, checkpoint).dump(indent);
}

std::string to_json(const estimate_result& r, const ways_out_result& ways, const solve_result* solved,
                    const advice_result* advice, int indent, const checkpoint_summary* checkpoint) {
  json out = estimate_object(r, solved, advice, checkpoint);
  out["ways_out"] = ways_out_object(ways);
  return out.dump(indent);
}

std::string to_json(const estimate_result& r, const launch_read& from, const ways_out_result* ways,
                    const solve_result* solved, const advice_result* advice, int indent,
                    const checkpoint_summary* checkpoint) {
  json out = estimate_object(r, solved, advice, checkpoint);
  if (ways != nullptr) out["ways_out"] = ways_out_object(*ways);
  out["from"] = launch_object(from);
  return out.dump(indent);
}

std::string launch_to_json(const launch_read& r, int indent) { return launch_object(r).dump(indent); }

std::string ways_out_to_json(const run_answers& a, int indent) {
  json out = ways_out_object(a.ways_out);
  out["solve"] = solve_object(a.solve);
  out["advice"] = advice_object(a.advice);
  return out.dump(indent);
}

std::string solve_to_json(const solve_result& r, int indent) { return solve_object(r).dump(indent); }

std::string advice_to_json(const advice_result& r, int indent) { return advice_object(r).dump(indent); }

std::string gpu_fit_to_json(const gpu_fit_result& r, int indent) {
  json rows = json::array();
  for (const auto& g : r.rows)
    rows.push_back({{"id", g.id},
                    {"name", g.name},
                    {"memory", json_bytes(g.memory_bytes)},
                    {"devices", g.devices},
                    {"fits", g.fits},
                    {"total", json_bytes(g.total_bytes)},
                    {"needed", answer_json(g.needed)},
                    {"headroom", json_bytes(g.headroom_bytes)}});
  return json{{"gpus", rows}}.dump(indent);
}

std::string fits_to_json(const fits_result& r, int indent) {
  json rows = json::array();
  for (const auto& f : r.rows)
    rows.push_back({{"model", f.model},
                    {"name", f.name},
                    {"params", json_bytes(f.params)},
                    {"active_params", json_bytes(f.active_params)},
                    {"moe", f.moe},
                    {"fits", f.fits},
                    {"format", f.format},
                    {"runtime", f.runtime},
                    {"max_context", f.max_context},
                    {"gpu_layers", f.gpu_layers},
                    {"offloaded_share", f.offloaded_share},
                    {"n_cpu_moe", f.n_cpu_moe},
                    {"host", json_bytes(f.host_bytes)},
                    {"total", json_bytes(f.total_bytes)},
                    {"decode_tokens_per_s", f.decode_tokens_per_s},
                    {"delta", detail::object_of(f.delta)}});
  return json{{"gpu", r.gpu},
              {"memory", json_bytes(r.memory_bytes)},
              {"devices", r.devices},
              {"fitting", r.fitting},
              {"rows", rows}}
      .dump(indent);
}

std::string sweep_to_json(const sweep_run& run) {
  const sweep_grid& g = run.grid;
  const std::size_t n = g.seq.size();
  // Keys in alphabetical order, as the CLI has always printed them (it wrote them with nlohmann::json).
  json out = {{"batch", std::vector<std::int64_t>(g.batch.begin(), g.batch.end())},
              {"gpu_memory", run.lowered.gpu_memory},
              {"max_batch", g.max_batch},
              {"rounding_bound", run.lowered.rounding_bound},
              {"seq", std::vector<std::int64_t>(g.seq.begin(), g.seq.end())}};
  json& total = out["total"] = json::array();
  for (std::size_t i = 0; i < g.batch.size(); ++i)
    total.push_back(std::vector<double>(g.total.begin() + static_cast<std::ptrdiff_t>(i * n),
                                        g.total.begin() + static_cast<std::ptrdiff_t>((i + 1) * n)));
  return out.dump();
}

std::string settings_to_json(const settings& values, int indent) {
  return json{{"ok", true}, {"settings", detail::object_of(values)}}.dump(indent);
}

std::string checkpoint_to_json(const checkpoint_summary& c, const settings& layered, const std::string& architecture,
                               int indent) {
  return json{{"ok", true},
              {"checkpoint", checkpoint_object(c)},
              {"architecture", architecture},
              {"settings", detail::object_of(layered)}}
      .dump(indent);
}

std::string errors_to_json(const std::vector<error>& errors, int indent) {
  return json{{"ok", false}, {"errors", errors_list(errors)}}.dump(indent);
}

std::string settings_schema_json(int indent) {
  json list = json::array();
  for (const auto& def : setting_table()) {
    json row = {{"key", def.key}, {"label", def.label}, {"kind", to_string(def.kind)}, {"default", def.default_value}};
    if (def.kind == setting_kind::integer || def.kind == setting_kind::number || def.kind == setting_kind::count ||
        def.kind == setting_kind::bytes) {
      row["min"] = def.min_value;
      row["max"] = def.max_value;
    }
    if (def.kind == setting_kind::choice) {
      json choices = json::array();
      for (auto c : detail::split(def.choices, '|')) choices.push_back(c);
      row["choices"] = choices;
      json labels = json::array();
      for (auto c : detail::split(def.choice_labels, '|')) labels.push_back(c);
      row["choice_labels"] = labels;
    }
    row["unit"] = def.unit;
    row["group"] = def.group;
    row["doc"] = def.doc;
    if (!def.applies.empty()) row["applies"] = applies_json(def.applies);
    list.push_back(row);
  }
  return list.dump(indent);
}

std::string models_json(int indent) {
  json list = json::array();
  for (const auto& p : model_presets()) {
    const auto r = estimate(settings{{"model", p.id}});
    list.push_back({{"id", p.id},
                    {"aliases", p.aliases},
                    {"name", p.name},
                    {"hf_repo", p.hf_repo},
                    {"params", json_bytes(r.ok() ? r.value().params : 0)},
                    {"official_params", p.official_params},
                    {"source", p.source},
                    {"note", p.note}});
  }
  return list.dump(indent);
}

namespace {
// A figure the catalogue does not publish (0) as null.
json published(double value) { return value > 0 ? json_bytes(value) : json(); }
}  // namespace

std::string gpus_json(int indent) {
  json list = json::array();
  for (const auto& g : gpu_presets())
    list.push_back({{"id", g.id},
                    {"aliases", g.aliases},
                    {"name", g.name},
                    {"vendor", g.vendor},
                    {"segment", g.segment},
                    {"backend", std::string(backend_name(g.backend))},
                    {"memory_bytes", json_bytes(g.memory_bytes)},
                    {"memory_basis", std::string(basis_words(g.basis))},
                    {"marketed_bytes", json_bytes(g.marketed_bytes)},
                    {"visible_bytes", published(g.visible_bytes)},
                    {"reported_bytes", published(g.reported_bytes)},
                    {"unified_memory_bytes", json_bytes(g.unified_memory_bytes)},
                    {"bandwidth_bytes_per_s", published(g.bandwidth_bytes_per_s)},
                    {"bf16_flops", published(g.bf16_flops)},
                    {"fp8_flops", published(g.fp8_flops)},
                    {"interconnect", g.interconnect},
                    {"source", g.source},
                    {"note", g.note}});
  return list.dump(indent);
}

}  // namespace llm_memory
