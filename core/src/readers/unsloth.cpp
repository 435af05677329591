// SPDX-License-Identifier: MIT
// An Unsloth training script (Python, as its notebooks write it): the keyword arguments of
// FastLanguageModel.from_pretrained (unslothai/unsloth @0050c73e unsloth/models/loader.py: model_name,
// max_seq_length, load_in_4bit (default True), load_in_8bit, full_finetuning, use_gradient_checkpointing),
// FastLanguageModel.get_peft_model (unsloth/models/llama.py: r, target_modules, lora_alpha, lora_dropout,
// use_gradient_checkpointing) and TRL's SFTConfig / TrainingArguments (per_device_train_batch_size,
// gradient_accumulation_steps, optim, bf16, fp16). Framework unsloth. The script is never run: only `name = value`
// with a literal value is read (a string, a number, True / False / None, a list of those); any other expression
// is skipped. docs/readers.md.
#include <array>
#include <optional>
#include <string>

#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int {
  none,
  model_name = peft_actions_end,
  max_seq_length,
  full_finetuning,
  checkpointing,
  batch,
  grad_accum,
  optim,
  bf16,
  fp16,
};

constexpr std::array<key_row, 19> keys{{
    {"model_name", model_name},
    {"max_seq_length", max_seq_length},
    {"load_in_4bit", peft_load_in_4bit},
    {"load_in_8bit", peft_load_in_8bit},
    {"full_finetuning", full_finetuning},
    {"r", peft_lora_rank},
    lora_alpha_row,
    {"lora_dropout", peft_lora_dropout},
    {"target_modules", peft_lora_targets},
    {"use_gradient_checkpointing", checkpointing},
    {"per_device_train_batch_size", batch},
    {"gradient_accumulation_steps", grad_accum},
    {"optim", optim},
    {"bf16", bf16},
    {"fp16", fp16},
    {"dtype", none, "None: bf16 where the GPU has it, the profile's"},
    {"bias", none, "\"none\": no bias adapters"},
    {"random_state", none, "a seed: no memory"},
    {"output_dir", none, "where checkpoints go: no memory"},
}};

/// At most this many `name = value` pairs and list items are read: a script is small.
constexpr std::size_t max_values = 512;

struct scanner {
  std::string_view text;
  std::size_t at = 0;

  [[nodiscard]] bool done() const { return at >= text.size(); }
  [[nodiscard]] char peek() const { return done() ? '\0' : text[at]; }
  void skip_blanks() {  // spaces, newlines and comments (a list may span lines)
    while (!done()) {
      if (peek() == '#')
        while (!done() && peek() != '\n') ++at;
      else if (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')
        ++at;
      else
        return;
    }
  }
  static bool word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-' || c == '+';
  }
  std::string_view word() {
    const std::size_t start = at;
    while (!done() && word_char(peek())) ++at;
    return text.substr(start, at - start);
  }
  // A one-line '...' or "..." literal (no escapes: a notebook's names need none); nullopt, past it, otherwise.
  std::optional<std::string> string_literal() {
    const char quote = text[at++];
    const std::size_t start = at;
    while (!done() && peek() != quote && peek() != '\n' && peek() != '\\') ++at;
    if (peek() != quote) return std::nullopt;
    return std::string(text.substr(start, at++ - start));
  }
  // A literal scalar as text ("2048", "True", "unsloth"); nullopt for an expression (a name, a call).
  std::optional<std::string> scalar() {
    if (peek() == '"' || peek() == '\'') return string_literal();
    const auto w = word();
    if (w == "True" || w == "False" || w == "None") return std::string(w);
    if (!w.empty() && ((w[0] >= '0' && w[0] <= '9') || w[0] == '.' || w[0] == '-')) return std::string(w);
    return std::nullopt;
  }
  // A value: a scalar or a [list] of them; nullopt for anything else, with `at` past what was looked at.
  std::optional<json> value(std::size_t& count) {
    skip_blanks();
    if (peek() != '[') {
      auto s = scalar();
      if (!s) return std::nullopt;
      const auto next = peek();
      if (next != ',' && next != ')' && next != '\n' && next != ' ' && next != '#' && next != '\r' && !done())
        return std::nullopt;  // part of an expression ("2 * 1024", "x.y()")
      return json(*std::move(s));
    }
    ++at;
    json list = json::array();
    for (skip_blanks(); peek() != ']'; skip_blanks()) {
      if (done() || ++count > max_values) return std::nullopt;
      auto item = scalar();
      if (!item) return std::nullopt;
      list.push_back(json(*std::move(item)));
      skip_blanks();
      if (peek() == ',') ++at;
    }
    ++at;
    return list;
  }
};

// The script's `name = value` pairs with a literal value, by name (a later one wins).
json keyword_values(std::string_view text) {
  json doc = json::object();
  scanner s{text};
  std::size_t count = 0;
  while (!s.done() && count < max_values) {
    const char c = s.peek();
    if (c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      s.skip_blanks();
    } else if (c == '"' || c == '\'') {
      (void)s.string_literal();
    } else if (scanner::word_char(c)) {
      const auto name = s.word();
      while (s.peek() == ' ' || s.peek() == '\t') ++s.at;
      if (s.peek() == '=' && (s.at + 1 >= text.size() || text[s.at + 1] != '=')) {
        ++s.at;
        if (auto v = s.value(count)) {
          doc[name] = *std::move(v);
          ++count;
        }
      }
    } else {
      ++s.at;
    }
  }
  return doc;
}

void read_checkpointing(launch_read& out, const key_hit& hit) {
  // "unsloth": offloaded checkpoints (the profile's); True: torch's checkpoints on the GPU; False: none.
  const auto text = scalar_text(*hit.value);
  if (text == "unsloth") {
    set_setting(out, hit.path, "recompute", "full");
    return set_setting(out, hit.path, "activation_offload", "full");
  }
  const auto on = read_truth(out, hit);
  if (!on) return;
  set_setting(out, hit.path, "recompute", *on ? "full" : "none");
  set_setting(out, hit.path, "activation_offload", "none");
}

void act(launch_read& out, const key_hit& hit) {
  switch (hit.action) {
    case model_name: return read_model_name(out, hit.path, scalar_text(*hit.value));
    case max_seq_length: return set_from(out, hit, "seq");
    case full_finetuning:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "finetune", "full");
      return;
    case checkpointing: return read_checkpointing(out, hit);
    case batch: return set_from(out, hit, "batch");
    case grad_accum: return set_from(out, hit, "grad_accum");
    case optim: return read_hf_optim(out, hit);
    case bf16:
    case fp16:
      if (read_truth(out, hit) == true) set_setting(out, hit.path, "autocast", hit.action == bf16 ? "bf16" : "fp16");
      return;
    default: return read_peft_key(out, hit);  // the rows with a peft_action
  }
}

}  // namespace

bool is_unsloth_script(std::string_view text) {
  return text.find("FastLanguageModel") != std::string_view::npos &&
         text.find("from_pretrained") != std::string_view::npos;
}

void read_unsloth(std::string_view text, launch_read& out) {
  out.command = "Unsloth script";
  training_run(out, "unsloth");
  const json doc = keyword_values(text);
  const bool full = doc.contains("full_finetuning") && truth(doc["full_finetuning"]) == true;
  if (!full && text.find("get_peft_model") != std::string_view::npos)
    set_setting(out, "get_peft_model", "finetune", "lora");
  // from_pretrained's load_in_4bit defaults to True; full fine-tuning turns the 4- and 8-bit loads off
  // (loader.py FastModel.from_pretrained).
  for (const auto& hit : walk_keys(doc, keys, out))
    if (full && (hit.action == peft_load_in_4bit || hit.action == peft_load_in_8bit))
      ignore(out, hit.path, "full_finetuning loads the model unquantized");
    else
      act(out, hit);
  if (!full && !doc.contains("load_in_4bit") && !out.values.contains("weights_dtype"))
    set_setting(out, "load_in_4bit (default True)", "weights_dtype", "nf4");
  lora_on_nf4_is_qlora(out, "load_in_4bit");
}

}  // namespace llm_memory::detail
