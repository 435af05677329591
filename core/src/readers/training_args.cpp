// SPDX-License-Identifier: MIT
// Hugging Face TrainingArguments / TRL's SFTConfig and ModelConfig: as a JSON or YAML dict (`trl sft --config`,
// a Trainer's args file) or as the CLI flags of `trl sft`, `python train.py`, `torchrun ... train.py` and
// `accelerate launch ... train.py` (HfArgumentParser: `--name value`, `--name=value`, a bare `--flag` is true).
// Fields of huggingface/transformers src/transformers/training_args.py (v4.57) and huggingface/trl
// trl/trainer/sft_config.py, model_config.py (v0.24). docs/readers.md.
#include <algorithm>
#include <array>

#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int {
  none,
  model = peft_actions_end,
  batch,
  grad_accum,
  checkpointing,
  bf16,
  fp16,
  optim,
  max_length,
  use_peft,
  deepspeed,
  fsdp,
  fsdp_checkpointing,
  dtype,
  attention,
  liger,
  config,
};

constexpr std::array<key_row, 27> keys{{
    {"model_name_or_path", model},
    {"per_device_train_batch_size", batch},
    {"gradient_accumulation_steps", grad_accum},
    {"gradient_checkpointing", checkpointing},
    {"bf16", bf16},
    {"fp16", fp16},
    {"optim", optim},
    {"max_seq_length", max_length},  // SFTConfig before TRL 0.20
    {"max_length", max_length},
    {"use_peft", use_peft},
    {"lora_r", peft_lora_rank},
    lora_alpha_row,
    {"lora_dropout", peft_lora_dropout},
    {"lora_target_modules", peft_lora_targets},
    {"load_in_4bit", peft_load_in_4bit},
    {"load_in_8bit", peft_load_in_8bit},
    {"deepspeed", deepspeed},
    {"fsdp", fsdp},
    {"fsdp_config.activation_checkpointing", fsdp_checkpointing},
    {"torch_dtype", dtype},
    {"dtype", dtype},
    {"attn_implementation", attention},
    {"use_liger_kernel", liger},
    {"config", config},
    {"packing", none, "packing fills each sequence to max_length: the estimate's seq already is"},
    {"tf32", none, "a matmul precision mode: no memory"},
    {"per_device_eval_batch_size", none, "evaluation runs outside the training step's peak"},
}};

void read_flag(launch_read& out, const key_hit& hit, std::string_view key, std::string_view on, std::string_view off) {
  if (const auto t = read_truth(out, hit)) set_setting(out, hit.path, key, std::string(*t ? on : off));
}

void read_dtype(launch_read& out, const key_hit& hit) {
  const auto d = lower(scalar_text(*hit.value));
  if (d == "bfloat16" || d == "bf16") return set_setting(out, hit.path, "weights_dtype", "bf16");
  if (d == "float16" || d == "fp16" || d == "half") return set_setting(out, hit.path, "weights_dtype", "fp16");
  if (d == "float32" || d == "fp32" || d == "float") return set_setting(out, hit.path, "weights_dtype", "fp32");
  ignore(out, hit.path, "auto: the checkpoint's own dtype; give --weights_dtype");
}

// fsdp: "full_shard auto_wrap offload" (TrainingArguments' FSDPOption words).
void read_fsdp(launch_read& out, const key_hit& hit) {
  const auto words = lower(scalar_text(*hit.value));
  if (words.empty() || truth(*hit.value) == false) return ignore(out, hit.path, "no FSDP");
  set_setting(out, hit.path, "framework", "fsdp");
  set_setting(out, hit.path, "zero", words.find("shard_grad_op") != std::string::npos ? "2" : "3");
  if (words.find("offload") != std::string::npos) set_setting(out, hit.path, "offload", "optimizer+params");
}

void read_deepspeed(launch_read& out, const key_hit& hit) {
  if (hit.value->is_null()) return ignore(out, hit.path, "null: no DeepSpeed");
  if (hit.value->is_object()) return read_deepspeed_config(*hit.value, out);  // the config given inline
  set_setting(out, hit.path, "framework", "deepspeed");
  note_file(out, hit, "a DeepSpeed config");
}

void act(launch_read& out, const key_hit& hit) {
  switch (hit.action) {
    case model: return read_model_name(out, hit.path, scalar_text(*hit.value));
    case batch: return set_from(out, hit, "batch");
    case grad_accum: return set_from(out, hit, "grad_accum");
    case checkpointing: return read_flag(out, hit, "recompute", "full", "none");
    case bf16:
    case fp16:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "autocast", hit.action == bf16 ? "bf16" : "fp16");
      return;
    case optim: return read_hf_optim(out, hit);
    case max_length: return set_from(out, hit, "seq");
    case use_peft:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "finetune", "lora");
      return;
    case deepspeed: return read_deepspeed(out, hit);
    case fsdp: return read_fsdp(out, hit);
    case fsdp_checkpointing: return read_flag(out, hit, "recompute", "full", "none");
    case dtype: return read_dtype(out, hit);
    case attention: return read_hf_attention(out, hit);
    case liger: return read_flag(out, hit, "fused_ce", "on", "off");
    case config: return note_file(out, hit, "a config file");
    default: return read_peft_key(out, hit);  // the rows with a peft_action
  }
}

// HfArgumentParser's words as a dict: `--name value`, `--name=value`, a bare `--flag` is "true"; `-` and `_`
// are one (the parser registers both spellings). A word that is no option's value is listed as ignored.
json flags_as_dict(std::span<const std::string> args, launch_read& out) {
  json dict = json::object();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (!word.starts_with("--") || word.size() == 2) {
      ignore(out, word, "an argument the script takes, not a TrainingArguments field");
      continue;
    }
    const auto eq = word.find('=');
    std::string name(word.substr(2, eq == std::string_view::npos ? std::string_view::npos : eq - 2));
    std::replace(name.begin(), name.end(), '-', '_');
    if (eq != std::string_view::npos)
      dict[name] = json(std::string(word.substr(eq + 1)));
    else if (i + 1 < args.size() && !args[i + 1].starts_with("--"))
      dict[name] = json(args[++i]);
    else
      dict[name] = json("true");
  }
  return dict;
}

}  // namespace

void read_training_args(const json& doc, launch_read& out) {
  training_run(out, "hf");
  for (const auto& hit : walk_keys(doc, keys, out)) act(out, hit);
  // TRL's get_quantization_config: load_in_4bit is bitsandbytes nf4; with use_peft, QLoRA.
  lora_on_nf4_is_qlora(out, "load_in_4bit");
}

void read_training_command(const command_line& cmd, launch_read& out) {
  std::span<const std::string> args = cmd.args;
  if (cmd.program == "torchrun" || cmd.program == "accelerate launch") {
    // The launcher's own options up to the script: its process count is the device count.
    std::size_t i = 0;
    for (; i < args.size() && !args[i].ends_with(".py"); ++i) {
      const std::string_view word = args[i];
      const auto eq = word.find('=');
      const auto name = word.substr(0, eq);
      const bool has_value = eq == std::string_view::npos && i + 1 < args.size() && !args[i + 1].starts_with("-") &&
                             !args[i + 1].ends_with(".py");
      const std::string value = eq != std::string_view::npos ? std::string(word.substr(eq + 1))
                                : has_value                  ? args[i + 1]
                                                             : "";
      if (name == "--nproc_per_node" || name == "--nproc-per-node" || name == "--num_processes")
        set_setting(out, name, "devices", value);
      else if (name == "--config_file")
        out.notes.push_back("--config_file names " + quoted(value) + ": give it as another --from to read it");
      else
        ignore(out, name, "a launcher option no memory setting depends on");
      if (has_value) ++i;
    }
    if (i < args.size() && is_megatron_script(args[i])) return read_megatron(args.subspan(i + 1), out);
    if (i < args.size()) ++i;  // the script
    args = args.subspan(i);
  }
  read_training_args(flags_as_dict(args, out), out);
}

}  // namespace llm_memory::detail
