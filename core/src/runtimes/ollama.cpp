// SPDX-License-Identifier: MIT
// Ollama: llama.cpp's server (its row, runtimes/llamacpp.cpp) with Ollama's context default and its per-GPU
// reserve. Sources: docs/methodology.md ("Runtimes").
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {

runtime_def llamacpp_runtime();  // runtimes/llamacpp.cpp
void llamacpp_notes(const context& c, std::string_view served, std::vector<std::string>& out);

namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

// Ollama runs llama-server with num_ctx from the total VRAM (server/routes.go) per slot.
settings profile(const setting_values& v) {
  settings p = llamacpp_runtime().profile(v);
  const double vram = v.gpu_memory * static_cast<double>(v.devices);
  p.emplace("seq", std::to_string(ollama_num_ctx(vram, v.max_position_embeddings)));
  return p;
}

void overhead(const context& c, double allocated, double weights, builder& over) {
  over.add("Ollama's per-GPU minimum", ollama_minimum_memory, "MinimumMemory() = 457 MiB");
  llamacpp_runtime().overhead(c, allocated, weights, over);
}

// llama.cpp's notes, the assumed weights in Ollama's words.
void notes(const context& c, std::vector<std::string>& out) {
  llamacpp_notes(c, "what `ollama pull <model>` serves (a library tag without a type)", out);
}

// The profile reads: num_ctx (seq) from the VRAM of all devices (gpu_memory x devices), capped by the trained context.
profile_reads reads(const run_spec&) { return {.devices = true, .gpu_memory = true, .max_position_embeddings = true}; }

}  // namespace rest_rows
}  // namespace

runtime_def ollama_runtime() {
  // The same server, its buffers, checks and per-architecture rules (Phi-3 and Mistral run on its llama.cpp runner).
  runtime_def d = llamacpp_runtime();
  d.kind = runtime_kind::ollama;
  d.profile = profile;
  d.device_free = false;  // num_ctx follows the devices' VRAM
  d.reads = reads;
  d.picked_for = nullptr;  // auto picks llama.cpp itself for GGUF weights
  d.picked_because = "";
  d.overhead = overhead;
  d.notes = notes;
  return d;
}

}  // namespace llm_memory::detail
