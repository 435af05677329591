// SPDX-License-Identifier: MIT
// safetensors headers: the layout and its checks follow huggingface/safetensors @24b0b285 (README "Format";
// safetensors/src/tensor.rs: Dtype::bitsize, MAX_HEADER_SIZE, Metadata::validate). Only headers are read.
#include "llm_memory/checkpoint.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>

#include "text.hpp"

namespace llm_memory {
namespace {

using json = nlohmann::json;

// A header nests three deep (root, tensor entry, shape / offsets); deeper input is refused before it is parsed.
constexpr int max_header_depth = 4;
// A dimension above 2^53 would lose exactness in the double sums (huggingface.js caps them at 2^32).
constexpr double max_dimension = 9007199254740992.0;

struct dtype_bits {
  std::string_view name;
  int bits = 0;
  bool floating = false;  ///< one value per element: the element count is a parameter count
};

// tensor.rs `Dtype` and `bitsize()`; names exactly as headers spell them.
constexpr std::array<dtype_bits, 23> dtypes = {{
    {"BOOL", 8, false},       {"F4", 4, true},          {"F6_E2M3", 6, true},     {"F6_E3M2", 6, true},
    {"U8", 8, false},         {"I8", 8, false},         {"F8_E5M2", 8, true},     {"F8_E4M3", 8, true},
    {"F8_E8M0", 8, false},    {"F8_E4M3FNUZ", 8, true}, {"F8_E5M2FNUZ", 8, true}, {"I16", 16, false},
    {"U16", 16, false},       {"F16", 16, true},        {"BF16", 16, true},       {"I32", 32, false},
    {"U32", 32, false},       {"F32", 32, true},        {"C64", 64, false},       {"F64", 64, true},
    {"I64", 64, false},       {"U64", 64, false},       {"E8M0", 8, false},
}};

const dtype_bits* find_dtype_bits(std::string_view name) {
  for (const auto& d : dtypes)
    if (d.name == name) return &d;
  return nullptr;
}

// Whether `text` nests objects and arrays deeper than `limit` (strings and escapes skipped).
bool too_deep(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

std::optional<double> whole(const json& v) {
  if (v.is_number_unsigned()) return static_cast<double>(v.get<std::uint64_t>());
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<double>(v.get<std::int64_t>());
  return std::nullopt;
}

struct tensor_span {
  double begin = 0;
  double end = 0;
};

// One tensor entry: adds it to `out` and its byte range to `spans`; an error names the tensor.
std::optional<error> read_tensor(const std::string& name, const json& t, std::string_view what,
                                 checkpoint_summary& out, std::vector<tensor_span>& spans) {
  const auto fail = [&](const std::string& why) {
    return error{std::string(what), "tensor " + detail::quoted(name) + ": " + why};
  };
  if (!t.is_object()) return fail("must be an object with dtype, shape and data_offsets");
  const auto dt = t.find("dtype");
  const auto shape = t.find("shape");
  const auto offsets = t.find("data_offsets");
  if (dt == t.end() || !dt->is_string()) return fail("has no dtype string");
  const dtype_bits* bits = find_dtype_bits(dt->get<std::string>());
  if (bits == nullptr) return fail("unknown dtype " + detail::quoted(dt->get<std::string>()));
  if (shape == t.end() || !shape->is_array()) return fail("has no shape list");
  double elements = 1;
  for (const auto& d : *shape) {
    const auto n = whole(d);
    if (!n || *n > max_dimension) return fail("shape must list whole numbers from 0 to 2^53");
    elements *= *n;
  }
  if (elements > max_dimension) return fail("has more than 2^53 elements");
  if (offsets == t.end() || !offsets->is_array() || offsets->size() != 2) return fail("has no [begin, end] data_offsets");
  const auto begin = whole((*offsets)[0]);
  const auto end = whole((*offsets)[1]);
  if (!begin || !end || *end < *begin) return fail("data_offsets must be whole numbers with begin <= end");
  const double total_bits = elements * bits->bits;
  if (std::fmod(total_bits, 8) != 0) return fail("its elements do not fill whole bytes of " + std::string(bits->name));
  const double bytes = total_bits / 8;
  if (*end - *begin != bytes)
    return fail("data_offsets span " + detail::format_number(*end - *begin) + " bytes, but " +
                detail::format_number(elements) + " " + std::string(bits->name) + " values take " +
                detail::format_number(bytes));
  dtype_total& d = out.by_dtype[std::string(bits->name)];
  ++d.tensors, d.elements += elements, d.bytes += bytes;
  ++out.tensors, out.elements += elements, out.bytes += bytes;
  spans.push_back({*begin, *end});
  return std::nullopt;
}

// The buffer must be covered from 0 with no hole or overlap, and end where the file does (Metadata::validate).
std::optional<error> check_coverage(std::vector<tensor_span>& spans, std::uint64_t buffer_size, std::string_view what) {
  std::sort(spans.begin(), spans.end(), [](const tensor_span& a, const tensor_span& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  double at = 0;
  for (const auto& s : spans) {
    if (s.begin != at)
      return error{std::string(what), "tensor data " + std::string(s.begin < at ? "overlaps" : "leaves a hole") +
                                          " at byte " + detail::format_number(std::min(s.begin, at)) + " of the buffer"};
    at = s.end;
  }
  if (at != static_cast<double>(buffer_size))
    return error{std::string(what), "the tensors end at byte " + detail::format_number(at) + " of the buffer, but it holds " +
                                        detail::format_number(static_cast<double>(buffer_size))};
  return std::nullopt;
}

}  // namespace

bool checkpoint_summary::elements_are_params() const {
  return std::all_of(by_dtype.begin(), by_dtype.end(), [](const auto& entry) {
    const dtype_bits* d = find_dtype_bits(entry.first);
    return d != nullptr && d->floating;
  });
}

void checkpoint_summary::add(const checkpoint_summary& other) {
  tensors += other.tensors, elements += other.elements, bytes += other.bytes;
  for (const auto& [name, t] : other.by_dtype) {
    dtype_total& d = by_dtype[name];
    d.tensors += t.tensors, d.elements += t.elements, d.bytes += t.bytes;
  }
}

result<std::uint64_t> safetensors_header_length(std::string_view first_bytes, std::uint64_t file_size,
                                                std::string_view what) {
  if (first_bytes.size() < 8 || file_size < 8)
    return error{std::string(what), "is shorter than the 8-byte header length of a safetensors file"};
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(first_bytes[static_cast<std::size_t>(i)]);
  if (n == 0 || n > max_safetensors_header_bytes)
    return error{std::string(what), "declares a header of " + std::to_string(n) + " bytes; a safetensors header holds 1 to " +
                                        std::to_string(max_safetensors_header_bytes)};
  if (n > file_size - 8)
    return error{std::string(what), "declares a header of " + std::to_string(n) + " bytes, but the file has only " +
                                        std::to_string(file_size - 8) + " after the length"};
  return n;
}

result<checkpoint_summary> parse_safetensors_header(std::string_view header, std::uint64_t buffer_size,
                                                    std::string_view what) {
  if (header.empty() || header.front() != '{')
    return error{std::string(what), "the header must be a JSON object starting with '{'"};
  if (too_deep(header, max_header_depth))
    return error{std::string(what), "the header nests deeper than a safetensors header does"};
  const json root = json::parse(header.begin(), header.end(), nullptr, false);
  if (root.is_discarded() || !root.is_object()) return error{std::string(what), "the header is not a valid JSON object"};
  checkpoint_summary out;
  std::vector<tensor_span> spans;
  for (const auto& [name, t] : root.items()) {
    if (name == "__metadata__") {
      if (!t.is_object() || !std::all_of(t.begin(), t.end(), [](const json& v) { return v.is_string(); }))
        return error{std::string(what), "__metadata__ must map names to strings"};
      continue;
    }
    if (auto e = read_tensor(name, t, what, out, spans)) return *e;
  }
  if (auto e = check_coverage(spans, buffer_size, what)) return *e;
  return out;
}

result<std::vector<std::string>> parse_safetensors_index(std::string_view index_json, std::string_view what) {
  if (too_deep(index_json, max_header_depth)) return error{std::string(what), "nests deeper than a safetensors index does"};
  const json root = json::parse(index_json.begin(), index_json.end(), nullptr, false);
  if (root.is_discarded() || !root.is_object()) return error{std::string(what), "is not a valid JSON object"};
  const auto map = root.find("weight_map");
  if (map == root.end() || !map->is_object() || map->empty())
    return error{std::string(what), "has no weight_map of tensor names to shard files"};
  std::vector<std::string> shards;
  for (const auto& [tensor, file] : map->items()) {
    if (!file.is_string()) return error{std::string(what), "weight_map entry " + detail::quoted(tensor) + " is not a file name"};
    const auto name = file.get<std::string>();
    if (name.empty() || name == "." || name == ".." || name.find_first_of("/\\") != std::string::npos ||
        name.find('\0') != std::string::npos)
      return error{std::string(what), "shard " + detail::quoted(name) + " must be a file name beside the index"};
    if (std::find(shards.begin(), shards.end(), name) == shards.end()) shards.push_back(name);
    if (shards.size() > max_safetensors_shards)
      return error{std::string(what), "names more than " + std::to_string(max_safetensors_shards) + " shards"};
  }
  return shards;
}

}  // namespace llm_memory
