// SPDX-License-Identifier: MIT
// The CLI's files in: a flag's text file (or standard input) and the checkpoint headers (.safetensors, GGUF), each
// read up to its bound (config_json.hpp, checkpoint.hpp), errors naming the flag.
#pragma once

#include <filesystem>
#include <string>

#include "llm_memory/checkpoint.hpp"
#include "llm_memory/result.hpp"

namespace llm_memory::cli {

/// The text of a --config, --batch-json, --from or --log file ("-": standard input, for --from and --log), read up
/// to max_json_bytes; errors name the flag.
[[nodiscard]] result<std::string> read_input_file(const std::string& flag, const std::string& path);

/// --safetensors: a .safetensors file's header, or an index.json and every shard it names (read from the index's
/// folder).
[[nodiscard]] result<checkpoint_summary> read_safetensors(const std::filesystem::path& path);

/// --gguf: a GGUF file's header: a first read of up to 16 MiB, then up to max_gguf_header_bytes when it is longer.
[[nodiscard]] result<gguf_header> read_gguf(const std::filesystem::path& path);

}  // namespace llm_memory::cli
