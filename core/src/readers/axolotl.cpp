// SPDX-License-Identifier: MIT
// An axolotl config (YAML): the keys of axolotl-ai-cloud/axolotl @9f824ef7 (src/axolotl/utils/schemas/config.py
// AxolotlInputConfig, examples/). Framework axolotl (frameworks/axolotl.cpp: its examples' defaults over the
// Trainer's, DeepSpeed's engine from the ZeRO stage a DeepSpeed config gives). docs/readers.md.
#include <array>

#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int {
  none,
  base_model = peft_actions_end,
  adapter,
  lora_target_linear,
  lora_modules_to_save,
  sequence_len,
  micro_batch_size,
  grad_accum,
  checkpointing,
  optimizer,
  bf16,
  fp16,
  flash_attention,
  sdp_attention,
  sample_packing,
  deepspeed,
  fsdp,
};

constexpr std::array<key_row, 25> keys{{
    {"base_model", base_model},
    {"adapter", adapter},
    {"load_in_4bit", peft_load_in_4bit},
    {"load_in_8bit", peft_load_in_8bit},
    {"lora_r", peft_lora_rank},
    lora_alpha_row,
    {"lora_dropout", peft_lora_dropout},
    {"lora_target_modules", peft_lora_targets},
    {"lora_target_linear", lora_target_linear},
    {"lora_modules_to_save", lora_modules_to_save},
    {"sequence_len", sequence_len},
    {"micro_batch_size", micro_batch_size},
    {"gradient_accumulation_steps", grad_accum},
    {"gradient_checkpointing", checkpointing},
    {"optimizer", optimizer},
    {"bf16", bf16},
    {"fp16", fp16},
    {"tf32", none, "a matmul precision mode: no memory"},
    {"flash_attention", flash_attention},
    {"sdp_attention", sdp_attention},
    {"sample_packing", sample_packing},
    {"deepspeed", deepspeed},
    {"fsdp", fsdp},
    {"fsdp_config", fsdp},
    {"model_type", none, "the model comes from base_model"},
}};

void read_precision(launch_read& out, const key_hit& hit, std::string_view dtype) {
  const auto text = lower(scalar_text(*hit.value));
  if (text != "auto" && !read_truth(out, hit).value_or(false)) return ignore(out, hit.path, "false");
  // axolotl loads the model in the training dtype (utils/models.py: torch_dtype from bf16/fp16) and autocasts.
  set_setting(out, hit.path, "autocast", std::string(dtype));
  const auto method = out.values.find("finetune");
  const auto weights = out.values.find("weights_dtype");
  const bool quantized = weights != out.values.end() && (weights->second == "nf4" || weights->second == "int8");
  if (!quantized && (method == out.values.end() || method->second != "qlora"))
    set_setting(out, hit.path, "weights_dtype", std::string(dtype));
}

void read_fsdp(launch_read& out, const key_hit& hit) {
  if (hit.value->is_null() || (hit.value->is_array() && hit.value->empty()))
    return ignore(out, hit.path, "empty: no FSDP");
  set_setting(out, hit.path, "framework", "fsdp");
  set_setting(out, hit.path, "zero", "3");
  if (!hit.value->is_object()) return;
  for (const auto& [key, value] : hit.value->members()) {
    const bool on = truth(value) == true;
    if ((key == "fsdp_offload_params" || key == "offload_params") && on)
      set_setting(out, hit.path + "." + key, "offload", "optimizer+params");
    else if ((key == "fsdp_activation_checkpointing" || key == "activation_checkpointing") && on)
      set_setting(out, hit.path + "." + key, "recompute", "full");
  }
}

void act(launch_read& out, const key_hit& hit) {
  switch (hit.action) {
    case base_model: return read_model_name(out, hit.path, scalar_text(*hit.value));
    case adapter: {
      const auto kind = lower(scalar_text(*hit.value));
      if (kind == "lora" || kind == "qlora") return set_setting(out, hit.path, "finetune", kind);
      return hit.value->is_null() ? set_setting(out, hit.path, "finetune", "full")
                                  : ignore(out, hit.path, "an adapter kind with no finetune choice");
    }
    case lora_target_linear:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "lora_targets", "all-linear");
      return;
    case lora_modules_to_save:
      if (!hit.value->is_null())
        out.notes.push_back(hit.path + ": modules trained in full beside the adapters (" + scalar_text(*hit.value) +
                            ") are not modelled");
      return ignore(out, hit.path, "fully trained modules beside the adapters are not modelled");
    case sequence_len: return set_from(out, hit, "seq");
    case micro_batch_size: return set_from(out, hit, "batch");
    case grad_accum: return set_from(out, hit, "grad_accum");
    case checkpointing: {
      const auto t = truth(*hit.value);
      return set_setting(out, hit.path, "recompute", t == false || hit.value->is_null() ? "none" : "full");
    }
    case optimizer: return read_hf_optim(out, hit);
    case bf16: return read_precision(out, hit, "bf16");
    case fp16: return read_precision(out, hit, "fp16");
    case flash_attention:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "attention", "flash");
      return;
    case sdp_attention:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "attention", "sdpa");
      return;
    case sample_packing:
      return ignore(out, hit.path, "packing fills each sequence to sequence_len: the estimate's seq already is");
    case deepspeed:  // the framework stays: its profile runs DeepSpeed's engine from the config's ZeRO stage
      return note_file(out, hit, "a DeepSpeed config");
    case fsdp: return read_fsdp(out, hit);
    default: return read_peft_key(out, hit);  // the rows with a peft_action
  }
}

}  // namespace

void read_axolotl(const json& doc, launch_read& out) {
  training_run(out, "axolotl");
  for (const auto& hit : walk_keys(doc, keys, out)) act(out, hit);
  // load_in_4bit with adapter lora: axolotl's validation asks for adapter: qlora.
  lora_on_nf4_is_qlora(out, "load_in_4bit");
}

}  // namespace llm_memory::detail
