// SPDX-License-Identifier: MIT
// A litgpt config (YAML: config_hub/finetune/<model>/lora.yaml, qlora.yaml, full.yaml, the arguments of
// `litgpt finetune_lora|finetune_full --config`): the keys of litgpt/finetune/lora.py `setup` and litgpt/args.py
// TrainArgs at Lightning-AI/litgpt v0.5 (config_hub/finetune/llama-3.1-8b/qlora.yaml 47053876). docs/readers.md.
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
  checkpoint_dir = peft_actions_end,
  precision,
  quantize,
  devices,
  lora_flag,
  micro_batch,
  global_batch,
  max_seq_length,
  optimizer,
};

constexpr std::array<key_row, 21> keys{{
    {"checkpoint_dir", checkpoint_dir},
    {"precision", precision},
    {"quantize", quantize},
    {"devices", devices},
    {"num_nodes", none, "devices counts every GPU: give devices x num_nodes as --devices"},
    {"lora_r", peft_lora_rank},
    lora_alpha_row,
    {"lora_dropout", peft_lora_dropout},
    {"lora_query", lora_flag},
    {"lora_key", lora_flag},
    {"lora_value", lora_flag},
    {"lora_projection", lora_flag},
    {"lora_mlp", lora_flag},
    {"lora_head", lora_flag},
    {"train.micro_batch_size", micro_batch},
    {"train.global_batch_size", global_batch},
    {"train.max_seq_length", max_seq_length},
    {"optimizer", optimizer},
    {"train.tie_embeddings", none, "the litgpt profile unties the lm_head as litgpt's model does"},
    {"out_dir", none, "where checkpoints go: no memory"},
    {"data", none, "the dataset: its longest sample is max_seq_length's to give"},
}};

// lora_query ... lora_head as PEFT module names (litgpt/lora.py: the fused qkv's parts, proj, the MLP's fc_1,
// fc_2 and proj, lm_head). litgpt's defaults: query and value.
struct lora_modules {
  bool query = true, key = false, value = true, projection = false, mlp = false, head = false;
  bool named = false;  ///< a lora_* flag was read
};

void read_precision(launch_read& out, const key_hit& hit) {
  const auto p = lower(scalar_text(*hit.value));
  const auto dtype = p.starts_with("bf16") ? "bf16" : p.starts_with("16") ? "fp16" : p.starts_with("32") ? "fp32" : "";
  if (std::string_view(dtype).empty()) return ignore(out, hit.path, "a precision llm-memory does not model");
  if (p.ends_with("-mixed")) {  // fp32 weights under autocast
    set_setting(out, hit.path, "weights_dtype", "fp32");
    return set_setting(out, hit.path, "autocast", dtype);
  }
  set_setting(out, hit.path, "weights_dtype", dtype);
}

// bnb.nf4, bnb.nf4-dq (double quantisation), bnb.int8; bnb.fp4 has no weights_dtype.
void read_quantize(launch_read& out, const key_hit& hit) {
  const auto q = lower(scalar_text(*hit.value));
  if (q.empty()) return ignore(out, hit.path, "null: no quantisation");
  if (q.starts_with("bnb.nf4")) {
    set_setting(out, hit.path, "weights_dtype", "nf4");
    return set_setting(out, hit.path, "double_quant", q.ends_with("-dq") ? "on" : "off");
  }
  if (q.starts_with("bnb.int8")) return set_setting(out, hit.path, "weights_dtype", "int8");
  ignore(out, hit.path, quoted(q) + " has no weights_dtype choice");
}

// A class name or `class_path: torch.optim.AdamW`.
void read_optimizer(launch_read& out, const key_hit& hit) {
  const json* name = hit.value;
  if (hit.value->is_object() && hit.value->contains("class_path")) name = &(*hit.value)["class_path"];
  const auto o = lower(scalar_text(*name));
  if (o.find("8bit") != std::string::npos) return set_setting(out, hit.path, "optimizer", "adamw_8bit");
  if (o.ends_with("adamw") || o.ends_with("adam")) return set_setting(out, hit.path, "optimizer", "adamw");
  if (o.ends_with("sgd")) return set_setting(out, hit.path, "optimizer", "sgd");
  ignore(out, hit.path, "an optimizer llm-memory does not model");
}

void read_lora_flag(launch_read& out, const key_hit& hit, lora_modules& m) {
  const auto on = read_truth(out, hit);
  if (!on) return;
  m.named = true;
  const std::string_view which = std::string_view(hit.path).substr(5);
  bool* flag = which == "query"        ? &m.query
               : which == "key"        ? &m.key
               : which == "value"      ? &m.value
               : which == "projection" ? &m.projection
               : which == "mlp"        ? &m.mlp
                                       : &m.head;
  *flag = *on;
}

std::string peft_targets(const lora_modules& m) {
  std::string t;
  const auto add = [&](std::string_view name) { t += (t.empty() ? "" : ",") + std::string(name); };
  if (m.query) add("q_proj");
  if (m.key) add("k_proj");
  if (m.value) add("v_proj");
  if (m.projection) add("o_proj");
  if (m.mlp) add("gate_proj,up_proj,down_proj");
  return t;
}

// A setting read so far, as a number; `fallback` when unread.
double read_value(const launch_read& out, const char* key, double fallback) {
  const auto it = out.values.find(key);
  double v = fallback;
  if (it != out.values.end() && read_double(it->second, v) == 0) v = fallback;
  return v;
}

// TrainArgs.gradient_accumulation_iters: global_batch_size // devices // micro_batch_size (litgpt/args.py).
void accumulation(launch_read& out, const json* global) {
  if (global == nullptr || global->is_null()) return;
  const std::string text = scalar_text(*global);
  double g = 0;
  if (read_double(text, g) != text.size() || g < 1 || g > 1e12 || std::floor(g) != g)
    return out.errors.push_back({"train.global_batch_size", "must be a whole number from 1, got " + quoted(text)});
  const double per_step = read_value(out, "devices", 1) * read_value(out, "batch", 4);  // micro_batch_size: 4
  set_setting(out, "train.global_batch_size", "grad_accum", format_number(std::max(1.0, std::floor(g / per_step))));
}

}  // namespace

void read_litgpt(const json& doc, launch_read& out) {
  training_run(out, "litgpt");
  lora_modules modules;
  bool lora = false;
  const json* global = nullptr;
  for (const auto& hit : walk_keys(doc, keys, out)) {
    switch (hit.action) {
      case checkpoint_dir: {
        const std::string dir = scalar_text(*hit.value);
        read_model_name(out, hit.path, std::string_view(dir).substr(dir.starts_with("checkpoints/") ? 12 : 0));
        break;
      }
      case precision: read_precision(out, hit); break;
      case quantize: read_quantize(out, hit); break;
      case devices: set_from(out, hit, "devices"); break;
      case lora_flag: read_lora_flag(out, hit, modules); break;
      case micro_batch: set_from(out, hit, "batch"); break;
      case global_batch: global = hit.value; break;
      case max_seq_length: set_from(out, hit, "seq"); break;
      case optimizer: read_optimizer(out, hit); break;
      default: lora = lora || hit.action == peft_lora_rank; read_peft_key(out, hit);
    }
  }
  if (modules.head)
    out.notes.push_back("lora_head: the lm_head's adapter is not counted (lora_targets has no lm_head)");
  if (lora || modules.named) {
    set_setting(out, "lora_* keys", "finetune", "lora");
    if (const auto targets = peft_targets(modules); !targets.empty())
      set_setting(out, "lora_query ... lora_mlp", "lora_targets", targets);
    else
      out.notes.push_back("every lora_query ... lora_mlp is false: no adapter is counted; give --lora_targets");
  }
  accumulation(out, global);
  lora_on_nf4_is_qlora(out, "quantize");
}

}  // namespace llm_memory::detail
