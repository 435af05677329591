// SPDX-License-Identifier: MIT
// Training configs out (private; emit.cpp dispatches to it): accelerate FSDP, torchtune overrides, TRL flags (alone
// or with a DeepSpeed config); the recipe files (emit_recipes.cpp) and the launchers (emit_launchers.cpp).
#pragma once

#include <optional>
#include <string_view>

#include "llm_memory/emit.hpp"

namespace llm_memory::detail {

/// The config for `values` in `format` (a training row of emit_table), text without its final newline; nullopt
/// for another format.
[[nodiscard]] std::optional<emitted> emit_training(const setting_values& values, std::string_view format);

/// An axolotl, LLaMA-Factory or litgpt YAML, a Megatron-LM command or the llm-memory command line; nullopt for
/// another format.
[[nodiscard]] std::optional<emitted> emit_recipe(const setting_values& values, std::string_view format);

/// A Megatron-LM pretraining command or the llm-memory command line; nullopt for another format.
[[nodiscard]] std::optional<emitted> emit_launcher(const setting_values& values, std::string_view format);

/// The Hugging Face optimizer name (transformers OptimizerNames) for the optimizer and its implementation; "" when
/// none is. optimizer_impl is listed as not carried where the name does not pin it.
[[nodiscard]] std::string hf_optim(const setting_values& v, emitted& e);

}  // namespace llm_memory::detail
