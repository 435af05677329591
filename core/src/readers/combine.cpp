// SPDX-License-Identifier: MIT
// Several files read as one (launch.hpp combine_launches): a DeepSpeed JSON beside a TRL command, an accelerate
// config beside a script's flags. Later files win, as a later flag does.
#include <algorithm>

#include "llm_memory/launch.hpp"

namespace llm_memory {

launch_read combine_launches(const std::vector<launch_file>& files) {
  if (files.size() == 1) return files.front().read;
  launch_read out;
  for (const auto& [name, read] : files) {
    out.command += (out.command.empty() ? "" : " + ") + name + " (" + read.command + ")";
    for (auto option : read.read) {
      for (auto& earlier : out.read)
        if (earlier.setting == option.setting) earlier.overridden = true;
      option.file = name;
      out.read.push_back(std::move(option));
    }
    for (auto ignored : read.ignored) {
      ignored.file = name;
      out.ignored.push_back(std::move(ignored));
    }
    for (const auto& note : read.notes) out.notes.push_back(name + ": " + note);
    for (const auto& e : read.errors) out.errors.push_back({name + ": " + e.setting, e.message});
    for (const auto& [key, value] : read.values) out.values[key] = value;
  }
  return out;
}

}  // namespace llm_memory
