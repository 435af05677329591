// SPDX-License-Identifier: MIT
// An Unsloth notebook's output. Settings: the banner Unsloth's patched Trainer loop prints when training starts
// (unslothai/unsloth-zoo unsloth_zoo/compiler.py, its `debug_info`: "Batch size per device = {self._train_batch_size:,}
// | Gradient accumulation steps = {args.gradient_accumulation_steps}", "Accumulation" in releases before 2025) and
// the notebooks' "Max memory = X GB." (`round(torch.cuda.get_device_properties(0).total_memory / 1024 / 1024 /
// 1024, 3)`). Figure: the notebooks' closing cell "Peak reserved memory = X GB." (`round(
// torch.cuda.max_memory_reserved() / 1024 / 1024 / 1024, 3)`: GiB though printed "GB"; unslothai/notebooks, the
// "Show final memory and time stats" cell of every fine-tuning notebook): the peak reserved by PyTorch's caching
// allocator during the run; and the "Show current memory stats" cell before `trainer.train()`, "X GB of memory
// reserved." (`round(torch.cuda.max_memory_reserved() / 1024 / 1024 / 1024, 3)` then): the model loaded in its
// dtype with its adapters and no gradient, optimizer state or activation yet, beside the estimate's parameters
// (docs/readers.md, "Logs").
#include <cstdint>
#include <optional>
#include <string>

#include "logs/logs.hpp"
#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// "= N" after `mark` (digits grouped with commas, as the banner prints them): the whole number, else none.
std::optional<std::string> count_after(std::string_view line, std::string_view mark) {
  const auto t = after(line, mark);
  const auto v = t ? leading_number(*t) : std::nullopt;
  if (!v || *v < 1 || *v != static_cast<double>(static_cast<std::int64_t>(*v))) return std::nullopt;
  return format_number(*v);
}

std::string line_option(const log_line& l, std::string_view what) {
  return "line " + std::to_string(l.number) + " " + std::string(what);
}

// The notebooks divide by 1024^3 and print "GB": the value is GiB.
void max_memory(const log_line& l, log_read& out) {
  for (const std::string_view mark : {"Max memory = ", "Max memory: "}) {
    const auto t = after(l.text, mark);
    const auto v = t ? leading_number(*t) : std::nullopt;
    if (v && *v > 0)
      return set_setting(out.settings, line_option(l, "Max memory"), "gpu_memory", format_number(*v) + "GiB");
  }
}

}  // namespace

void read_unsloth_log(std::span<const log_line> lines, log_read& out) {
  training_run(out.settings, "unsloth");
  for (const auto& l : lines) {
    if (const auto b = count_after(l.text, "Batch size per device = "))
      set_setting(out.settings, line_option(l, "Batch size per device"), "batch", *b);
    for (const std::string_view mark : {"Gradient accumulation steps = ", "Gradient Accumulation steps = "})
      if (const auto g = count_after(l.text, mark))
        set_setting(out.settings, line_option(l, "Gradient accumulation steps"), "grad_accum", *g);
    if (after(l.text, "Num GPUs used = ") || after(l.text, "Num GPUs = "))
      ignore(out.settings, line_option(l, "Num GPUs"),
             "the devices the model's parameters are on: the estimate is per device, its devices setting is yours");
    max_memory(l, out);
    if (const auto at = l.text.find(" GB of memory reserved."); at != std::string_view::npos)
      // the word before it (a logger's prefix may come first)
      if (const auto v = leading_number(l.text.substr(l.text.rfind(' ', at - 1) + 1, at)); v && *v >= 0)
        set_figure(out, {"weights", "GB of memory reserved (before training)", *v, "GiB", l.number});
    if (const auto t = after(l.text, "Peak reserved memory = "))
      if (const auto v = leading_number(*t))
        set_peak_figure(out, {"peak_reserved", "Peak reserved memory", *v, "GiB", l.number});
  }
  if (out.settings.values.find("batch") == out.settings.values.end())
    out.settings.notes.push_back(
        "no Unsloth training banner (\"Batch size per device = \") in the log: batch and "
        "grad_accum are yours");
}

}  // namespace llm_memory::detail
