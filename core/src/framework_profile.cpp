// SPDX-License-Identifier: MIT
#include "profiles.hpp"

namespace llm_memory::detail {

settings framework_profile(const setting_values&) { return {}; }

}  // namespace llm_memory::detail
