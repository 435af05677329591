// SPDX-License-Identifier: MIT
// A torchtitan job config (TOML: torchtitan/models/llama3/train_configs/llama3_8b.toml, the `--job.config_file` of
// run_train.sh): the keys of pytorch/torchtitan torchtitan/config/job_config.py @000204a4 (JobConfig's sections
// model, training, parallelism, activation_checkpoint, optimizer). Framework torchtitan. docs/readers.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "decimal.hpp"
#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int {
  none,
  model_name,
  flavor,
  local_batch,
  global_batch,
  seq_len,
  compile,
  cpu_offload,
  replicate,
  shard,
  tp,
  pp,
  cp,
  ep,
  ac_mode,
  ac_option,
  optimizer_name,
  implementation,
  in_backward,
};

// Worded apart from the other readers' "...: no memory setting depends on it": the linker merges a string into a longer
// one that ends with it, which would pull docker.cpp's note into the page's first part with this table
// (tests/web/engine-load.test.mjs).
constexpr std::string_view no_memory = "a section no memory setting reads";

constexpr std::array<key_row, 29> keys{{
    {"model.name", model_name},
    {"model.flavor", flavor},
    {"training.local_batch_size", local_batch},
    {"training.batch_size", local_batch},  // its name before local_batch_size (llama3_8b.toml @f3534d77)
    {"training.global_batch_size", global_batch},
    {"training.seq_len", seq_len},
    {"training.compile", compile},
    {"training.enable_cpu_offload", cpu_offload},
    {"parallelism.data_parallel_replicate_degree", replicate},
    {"parallelism.data_parallel_shard_degree", shard},
    {"parallelism.tensor_parallel_degree", tp},
    {"parallelism.pipeline_parallel_degree", pp},
    {"parallelism.context_parallel_degree", cp},
    {"parallelism.expert_parallel_degree", ep},
    {"activation_checkpoint.mode", ac_mode},
    {"activation_checkpoint.selective_ac_option", ac_option},
    {"optimizer.name", optimizer_name},
    {"optimizer.implementation", implementation},
    {"optimizer.early_step_in_backward", in_backward},
    {"training.mixed_precision_param", none, "bfloat16 is the profile's; float32 compute is not modelled"},
    {"model.tokenizer_path", none, "the tokenizer's file: the flavor names the vocabulary"},
    {"model.converters", none, "float8 linears are not modelled"},
    {"job", none, no_memory},
    {"profiling", none, no_memory},
    {"metrics", none, no_memory},
    {"lr_scheduler", none, no_memory},
    {"checkpoint", none, "checkpoints are written outside the training step's peak"},
    {"float8", none, "float8 training is not modelled"},
    {"comm", none, no_memory},
}};

// The llama3 flavors (torchtitan/models/llama3/__init__.py llama3_configs): Llama 3.1's shapes.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> llama3_flavors{{
    {"8B", "llama-3.1-8b"},
    {"70B", "llama-3.1-70b"},
    {"405B", "llama-3.1-405b"},
}};

struct degrees {
  std::string name{}, flavor{}, global{};
  double replicate = 1, shard = -1;  ///< data_parallel_*_degree (-1: the devices left over)
};

double number_of(const std::string& text, double fallback) {
  double v = fallback;
  if (read_double(text, v) != text.size()) v = fallback;
  return v;
}

double read_value(const launch_read& out, const char* key, double fallback) {
  const auto it = out.values.find(key);
  return it == out.values.end() ? fallback : number_of(it->second, fallback);
}

void read_model(launch_read& out, const degrees& d) {
  if (d.name.empty() && d.flavor.empty()) return;
  for (const auto& [flavor, preset] : llama3_flavors)
    if (d.name == "llama3" && d.flavor == flavor) return set_setting(out, "model.flavor", "model", std::string(preset));
  out.notes.push_back("model " + quoted(d.name) + " flavor " + quoted(d.flavor) +
                      " names no preset llm-memory maps (llama3 8B, 70B, 405B): give --model");
}

// devices = replicate x shard x tp x pp x cp when the shard degree is given (-1: the leftover ranks, so the count
// is the launcher's NGPU: a note); FSDP shards over the shard degree (zero 3), DDP alone replicates (zero 0).
void read_parallel(launch_read& out, const degrees& d) {
  const double model_parallel = read_value(out, "tp", 1) * read_value(out, "pp", 1) * read_value(out, "cp", 1);
  if (d.shard >= 1) {
    const double devices = d.replicate * d.shard * model_parallel;
    if (devices <= 1e6) set_setting(out, "parallelism.data_parallel_shard_degree", "devices", format_number(devices));
    set_setting(out, "parallelism.data_parallel_shard_degree", "zero", d.shard > 1 ? "3" : "0");
  } else {
    out.notes.push_back(
        "data_parallel_shard_degree -1 shards over the devices left over: the device count is the launcher's "
        "(NGPU): give --devices");
  }
  if (d.global.empty()) return;
  const double g = number_of(d.global, 0);
  if (g == -1) return set_setting(out, "training.global_batch_size", "grad_accum", "1");
  if (g < 1 || g > 1e12 || std::floor(g) != g)
    return out.errors.push_back(
        {"training.global_batch_size", "must be -1 or a whole number from 1, got " + quoted(d.global)});
  // global = local x data-parallel x accumulation (train.py: gradient_accumulation_steps).
  const double dp = std::max(1.0, std::floor(read_value(out, "devices", 1) / model_parallel));
  const double per_step = read_value(out, "batch", 8) * dp;  // local_batch_size: 8
  set_setting(out, "training.global_batch_size", "grad_accum", format_number(std::max(1.0, std::floor(g / per_step))));
}

void act(launch_read& out, const key_hit& hit, degrees& d) {
  const std::string text = scalar_text(*hit.value);
  switch (hit.action) {
    case model_name: d.name = text; return;
    case flavor: d.flavor = text; return;
    case local_batch: return set_from(out, hit, "batch");
    case global_batch: d.global = text; return;
    case seq_len: return set_from(out, hit, "seq");
    case compile:
      if (const auto on = read_truth(out, hit)) set_setting(out, hit.path, "compile", *on ? "on" : "off");
      return;
    case cpu_offload:
      if (const auto on = read_truth(out, hit))
        set_setting(out, hit.path, "offload", *on ? "optimizer+params" : "none");
      return;
    case replicate: d.replicate = number_of(text, 1); return;
    case shard: d.shard = number_of(text, -1); return;
    case tp: return set_from(out, hit, "tp");
    case pp: return set_from(out, hit, "pp");
    case cp: return set_from(out, hit, "cp");
    case ep: return set_from(out, hit, "ep");
    case ac_mode:
      if (text == "none" || text == "selective" || text == "full") return set_setting(out, hit.path, "recompute", text);
      return ignore(out, hit.path, "must be none, selective or full");
    case ac_option: return set_from(out, hit, "selective_ac_option");
    case optimizer_name:
      if (lower(text) == "adamw" || lower(text) == "adam") return set_setting(out, hit.path, "optimizer", "adamw");
      return ignore(out, hit.path, "an optimizer llm-memory does not model");
    case implementation:
      if (text == "fused" || text == "foreach") return set_setting(out, hit.path, "optimizer_impl", text);
      return ignore(out, hit.path, "for-loop keeps no more than foreach: the profile's fused is kept");
    case in_backward:
      if (const auto on = read_truth(out, hit)) set_setting(out, hit.path, "optimizer_in_backward", *on ? "on" : "off");
      return;
    default: return;
  }
}

}  // namespace

void read_torchtitan(const json& doc, launch_read& out) {
  training_run(out, "torchtitan");
  degrees d;
  for (const auto& hit : walk_keys(doc, keys, out)) act(out, hit, d);
  read_model(out, d);
  read_parallel(out, d);
}

}  // namespace llm_memory::detail
