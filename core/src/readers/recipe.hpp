// SPDX-License-Identifier: MIT
// The training-recipe readers' shared parts (private): a document (YAML or JSON) walked key by key against each
// format's table of keys, the values' text, and the names several formats share (Hugging Face optimizer and
// attention names). docs/readers.md ("Training recipes").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json_value.hpp"
#include "llm_memory/launch.hpp"

namespace llm_memory::detail {

/// One key of a recipe format, by its dotted path, and what reading it does (as option_row: actions are numbers).
struct key_row {
  std::string_view path{};  ///< "batch_size", "model._component_", "zero_optimization.stage"
  int action = 0;           ///< the reader's action; 0: listed as ignored with `why`
  std::string_view why{};   ///< why it is ignored (action == 0)
};

/// One key to act on, in document order.
struct key_hit {
  int action = 0;               ///< the row's action
  std::string path{};           ///< the dotted path, as the reader lists it
  const json* value = nullptr;  ///< its value, in the document
};

/// Walks `doc`'s keys: those a row names with an action are returned in document order; rows without one, and
/// keys no row names, are listed as ignored (an object no row looks into is one entry). Each value stays in `doc`.
[[nodiscard]] std::vector<key_hit> walk_keys(const json& doc, std::span<const key_row> rows, launch_read& out);

/// A scalar's text ("16", "true"; "" for null); a list's items joined by ",".
[[nodiscard]] std::string scalar_text(const json& v);

/// A YAML or JSON truth value (true, True, yes, on, 1 / false, False, no, off, 0); nullopt for anything else.
[[nodiscard]] std::optional<bool> truth(const json& v);

/// The value's truth, or an error naming the key and nullopt.
[[nodiscard]] std::optional<bool> read_truth(launch_read& out, const key_hit& hit);

/// "auto" (DeepSpeed's and the Trainer's "filled in from elsewhere"): listed as ignored with that reason.
[[nodiscard]] bool is_auto(launch_read& out, const key_hit& hit);

/// Sets `key` from the hit's text when it is not null (set_setting checks it).
void set_from(launch_read& out, const key_hit& hit, std::string_view key);

/// A Hugging Face optimizer name (TrainingArguments.optim, transformers training_args.py OptimizerNames) as
/// optimizer and optimizer_impl; another name is listed as ignored.
void read_hf_optim(launch_read& out, const key_hit& hit);

/// The PEFT and bitsandbytes keys the Trainer-based recipes spell alike (axolotl, TrainingArguments / TRL,
/// LLaMA-Factory's LoRA keys): a format's rows name them with these actions, its own actions follow
/// peft_actions_end, and its act() hands these to read_peft_key.
enum peft_action : int {
  peft_load_in_4bit = 1,  ///< load_in_4bit: true → weights_dtype nf4
  peft_load_in_8bit,      ///< load_in_8bit: true → weights_dtype int8
  peft_lora_rank,         ///< lora_r (PEFT's LoraConfig.r), lora_rank (LLaMA-Factory) → lora_rank
  peft_lora_dropout,      ///< lora_dropout → lora_dropout
  peft_lora_targets,      ///< lora_target_modules: PEFT's names → lora_targets
};
/// The first action a format may use for its own keys.
inline constexpr int peft_actions_end = peft_lora_targets + 1;

/// lora_alpha scales the adapters' output (PEFT LoraConfig.lora_alpha): every LoRA recipe lists it as ignored.
inline constexpr key_row lora_alpha_row{"lora_alpha", 0, "scales the adapters' output: no memory"};

/// Reads a key whose row has a peft_action. The bitsandbytes flags load the base as transformers'
/// BitsAndBytesConfig does (load_in_4bit: nf4, as TRL's get_quantization_config and axolotl set it); false keeps it.
void read_peft_key(launch_read& out, const key_hit& hit);

/// LoRA over a base read as nf4 is QLoRA in all but name: finetune becomes qlora, as read from `key`.
void lora_on_nf4_is_qlora(launch_read& out, std::string_view key);

/// Hugging Face's attn_implementation names (eager, sdpa, flash_attention_2/3) as `attention`.
void read_hf_attention(launch_read& out, const key_hit& hit);

/// mode = train and framework = `framework`; a `tool` with no profile of its own is noted as using its nearest.
void training_run(launch_read& out, std::string_view framework, std::string_view tool = "");

/// A path to another file (a DeepSpeed JSON named by a recipe): noted, to be given as a second --from.
void note_file(launch_read& out, const key_hit& hit, std::string_view what);

// The readers, one per format (readers/<format>.cpp), and their detection by content.
void read_torchtune(const json& doc, launch_read& out);
void read_axolotl(const json& doc, launch_read& out);
void read_llama_factory(const json& doc, launch_read& out);
void read_deepspeed_config(const json& doc, launch_read& out);
void read_accelerate_config(const json& doc, launch_read& out);
void read_training_args(const json& doc, launch_read& out);
void read_litgpt(const json& doc, launch_read& out);
void read_torchtitan(const json& doc, launch_read& out);

/// Reads a YAML or JSON recipe document by the format its keys show; false when `text` is not a document
/// (then it is read as a command line).
bool read_recipe(std::string_view text, launch_read& out);

/// Whether `text` looks like a YAML or JSON document rather than a command: its first line that is neither blank
/// nor a comment is `{`, `---` or `key:`.
[[nodiscard]] bool is_document(std::string_view text);

}  // namespace llm_memory::detail
