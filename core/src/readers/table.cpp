// SPDX-License-Identifier: MIT
// The launch readers' table: each command's name (its program, with the subcommand or module that selects it)
// -> its reader. read_launch() splits the text, names the command and runs its row.
#include <algorithm>
#include <array>
#include <string>

#include "json_value.hpp"
#include "llm_memory/config_json.hpp"
#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "readers/toml.hpp"
#include "readers/yaml.hpp"
#include "text.hpp"

namespace llm_memory {

namespace {

using detail::json;

// A Modelfile is read line by line; as large a text as a command line.
constexpr std::size_t max_modelfile_bytes = std::size_t{1} << 20;

// The readers, by row (a switch, not function pointers: see option_row).
enum class reader {
  vllm,
  llama_server,
  llama_cli,
  sglang,
  tgi,
  docker,
  ollama,
  modelfile,
  megatron,
  llm_memory,
  tune_run,
  training,
  torchtune,
  axolotl,
  llama_factory,
  accelerate,
  deepspeed,
  training_args,
  litgpt,
  torchtitan,
  unsloth,
};

struct reader_row {
  std::string_view command;  ///< program [subcommand | -m module], as the table matches it
  reader read = reader::vllm;
};

constexpr std::array<reader_row, 27> readers{{
    {"vllm serve", reader::vllm},
    {"python -m vllm.entrypoints.openai.api_server", reader::vllm},
    {"llama-server", reader::llama_server},
    {"llama-cli", reader::llama_cli},
    {"python -m sglang.launch_server", reader::sglang},
    {"text-generation-launcher", reader::tgi},
    {"docker run", reader::docker},
    {"podman run", reader::docker},
    {"ollama serve", reader::ollama},
    {"ollama run", reader::ollama},
    {"Modelfile", reader::modelfile},              // read whole by read_modelfile(): not a command line
    {"python pretrain_gpt.py", reader::megatron},  // Megatron-LM's pretrain_*.py (is_megatron_script)
    {"llm-memory", reader::llm_memory},            // its own line, as --emit generic writes it
    {"tune run", reader::tune_run},
    {"trl sft", reader::training},
    {"python SCRIPT.py", reader::training},
    {"torchrun", reader::training},
    {"accelerate launch", reader::training},
    // Documents (YAML or JSON), told apart by their keys (format_of): not command lines.
    {"torchtune config", reader::torchtune},
    {"axolotl config", reader::axolotl},
    {"LLaMA-Factory config", reader::llama_factory},
    {"accelerate config", reader::accelerate},
    {"DeepSpeed config", reader::deepspeed},
    {"TrainingArguments", reader::training_args},
    {"litgpt config", reader::litgpt},
    {"torchtitan config", reader::torchtitan},  // TOML (readers/toml.hpp), the only TOML format read
    {"Unsloth script", reader::unsloth},        // Python, read whole by read_unsloth(): its literal keywords
}};

void run(reader r, const detail::command_line& cmd, launch_read& out) {
  switch (r) {
    case reader::vllm: return detail::read_vllm_serve(cmd, out);
    case reader::llama_server: return detail::read_llama_server(cmd, out);
    case reader::llama_cli: return detail::read_llama_cli(cmd, out);
    case reader::sglang: return detail::read_sglang(cmd, out);
    case reader::tgi: return detail::read_tgi(cmd, out);
    case reader::docker: return detail::read_docker(cmd, out);
    case reader::ollama: return detail::read_ollama(cmd, out);
    case reader::megatron: return detail::read_megatron(cmd.args, out);
    case reader::llm_memory: return detail::read_llm_memory_cli(cmd, out);
    case reader::tune_run: return detail::read_tune_run(cmd, out);
    case reader::training: return detail::read_training_command(cmd, out);
    default: return;  // the documents are read by read_document()
  }
}

void run(reader r, const json& doc, launch_read& out) {
  switch (r) {
    case reader::torchtune: return detail::read_torchtune(doc, out);
    case reader::axolotl: return detail::read_axolotl(doc, out);
    case reader::llama_factory: return detail::read_llama_factory(doc, out);
    case reader::accelerate: return detail::read_accelerate_config(doc, out);
    case reader::deepspeed: return detail::read_deepspeed_config(doc, out);
    case reader::training_args: return detail::read_training_args(doc, out);
    case reader::litgpt: return detail::read_litgpt(doc, out);
    case reader::torchtitan: return detail::read_torchtitan(doc, out);
    default: return;
  }
}

bool has_component(const json& doc) {
  for (const auto& [key, value] : doc.members())
    if (key == "_component_" || (value.is_object() && value.contains("_component_"))) return true;
  return false;
}

// The format a document's keys show (docs/readers.md, "Training recipes"); nullopt when none.
std::optional<reader> format_of(const json& doc) {
  const auto has = [&](std::string_view key) { return doc.contains(key); };
  if (has_component(doc)) return reader::torchtune;
  if (has("base_model") && (has("adapter") || has("micro_batch_size") || has("sequence_len"))) return reader::axolotl;
  if (has("model_name_or_path") && (has("stage") || has("finetuning_type"))) return reader::llama_factory;
  if (has("checkpoint_dir") && (has("train") || has("precision") || has("lora_r"))) return reader::litgpt;
  if (has("distributed_type") || has("compute_environment")) return reader::accelerate;
  if (has("zero_optimization") || has("train_micro_batch_size_per_gpu")) return reader::deepspeed;
  if (has("per_device_train_batch_size") || has("model_name_or_path") || has("gradient_checkpointing") ||
      has("use_peft") || has("max_seq_length") || has("max_length"))
    return reader::training_args;
  return std::nullopt;
}

// The row of a program name ("vllm serve", "llama-server"), or nullptr (a plain loop: Emscripten's libc++ has no
// std::ranges::find).
const reader_row* row_of(std::string_view command) {
  for (const reader_row& row : readers)
    if (row.command == command) return &row;
  return nullptr;
}

// `python3.11 -m module` reads as `python -m module`; the words that select the command leave the arguments.
const reader_row* find_reader(detail::command_line& cmd) {
  if (cmd.program.starts_with("python") && !cmd.args.empty() && cmd.args[0].ends_with(".py")) {
    cmd.program = detail::is_megatron_script(cmd.args[0]) ? "python pretrain_gpt.py" : "python SCRIPT.py";
    cmd.args.erase(cmd.args.begin());
  }
  if (cmd.program.starts_with("python") && cmd.args.size() >= 2 && cmd.args[0] == "-m") {
    cmd.program = "python -m " + cmd.args[1];
    cmd.args.erase(cmd.args.begin(), cmd.args.begin() + 2);
  }
  if (!cmd.args.empty()) {
    const std::string with_sub = cmd.program + " " + cmd.args[0];
    if (const auto* row = row_of(with_sub); row != nullptr) {
      cmd.args.erase(cmd.args.begin());
      return row;
    }
  }
  return row_of(cmd.program);
}

}  // namespace

namespace detail {

bool read_command(command_line cmd, launch_read& out) {
  const auto* row = find_reader(cmd);
  if (row == nullptr || row->read > reader::training || row->read == reader::modelfile) return false;
  out.command = row->command;
  cmd.program = row->command;
  run(row->read, cmd, out);
  return true;
}

}  // namespace detail

namespace {

std::string known_commands() {
  std::string out;
  for (const auto& row : readers)
    if (row.read <= reader::training) out += (out.empty() ? "" : ", ") + std::string(row.command);
  return out;
}

std::string known_documents() {
  std::string out;
  for (const auto& row : readers)
    if (row.read > reader::training) out += (out.empty() ? "" : ", ") + std::string(row.command);
  return out;
}

// A YAML or JSON document, read by the format its keys show.
void read_document(std::string_view text, launch_read& out) {
  const bool is_json = detail::trim(text).starts_with('{');
  json doc;
  if (is_json) {
    if (auto refused = check_json_text(text, "document")) return out.errors.push_back(*std::move(refused));
    std::string why;
    doc = detail::parse_json(text, &why);
    if (doc.is_discarded()) return out.errors.push_back({"document", "not JSON: " + why});
  } else {
    auto parsed = detail::parse_yaml(text, out.notes);
    if (!parsed.ok()) return out.errors.push_back(parsed.errors().front());
    doc = std::move(parsed).value();
  }
  if (!doc.is_object()) return out.errors.push_back({"document", "is not a mapping of keys to values"});
  const auto format = format_of(doc);
  if (!format)
    return out.errors.push_back({"document", std::string(is_json ? "a JSON" : "a YAML") +
                                                 " document whose keys name no format llm-memory reads (" +
                                                 known_documents() + ")"});
  for (const auto& row : readers)
    if (row.read == *format) out.command = row.command;
  run(*format, doc, out);
}

// Names and messages hold words of the input: their control bytes are escaped, so a one-line error stays one line.
launch_read shown(launch_read out) {
  for (auto& e : out.errors) e = {detail::escape_controls(e.setting), detail::escape_controls(e.message)};
  for (auto& r : out.read) r.option = detail::escape_controls(r.option);
  for (auto& i : out.ignored) i.option = detail::escape_controls(i.option);
  for (auto& n : out.notes) n = detail::escape_controls(n);
  return out;
}

// A TOML document: a torchtitan job config when it has one of JobConfig's sections.
void read_toml(std::string_view text, launch_read& out) {
  auto doc = detail::parse_toml(text);
  if (!doc.ok()) return out.errors.push_back(doc.errors().front());
  const json& d = doc.value();
  if (!d.contains("model") && !d.contains("training") && !d.contains("parallelism"))
    return out.errors.push_back({"document",
                                 "a TOML document with no [model], [training] or [parallelism] table: "
                                 "not a torchtitan job config, the one TOML format llm-memory reads"});
  out.command = "torchtitan config";
  run(reader::torchtitan, d, out);
}

launch_read read_text(std::string_view text) {
  launch_read out;
  if (text.size() <= max_modelfile_bytes && detail::is_unsloth_script(text)) {  // before TOML: `a = 1` is both
    detail::read_unsloth(text, out);
    return out;
  }
  if (text.size() <= max_modelfile_bytes && detail::is_toml(text)) {
    read_toml(text, out);
    return out;
  }
  if (text.size() <= max_modelfile_bytes && detail::is_modelfile(text)) {
    out.command = "Modelfile";
    detail::read_modelfile(text, out);
    return out;
  }
  if (text.size() <= max_modelfile_bytes && detail::is_document(text)) {
    read_document(text, out);
    return out;
  }
  auto words = detail::split_words(text, out.notes);
  if (!words.ok()) {
    out.errors = words.errors();
    return out;
  }
  auto cmd = detail::to_command(std::move(words).value());
  const std::string program = cmd.program.empty() ? std::string(text.substr(0, 200)) : cmd.program;
  if (!detail::read_command(std::move(cmd), out))
    out.errors.push_back(
        {"command", detail::quoted(program) + " is not a launch command llm-memory reads (" + known_commands() + ")"});
  return out;
}

}  // namespace

launch_read read_launch(std::string_view text) { return shown(read_text(text)); }

}  // namespace llm_memory
