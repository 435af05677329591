// SPDX-License-Identifier: MIT
// Training recipes out: an axolotl YAML, a LLaMA-Factory YAML, a litgpt YAML and a torchtitan TOML for resolved
// settings, with the keys their readers (readers/axolotl.cpp, llama_factory.cpp, litgpt.cpp, torchtitan.cpp) map back
// to the same settings, and the settings no key carries listed by name. docs/readers.md, "Emit".
#include <cstdint>
#include <string>

#include "emit_training.hpp"
#include "llm_memory/presets.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

std::string whole(std::int64_t v) { return format_number(static_cast<double>(v)); }
std::string yaml_bool(bool on) { return on ? "true" : "false"; }

struct recipe {
  emitted e;
  void key(std::string_view name, const std::string& value) { e.text += std::string(name) + ": " + value + "\n"; }
  void missing(std::string_view setting) { e.not_carried.emplace_back(setting); }
};

bool quantized(const setting_values& v) { return v.weights_dtype == "nf4" || v.weights_dtype == "int8"; }

// PEFT's module names as a YAML flow list ("q_proj,v_proj" -> "[q_proj, v_proj]").
std::string flow_list(const std::string& names) {
  std::string out;
  for (const auto name : split(names, ',')) out += (out.empty() ? "" : ", ") + std::string(trim(name));
  return "[" + out + "]";
}

// axolotl (axolotl-ai-cloud/axolotl @9f824ef7 src/axolotl/utils/schemas/config.py AxolotlInputConfig; the keys of
// examples/llama-3/lora-8b.yml). bf16/fp16 loads the model in that dtype and autocasts (utils/models.py), so
// unquantized weights are carried only when they are the autocast dtype.
emitted axolotl(const setting_values& v) {
  recipe r;
  r.key("base_model", v.model.empty() ? "MODEL" : v.model);
  if (v.model.empty()) r.missing("model");
  if (v.weights_dtype == "nf4") r.key("load_in_4bit", "true");
  if (v.weights_dtype == "int8") r.key("load_in_8bit", "true");
  r.key("adapter", v.finetune == "full" ? "" : v.finetune);  // empty: null, a full fine-tune
  if (v.finetune != "full") {
    r.key("lora_r", whole(v.lora_rank));
    r.key("lora_dropout", format_number(v.lora_dropout));
    if (v.lora_targets == "all-linear")
      r.key("lora_target_linear", "true");
    else
      r.key("lora_target_modules", flow_list(v.lora_targets));
  }
  r.key("sequence_len", whole(v.seq));
  r.key("micro_batch_size", whole(v.batch));
  r.key("gradient_accumulation_steps", whole(v.grad_accum));
  if (v.recompute == "none" || v.recompute == "full")
    r.key("gradient_checkpointing", yaml_bool(v.recompute == "full"));
  else
    r.missing("recompute");
  const std::string opt = hf_optim(v, r.e);
  if (opt.empty())
    r.missing("optimizer");
  else
    r.key("optimizer", opt);
  if (v.autocast != "off")
    r.key(v.autocast, "true");
  else
    r.missing("autocast");
  if (!quantized(v) && v.weights_dtype != v.autocast) r.missing("weights_dtype");
  if (v.attention == "flash" || v.attention == "sdpa")
    r.key(v.attention == "flash" ? "flash_attention" : "sdp_attention", "true");
  else
    r.missing("attention");
  if (v.framework != "axolotl") r.missing("framework");  // the reader's
  if (v.zero > 0) r.missing("zero");  // in the DeepSpeed config its `deepspeed:` key names (--emit deepspeed)
  return r.e;
}

// LLaMA-Factory (hiyouga/LLaMA-Factory @e8e6af26 hparams/model_args.py, finetuning_args.py, data_args.py;
// examples/train_lora/llama3_lora_sft.yaml). quantization_bit 4 is nf4 (QLoRA with LoRA); LoRA keeps the base in
// the compute dtype, full training upcasts it to fp32 (model/adapter.py): the profile's own choice.
emitted llama_factory(const setting_values& v) {
  recipe r;
  r.key("model_name_or_path", v.model.empty() ? "MODEL" : v.model);
  if (v.model.empty()) r.missing("model");
  r.key("stage", "sft");
  r.key("finetuning_type", v.finetune == "full" ? "full" : "lora");
  if (quantized(v)) r.key("quantization_bit", v.weights_dtype == "nf4" ? "4" : "8");
  if (v.finetune != "full") {
    r.key("lora_rank", whole(v.lora_rank));
    r.key("lora_dropout", format_number(v.lora_dropout));
    r.key("lora_target", v.lora_targets == "all-linear" ? "all" : v.lora_targets);
  }
  r.key("per_device_train_batch_size", whole(v.batch));
  r.key("gradient_accumulation_steps", whole(v.grad_accum));
  r.key("cutoff_len", whole(v.seq));
  if (v.autocast != "off")
    r.key(v.autocast, "true");
  else
    r.missing("autocast");
  if (!quantized(v) && (v.finetune != "lora" || v.weights_dtype != v.autocast)) r.missing("weights_dtype");
  if (v.recompute == "none" || v.recompute == "full")
    r.key("disable_gradient_checkpointing", yaml_bool(v.recompute == "none"));
  else
    r.missing("recompute");
  if (v.attention == "flash" || v.attention == "sdpa" || v.attention == "eager")
    r.key("flash_attn", v.attention == "flash" ? "fa2" : v.attention == "sdpa" ? "sdpa" : "disabled");
  else
    r.missing("attention");
  const std::string opt = hf_optim(v, r.e);
  if (opt.empty())
    r.missing("optimizer");
  else
    r.key("optim", opt);
  if (v.framework != "llamafactory") r.missing("framework");  // the reader's
  if (v.zero > 0) r.missing("zero");  // in the DeepSpeed config its `deepspeed:` key names (--emit deepspeed)
  return r.e;
}

// litgpt's lora_query ... lora_mlp for PEFT's names (litgpt/lora.py: the fused qkv's parts, proj, the MLP's three);
// false when the names are no such set (a part of the MLP, another module).
bool litgpt_modules(const std::string& targets, bool flags[5]) {
  const bool all = targets == "all-linear";
  int mlp = 0;
  for (const auto t : split(targets, ',')) {
    const auto name = trim(t);
    if (name == "q_proj")
      flags[0] = true;
    else if (name == "k_proj")
      flags[1] = true;
    else if (name == "v_proj")
      flags[2] = true;
    else if (name == "o_proj")
      flags[3] = true;
    else if (name == "gate_proj" || name == "up_proj" || name == "down_proj")
      ++mlp;
    else if (!all)
      return false;
  }
  if (all) flags[0] = flags[1] = flags[2] = flags[3] = true;
  flags[4] = all || mlp == 3;
  return all || mlp == 0 || mlp == 3;
}

// litgpt (Lightning-AI/litgpt v0.5 litgpt/finetune/lora.py setup, litgpt/args.py TrainArgs; the keys of
// config_hub/finetune/llama-3.1-8b/qlora.yaml), for `litgpt finetune_lora|finetune_full --config FILE`.
// precision `<dtype>-true` keeps the weights in that dtype, `<dtype>-mixed` fp32 weights under autocast; the
// accumulation is global_batch_size / (devices x micro_batch_size).
emitted litgpt(const setting_values& v) {
  recipe r;
  r.e.text = std::string("# litgpt ") + (v.finetune == "full" ? "finetune_full" : "finetune_lora") + " --config FILE\n";
  const model_preset* preset = find_model(v.model);
  if (preset == nullptr) r.missing("model");
  r.key("checkpoint_dir", "checkpoints/" + (preset == nullptr         ? std::string("MODEL")
                                            : preset->hf_repo.empty() ? preset->id
                                                                      : preset->hf_repo));
  const bool mixed = v.weights_dtype == "fp32" && v.autocast != "off";
  const std::string dtype = mixed ? v.autocast : quantized(v) ? "bf16" : v.weights_dtype;
  if (dtype == "bf16" || dtype == "fp16" || dtype == "fp32")
    r.key("precision", (dtype == "bf16"   ? "bf16"
                        : dtype == "fp16" ? "16"
                                          : "32") +
                           std::string(mixed ? "-mixed" : "-true"));
  else
    r.missing("weights_dtype");
  if (!mixed) r.missing("autocast");
  if (v.weights_dtype == "nf4") r.key("quantize", v.double_quant ? "bnb.nf4-dq" : "bnb.nf4");
  if (v.weights_dtype == "int8") r.key("quantize", "bnb.int8");
  r.key("devices", whole(v.devices));
  if (v.finetune == "full") r.missing("finetune");  // finetune_full is the command, not a key
  if (v.finetune != "full") {
    r.key("lora_r", whole(v.lora_rank));
    r.key("lora_dropout", format_number(v.lora_dropout));
    bool flags[5] = {false, false, false, false, false};
    if (!litgpt_modules(v.lora_targets, flags)) r.missing("lora_targets");
    constexpr const char* names[5] = {"lora_query", "lora_key", "lora_value", "lora_projection", "lora_mlp"};
    for (int i = 0; i < 5; ++i) r.key(names[i], yaml_bool(flags[i]));
  }
  r.e.text += "train:\n";
  r.key("  micro_batch_size", whole(v.batch));
  r.key("  global_batch_size", whole(v.batch * v.devices * v.grad_accum));
  r.key("  max_seq_length", whole(v.seq));
  const std::string opt = v.optimizer == "adamw"        ? "torch.optim.AdamW"
                          : v.optimizer == "adamw_8bit" ? "bitsandbytes.optim.AdamW8bit"
                          : v.optimizer == "sgd"        ? "torch.optim.SGD"
                                                        : "";
  if (opt.empty())
    r.missing("optimizer");
  else
    r.key("optimizer", opt);
  r.missing("optimizer_impl");  // litgpt's optimizer is a class path, no implementation key
  r.missing("recompute");       // litgpt checkpoints by its strategy (FSDP on several devices), no key
  return r.e;
}

// A torchtitan job config (pytorch/torchtitan torchtitan/config/job_config.py @000204a4; the tables of
// models/llama3/train_configs/llama3_8b.toml) for `./run_train.sh --job.config_file FILE` (NGPU = devices).
// FSDP over the data-parallel degree is ZeRO-3 in our words, DDP (replicate) ZeRO-0.
emitted torchtitan(const setting_values& v) {
  recipe r;
  const auto key = [&r](std::string_view name, const std::string& value) {
    r.e.text += std::string(name) + " = " + value + "\n";
  };
  const std::string flavor = v.model == "llama-3.1-8b"     ? "8B"
                             : v.model == "llama-3.1-70b"  ? "70B"
                             : v.model == "llama-3.1-405b" ? "405B"
                                                           : "";
  if (flavor.empty()) {
    r.missing("model");  // torchtitan builds its own flavors (models/llama3/__init__.py): Llama 3.1's
  } else {
    r.e.text += "[model]\n";
    key("name", "\"llama3\"");
    key("flavor", "\"" + flavor + "\"");
  }
  const std::int64_t model_parallel = v.tp * v.pp * v.cp;
  const bool whole_dp = v.devices % model_parallel == 0;
  const std::int64_t dp = whole_dp ? v.devices / model_parallel : 1;
  r.e.text += "\n[training]\n";
  key("local_batch_size", whole(v.batch));
  if (whole_dp)
    key("global_batch_size", whole(v.batch * dp * v.grad_accum));
  else
    r.missing("grad_accum");
  key("seq_len", whole(v.seq));
  if (v.compile != "auto") key("compile", yaml_bool(v.compile == "on"));
  if (v.offload == "none" || v.offload == "optimizer+params")
    key("enable_cpu_offload", yaml_bool(v.offload != "none"));
  else
    r.missing("offload");  // FSDP offloads parameters, gradients and state together
  r.e.text += "\n[parallelism]\n";
  const bool fsdp = v.zero == 3 && dp > 1;
  key("data_parallel_replicate_degree", whole(fsdp ? 1 : dp));
  key("data_parallel_shard_degree", whole(fsdp ? dp : 1));
  if (!whole_dp) r.missing("devices");
  if (v.zero != (fsdp ? 3 : 0)) r.missing("zero");  // FSDP shards all or, replicated, nothing
  key("tensor_parallel_degree", whole(v.tp));
  key("pipeline_parallel_degree", whole(v.pp));
  key("context_parallel_degree", whole(v.cp));
  if (v.ep > 1) key("expert_parallel_degree", whole(v.ep));
  r.e.text += "\n[activation_checkpoint]\n";
  if (v.recompute == "none" || v.recompute == "selective" || v.recompute == "full")
    key("mode", "\"" + v.recompute + "\"");
  else
    r.missing("recompute");
  key("selective_ac_option", "\"" + v.selective_ac_option + "\"");
  r.e.text += "\n[optimizer]\n";
  if (v.optimizer == "adamw")
    key("name", "\"AdamW\"");
  else
    r.missing("optimizer");
  if (v.optimizer_impl == "fused" || v.optimizer_impl == "foreach")
    key("implementation", "\"" + v.optimizer_impl + "\"");
  else
    r.missing("optimizer_impl");
  key("early_step_in_backward", yaml_bool(v.optimizer_in_backward));
  return r.e;
}

}  // namespace

std::optional<emitted> emit_recipe(const setting_values& values, std::string_view format) {
  if (format == "axolotl") return axolotl(values);
  if (format == "llama-factory") return llama_factory(values);
  if (format == "litgpt") return litgpt(values);
  if (format == "torchtitan") return torchtitan(values);
  return emit_launcher(values, format);
}

}  // namespace llm_memory::detail
