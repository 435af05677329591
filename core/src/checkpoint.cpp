// SPDX-License-Identifier: MIT
// safetensors headers: the layout and its checks follow huggingface/safetensors @24b0b285 (README "Format";
// safetensors/src/tensor.rs: Dtype::bitsize, MAX_HEADER_SIZE, Metadata::validate). Only headers are read.
#include "llm_memory/checkpoint.hpp"

#include "json_value.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "llm_memory/dtype.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using json = detail::json;

// A header nests three deep (root, tensor entry, shape / offsets); deeper input is refused before it is parsed.
constexpr int max_header_depth = 4;
// Each member of a header is read within these: a shape's rank, an entry's (or __metadata__'s) members, and
// the values of one member; the tensor count is bounded as they are taken (max_safetensors_tensors).
constexpr detail::json_limits header_limits{max_safetensors_rank, std::size_t{1} << 16, std::size_t{1} << 17};
// A dimension above 2^53 would lose exactness in the double sums (huggingface.js caps them at 2^32).
constexpr double max_dimension = 9007199254740992.0;

struct dtype_bits {
  std::string_view name;
  int bits = 0;
  bool floating = false;  ///< one value per element: the element count is a parameter count
};

// tensor.rs `Dtype` and `bitsize()`; names exactly as headers spell them.
constexpr std::array<dtype_bits, 23> dtypes = {{
    {"BOOL", 8, false},    {"F4", 4, true},          {"F6_E2M3", 6, true},     {"F6_E3M2", 6, true},
    {"U8", 8, false},      {"I8", 8, false},         {"F8_E5M2", 8, true},     {"F8_E4M3", 8, true},
    {"F8_E8M0", 8, false}, {"F8_E4M3FNUZ", 8, true}, {"F8_E5M2FNUZ", 8, true}, {"I16", 16, false},
    {"U16", 16, false},    {"F16", 16, true},        {"BF16", 16, true},       {"I32", 32, false},
    {"U32", 32, false},    {"F32", 32, true},        {"C64", 64, false},       {"F64", 64, true},
    {"I64", 64, false},    {"U64", 64, false},       {"E8M0", 8, false},
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
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
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

// One member of a header as read: a tensor's totals, or why it is refused; __metadata__ has no dtype.
struct header_member {
  std::string name;
  std::string problem;    ///< why it is refused (after "tensor NAME: " for a tensor); empty when it is fine
  bool metadata = false;  ///< __metadata__, not a tensor
  const dtype_bits* bits = nullptr;
  double elements = 0;  ///< [values]
  tensor_span span;     ///< [bytes] of the buffer
};

// One tensor entry checked: its dtype, element count and byte range, or the first problem.
header_member read_tensor(std::string name, const json& t) {
  header_member out;
  out.name = std::move(name);
  const auto fail = [&](std::string why) {
    out.problem = std::move(why);
    return std::move(out);
  };
  if (!t.is_object()) return fail("must be an object with dtype, shape and data_offsets");
  const auto dt = t.find("dtype");
  const auto shape = t.find("shape");
  const auto offsets = t.find("data_offsets");
  if (dt == t.end() || !dt->is_string()) return fail("has no dtype string");
  out.bits = find_dtype_bits(dt->get<std::string>());
  if (out.bits == nullptr) return fail("unknown dtype " + detail::quoted(dt->get<std::string>()));
  if (shape == t.end() || !shape->is_array()) return fail("has no shape list");
  double elements = 1;
  for (const auto& d : *shape) {
    const auto n = whole(d);
    if (!n || *n > max_dimension) return fail("shape must list whole numbers from 0 to 2^53");
    elements *= *n;
  }
  if (elements > max_dimension) return fail("has more than 2^53 elements");
  if (offsets == t.end() || !offsets->is_array() || offsets->size() != 2)
    return fail("has no [begin, end] data_offsets");
  const auto begin = whole((*offsets)[0]);
  const auto end = whole((*offsets)[1]);
  if (!begin || !end || *end < *begin) return fail("data_offsets must be whole numbers with begin <= end");
  const double total_bits = elements * out.bits->bits;
  if (std::fmod(total_bits, 8) != 0)
    return fail("its elements do not fill whole bytes of " + std::string(out.bits->name));
  const double bytes = total_bits / 8;
  if (*end - *begin != bytes)
    return fail("data_offsets span " + detail::format_number(*end - *begin) + " bytes, but " +
                detail::format_number(elements) + " " + std::string(out.bits->name) + " values take " +
                detail::format_number(bytes));
  out.elements = elements;
  out.span = {*begin, *end};
  return out;
}

// __metadata__ checked: a map of names to strings.
header_member read_metadata(std::string name, const json& t) {
  header_member out;
  out.name = std::move(name);
  out.metadata = true;
  if (!t.is_object() || !std::all_of(t.begin(), t.end(), [](const json& v) { return v.is_string(); }))
    out.problem = "__metadata__ must map names to strings";
  return out;
}

// The members in key order, a name given twice keeping its last entry: the order and the choice the header
// had as one parsed object (sorted_members; nlohmann keeps a duplicate key's last value).
void sort_and_merge(std::vector<header_member>& members) {
  std::stable_sort(members.begin(), members.end(),
                   [](const header_member& a, const header_member& b) { return a.name < b.name; });
  std::size_t kept = 0;
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (kept > 0 && members[kept - 1].name == members[k].name) --kept;
    if (kept != k) members[kept] = std::move(members[k]);
    ++kept;
  }
  members.resize(kept);
}

// What a header's members give: the first refused one (in key order) as the error, else the totals.
result<checkpoint_summary> sum_members(const std::vector<header_member>& members, std::string_view what,
                                       std::vector<tensor_span>& spans) {
  checkpoint_summary out;
  for (const auto& m : members) {
    if (!m.problem.empty())
      return error{std::string(what), m.metadata ? m.problem : "tensor " + detail::quoted(m.name) + ": " + m.problem};
    if (m.metadata) continue;
    const double bytes = m.span.end - m.span.begin;
    dtype_total& d = out.by_dtype[std::string(m.bits->name)];
    ++d.tensors, d.elements += m.elements, d.bytes += bytes;
    ++out.tensors, out.elements += m.elements, out.bytes += bytes;
    out.packed = out.packed || !m.bits->floating;
    spans.push_back(m.span);
  }
  return out;
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
                                          " at byte " + detail::format_number(std::min(s.begin, at)) +
                                          " of the buffer"};
    at = s.end;
  }
  if (at != static_cast<double>(buffer_size))
    return error{std::string(what), "the tensors end at byte " + detail::format_number(at) +
                                        " of the buffer, but it holds " +
                                        detail::format_number(static_cast<double>(buffer_size))};
  return std::nullopt;
}

}  // namespace

void checkpoint_summary::add(const checkpoint_summary& other) {
  tensors += other.tensors, elements += other.elements, bytes += other.bytes;
  packed = packed || other.packed;
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
    return error{std::string(what), "declares a header of " + std::to_string(n) +
                                        " bytes; a safetensors header holds 1 to " +
                                        std::to_string(max_safetensors_header_bytes)};
  if (n > file_size - 8)
    return error{std::string(what), "declares a header of " + std::to_string(n) + " bytes, but the file has only " +
                                        std::to_string(file_size - 8) + " after the length"};
  return n;
}

result<checkpoint_summary> parse_safetensors_header(std::string_view header, std::uint64_t buffer_size,
                                                    std::string_view what, std::vector<std::string>* names) {
  if (header.empty() || header.front() != '{')
    return error{std::string(what), "the header must be a JSON object starting with '{'"};
  if (too_deep(header, max_header_depth))
    return error{std::string(what), "the header nests deeper than a safetensors header does"};
  std::vector<header_member> members;
  std::size_t tensors = 0;
  const auto take = [&](std::string&& name, json&& value) {
    const bool metadata = name == "__metadata__";
    if (!metadata && ++tensors > max_safetensors_tensors) return false;
    members.push_back(metadata ? read_metadata(std::move(name), value) : read_tensor(std::move(name), value));
    return true;
  };
  if (const auto e = detail::stream_json_members(header, header_limits, take)) {
    if (!e->over_limit) return error{std::string(what), "the header is not a valid JSON object"};
    return error{std::string(what),
                 (e->member == "__metadata__" ? "__metadata__" : "tensor " + detail::quoted(e->member)) + ": " +
                     e->why + "; a shape lists at most " + std::to_string(max_safetensors_rank) + " dimensions"};
  }
  if (tensors > max_safetensors_tensors)
    return error{std::string(what),
                 "lists more than " + std::to_string(max_safetensors_tensors) + " tensors (max_safetensors_tensors)"};
  sort_and_merge(members);
  std::vector<tensor_span> spans;
  auto out = sum_members(members, what, spans);
  if (!out.ok()) return out;
  if (out.value().tensors == 0)
    return error{std::string(what), "lists no tensors: an empty checkpoint says nothing of the model's size"};
  if (auto e = check_coverage(spans, buffer_size, what)) return *e;
  if (names != nullptr)
    for (auto& m : members)
      if (!m.metadata) names->push_back(std::move(m.name));
  return out;
}

std::optional<error> duplicate_tensor(std::vector<std::string> names, std::string_view what) {
  std::sort(names.begin(), names.end());
  const auto twice = std::adjacent_find(names.begin(), names.end());
  if (twice == names.end()) return std::nullopt;
  return error{std::string(what),
               "tensor " + detail::quoted(*twice) + ": in more than one shard (its values would be counted twice)"};
}

result<std::vector<std::string>> parse_safetensors_index(std::string_view index_json, std::string_view what) {
  if (too_deep(index_json, max_header_depth))
    return error{std::string(what), "nests deeper than a safetensors index does"};
  // The weight map: one member and one value per tensor; the rest (metadata) is a few values.
  constexpr detail::json_limits index_limits{std::size_t{1} << 16, max_safetensors_tensors,
                                             2 * max_safetensors_tensors + (std::size_t{1} << 16)};
  std::string why;
  const json root = detail::parse_json(index_json, &why, index_limits);
  if (root.is_discarded() && why.rfind("too wide", 0) == 0)
    return error{std::string(what), why + "; an index maps at most " + std::to_string(max_safetensors_tensors) +
                                        " tensors (max_safetensors_tensors)"};
  if (root.is_discarded() || !root.is_object()) return error{std::string(what), "is not a valid JSON object"};
  const auto map = root.find("weight_map");
  if (map == root.end() || !map->is_object() || map->empty())
    return error{std::string(what), "has no weight_map of tensor names to shard files"};
  std::vector<std::string> shards;
  std::set<std::string, std::less<>> seen;  // a search of `shards` per entry was quadratic: 2 M entries took 40 s
  for (const auto* member : detail::sorted_members(*map)) {
    const auto& [tensor, file] = *member;
    if (!file.is_string())
      return error{std::string(what), "weight_map entry " + detail::quoted(tensor) + " is not a file name"};
    const auto name = file.get<std::string>();
    if (name.empty() || name == "." || name == ".." || name.find_first_of("/\\") != std::string::npos ||
        name.find('\0') != std::string::npos)
      return error{std::string(what), "shard " + detail::quoted(name) + " must be a file name beside the index"};
    if (seen.insert(name).second) shards.push_back(name);
    if (shards.size() > max_safetensors_shards)
      return error{std::string(what), "names more than " + std::to_string(max_safetensors_shards) + " shards"};
  }
  return shards;
}

}  // namespace llm_memory

namespace llm_memory {
namespace {

// GGUF metadata value types (ggml include/gguf.h `enum gguf_type`).
enum gguf_value : std::uint32_t { u8, i8, u16, i16, u32, i32, f32, boolean, string, array, u64, i64, f64, value_types };
constexpr std::array<int, value_types> scalar_bytes = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
// gguf.cpp's caps: GGUF_MAX_STRING_LENGTH and GGUF_MAX_ARRAY_ELEMENTS (2^30); GGML_MAX_DIMS 4; names < 64 bytes.
constexpr std::uint64_t max_gguf_string = 1ull << 30;
constexpr std::uint64_t max_gguf_array = 1ull << 30;
constexpr std::uint32_t max_gguf_dims = 4;
constexpr std::size_t max_gguf_name = 64;  // GGML_MAX_NAME, the terminating NUL included

// A little-endian cursor over the header bytes; the first failure is kept, later reads return 0.
class gguf_reader {
 public:
  gguf_reader(std::string_view bytes, std::uint64_t file_size) : bytes_(bytes), file_size_(file_size) {}

  std::uint64_t uint(int width) {
    if (!take(static_cast<std::uint64_t>(width))) return 0;
    std::uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i)
      v = (v << 8) |
          static_cast<unsigned char>(bytes_[at_ - static_cast<std::size_t>(width) + static_cast<std::size_t>(i)]);
    return v;
  }
  std::string_view text() {
    const std::uint64_t n = uint(8);
    if (failed()) return {};
    if (n > max_gguf_string)
      return fail("a string of " + std::to_string(n) + " bytes is over gguf's 2^30"), std::string_view{};
    if (!take(n)) return {};
    const auto length = static_cast<std::size_t>(n);  // take() checked it against the bytes held
    return bytes_.substr(at_ - length, length);
  }
  // Skips one value of `type` (arrays of any depth); false on a bad type.
  void skip(std::uint32_t type, int depth = 0) {
    if (type >= value_types) return fail("unknown metadata value type " + std::to_string(type));
    if (type == string) return (void)text();
    if (type != array) return (void)take(static_cast<std::uint64_t>(scalar_bytes[type]));
    const auto inner = static_cast<std::uint32_t>(uint(4));
    const std::uint64_t count = uint(8);
    if (depth > 2) return fail("arrays nest deeper than 3");
    if (count > max_gguf_array) return fail("an array of " + std::to_string(count) + " elements is over gguf's 2^30");
    if (inner < value_types && inner != string && inner != array)
      return (void)take(count * static_cast<std::uint64_t>(scalar_bytes[inner]));
    for (std::uint64_t i = 0; i < count && !failed(); ++i) skip(inner, depth + 1);
  }
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }
  [[nodiscard]] bool failed() const { return !error_.empty(); }
  [[nodiscard]] const std::string& why() const { return error_; }
  [[nodiscard]] bool truncated() const { return truncated_; }
  [[nodiscard]] std::size_t position() const { return at_; }

 private:
  bool take(std::uint64_t n) {
    if (failed()) return false;
    if (n > bytes_.size() - at_) {
      truncated_ = file_size_ > bytes_.size();
      fail(truncated_ ? "the header is longer than the " + std::to_string(bytes_.size()) + " bytes read"
                      : "the file ends inside the header");
      return false;
    }
    at_ += static_cast<std::size_t>(n);
    return true;
  }
  std::string_view bytes_;
  std::uint64_t file_size_ = 0;
  std::size_t at_ = 0;
  std::string error_;
  bool truncated_ = false;
};

// Reads one integer-typed metadata value; nullopt (after skipping it) when it is not an integer.
std::optional<std::uint64_t> integer_value(gguf_reader& in, std::uint32_t type) {
  switch (type) {
    case u8:
    case u16:
    case u32:
    case u64: return in.uint(scalar_bytes[type]);
    case i8:
    case i16:
    case i32:
    case i64: {
      const int width = scalar_bytes[type];
      const std::uint64_t raw = in.uint(width);
      const bool negative = (raw >> (8 * width - 1)) & 1u;
      if (negative) return std::nullopt;
      return raw;
    }
    default: in.skip(type); return std::nullopt;
  }
}

// The setting an "<arch>.<suffix>" metadata key feeds (llama.cpp's standardized LLM keys).
std::string_view setting_for(std::string_view suffix) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 11> keys = {{
      {"embedding_length", "hidden_size"},
      {"block_count", "num_hidden_layers"},
      {"attention.head_count", "num_attention_heads"},
      {"attention.head_count_kv", "num_key_value_heads"},
      {"feed_forward_length", "intermediate_size"},
      {"attention.key_length", "head_dim"},
      {"expert_count", "num_experts"},
      {"expert_used_count", "num_experts_per_tok"},
      {"expert_feed_forward_length", "moe_intermediate_size"},
      {"expert_shared_count", "n_shared_experts"},
      {"vocab_size", "vocab_size"},
  }};
  for (const auto& [key, setting] : keys)
    if (key == suffix) return setting;
  return {};
}

// general.architecture (llama.cpp's LLM_ARCH_NAMES, src/llama-arch.cpp) -> config.json's model_type, so that the
// runtimes' per-architecture rules (runtimes/<name>.cpp, keyed by model_type: docs/runtimes.md) apply to a GGUF run.
// convert_hf_to_gguf.py writes MistralForCausalLM as "llama": no rule names it, as llama.cpp runs it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> gguf_model_types = {{
    {"llama", "llama"},
    {"llama4", "llama4_text"},
    {"phi3", "phi3"},
    {"gemma2", "gemma2"},
    {"gemma3", "gemma3_text"},
    {"gemma3n", "gemma3n_text"},
    {"cohere2", "cohere2"},
    {"gpt-oss", "gpt_oss"},
    {"olmo2", "olmo2"},
    {"qwen2", "qwen2"},
    {"qwen2moe", "qwen2_moe"},
    {"qwen3", "qwen3"},
    {"qwen3moe", "qwen3_moe"},
    {"mistral3", "mistral3"},
}};

// The model_type and what the architecture fixes beside it: Llama 4's chunked attention, which llama.cpp runs
// with n_swa 8192 unless <arch>.attention.sliding_window is stated as 0 (llama_load_hparams_llama4, src/llama-model.cpp
// @a5410f04: found_swa && n_swa == 0 -> LLAMA_SWA_TYPE_NONE).
void architecture_fields(const std::map<std::string, std::uint64_t, std::less<>>& integers, gguf_header& out) {
  for (const auto& [arch, type] : gguf_model_types)
    if (arch == out.architecture) out.fields["model_type"] = std::string(type);
  if (out.architecture != "llama4") return;
  const auto window = integers.find("llama4.attention.sliding_window");
  if (window == integers.end() || window->second != 0) out.fields["attention_chunk_size"] = "8192";
}

// What the tensor infos are checked against, as llama.cpp checks them (ggml/src/gguf.cpp
// gguf_init_from_file_impl and src/llama-model-loader.cpp done_getting_tensors, ggml-org/llama.cpp @067d44f6 and
// @3074b500): the metadata comes first in the file, so it is known before the first tensor info.
struct gguf_layout {
  std::uint64_t alignment = 32;              ///< general.alignment, GGUF_DEFAULT_ALIGNMENT without it [bytes]
  std::string block_count_key;               ///< "<arch>.block_count", for messages
  std::optional<std::uint64_t> block_count;  ///< <arch>.block_count [blocks]
  std::uint64_t next_offset = 0;             ///< where the next tensor's data must start in the data section [bytes]
  std::vector<std::string_view> names;       ///< every tensor's name, views into the header bytes
  std::vector<std::uint64_t> ends;           ///< each tensor's data end in the data section, in file order [bytes]
};

// The metadata: architecture, alignment, and the architecture's integer keys as settings.
void read_metadata(gguf_reader& in, std::uint64_t count, gguf_header& out, gguf_layout& layout) {
  std::map<std::string, std::uint64_t, std::less<>> integers;
  for (std::uint64_t i = 0; i < count && !in.failed(); ++i) {
    const std::string key(in.text());
    const auto type = static_cast<std::uint32_t>(in.uint(4));
    if (in.failed()) return;
    if (key == "general.architecture" && type == string) {
      out.architecture = std::string(in.text());
    } else if (key == "general.alignment") {
      if (type != u32) return in.fail("general.alignment must be a UINT32");
      layout.alignment = in.uint(4);
      if (layout.alignment == 0 || (layout.alignment & (layout.alignment - 1)) != 0)
        return in.fail("general.alignment must be a power of two");
    } else if (key == "tokenizer.ggml.tokens" && type == array) {
      const auto inner = static_cast<std::uint32_t>(in.uint(4));
      const std::uint64_t n = in.uint(8);
      if (inner != string) return in.fail("tokenizer.ggml.tokens must list strings");
      if (n > max_gguf_array) return in.fail("tokenizer.ggml.tokens has over 2^30 entries");
      for (std::uint64_t t = 0; t < n && !in.failed(); ++t) in.text();
      integers.emplace("tokenizer.ggml.tokens", n);
    } else if (const auto v = integer_value(in, type)) {
      integers.emplace(key, *v);
    }
  }
  const std::string prefix = out.architecture + ".";
  layout.block_count_key = prefix + "block_count";
  for (const auto& [key, value] : integers) {
    if (key == "tokenizer.ggml.tokens" && !out.fields.contains("vocab_size"))
      out.fields["vocab_size"] = std::to_string(value);
    if (out.architecture.empty() || !key.starts_with(prefix)) continue;
    if (key == layout.block_count_key) layout.block_count = value;
    if (const auto setting = setting_for(std::string_view(key).substr(prefix.size())); !setting.empty())
      out.fields[std::string(setting)] = std::to_string(value);
  }
  architecture_fields(integers, out);
}

// N of a "blk.N.*" name (llama.cpp's per-block tensor names), saturating at 2^32; nullopt for any other name.
std::optional<std::uint64_t> block_index(std::string_view name) {
  if (!name.starts_with("blk.")) return std::nullopt;
  std::size_t at = 4;
  std::uint64_t n = 0;
  for (; at < name.size() && name[at] >= '0' && name[at] <= '9'; ++at)
    n = std::min<std::uint64_t>(n * 10 + static_cast<std::uint64_t>(name[at] - '0'), 1ull << 32);
  if (at == 4 || at >= name.size() || name[at] != '.') return std::nullopt;
  return n;
}

// llama.cpp creates blk.N only for N below <arch>.block_count (llama-model.cpp load_tensors); any tensor it did not
// create fails done_getting_tensors ("wrong number of tensors"), so a stray block index refuses the file.
void check_block(gguf_reader& in, std::string_view name, const gguf_layout& layout) {
  const auto block = block_index(name);
  if (!block) return;
  const std::string tensor = "tensor " + detail::quoted(std::string(name)) + ": ";
  if (!layout.block_count)
    return in.fail(tensor + "a block tensor, but the file has no " + layout.block_count_key +
                   " (llama.cpp refuses the file)");
  if (*block >= *layout.block_count)
    in.fail(tensor + "block " + std::to_string(*block) + " is not below " + layout.block_count_key + " = " +
            std::to_string(*layout.block_count) + " (llama.cpp refuses the file)");
}

// gguf.cpp: each tensor's data starts where the previous one's ends, padded to the alignment, so offsets are
// aligned and never overlap or leave a gap.
void check_offset(gguf_reader& in, const std::string& name, std::uint64_t offset, std::uint64_t bytes,
                  gguf_layout& layout) {
  const auto fail = [&](const std::string& why) {
    in.fail("tensor " + detail::quoted(name) + ": " + why + " (llama.cpp refuses the file)");
  };
  if (offset % layout.alignment != 0) return fail("its data offset is not a multiple of the alignment");
  if (offset != layout.next_offset)
    return fail("its data starts at byte " + std::to_string(offset) + " of the data section, " +
                (offset < layout.next_offset ? "overlapping the previous tensor's" : "leaving a gap") +
                "; gguf.cpp expects byte " + std::to_string(layout.next_offset));
  const std::uint64_t padded = (bytes + layout.alignment - 1) / layout.alignment * layout.alignment;
  if (padded > ~std::uint64_t{0} - offset) return fail("its data ends past 2^64 bytes");
  layout.ends.push_back(offset + bytes);
  layout.next_offset = offset + padded;
}

// One tensor info: its parameters and bytes by type.
void read_tensor_info(gguf_reader& in, checkpoint_summary& out, gguf_placement& placement, gguf_layout& layout) {
  const std::string_view name_view = in.text();
  const std::string name(name_view);
  const auto dims = static_cast<std::uint32_t>(in.uint(4));
  if (in.failed()) return;
  const auto fail = [&](const std::string& why) { in.fail("tensor " + detail::quoted(name) + ": " + why); };
  if (name.size() >= max_gguf_name) return fail("its name is over ggml's 63 bytes (GGML_MAX_NAME)");
  if (dims > max_gguf_dims) return fail("has " + std::to_string(dims) + " dimensions; ggml allows 4");
  double elements = 1;
  std::uint64_t row = 1;
  for (std::uint32_t d = 0; d < dims; ++d) {
    const std::uint64_t n = in.uint(8);
    if (n > (1ull << 53)) return fail("a dimension is over 2^53");
    if (d == 0) row = n;
    elements *= static_cast<double>(n);
  }
  const auto id = static_cast<std::uint32_t>(in.uint(4));
  const std::uint64_t offset = in.uint(8);
  if (in.failed()) return;
  if (elements > 9007199254740992.0) return fail("has more than 2^53 elements");
  const gguf_tensor_type* type = find_gguf_tensor_type(id);
  if (type == nullptr) return fail("unknown or removed ggml type " + std::to_string(id));
  if (row % type->block_values != 0)
    return fail("rows of " + std::to_string(row) + " are not whole " + std::string(type->name) + " blocks of " +
                std::to_string(type->block_values));
  // Exact: the rows are whole blocks, and 2^53 elements of at most 8 bytes each stay below 2^64.
  const std::uint64_t bytes = static_cast<std::uint64_t>(elements) / type->block_values * type->block_bytes;
  check_block(in, name, layout);
  if (!in.failed()) check_offset(in, name, offset, bytes, layout);
  if (in.failed()) return;
  layout.names.push_back(name_view);
  dtype_total& t = out.by_dtype[std::string(type->name)];
  ++t.tensors, t.elements += elements, t.bytes += static_cast<double>(bytes);
  ++out.tensors, out.elements += elements, out.bytes += static_cast<double>(bytes);
  placement.add(name, static_cast<double>(bytes));
}

// gguf.cpp refuses a name given twice; sorted, so a header of millions of tensors is not compared pairwise.
std::optional<std::string> duplicate_name(std::vector<std::string_view> names) {
  std::sort(names.begin(), names.end());
  const auto twice = std::adjacent_find(names.begin(), names.end());
  if (twice == names.end()) return std::nullopt;
  return "tensor " + detail::quoted(std::string(*twice)) + ": duplicate name (llama.cpp refuses the file)";
}

// llama-model-loader.h llama_tensor_weight: every tensor's data must end inside the file. The data section starts
// after the tensor infos, padded to the alignment.
std::optional<std::string> past_the_end(const gguf_layout& layout, std::uint64_t header_end, std::uint64_t file_size) {
  const std::uint64_t start = (header_end + layout.alignment - 1) / layout.alignment * layout.alignment;
  for (std::size_t i = 0; i < layout.ends.size(); ++i) {
    if (start <= file_size && layout.ends[i] <= file_size - start) continue;
    return "tensor " + detail::quoted(std::string(layout.names[i])) + ": its data runs past the end of the file (" +
           std::to_string(file_size) + " bytes; the data section starts at byte " + std::to_string(start) +
           ") (llama.cpp refuses the file as corrupted or incomplete)";
  }
  return std::nullopt;
}

}  // namespace

result<gguf_header> parse_gguf_header(std::string_view bytes, std::uint64_t file_size, std::string_view what,
                                      bool* truncated) {
  if (truncated != nullptr) *truncated = false;
  gguf_reader in(bytes, file_size);
  const std::uint64_t magic = in.uint(4);
  const std::uint64_t version = in.uint(4);
  if (!in.failed() && magic != 0x46554747) return error{std::string(what), "is not a GGUF file (no GGUF magic)"};
  if (!in.failed() && version != 2 && version != 3)
    return error{std::string(what), "is GGUF version " + std::to_string(version) + "; versions 2 and 3 are read"};
  const std::uint64_t tensors = in.uint(8);
  const std::uint64_t kv = in.uint(8);
  if (!in.failed() && (tensors > (1ull << 40) || kv > (1ull << 40)))
    return error{std::string(what), "declares more tensors or metadata entries than a file can hold"};
  gguf_header out;
  gguf_layout layout;
  read_metadata(in, kv, out, layout);
  for (std::uint64_t i = 0; i < tensors && !in.failed(); ++i) read_tensor_info(in, out.tensors, out.placement, layout);
  if (truncated != nullptr) *truncated = in.truncated();
  if (in.failed()) return error{std::string(what), in.why()};
  if (out.architecture.empty()) return error{std::string(what), "has no general.architecture string"};
  if (out.tensors.tensors == 0)
    return error{std::string(what), "lists no tensors (a vocabulary-only file?): it says nothing of the model's size"};
  if (auto why = duplicate_name(layout.names)) return error{std::string(what), *why};
  if (auto why = past_the_end(layout, in.position(), file_size)) return error{std::string(what), *why};
  return out;
}

}  // namespace llm_memory
