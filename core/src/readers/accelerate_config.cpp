// SPDX-License-Identifier: MIT
// An accelerate config (YAML, `accelerate config`'s default_config.yaml): the keys of huggingface/accelerate
// src/accelerate/commands/config/cluster.py and utils/dataclasses.py (FullyShardedDataParallelPlugin,
// DeepSpeedPlugin). docs/readers.md.
#include <array>

#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int {
  none,
  distributed_type,
  num_processes,
  mixed_precision,
  sharding,
  reshard,
  fsdp_offload,
  fsdp_checkpointing,
  fsdp_version,
  ds_stage,
  ds_offload_optimizer,
  ds_offload_param,
  ds_config_file,
  ds_grad_accum,
};

constexpr std::array<key_row, 16> keys{{
    {"distributed_type", distributed_type},
    {"num_processes", num_processes},
    {"mixed_precision", mixed_precision},
    {"fsdp_config.fsdp_sharding_strategy", sharding},
    {"fsdp_config.fsdp_reshard_after_forward", reshard},
    {"fsdp_config.fsdp_offload_params", fsdp_offload},
    {"fsdp_config.fsdp_activation_checkpointing", fsdp_checkpointing},
    {"fsdp_config.fsdp_version", fsdp_version},
    {"deepspeed_config.zero_stage", ds_stage},
    {"deepspeed_config.offload_optimizer_device", ds_offload_optimizer},
    {"deepspeed_config.offload_param_device", ds_offload_param},
    {"deepspeed_config.deepspeed_config_file", ds_config_file},
    {"deepspeed_config.gradient_accumulation_steps", ds_grad_accum},
    {"num_machines", none, "num_processes counts every process of every machine"},
    {"machine_rank", none, "one machine's place: no memory"},
    {"fsdp_config.fsdp_auto_wrap_policy", none, "the wrapping unit: the profile's per-layer units"},
}};

void read_distributed(launch_read& out, const key_hit& hit) {
  const auto t = lower(scalar_text(*hit.value));
  if (t == "fsdp") {
    set_setting(out, hit.path, "framework", "fsdp");
    if (!out.values.contains("zero")) set_setting(out, hit.path, "zero", "3");  // FULL_SHARD, the default
  } else if (t == "deepspeed") {
    set_setting(out, hit.path, "framework", "deepspeed");
  } else if (t == "multi_gpu" || t == "no") {
    set_setting(out, hit.path, "zero", "0");
  } else {
    ignore(out, hit.path, "a distributed type llm-memory does not model (TPU, XLA, Megatron-LM through accelerate)");
  }
}

// fsdp_sharding_strategy: FULL_SHARD / 1, SHARD_GRAD_OP / 2, NO_SHARD / 3, HYBRID_SHARD / 4 (torch's enum).
void read_sharding(launch_read& out, const key_hit& hit) {
  const auto s = lower(scalar_text(*hit.value));
  if (s == "full_shard" || s == "1") return set_setting(out, hit.path, "zero", "3");
  if (s == "shard_grad_op" || s == "2") return set_setting(out, hit.path, "zero", "2");
  if (s == "no_shard" || s == "3") return set_setting(out, hit.path, "zero", "0");
  if (s == "hybrid_shard" || s == "4" || s == "hybrid_shard_zero2" || s == "5") {
    out.notes.push_back(hit.path + " " + s + ": sharded within a node, counted as sharded over every device");
    return set_setting(out, hit.path, "zero", s == "hybrid_shard_zero2" || s == "5" ? "2" : "3");
  }
  ignore(out, hit.path, "a sharding strategy torch does not name");
}

void read_flag(launch_read& out, const key_hit& hit, std::string_view key, std::string_view on, std::string_view off) {
  if (const auto t = read_truth(out, hit)) set_setting(out, hit.path, key, std::string(*t ? on : off));
}

void act(launch_read& out, const key_hit& hit) {
  switch (hit.action) {
    case distributed_type: return read_distributed(out, hit);
    case num_processes: return set_from(out, hit, "devices");
    case mixed_precision:
      // Accelerator(mixed_precision=...) autocasts over the weights as the script loaded them.
      if (const auto m = lower(scalar_text(*hit.value)); m == "bf16" || m == "fp16")
        return set_setting(out, hit.path, "autocast", m);
      return ignore(out, hit.path, "no autocast (or fp8, which llm-memory does not model)");
    case sharding: return read_sharding(out, hit);
    case reshard: return read_flag(out, hit, "zero", "3", "2");  // FSDP2: false keeps the gathered weights (ZeRO-2)
    case fsdp_offload: return read_flag(out, hit, "offload", "optimizer+params", "none");
    case fsdp_checkpointing: return read_flag(out, hit, "recompute", "full", "none");
    case fsdp_version:
      if (scalar_text(*hit.value) == "1") out.notes.push_back("fsdp_version 1: modelled by the FSDP2 profile");
      return ignore(out, hit.path, "the fsdp profile models FSDP2");
    case ds_stage: return set_from(out, hit, "zero");
    case ds_offload_optimizer:
    case ds_offload_param: {
      const auto d = lower(scalar_text(*hit.value));
      if (d != "cpu" && d != "nvme") return ignore(out, hit.path, "none: nothing offloaded");
      const auto now = out.values.find("offload");
      if (hit.action == ds_offload_param || now == out.values.end() || now->second == "none")
        set_setting(out, hit.path, "offload", hit.action == ds_offload_param ? "optimizer+params" : "optimizer");
      return;
    }
    case ds_config_file: return note_file(out, hit, "a DeepSpeed config");
    case ds_grad_accum: return set_from(out, hit, "grad_accum");
    default: return;
  }
}

}  // namespace

void read_accelerate_config(const json& doc, launch_read& out) {
  set_setting(out, out.command, "mode", "train");
  for (const auto& hit : walk_keys(doc, keys, out)) act(out, hit);
}

}  // namespace llm_memory::detail
