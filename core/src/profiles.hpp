// SPDX-License-Identifier: MIT
// Profiles: the defaults a framework (training) or runtime (inference) sets for the behaviour settings, so that
// the first estimate is what that stack reports. A profile is a layer of raw settings between the table's defaults
// and the model preset; every value in it stays overridable (resolve.cpp layers it, docs/architecture.md).
#pragma once

#include "llm_memory/resolve.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory::detail {

/// The framework profile for a training run (frameworks/table.cpp, each framework's in frameworks/<name>.cpp):
/// behaviour settings -> values. `framework` is the resolved framework (resolve.cpp parses the choice); `values` are
/// the settings as layered without any profile, `stated` the explicit values (the row's `stated` reads them).
[[nodiscard]] settings framework_profile(framework_kind framework, const setting_values& values,
                                         const settings& stated);

/// What a framework changes in the model itself, layered over the model preset (under config.json and explicit
/// values): litgpt's GPT has its own lm_head, so a tied checkpoint is untied (frameworks/litgpt.cpp).
[[nodiscard]] settings framework_model_overrides(framework_kind framework);

/// The runtime profile for an inference run (the runtime's row, runtimes/): behaviour settings -> values.
/// `runtime` is the resolved runtime (resolve.cpp parses the choice); `values` are the settings layered without a
/// profile.
[[nodiscard]] settings runtime_profile(runtime_kind runtime, const setting_values& values);

}  // namespace llm_memory::detail
