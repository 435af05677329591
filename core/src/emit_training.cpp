// SPDX-License-Identifier: MIT
// Training configs out: an accelerate FSDP config, torchtune overrides (`tune run ... key=value`) and TRL flags
// (`trl sft ...`) for resolved settings, with the keys their readers (readers/accelerate_config.cpp,
// readers/tune_run.cpp with readers/torchtune.cpp, readers/training_args.cpp) map back to the same settings, and
// the settings no key carries listed by name.
#include <cctype>
#include <cstdint>
#include <string>

#include "emit_training.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

std::string whole(std::int64_t v) { return format_number(static_cast<double>(v)); }
std::string python_bool(bool on) { return on ? "True" : "False"; }

// An accelerate config for FSDP2 (huggingface/accelerate commands/config/cluster.py and utils/dataclasses.py
// FullyShardedDataParallelPlugin, v1.10): the processes, mixed precision, resharding (ZeRO-3 or 2), parameter
// offload and activation checkpointing. The model, batch and sequence are the training script's own arguments.
emitted accelerate(const setting_values& v) {
  emitted e{"compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nnum_machines: 1\nnum_processes: " +
                whole(v.devices) + "\nmixed_precision: " + (v.autocast == "off" ? "\"no\"" : v.autocast) +
                "\nfsdp_config:\n  fsdp_version: 2\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n",
            {"model", "seq", "batch", "grad_accum", "weights_dtype", "finetune"}};
  if (v.framework != "fsdp") e.not_carried.push_back("framework");
  if (v.zero == 2 || v.zero == 3)
    e.text += std::string("  fsdp_reshard_after_forward: ") + (v.zero == 3 ? "true" : "false") + "\n";
  else
    e.not_carried.push_back("zero");  // FSDP2 shards gradients and optimizer state always
  if (v.offload == "none" || v.offload == "optimizer+params")
    e.text += std::string("  fsdp_offload_params: ") + (v.offload == "none" ? "false" : "true") + "\n";
  else
    e.not_carried.push_back("offload");  // FSDP offloads the parameters with their state, not the state alone
  if (v.recompute == "none" || v.recompute == "full")
    e.text += std::string("  fsdp_activation_checkpointing: ") + (v.recompute == "full" ? "true" : "false") + "\n";
  else
    e.not_carried.push_back("recompute");
  return e;
}

// The torchtune builder a preset is named by ("llama-3.1-8b" -> llama3_1_8b), when torchtune's reader maps it
// back to the same preset.
std::string builder_of(const std::string& model) {
  std::string b;
  for (const char c : model) {
    if (c == '-' && (b.empty() || std::isdigit(static_cast<unsigned char>(b.back())) == 0)) continue;
    b += c == '-' || c == '.' ? '_' : c;
  }
  return b;
}

void tune_model(const setting_values& v, emitted& e) {
  const std::string builder = builder_of(v.model);
  const auto family = builder.substr(0, builder.find_last_of('_'));
  const std::string prefix = v.finetune == "full" ? "" : v.finetune + "_";
  if (v.model.empty()) return e.not_carried.push_back("model");
  e.text += " \\\n  model._component_=torchtune.models." + family + "." + prefix + builder;
}

// PEFT names as torchtune's lora_attn_modules and apply_lora_to_mlp spell them; "" when the MLP is only partly
// adapted (torchtune adapts all three of its projections or none).
bool tune_targets(const std::string& targets, std::string& attn, bool& mlp) {
  const bool all = targets == "all-linear";
  int mlp_parts = 0;
  for (const auto t : split(targets, ',')) {
    const auto name = trim(t);
    if (name == "gate_proj" || name == "up_proj" || name == "down_proj")
      ++mlp_parts;
    else if (name == "q_proj" || name == "k_proj" || name == "v_proj" || name == "o_proj")
      attn += (attn.empty() ? "'" : ",'") + std::string(name == "o_proj" ? "output_proj" : name) + "'";
    else if (!all)
      return false;
  }
  if (all) attn = "'q_proj','k_proj','v_proj','output_proj'";
  mlp = all || mlp_parts == 3;
  return all || mlp_parts == 0 || mlp_parts == 3;
}

void tune_lora(const setting_values& v, emitted& e) {
  if (v.finetune == "full") return;
  e.text +=
      " \\\n  model.lora_rank=" + whole(v.lora_rank) + " \\\n  model.lora_dropout=" + format_number(v.lora_dropout);
  std::string attn;
  bool mlp = false;
  if (!tune_targets(v.lora_targets, attn, mlp) || attn.empty()) return e.not_carried.push_back("lora_targets");
  e.text += " \\\n  \"model.lora_attn_modules=[" + attn + "]\" \\\n  model.apply_lora_to_mlp=" + python_bool(mlp);
}

void tune_optimizer(const setting_values& v, emitted& e) {
  const bool paged = v.optimizer_impl == "paged";
  const std::string component =
      v.optimizer == "adamw_8bit" ? std::string("bitsandbytes.optim.") + (paged ? "Paged" : "") + "AdamW8bit"
      : v.optimizer == "adamw"    ? (paged ? "bitsandbytes.optim.PagedAdamW" : "torch.optim.AdamW")
      : v.optimizer == "sgd"      ? "torch.optim.SGD"
                                  : "";
  if (component.empty()) {
    e.not_carried.push_back("optimizer");
    return e.not_carried.push_back("optimizer_impl");
  }
  e.text += " \\\n  optimizer._component_=" + component;
  // torch's optimizers take `fused`; bitsandbytes' are paged by name or not at all.
  if (component.starts_with("torch.") && (v.optimizer_impl == "fused" || v.optimizer_impl == "foreach"))
    e.text += " \\\n  optimizer.fused=" + python_bool(v.optimizer_impl == "fused");
  else if (component.starts_with("torch.") || !paged)
    e.not_carried.push_back("optimizer_impl");
}

// `tune run` with the recipe's overrides (torchtune/config/_parse.py): every key torchtune.cpp reads back.
emitted torchtune(const setting_values& v) {
  const bool distributed = v.devices > 1;
  const std::string method = v.finetune == "full" ? "full" : "lora";
  emitted e{"tune run " + (distributed ? "--nproc_per_node " + whole(v.devices) + " " : std::string()) + method +
                "_finetune_" + (distributed ? "distributed" : "single_device") + " --config CONFIG",
            {}};
  tune_model(v, e);
  tune_lora(v, e);
  e.text += " \\\n  batch_size=" + whole(v.batch) + " \\\n  gradient_accumulation_steps=" + whole(v.grad_accum) +
            " \\\n  tokenizer.max_seq_len=" + whole(v.seq) +
            " \\\n  optimizer_in_bwd=" + python_bool(v.optimizer_in_backward);
  if (v.compile != "auto") e.text += " \\\n  compile=" + python_bool(v.compile == "on");  // auto: the profile's
  if (v.recompute == "none" || v.recompute == "full")
    e.text += " \\\n  enable_activation_checkpointing=" + python_bool(v.recompute == "full");
  else
    e.not_carried.push_back("recompute");
  if (v.activation_offload == "none" || v.activation_offload == "prefetched")
    e.text += " \\\n  enable_activation_offloading=" + python_bool(v.activation_offload == "prefetched");
  else
    e.not_carried.push_back("activation_offload");
  tune_optimizer(v, e);
  if (v.loss_impl == "torchtune_chunked")
    e.text += " \\\n  loss._component_=torchtune.modules.loss.CEWithChunkedOutputLoss";
  else
    e.not_carried.push_back("loss_impl");
  if (v.finetune != "qlora" && (v.weights_dtype == "bf16" || v.weights_dtype == "fp32"))
    e.text += " \\\n  dtype=" + v.weights_dtype;
  else if (v.finetune != "qlora")
    e.not_carried.push_back("weights_dtype");  // torchtune trains in bf16 or fp32
  return e;
}

// `trl sft` (trl/scripts/sft.py: SFTConfig, ModelConfig; HfArgumentParser flags) read back by training_args.cpp.
emitted trl(const setting_values& v) {
  emitted e{"trl sft", {}};
  const auto add = [&](std::string_view flag, const std::string& value) {
    e.text += " \\\n  --" + std::string(flag) + (value.empty() ? "" : " " + value);
  };
  if (v.model.empty()) e.not_carried.push_back("model");
  add("model_name_or_path", v.model.empty() ? "MODEL" : v.model);
  add("per_device_train_batch_size", whole(v.batch));
  add("gradient_accumulation_steps", whole(v.grad_accum));
  add("max_length", whole(v.seq));
  if (v.recompute == "none" || v.recompute == "full")
    add("gradient_checkpointing", v.recompute == "full" ? "true" : "false");
  else
    e.not_carried.push_back("recompute");
  if (v.autocast != "off")
    add(v.autocast, "true");
  else
    e.not_carried.push_back("autocast");  // no flag turns off the hf profile's bf16 autocast
  if (v.weights_dtype == "bf16" || v.weights_dtype == "fp16" || v.weights_dtype == "fp32")
    add("torch_dtype", v.weights_dtype == "bf16" ? "bfloat16" : v.weights_dtype == "fp16" ? "float16" : "float32");
  else if (v.weights_dtype == "nf4" || v.weights_dtype == "int8")
    add(v.weights_dtype == "nf4" ? "load_in_4bit" : "load_in_8bit", "true");
  else
    e.not_carried.push_back("weights_dtype");
  const std::string optim = hf_optim(v, e);
  if (optim.empty())
    e.not_carried.push_back("optimizer");
  else
    add("optim", optim);
  if (v.attention == "flash" || v.attention == "sdpa" || v.attention == "eager")
    add("attn_implementation", v.attention == "flash" ? "flash_attention_2" : v.attention);
  else
    e.not_carried.push_back("attention");  // no Hugging Face implementation of that name
  add("use_liger_kernel", v.fused_ce ? "true" : "false");
  if (v.finetune != "full") {
    add("use_peft", "");
    add("lora_r", whole(v.lora_rank));
    add("lora_dropout", format_number(v.lora_dropout));
    add("lora_target_modules", v.lora_targets);
  }
  return e;
}

// The same flags run by torchrun with the Trainer's --deepspeed (transformers docs/source/en/deepspeed.md:
// `torchrun --nproc_per_node=N your_program.py <normal cl args> --deepspeed ds_config.json`), TRL's own script
// (trl/scripts/sft.py) as the program; the ZeRO stage, offload and 16-bit engine are the config's (--emit deepspeed).
emitted trl_with_deepspeed(const setting_values& v) {
  emitted e = trl(v);
  e.text = "torchrun --nproc_per_node " + whole(v.devices) + " trl/scripts/sft.py \\\n  --deepspeed ds_config.json" +
           e.text.substr(std::string_view("trl sft").size());
  e.not_carried.insert(e.not_carried.end(), {"zero", "offload"});
  return e;
}

}  // namespace

// The HF optimizer name (transformers OptimizerNames; readers/recipe.cpp optim_names) for ours; "" when none is.
// A name pins optimizer_impl for AdamW and the paged optimizers only.
std::string hf_optim(const setting_values& v, emitted& e) {
  const bool paged = v.optimizer_impl == "paged";
  std::string name;
  if (v.optimizer == "adamw")
    name = paged ? "paged_adamw_32bit" : v.optimizer_impl == "fused" ? "adamw_torch_fused" : "adamw_torch";
  else if (v.optimizer == "adamw_8bit")
    name = paged ? "paged_adamw_8bit" : "adamw_bnb_8bit";
  else if (v.optimizer == "lion")
    name = paged ? "paged_lion_32bit" : "lion_32bit";
  else if (!paged && (v.optimizer == "sgd" || v.optimizer == "adafactor"))
    name = v.optimizer;
  if (name.empty() || (v.optimizer != "adamw" && !paged)) e.not_carried.push_back("optimizer_impl");
  return name;
}

std::optional<emitted> emit_training(const setting_values& values, std::string_view format) {
  if (format == "accelerate") return accelerate(values);
  if (format == "torchtune") return torchtune(values);
  if (format == "trl") return trl(values);
  if (format == "deepspeed-trl") return trl_with_deepspeed(values);
  return emit_recipe(values, format);
}

}  // namespace llm_memory::detail
