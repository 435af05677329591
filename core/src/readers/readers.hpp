// SPDX-License-Identifier: MIT
// The launch readers' shared parts (private): the shell-like tokenizer, the option walker each reader drives with
// its own table of options, and the helpers that check a value against its setting before it is kept.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm_memory/launch.hpp"
#include "llm_memory/result.hpp"

namespace llm_memory::detail {

/// A command line split into words.
struct command_line {
  std::vector<std::pair<std::string, std::string>> env;  ///< `NAME=value` words before the program, in order
  std::string program;                                   ///< the program's base name ("llama-server", "vllm")
  std::vector<std::string> args;                         ///< the words after it
};

/// Words of the first command in `text` (POSIX-shell quoting, `\`-newline continuations, `#` comments); an error
/// names "command" (unbalanced quotes, empty input, more than 1 MiB, a NUL byte).
[[nodiscard]] result<std::vector<std::string>> split_words(std::string_view text, std::vector<std::string>& notes);

/// The words as env assignments, program and arguments (a leading `env` word is skipped).
[[nodiscard]] command_line to_command(std::vector<std::string> words);

/// How an option takes its value.
enum class takes {
  value,     ///< `--opt v` or `--opt=v`
  flag,      ///< no value (`--enforce-eager`); `--opt=v` still gives v
  optional,  ///< `-fa` or `-fa on`: the next word is its value only when it is one of on|off|auto|true|false
};

/// What an option's action receives.
struct option_hit {
  std::string_view option{};  ///< as written ("-c", "--ctx-size"); "model" for a positional word
  std::string_view value{};   ///< its value ("" for a bare flag); the word itself for a positional
};

/// The action of a positional word (an argument that is no option's value).
inline constexpr int positional_action = -1;

/// One option of a runtime's parser: its names and what reading it does. Actions are numbers each reader
/// switches on, not function pointers: a function whose address is taken stays in the page's first wasm part
/// (scripts/split-wasm.mjs), and the readers load with the rest.
struct option_row {
  std::string_view names{};    ///< "|"-separated spellings, as the runtime's parser declares them
  takes arity = takes::value;  ///< how it takes its value
  int action = 0;              ///< the reader's action; 0: listed as ignored with `why`
  std::string_view why{};      ///< why it is ignored (action == 0)
};

/// A reader's rules for walking its arguments.
struct walk_rules {
  std::span<const option_row> options{};  ///< the runtime's options, as its parser names them
  bool underscores_are_dashes = false;    ///< vLLM's parser reads --max_model_len as --max-model-len
  bool positionals = false;               ///< a word that is no option's value is the reader's (else ignored)
};

/// One action to take, in command order.
struct walk_hit {
  int action = 0;        ///< the row's action, or positional_action
  std::string option{};  ///< as written (the option's name, or the positional word)
  std::string value{};   ///< its value
  [[nodiscard]] option_hit hit() const {
    return {action == positional_action ? std::string_view("model") : std::string_view(option), value};
  }
};

/// Walks `args`: the options with an action (and the positional words, when the rules take them) are returned in
/// order for the reader to act on; the others are listed as ignored, an unknown option with the word after it,
/// when that is no option, taken as its value.
[[nodiscard]] std::vector<walk_hit> walk(std::span<const std::string> args, const walk_rules& rules, launch_read& out);

/// Keeps `key` = `value` read from `option` when the setting's parser accepts it; otherwise an error naming the
/// option and the setting. A later option for the same setting replaces the earlier one (as the parsers do).
void set_setting(launch_read& out, std::string_view option, std::string_view key, std::string value);

/// devices = tp x pp (one engine; llm-memory's devices = data x tensor x pipeline) when either was read, with a note.
void devices_from_parallel(launch_read& out);

/// An environment variable a runtime reads as one of its options (llama.cpp's LLAMA_ARG_CTX_SIZE, TGI's clap env).
struct env_option {
  std::string_view variable{};  ///< "LLAMA_ARG_CTX_SIZE"
  std::string_view option{};    ///< the option it stands for ("--ctx-size")
};

/// `cmd`'s environment as `--option=value` words to walk before the command line (which wins); a variable the
/// table does not name is listed as ignored.
[[nodiscard]] std::vector<std::string> env_as_options(const command_line& cmd, std::span<const env_option> table,
                                                      launch_read& out);

/// An option listed as ignored.
void ignore(launch_read& out, std::string_view option, std::string_view why);

/// The model preset a Hub repo id, a directory or a checkpoint name names (`-Instruct`, `-chat`, `-it`, `-pt`,
/// `-hf`, `-base` and `Meta-` aside): sets `model` when exactly one preset matches, else a note.
void read_model_name(launch_read& out, std::string_view option, std::string_view name);

/// The one preset a Hub repo id, directory or checkpoint name names (as read_model_name matches), if exactly one.
[[nodiscard]] std::optional<std::string> single_preset(std::string_view name);

/// A GGUF type name ("Q4_K_M", "f16", lower or upper case) as weights_dtype spells it ("q4_k_m", "fp16"); "" when
/// weights_dtype has no such choice.
[[nodiscard]] std::string gguf_weights(std::string_view type);

/// A GGUF file name (`Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf`): its type suffix as weights_dtype and the rest as
/// read_model_name() reads it; what it cannot decide is a note.
void read_gguf_name(launch_read& out, std::string_view option, std::string_view file);

/// A served model as `--model` names it: a .gguf file names its weights format too (read_gguf_name), anything else
/// is a Hub repo id, directory or checkpoint name (read_model_name). vLLM's and SGLang's readers.
void read_served_model(const option_hit& h, launch_read& out);

/// An option's value kept as the setting `Key`, as written (set_setting checks it).
template <const char* Key>
void set_direct(const option_hit& h, launch_read& out) {
  set_setting(out, h.option, Key, std::string(h.value));
}

/// Why a serving option (host, port, logging, chat template) is listed as ignored.
inline constexpr std::string_view serving_only = "serving only: no memory setting depends on it";

// The readers, one per runtime's command (readers/<command>.cpp).
void read_vllm_serve(const command_line& cmd, launch_read& out);
void read_llama_server(const command_line& cmd, launch_read& out);
void read_llama_cli(const command_line& cmd, launch_read& out);
void read_sglang(const command_line& cmd, launch_read& out);
void read_tgi(const command_line& cmd, launch_read& out);
void read_docker(const command_line& cmd, launch_read& out);
void read_ollama(const command_line& cmd, launch_read& out);
/// An Ollama Modelfile (FROM, PARAMETER lines), read whole: errors and ignored lines name "line N".
void read_modelfile(std::string_view text, launch_read& out);
/// Whether `text` is a Modelfile: its first line that is neither blank nor a comment starts with FROM.
[[nodiscard]] bool is_modelfile(std::string_view text);

/// An Unsloth training script (Python: FastLanguageModel.from_pretrained, get_peft_model, SFTConfig), read whole:
/// its `name = literal` keywords (readers/unsloth.cpp).
void read_unsloth(std::string_view text, launch_read& out);
/// Whether `text` is an Unsloth script: it names FastLanguageModel and from_pretrained.
[[nodiscard]] bool is_unsloth_script(std::string_view text);

/// A training script's command line (`trl sft`, `python train.py`, `torchrun`/`accelerate launch ... train.py`):
/// the launcher's process count, then the script's flags as TrainingArguments / SFTConfig fields.
void read_training_command(const command_line& cmd, launch_read& out);

/// `tune run RECIPE --config CONFIG key=value ...`: the overrides read as a torchtune recipe.
void read_tune_run(const command_line& cmd, launch_read& out);

/// Megatron-LM's pretraining flags (`pretrain_gpt.py ...`, after the script) as settings, framework megatron.
void read_megatron(std::span<const std::string> args, launch_read& out);

/// Whether `script` is one of Megatron-LM's pretraining entry points (pretrain_gpt.py, pretrain_mamba.py, ...).
[[nodiscard]] bool is_megatron_script(std::string_view script);

/// llm-memory's own command line (`llm-memory --key value ...`): the options that name settings.
void read_llm_memory_cli(const command_line& cmd, launch_read& out);

/// Reads `cmd` with the reader of the command it names (table.cpp); false when no row names it.
bool read_command(command_line cmd, launch_read& out);

/// An Ollama model name (llama3.1:8b-instruct-q4_K_M, hf.co/ORG/NAME-GGUF:Q4_K_M) -> model and weights_dtype.
void read_ollama_model(launch_read& out, std::string_view option, std::string_view name);

}  // namespace llm_memory::detail
