// SPDX-License-Identifier: MIT
// A torchtune recipe config (YAML): the keys its recipes read, from pytorch/torchtune @bd2a0fc7 (v0.6.1 and
// after): recipes/lora_finetune_single_device.py, full_finetune_single_device.py, the model builders
// torchtune/models/<family>/_model_builders.py (lora_*, qlora_*) and recipes/configs/. docs/readers.md.
#include <array>
#include <set>

#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int {
  none,
  model,
  lora_rank,
  lora_attn_modules,
  lora_mlp,
  lora_output,
  lora_dropout,
  quantize_base,
  batch,
  grad_accum,
  checkpointing,
  offloading,
  compile,
  optimizer,
  optimizer_fused,
  optimizer_in_bwd,
  loss,
  dtype,
  max_seq_len,
  packed,
};

constexpr std::array<key_row, 22> keys{{
    {"model._component_", model},
    {"model.lora_rank", lora_rank},
    {"model.lora_alpha", none, "scales the adapters' output: no memory"},
    {"model.lora_attn_modules", lora_attn_modules},
    {"model.apply_lora_to_mlp", lora_mlp},
    {"model.apply_lora_to_output", lora_output},
    {"model.lora_dropout", lora_dropout},
    {"model.quantize_base", quantize_base},
    {"batch_size", batch},
    {"gradient_accumulation_steps", grad_accum},
    {"enable_activation_checkpointing", checkpointing},
    {"enable_activation_offloading", offloading},
    {"compile", compile},
    {"optimizer._component_", optimizer},
    {"optimizer.fused", optimizer_fused},
    {"optimizer_in_bwd", optimizer_in_bwd},
    {"loss._component_", loss},
    {"dtype", dtype},
    {"tokenizer.max_seq_len", max_seq_len},
    {"dataset.packed", packed},
    {"device", none, "the device kind: the GPU is a setting of its own (--gpu)"},
    {"clip_grad_norm", none, "clips in place: no memory"},
}};

// The LoRA targets the recipe names, as PEFT's module names (torchtune's output_proj is o_proj; its MLP's w1, w2,
// w3 are gate_proj, down_proj, up_proj).
struct lora_targets {
  std::set<std::string> modules{};  ///< PEFT names, sorted
  bool read = false;                ///< lora_attn_modules or apply_lora_to_mlp was read
};

// A builder's name ("llama3_1_8b", "qwen2_5_7b_instruct") as the preset names spell it: version parts joined by
// dots, tried with and without a dash before the version ("llama-3.1-8b", "qwen2.5-7b").
std::optional<std::string> builder_preset(std::string_view builder) {
  const auto parts = split(builder, '_');
  std::string name(parts[0]);
  std::size_t k = 1;
  for (; k < parts.size() && parts[k].size() == 1 && std::isdigit(static_cast<unsigned char>(parts[k][0])) != 0; ++k)
    name += "." + std::string(parts[k]);
  for (; k < parts.size(); ++k) name += "-" + std::string(parts[k]);
  const auto digit = name.find_first_of("0123456789");
  if (auto id = single_preset(name)) return id;
  if (digit == std::string::npos || digit == 0) return std::nullopt;
  return single_preset(name.substr(0, digit) + "-" + name.substr(digit));
}

void read_model(launch_read& out, const key_hit& hit) {
  const std::string component = scalar_text(*hit.value);
  auto builder = std::string_view(component).substr(component.find_last_of('.') + 1);
  std::string method = "full";
  for (const std::string_view prefix : {"qlora_", "lora_"}) {
    if (!builder.starts_with(prefix)) continue;
    method = std::string(prefix.substr(0, prefix.size() - 1));
    builder.remove_prefix(prefix.size());
  }
  set_setting(out, hit.path, "finetune", method);
  if (const auto id = builder_preset(builder)) return set_setting(out, hit.path, "model", *id);
  out.notes.push_back("model " + quoted(component) +
                      ": no single preset of that name; give --model PRESET or --config");
}

void read_targets(launch_read& out, const key_hit& hit, lora_targets& targets) {
  targets.read = true;
  if (hit.action == lora_mlp) {
    const auto on = read_truth(out, hit);
    if (on == true) targets.modules.insert({"gate_proj", "up_proj", "down_proj"});
    return;
  }
  for (const auto& m : *hit.value) {
    const std::string name = scalar_text(m);
    if (name == "q_proj" || name == "k_proj" || name == "v_proj")
      targets.modules.insert(name);
    else if (name == "output_proj")
      targets.modules.insert("o_proj");
    else
      out.errors.push_back(
          {hit.path, "unknown module " + quoted(name) + "; torchtune names q_proj, k_proj, v_proj, output_proj"});
  }
}

void read_optimizer(launch_read& out, const key_hit& hit) {
  const std::string component = scalar_text(*hit.value);
  const auto name = std::string_view(component).substr(component.find_last_of('.') + 1);
  const bool paged = name.starts_with("Paged");
  const auto base = paged ? name.substr(5) : name;
  if (base == "AdamW8bit" || base == "Adam8bit")
    set_setting(out, hit.path, "optimizer", "adamw_8bit");
  else if (base == "AdamW" || base == "Adam")
    set_setting(out, hit.path, "optimizer", "adamw");
  else if (base == "SGD")
    set_setting(out, hit.path, "optimizer", "sgd");
  else
    return ignore(out, hit.path, "an optimizer with no optimizer setting of its kind: give --optimizer");
  if (paged) set_setting(out, hit.path, "optimizer_impl", "paged");
}

void read_loss(launch_read& out, const key_hit& hit) {
  const std::string component = scalar_text(*hit.value);
  if (component.ends_with("CEWithChunkedOutputLoss") || component.ends_with("LinearCrossEntropyLoss")) {
    if (component.ends_with("LinearCrossEntropyLoss"))
      out.notes.push_back(hit.path +
                          " LinearCrossEntropyLoss (chunks the output projection too) is modelled as "
                          "torchtune's chunked loss, its nearest");
    return set_setting(out, hit.path, "loss_impl", "torchtune_chunked");
  }
  ignore(out, hit.path, "a loss with no loss_impl of its kind");
}

void read_flag(launch_read& out, const key_hit& hit, std::string_view key, std::string_view on, std::string_view off) {
  if (const auto t = read_truth(out, hit)) set_setting(out, hit.path, key, std::string(*t ? on : off));
}

void act(launch_read& out, const key_hit& hit, lora_targets& targets, bool& compiled) {
  switch (hit.action) {
    case model: return read_model(out, hit);
    case lora_rank: return set_from(out, hit, "lora_rank");
    case lora_attn_modules:
    case lora_mlp: return read_targets(out, hit, targets);
    case lora_output:
      if (truth(*hit.value) == true)
        out.notes.push_back("apply_lora_to_output: the output projection's adapter is not modelled");
      return ignore(out, hit.path, "an adapter on the output projection is not modelled");
    case lora_dropout: return set_from(out, hit, "lora_dropout");
    case quantize_base: return read_flag(out, hit, "finetune", "qlora", "lora");
    case batch: return set_from(out, hit, "batch");
    case grad_accum: return set_from(out, hit, "grad_accum");
    case checkpointing: return read_flag(out, hit, "recompute", "full", "none");
    case offloading: return read_flag(out, hit, "activation_offload", "prefetched", "none");
    case compile: compiled = truth(*hit.value) == true; return;
    case optimizer: return read_optimizer(out, hit);
    case optimizer_fused: return read_flag(out, hit, "optimizer_impl", "fused", "foreach");
    case optimizer_in_bwd: return read_flag(out, hit, "optimizer_in_backward", "on", "off");
    case loss: return read_loss(out, hit);
    case dtype: return set_from(out, hit, "weights_dtype");
    case max_seq_len:
      if (hit.value->is_null())
        out.notes.push_back("tokenizer.max_seq_len is null: sequences as long as the data; give --seq");
      return set_from(out, hit, "seq");
    case packed:
      return ignore(out, hit.path, "packing fills each sequence to max_seq_len: the estimate's seq already is");
    default: return;
  }
}

}  // namespace

void read_torchtune(const json& doc, launch_read& out) {
  training_run(out, "torchtune");
  lora_targets targets;
  bool compiled = false;
  std::string compile_path;
  for (const auto& hit : walk_keys(doc, keys, out)) {
    act(out, hit, targets, compiled);
    if (hit.action == compile) compile_path = hit.path;
  }
  if (targets.read) {
    std::string list;
    for (const auto& m : targets.modules) list += (list.empty() ? "" : ",") + m;
    if (!list.empty()) set_setting(out, "model.lora_attn_modules", "lora_targets", list);
  }
  // `compile: True` compiles the model's layers and the loss (training/_compile.py): the `compile` setting carries
  // both (fused norms, the compiled loss through the torchtune profile), not the loss alone.
  if (!compile_path.empty()) set_setting(out, compile_path, "compile", compiled ? "on" : "off");
  const auto method = out.values.find("finetune");
  if (method != out.values.end() && method->second == "qlora" && out.values.contains("weights_dtype")) {
    out.notes.push_back("dtype " + out.values["weights_dtype"] + " is the compute dtype: a QLoRA base stays nf4");
    out.values.erase("weights_dtype");
    std::erase_if(out.read, [](const launch_option& o) { return o.setting == "weights_dtype"; });
  }
}

}  // namespace llm_memory::detail
