// SPDX-License-Identifier: MIT
// The log readers' table: each kind of log by the lines only it prints -> its reader. read_log() checks the
// text, names the kind whose lines it holds most of, and runs its reader.
#include <array>
#include <string>

#include "logs/logs.hpp"
#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory {

namespace {

enum class log_reader {
  vllm,
  sglang,
  llamacpp,
  tgi,
  nvidia_smi,
  torch_memory,
  torch_stats,
  torchtune,
  litgpt,
  unsloth
};

struct log_row {
  std::string_view format;                ///< the log_read::format it gives
  std::string_view command;               ///< launch_read::command: what the settings were read from
  std::array<std::string_view, 7> marks;  ///< lines only this runtime prints (empty: none)
  log_reader read = log_reader::vllm;
};

constexpr std::array<log_row, 10> logs{{
    {"vllm",
     "vLLM log",
     // V1's lines, the engine line, and V0's own (an excerpt without its engine line: worker.py's profiling summary
     // from 0.7, executor_base.py / gpu_executor.py's block count).
     {"non-default args:", "Available KV cache memory", "GPU KV cache size", "LLM engine (v",
      "the rest of the memory reserved for KV Cache is", "# GPU blocks: ", "# cuda blocks: "},
     log_reader::vllm},
    {"sglang",
     "SGLang log",
     {"ServerArgs(", "KV Cache is allocated", "max_total_num_tokens=", "Load weight end"},
     log_reader::sglang},
    {"llamacpp",
     "llama.cpp log",
     {"llama_model_loader:", "load_tensors:", "buffer size =", "llama_context:"},
     log_reader::llamacpp},
    {"tgi",
     "TGI log",
     {"text_generation_launcher", "text_generation_router", "Setting max batch total tokens to", "KV-cache blocks: "},
     log_reader::tgi},
    {"nvidia_smi",
     "nvidia-smi output",
     {"NVIDIA-SMI ", "Memory-Usage", "memory.used [MiB]", "Driver Version:"},
     log_reader::nvidia_smi},
    {"torch_memory",
     "torch.cuda.memory_summary()",
     {"PyTorch CUDA memory summary", "cudaMalloc retries:", "| Allocated memory ", "| GPU reserved memory "},
     log_reader::torch_memory},
    {"torch_stats",
     "torch.cuda.memory_stats()",
     {"'allocated_bytes.all.peak'", "'reserved_bytes.all.peak'", "'active_bytes.all.peak'", "'num_alloc_retries'"},
     log_reader::torch_stats},
    {"torchtune",
     "torchtune log",
     {"with resolved config:", " peak memory allocation: ", " peak memory reserved: ", "peak_memory_alloc:"},
     log_reader::torchtune},
    {"litgpt",
     "litgpt log",
     {"Memory used: ", "'checkpoint_dir': ", "TrainArgs(", "Training time: "},
     log_reader::litgpt},
    {"unsloth",
     "Unsloth log",
     {"==((====))==", "Unsloth", "Peak reserved memory = ", "Peak reserved memory for training = "},
     log_reader::unsloth},
}};

void run(log_reader r, std::span<const detail::log_line> lines, log_read& out) {
  switch (r) {
    case log_reader::vllm: return detail::read_vllm_log(lines, out);
    case log_reader::sglang: return detail::read_sglang_log(lines, out);
    case log_reader::llamacpp: return detail::read_llamacpp_log(lines, out);
    case log_reader::tgi: return detail::read_tgi_log(lines, out);
    case log_reader::nvidia_smi: return detail::read_nvidia_smi_log(lines, out);
    case log_reader::torch_memory: return detail::read_torch_memory_log(lines, out);
    case log_reader::torch_stats: return detail::read_torch_stats_log(lines, out);
    case log_reader::torchtune: return detail::read_torchtune_log(lines, out);
    case log_reader::litgpt: return detail::read_litgpt_log(lines, out);
    case log_reader::unsloth: return detail::read_unsloth_log(lines, out);
  }
}

// The row whose marks the most lines hold; nullptr when no line holds one.
const log_row* find_log(std::span<const detail::log_line> lines) {
  std::array<std::size_t, logs.size()> hits{};
  for (const auto& l : lines)
    for (std::size_t i = 0; i < logs.size(); ++i)
      for (const auto mark : logs[i].marks)
        if (!mark.empty() && l.text.find(mark) != std::string_view::npos) ++hits[i];
  std::size_t best = 0;
  for (std::size_t i = 1; i < logs.size(); ++i)
    if (hits[i] > hits[best]) best = i;
  return hits[best] == 0 ? nullptr : &logs[best];
}

log_read read_text(std::string_view text) {
  log_read out;
  auto& errors = out.settings.errors;
  if (text.size() > detail::max_log_bytes) {
    errors.push_back({"log", "larger than 16 MiB: give the start of the log (the lines up to the first request)"});
    return out;
  }
  if (text.find('\0') != std::string_view::npos) {
    errors.push_back({"log", "holds a NUL byte at byte " + std::to_string(text.find('\0')) + ": not a text log"});
    return out;
  }
  const auto lines = detail::log_lines(text, out.settings.notes);
  const log_row* row = find_log(lines);
  if (row == nullptr) {
    errors.push_back(
        {"log",
         "no line of a vLLM, SGLang or llama.cpp / Ollama startup log, a TGI log, nvidia-smi, "
         "torch.cuda.memory_summary() or memory_stats(), or a torchtune, litgpt or Unsloth run (\"Available KV cache "
         "memory\", "
         "\"KV Cache is allocated\", \"buffer size =\", \"Setting max batch total tokens to\", \"Memory-Usage\", "
         "\"Memory used: \", \"Peak reserved memory = \", ...)"});
    return out;
  }
  out.format = row->format;
  out.settings.command = row->command;  // what the training logs' recipe readers name their mode and framework by
  run(row->read, lines, out);
  out.settings.command = row->command;
  if (out.figures.empty()) out.settings.notes.push_back("no memory figure found in the log: nothing to compare");
  return out;
}

}  // namespace

log_read read_log(std::string_view text) {
  log_read out = read_text(text);
  auto& s = out.settings;
  // Names and messages hold words of the log: their control bytes are escaped, so a one-line error stays one line.
  for (auto& e : s.errors) e = {detail::escape_controls(e.setting), detail::escape_controls(e.message)};
  for (auto& r : s.read) r.option = detail::escape_controls(r.option);
  for (auto& i : s.ignored) i.option = detail::escape_controls(i.option);
  for (auto& n : s.notes) n = detail::escape_controls(n);
  for (auto& f : out.figures) f.label = detail::escape_controls(f.label);
  return out;
}

}  // namespace llm_memory
