// SPDX-License-Identifier: MIT
// Several files read as one (launch.hpp combine_launches): a DeepSpeed JSON beside a TRL command, an accelerate
// config beside a script's flags. Later files win, as a later flag does, but for a DeepSpeed config's framework
// after an axolotl or LLaMA-Factory recipe: those frameworks' profiles run DeepSpeed's engine themselves from the
// config's ZeRO stage (frameworks/axolotl.cpp, llamafactory.cpp), so the recipe's framework stays.
#include <algorithm>

#include "llm_memory/launch.hpp"

namespace llm_memory {

namespace {

bool keeps_framework(const launch_read& out, const launch_read& read) {
  const auto it = out.values.find("framework");
  return read.command == "DeepSpeed config" && it != out.values.end() &&
         (it->second == "axolotl" || it->second == "llamafactory");
}

}  // namespace

launch_read combine_launches(const std::vector<launch_file>& files) {
  if (files.size() == 1) return files.front().read;
  launch_read out;
  for (const auto& [name, read] : files) {
    out.command += (out.command.empty() ? "" : " + ") + name + " (" + read.command + ")";
    const bool keep = keeps_framework(out, read);
    for (auto option : read.read) {
      if (keep && option.setting == "framework") {
        out.ignored.push_back(
            {option.option,
             "framework " + out.values.at("framework") + " stays: it runs DeepSpeed's engine from this ZeRO stage",
             name});
        continue;
      }
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
    for (const auto& [key, value] : read.values)
      if (!keep || key != "framework") out.values[key] = value;
  }
  return out;
}

}  // namespace llm_memory
