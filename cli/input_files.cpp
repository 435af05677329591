// SPDX-License-Identifier: MIT
// The CLI's files in (input_files.hpp).
#include "input_files.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "llm_memory/config_json.hpp"

namespace llm_memory::cli {
namespace {

// Appends `in` to `text` in chunks until it ends or passes max_json_bytes (so /dev/zero stops there).
void read_chunks(std::istream& in, std::string& text) {
  std::array<char, 65536> chunk{};
  while (in && text.size() <= max_json_bytes) {
    in.read(chunk.data(), chunk.size());
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
}

// `count` bytes of `path` from `offset`, or nullopt when they cannot all be read.
std::optional<std::string> read_bytes(const std::filesystem::path& path, std::uint64_t offset, std::uint64_t count) {
  std::ifstream file(path, std::ios::binary);
  if (!file.seekg(static_cast<std::streamoff>(offset))) return std::nullopt;
  std::string out(count, '\0');
  if (!file.read(out.data(), static_cast<std::streamsize>(count))) return std::nullopt;
  return out;
}

// One .safetensors file's header; errors name the flag and the file.
result<checkpoint_summary> read_safetensors_file(const std::filesystem::path& path,
                                                 std::vector<std::string>* names = nullptr) {
  const std::string what = "safetensors";
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return error{what, "cannot read \"" + path.string() + "\""};
  const auto first = read_bytes(path, 0, std::min<std::uint64_t>(8, size));
  if (!first) return error{what, "cannot read \"" + path.string() + "\""};
  const auto length = safetensors_header_length(*first, size, what + " " + path.filename().string());
  if (!length.ok()) return length.errors();
  const auto header = read_bytes(path, 8, length.value());
  if (!header) return error{what, "cannot read the header of \"" + path.string() + "\""};
  return parse_safetensors_header(*header, size - 8 - length.value(), what + " " + path.filename().string(), names);
}

}  // namespace

result<std::string> read_input_file(const std::string& flag, const std::string& path) {
  if (path.empty()) return error{flag, "needs a file name, got an empty one"};
  std::string text;
  if (path == "-" && (flag == "from" || flag == "log")) {
    read_chunks(std::cin, text);
    if (std::cin.bad()) return error{flag, "cannot read standard input"};
  } else {
    // Opening a named pipe would wait for a writer; standard input is the way to stream (--from -).
    std::error_code ignored;
    if (std::filesystem::status(path, ignored).type() == std::filesystem::file_type::fifo)
      return error{flag, fmt::format("\"{}\" is a named pipe; give a file", path)};
    std::ifstream file(path, std::ios::binary);
    read_chunks(file, text);
    if (!file.is_open() || file.bad()) return error{flag, fmt::format("cannot read \"{}\"", path)};
  }
  if (text.size() > max_json_bytes)
    return error{flag, fmt::format("\"{}\" is larger than {} MiB", path, max_json_bytes >> 20)};
  return text;
}

result<checkpoint_summary> read_safetensors(const std::filesystem::path& path) {
  if (path.extension() != ".json") return read_safetensors_file(path);
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return error{"safetensors", "cannot read \"" + path.string() + "\""};
  if (size > max_safetensors_index_bytes)
    return error{"safetensors", "\"" + path.string() + "\" has " + std::to_string(size) +
                                    " bytes; an index is read up to " + std::to_string(max_safetensors_index_bytes)};
  const auto text = read_bytes(path, 0, size);
  if (!text) return error{"safetensors", "cannot read \"" + path.string() + "\""};
  const auto shards = parse_safetensors_index(*text, "safetensors " + path.filename().string());
  if (!shards.ok()) return shards.errors();
  checkpoint_summary total;
  std::vector<std::string> names;  // every shard's, so a tensor in two shards is not counted twice
  for (const auto& shard : shards.value()) {
    const auto one = read_safetensors_file(path.parent_path() / shard, &names);
    if (!one.ok()) return one.errors();
    total.add(one.value());
  }
  if (auto twice = duplicate_tensor(std::move(names), "safetensors " + path.filename().string())) return *twice;
  return total;
}

result<gguf_header> read_gguf(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return error{"gguf", "cannot read \"" + path.string() + "\""};
  for (const std::uint64_t limit : {std::uint64_t{16} << 20, max_gguf_header_bytes}) {
    const auto bytes = read_bytes(path, 0, std::min(size, limit));
    if (!bytes) return error{"gguf", "cannot read \"" + path.string() + "\""};
    bool truncated = false;
    auto header = parse_gguf_header(*bytes, size, "gguf " + path.filename().string(), &truncated);
    if (header.ok() || !truncated || limit == max_gguf_header_bytes) return header;
  }
  return error{"gguf", "unreachable"};
}

}  // namespace llm_memory::cli
