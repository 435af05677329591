// SPDX-License-Identifier: MIT
// Launch commands out: the command a user would run for the current settings, in a runtime's own words (the
// inverse of launch.hpp's readers; docs/readers.md, "Emit"). Reading the text back with read_launch() gives the
// settings it carries; the ones its format cannot carry are listed by name.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/resolve.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory {

/// A command written for a runtime.
struct emitted {
  std::string text{};                      ///< the command, one option per line (a Modelfile, a JSON config: its lines)
  std::vector<std::string> not_carried{};  ///< settings the format has no option for (or not for this value)
};

/// The formats emit() writes, as `--emit` names them.
inline constexpr std::string_view emit_formats =
    "vllm|sglang|llamacpp|ollama|deepspeed|deepspeed-trl|accelerate|torchtune|trl|axolotl|llama-factory|litgpt|"
    "torchtitan|megatron|unsloth|generic";

/// A format emit() writes, and the run it is the own words of: an inference runtime's launch command, or a
/// training framework's config (docs/readers.md, "Emit").
struct emit_format_row {
  std::string_view format;  ///< as `--emit` names it (emit_formats, in its order)
  std::string_view label;   ///< what the text is, as the page names it ("vllm serve command", "DeepSpeed config")
  bool training = false;    ///< a training framework's config (mode train), else an inference runtime's command
  runtime_kind runtime = runtime_kind::automatic;      ///< the runtime it is written for (inference rows)
  framework_kind framework = framework_kind::generic;  ///< the framework it is written for (training rows)
};

/// Every format, in emit_formats' order: the runtime each launch command is for, the framework each training config
/// is for (the reader of that format sets the same framework: readers/deepspeed_config.cpp deepspeed,
/// accelerate_config.cpp fsdp, torchtune.cpp torchtune, training_args.cpp hf and with --deepspeed deepspeed,
/// axolotl.cpp axolotl, llama_factory.cpp llamafactory, litgpt.cpp litgpt, torchtitan.cpp torchtitan, megatron.cpp
/// megatron, unsloth.cpp unsloth), and llm-memory's own command line for the generic framework (llm_memory_cli.cpp;
/// `--emit generic` writes it for any run).
inline constexpr std::array<emit_format_row, 16> emit_table{{
    {"vllm", "vllm serve command", false, runtime_kind::vllm},
    {"sglang", "SGLang launch_server command", false, runtime_kind::sglang},
    {"llamacpp", "llama-server command", false, runtime_kind::llamacpp},
    {"ollama", "Ollama Modelfile", false, runtime_kind::ollama},
    {"deepspeed", "DeepSpeed config", true, runtime_kind::automatic, framework_kind::deepspeed},
    {"deepspeed-trl", "torchrun trl sft command for the DeepSpeed config", true, runtime_kind::automatic,
     framework_kind::deepspeed},
    {"accelerate", "accelerate FSDP config", true, runtime_kind::automatic, framework_kind::fsdp},
    {"torchtune", "tune run command", true, runtime_kind::automatic, framework_kind::torchtune},
    {"trl", "trl sft command", true, runtime_kind::automatic, framework_kind::hf},
    {"axolotl", "axolotl config", true, runtime_kind::automatic, framework_kind::axolotl},
    {"llama-factory", "LLaMA-Factory config", true, runtime_kind::automatic, framework_kind::llamafactory},
    {"litgpt", "litgpt config", true, runtime_kind::automatic, framework_kind::litgpt},
    {"torchtitan", "torchtitan job config", true, runtime_kind::automatic, framework_kind::torchtitan},
    {"megatron", "Megatron-LM pretrain_gpt.py command", true, runtime_kind::automatic, framework_kind::megatron},
    {"unsloth", "Unsloth training script", true, runtime_kind::automatic, framework_kind::unsloth},
    {"generic", "llm-memory command", true, runtime_kind::automatic, framework_kind::generic},
}};

/// The formats that apply to a resolved run, in the table's order: an inference run's runtime's command, a
/// training run's framework's configs (the generic framework's: llm-memory's own command line); none for evaluation,
/// or a runtime or framework no format is written for.
[[nodiscard]] std::vector<emit_format_row> emit_formats_for(const run_spec& spec);

/// The command for `values` (resolved settings) in `format` (one of emit_formats); an error names "emit".
[[nodiscard]] result<emitted> emit(const setting_values& values, std::string_view format);

}  // namespace llm_memory
