// SPDX-License-Identifier: MIT
// safetensors headers (huggingface/safetensors README "Format", tensor.rs @24b0b285): small hand-made headers,
// each expectation derived from the layout: bytes = elements x the dtype's bits / 8, the buffer covered exactly.
#include "llm_memory/checkpoint.hpp"

#include "llm_memory/resolve.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace llm_memory;

// Some message names the flag and contains `text`.
template <class T>
bool has_error(const result<T>& r, std::string_view text) {
  if (r.ok()) return false;
  for (const auto& e : r.errors())
    if (e.setting == "safetensors" && e.message.find(text) != std::string::npos) return true;
  return false;
}

// The 8-byte little-endian length of `n`, as a file starts.
std::string length_bytes(std::uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

// A BF16 [2, 3] matrix (6 x 2 = 12 bytes at 0..12) and an F32 scalar (shape [] = 1 element, 4 bytes at 12..16).
const std::string two_tensors = R"({"__metadata__": {"format": "pt"},
  "model.norm.weight": {"dtype": "F32", "shape": [], "data_offsets": [12, 16]},
  "model.embed.weight": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]}})";

TEST(checkpoint, header_totals_by_dtype) {
  const auto r = parse_safetensors_header(two_tensors, 16, "safetensors");
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  const auto& c = r.value();
  EXPECT_EQ(c.tensors, 2);
  EXPECT_EQ(c.elements, 7);
  EXPECT_EQ(c.bytes, 16);
  ASSERT_EQ(c.by_dtype.size(), 2u);
  EXPECT_EQ(c.by_dtype.at("BF16").elements, 6);
  EXPECT_EQ(c.by_dtype.at("BF16").bytes, 12);
  EXPECT_EQ(c.by_dtype.at("F32").tensors, 1);
  EXPECT_FALSE(c.packed);
}

// Packed containers: bitsandbytes' U8 weight holds two 4-bit codes per byte, GPTQ's I32 qweight eight; F4 (MXFP4's
// E2M1) is half a byte per element: 4 F4 values = 2 bytes.
TEST(checkpoint, packed_containers_and_sub_byte_types) {
  const auto r = parse_safetensors_header(
      R"({"w": {"dtype": "U8", "shape": [4, 2], "data_offsets": [0, 8]},
          "f": {"dtype": "F4", "shape": [4], "data_offsets": [8, 10]}})",
      10, "safetensors");
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  EXPECT_EQ(r.value().bytes, 10);
  EXPECT_EQ(r.value().elements, 12);
  EXPECT_TRUE(r.value().packed);
  // 3 F4 values are 12 bits: not whole bytes (tensor.rs MisalignedSlice).
  EXPECT_TRUE(has_error(
      parse_safetensors_header(R"({"f": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}})", 2, "safetensors"),
      "whole bytes"));
}

TEST(checkpoint, shards_add_up) {
  checkpoint_summary a = parse_safetensors_header(two_tensors, 16, "safetensors").value();
  a.add(a);
  EXPECT_EQ(a.tensors, 4);
  EXPECT_EQ(a.bytes, 32);
  EXPECT_EQ(a.by_dtype.at("BF16").elements, 12);
}

TEST(checkpoint, header_length_is_bounded) {
  EXPECT_EQ(safetensors_header_length(length_bytes(100), 200, "safetensors").value(), 100u);
  EXPECT_TRUE(has_error(safetensors_header_length("abc", 3, "safetensors"), "shorter than the 8-byte"));
  EXPECT_TRUE(has_error(safetensors_header_length(length_bytes(0), 200, "safetensors"), "1 to 100000000"));
  EXPECT_TRUE(
      has_error(safetensors_header_length(length_bytes(max_safetensors_header_bytes + 1), 1000000000, "safetensors"),
                "1 to 100000000"));
  EXPECT_TRUE(has_error(safetensors_header_length(length_bytes(193), 200, "safetensors"), "only 192 after"));
  EXPECT_TRUE(has_error(safetensors_header_length(length_bytes(~0ull), 200, "safetensors"), "header of"));
}

TEST(checkpoint, malformed_headers_name_the_tensor) {
  const auto bad = [](const std::string& header, std::uint64_t buffer, std::string_view text) {
    return has_error(parse_safetensors_header(header, buffer, "safetensors"), text);
  };
  EXPECT_TRUE(bad(R"({"w": {"dtype": "Q4", "shape": [1], "data_offsets": [0, 1]}})", 1, "\"w\": unknown dtype \"Q4\""));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 2]}})", 2, "take 4"));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [-1], "data_offsets": [0, 2]}})", 2, "whole numbers"));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [1.5], "data_offsets": [0, 2]}})", 2, "whole numbers"));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [2, 0]}})", 2, "begin <= end"));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [1]}})", 2, "data_offsets"));
  EXPECT_TRUE(bad(R"({"w": [1, 2]})", 2, "must be an object"));
  // A hole at 0..2, an overlap, and a buffer longer than the tensors.
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [2, 4]}})", 4, "hole at byte 0"));
  EXPECT_TRUE(bad(R"({"a": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]},
                      "b": {"dtype": "F16", "shape": [1], "data_offsets": [2, 4]}})",
                  4, "overlaps"));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}})", 3, "holds 3"));
  EXPECT_TRUE(bad(R"({"__metadata__": {"format": 1}})", 0, "__metadata__"));
  EXPECT_TRUE(bad(" {}", 0, "starting with '{'"));
  EXPECT_TRUE(bad("{\"w\": ", 0, "not a valid JSON"));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [[[[1]]]], "data_offsets": [0, 2]}})", 2, "nests deeper"));
  // An empty checkpoint says nothing of the model (its count would fall back to the architecture's).
  EXPECT_TRUE(bad("{}", 0, "lists no tensors"));
  EXPECT_TRUE(bad(R"({"__metadata__": {"format": "pt"}})", 0, "lists no tensors"));
}

// A name given twice in one header keeps its last entry (serde's map in tensor.rs does the same): counted once when
// both entries name the same bytes; otherwise the first entry's bytes are a hole. A name in two shards is refused.
TEST(checkpoint, duplicate_tensor_names) {
  const auto once = parse_safetensors_header(R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]},
      "w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}})",
                                             2, "safetensors");
  ASSERT_TRUE(once.ok());
  EXPECT_EQ(once.value().tensors, 1);
  EXPECT_EQ(once.value().bytes, 2);
  EXPECT_TRUE(has_error(parse_safetensors_header(R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]},
      "w": {"dtype": "F16", "shape": [1], "data_offsets": [2, 4]}})",
                                                 4, "safetensors"),
                        "hole at byte 0"));
  std::vector<std::string> names;
  ASSERT_TRUE(parse_safetensors_header(two_tensors, 16, "safetensors", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"model.embed.weight", "model.norm.weight"}));
  EXPECT_FALSE(duplicate_tensor(names, "safetensors").has_value());
  ASSERT_TRUE(parse_safetensors_header(two_tensors, 16, "safetensors", &names).ok());  // the same shard again
  const auto twice = duplicate_tensor(names, "safetensors");
  ASSERT_TRUE(twice.has_value());
  EXPECT_EQ(twice->message,
            "tensor \"model.embed.weight\": in more than one shard (its values would be counted twice)");
}

// Width is bounded as the header is read (issue 37). An F16 tensor of shape [1, ..., 1] holds 1 element, 2 bytes:
// 64 dimensions read, 65 refused at the 65th, naming the tensor and the limit; a ~10 MB shape of 5 M entries is
// refused as soon as it passes 64 (it was parsed whole: 50 M entries took 11 GB).
TEST(checkpoint, shape_rank_is_bounded) {
  const auto shape = [](std::size_t rank) {
    std::string dims = "1";
    for (std::size_t k = 1; k < rank; ++k) dims += ",1";
    return R"({"w": {"dtype": "F16", "shape": [)" + dims + R"(], "data_offsets": [0, 2]}})";
  };
  const auto r = parse_safetensors_header(shape(64), 2, "safetensors");
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  EXPECT_EQ(r.value().elements, 1);
  const auto wide = parse_safetensors_header(shape(65), 2, "safetensors");
  EXPECT_TRUE(has_error(wide, "tensor \"w\": too wide"));
  EXPECT_TRUE(has_error(wide, "an array of more than 64 values; a shape lists at most 64 dimensions"));
  EXPECT_TRUE(has_error(parse_safetensors_header(shape(5'000'000), 2, "safetensors"), "more than 64 values"));
}

// More than max_safetensors_tensors (1,000,000) tensors are refused; __metadata__ is no tensor. U8 tensors of
// shape [] take 1 byte each: tensor k covers bytes k..k+1, so n of them fill an n-byte buffer.
TEST(checkpoint, tensor_count_is_bounded) {
#ifdef LLM_MEMORY_SANITIZED
  // Two million entries take two minutes under ASan's allocator and reach no code the bounded tests above and the
  // fuzz targets do not; the release and wasm builds check the bound itself.
  GTEST_SKIP() << "the release and wasm builds check the 1,000,000-tensor bound";
#endif
  const auto header = [](std::size_t n) {
    std::string text = R"({"__metadata__": {"format": "pt"})";
    for (std::size_t k = 0; k < n; ++k)
      text += ",\"" + std::to_string(k) + R"(":{"dtype":"U8","shape":[],"data_offsets":[)" + std::to_string(k) + "," +
              std::to_string(k + 1) + "]}";
    return text + "}";
  };
  const auto most = parse_safetensors_header(header(max_safetensors_tensors), max_safetensors_tensors, "safetensors");
  ASSERT_TRUE(most.ok()) << to_string(most.errors().front());
  EXPECT_EQ(most.value().tensors, 1'000'000);
  EXPECT_EQ(most.value().bytes, 1'000'000);
  EXPECT_TRUE(has_error(
      parse_safetensors_header(header(max_safetensors_tensors + 1), max_safetensors_tensors + 1, "safetensors"),
      "lists more than 1000000 tensors"));
}

// An entry's members and __metadata__'s are bounded at 2^16 = 65,536; the error names the member being read.
TEST(checkpoint, metadata_members_are_bounded) {
  const auto header = [](std::size_t n) {
    std::string meta = R"("m0": "x")";
    for (std::size_t k = 1; k < n; ++k) meta += ",\"m" + std::to_string(k) + R"(": "x")";
    return R"({"__metadata__": {)" + meta + R"(}, "w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}})";
  };
  EXPECT_TRUE(parse_safetensors_header(header(65'536), 2, "safetensors").ok());
  EXPECT_TRUE(
      has_error(parse_safetensors_header(header(65'537), 2, "safetensors"), "__metadata__: too wide at line 1"));
}

// Read a member at a time, the header still reports as one parsed object did: the first bad tensor in key order
// ("a" before "b", though "b" comes first in the text), and a name given twice keeping its last entry.
TEST(checkpoint, streamed_header_reports_in_key_order) {
  EXPECT_TRUE(has_error(parse_safetensors_header(R"({"b": {"dtype": "Q4", "shape": [1], "data_offsets": [0, 1]},
      "a": {"dtype": "Q5", "shape": [1], "data_offsets": [0, 1]}})",
                                                 1, "safetensors"),
                        "tensor \"a\": unknown dtype \"Q5\""));
  const auto last = parse_safetensors_header(R"({"w": {"dtype": "Q4", "shape": [1], "data_offsets": [0, 1]},
      "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})",
                                             8, "safetensors");
  ASSERT_TRUE(last.ok()) << to_string(last.errors().front());
  EXPECT_EQ(last.value().elements, 2);
}

// An index maps at most max_safetensors_tensors tensors: its weight_map is refused at the 1,000,001st entry.
TEST(checkpoint, index_entries_are_bounded) {
  std::string text = R"({"weight_map": {"0": "s.safetensors")";
  for (std::size_t k = 1; k <= max_safetensors_tensors; ++k)
    text += ",\"" + std::to_string(k) + R"(": "s.safetensors")";
  EXPECT_TRUE(has_error(parse_safetensors_index(text + "}}", "safetensors"), "an object of more than 1000000 members"));
}

// Entries t1000000..t1199999 (i = 0..199,999) map to shard i % 10000: the 10,000 shards each once, in order of first
// use (the keys are read sorted), and one more shard is refused. A search of the list per entry made this about 1e9
// comparisons (issue 37).
TEST(checkpoint, index_with_many_entries_lists_each_shard_once) {
  const auto index = [](int shards) {
    std::string text = R"({"weight_map": {)";
    for (int i = 0; i < 200'000; ++i)
      text += (i ? ",\"t" : "\"t") + std::to_string(1'000'000 + i) + "\": \"s" + std::to_string(i % shards) +
              ".safetensors\"";
    return text + "}}";
  };
  const auto r = parse_safetensors_index(index(10'000), "safetensors");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().size(), 10'000u);
  EXPECT_EQ(r.value().front(), "s0.safetensors");
  EXPECT_EQ(r.value().back(), "s9999.safetensors");
  EXPECT_TRUE(has_error(parse_safetensors_index(index(10'001), "safetensors"), "more than 10000 shards"));
}

TEST(checkpoint, index_names_shards_beside_it) {
  const auto r = parse_safetensors_index(R"({"metadata": {"total_size": 10}, "weight_map": {
      "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors",
      "c": "model-00001-of-00002.safetensors"}})",
                                         "safetensors");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(),
            (std::vector<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"weight_map": {"a": "../secret.safetensors"}})", "safetensors"),
                        "file name beside the index"));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"weight_map": {"a": "/etc/passwd"}})", "safetensors"), "beside"));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"weight_map": {"a": ".."}})", "safetensors"), "beside"));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"weight_map": {"a": 3}})", "safetensors"), "not a file name"));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"metadata": {}})", "safetensors"), "weight_map"));
  EXPECT_TRUE(has_error(parse_safetensors_index("[", "safetensors"), "valid JSON"));
}

// ---- GGUF (ggml docs/gguf.md @d99724f2): a header written by hand, little-endian ----------------------------

class gguf_writer {
 public:
  gguf_writer& u32(std::uint32_t v) { return put(v, 4); }
  gguf_writer& u64(std::uint64_t v) { return put(v, 8); }
  gguf_writer& str(std::string_view s) {
    u64(s.size());
    bytes += s;
    return *this;
  }
  gguf_writer& head(std::uint64_t tensors, std::uint64_t kv, std::uint32_t version = 3) {
    bytes += "GGUF";
    return u32(version).u64(tensors).u64(kv);
  }
  gguf_writer& kv_u32(std::string_view key, std::uint32_t v) { return str(key).u32(4).u32(v); }
  gguf_writer& kv_str(std::string_view key, std::string_view v) { return str(key).u32(8).str(v); }
  // name, dims (ne0 first), ggml type id, offset
  gguf_writer& tensor(std::string_view name, std::initializer_list<std::uint64_t> dims, std::uint32_t type,
                      std::uint64_t offset) {
    str(name).u32(static_cast<std::uint32_t>(dims.size()));
    for (auto d : dims) u64(d);
    return u32(type).u64(offset);
  }
  std::string bytes;

 private:
  gguf_writer& put(std::uint64_t v, int width) {
    for (int i = 0; i < width; ++i) bytes += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
};

// A two-layer Llama-shaped header. Tensors: token_embd F16 [64, 3] = 192 values x 2 B = 384 B; attn_q Q4_0 [64, 64]
// = 4096 values, 128 blocks of 32 x 18 B = 2,304 B; ffn_down Q6_K [256, 2] = 512 values, 2 blocks of 256 x 210 B =
// 420 B. Totals: 4,800 parameters, 3,108 bytes. Metadata: llama.* keys become settings; the vocabulary is the
// length of tokenizer.ggml.tokens; strings, floats and other keys are skipped.
std::string llama_gguf() {
  gguf_writer w;
  w.head(3, 9);
  w.kv_str("general.architecture", "llama").kv_str("general.name", "tiny");
  w.kv_u32("llama.embedding_length", 64).kv_u32("llama.block_count", 2).kv_u32("llama.attention.head_count", 4);
  w.kv_u32("llama.attention.head_count_kv", 2);
  w.str("llama.feed_forward_length").u32(10).u64(128);   // UINT64
  w.str("llama.rope.freq_base").u32(6).u32(0x461c4000);  // FLOAT32 10000
  w.str("tokenizer.ggml.tokens").u32(9).u32(8).u64(3).str("a").str("b").str("<s>");
  w.tensor("token_embd.weight", {64, 3}, 1, 0).tensor("blk.0.attn_q.weight", {64, 64}, 2, 384);
  w.tensor("blk.0.ffn_down.weight", {256, 2}, 14, 2688);
  return w.bytes;
}

// Where the data section starts: the header's end padded to `alignment` (gguf.cpp, GGUF_DEFAULT_ALIGNMENT 32).
std::uint64_t data_start(const std::string& header, std::uint64_t alignment = 32) {
  return (header.size() + alignment - 1) / alignment * alignment;
}

TEST(checkpoint, gguf_tensor_infos_and_metadata) {
  const std::string file = llama_gguf();
  const auto r = parse_gguf_header(file, data_start(file) + 3108, "gguf");
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  const auto& g = r.value();
  EXPECT_EQ(g.architecture, "llama");
  EXPECT_EQ(g.tensors.tensors, 3);
  EXPECT_EQ(g.tensors.elements, 4800);
  EXPECT_EQ(g.tensors.bytes, 3108);
  EXPECT_EQ(g.tensors.by_dtype.at("Q4_0").bytes, 2304);
  EXPECT_EQ(g.tensors.by_dtype.at("Q6_K").bytes, 420);
  EXPECT_FALSE(g.tensors.packed);
  EXPECT_EQ(g.fields, (settings{{"hidden_size", "64"},
                                {"num_hidden_layers", "2"},
                                {"num_attention_heads", "4"},
                                {"num_key_value_heads", "2"},
                                {"intermediate_size", "128"},
                                {"vocab_size", "3"},
                                {"model_type", "llama"}}));  // general.architecture "llama"
}

// general.architecture gives config.json's model_type, so the runtimes' per-architecture rules apply to a GGUF run:
// "llama4" is llama4_text, with llama.cpp's fixed chunk of 8192 (llama_load_hparams_llama4) unless
// llama4.attention.sliding_window says 0. A four-block Llama 4 header (one tensor): llama.cpp then caches blocks
// 0-2 as a window of 8192 tokens and block 3 whole.
std::string llama4_gguf(bool no_chunks) {
  gguf_writer w;
  w.head(1, no_chunks ? 8 : 7);
  w.kv_str("general.architecture", "llama4");
  w.kv_u32("llama4.embedding_length", 64).kv_u32("llama4.block_count", 4).kv_u32("llama4.attention.head_count", 4);
  w.kv_u32("llama4.attention.head_count_kv", 2).kv_u32("llama4.feed_forward_length", 128);
  w.kv_u32("llama4.vocab_size", 100);
  if (no_chunks) w.kv_u32("llama4.attention.sliding_window", 0);
  w.tensor("token_embd.weight", {64, 100}, 1, 0);
  return w.bytes;
}

TEST(checkpoint, gguf_architecture_gives_the_model_type) {
  const std::string file = llama4_gguf(false);
  const auto r = parse_gguf_header(file, data_start(file) + 12800, "gguf");
  ASSERT_TRUE(r.ok()) << to_string(r.errors().front());
  EXPECT_EQ(r.value().fields.at("model_type"), "llama4_text");
  EXPECT_EQ(r.value().fields.at("attention_chunk_size"), "8192");
  auto run = resolve({{"mode", "inference"}, {"runtime", "llamacpp"}, {"seq", "16384"}}, r.value().fields);
  ASSERT_TRUE(run.ok()) << to_string(run.errors().front());
  EXPECT_EQ(run.value().values.sliding_window, 8192);
  EXPECT_EQ(run.value().model.layers_of(layer_kind::sliding_attention, 4), 3);
  EXPECT_NE(run.value().values.model_notes.find("llama.cpp caches llama4_text's chunked-attention layers"),
            std::string::npos);
  const std::string plain = llama4_gguf(true);
  const auto off = parse_gguf_header(plain, data_start(plain) + 12800, "gguf");
  ASSERT_TRUE(off.ok()) << to_string(off.errors().front());
  EXPECT_EQ(off.value().fields.count("attention_chunk_size"), 0U);
}

TEST(checkpoint, gguf_errors_are_bounded_and_named) {
  const auto bad = [](const std::string& file, std::string_view text) {
    const auto r = parse_gguf_header(file, file.size(), "gguf");
    if (r.ok()) return false;
    return r.errors().front().setting == "gguf" && r.errors().front().message.find(text) != std::string::npos;
  };
  const std::string good = llama_gguf();
  EXPECT_TRUE(bad("GGML" + good.substr(4), "no GGUF magic"));
  EXPECT_TRUE(bad(gguf_writer().head(0, 0, 1).bytes, "version 1"));
  EXPECT_TRUE(bad(good.substr(0, 40), "ends inside the header"));
  // Cut short of a longer file: the caller is told to read more.
  bool truncated = false;
  EXPECT_FALSE(parse_gguf_header(good.substr(0, 40), good.size(), "gguf", &truncated).ok());
  EXPECT_TRUE(truncated);
  const auto with_tensor = [](std::initializer_list<std::uint64_t> dims, std::uint32_t type, std::uint64_t offset) {
    gguf_writer w;
    w.head(1, 1).kv_str("general.architecture", "llama").tensor("t", dims, type, offset);
    return w.bytes;
  };
  EXPECT_TRUE(bad(with_tensor({32}, 4, 0), "\"t\": unknown or removed ggml type 4"));
  EXPECT_TRUE(bad(with_tensor({32}, 43, 0), "ggml type 43"));
  EXPECT_TRUE(bad(with_tensor({48, 2}, 2, 0), "not whole Q4_0 blocks of 32"));
  EXPECT_TRUE(bad(with_tensor({1, 1, 1, 1, 1}, 0, 0), "5 dimensions"));
  EXPECT_TRUE(bad(with_tensor({8}, 0, 4), "multiple of the alignment"));
  gguf_writer no_arch;
  no_arch.head(0, 1).kv_u32("llama.block_count", 2);
  EXPECT_TRUE(bad(no_arch.bytes, "general.architecture"));
  gguf_writer odd_alignment;
  odd_alignment.head(0, 1).kv_u32("general.alignment", 24);
  EXPECT_TRUE(bad(odd_alignment.bytes, "power of two"));
  gguf_writer huge_string;
  huge_string.head(0, 1).u64(1ull << 40);
  EXPECT_TRUE(bad(huge_string.bytes, "over gguf's 2^30"));
  gguf_writer bad_type;
  bad_type.head(0, 1).str("k").u32(13);
  EXPECT_TRUE(bad(bad_type.bytes, "value type 13"));
}

// ---- GGUF files llama.cpp refuses (ggml/src/gguf.cpp @067d44f6, src/llama-model-loader.cpp @3074b500) ------

// The message of the first error for `file` read as a file of `size` bytes ("" when it is accepted).
std::string gguf_error(const std::string& file, std::uint64_t size) {
  const auto r = parse_gguf_header(file, size, "gguf");
  return r.ok() ? "" : r.errors().front().message;
}

// A llama header with block_count 2 and the given F32 tensors: {name, values, offset}. F32 is 4 bytes a value.
struct f32_tensor {
  std::string_view name;
  std::uint64_t values = 0;
  std::uint64_t offset = 0;
};
std::string llama_with(std::initializer_list<f32_tensor> tensors, bool block_count = true) {
  gguf_writer w;
  w.head(tensors.size(), block_count ? 2 : 1).kv_str("general.architecture", "llama");
  if (block_count) w.kv_u32("llama.block_count", 2);
  for (const auto& t : tensors) w.tensor(t.name, {t.values}, 0, t.offset);
  return w.bytes;
}

TEST(checkpoint, gguf_duplicate_names_are_refused) {
  // Two 8-value F32 tensors of 32 bytes each at 0 and 32: offsets in order, the data inside the file.
  const std::string file = llama_with({{"blk.0.attn_q.weight", 8, 0}, {"blk.0.attn_q.weight", 8, 32}});
  EXPECT_EQ(gguf_error(file, data_start(file) + 64),
            "tensor \"blk.0.attn_q.weight\": duplicate name (llama.cpp refuses the file)");
}

TEST(checkpoint, gguf_block_indices_are_below_block_count) {
  const std::string ok = llama_with({{"blk.0.attn_q.weight", 8, 0}, {"blk.1.attn_q.weight", 8, 32}});
  const auto r = parse_gguf_header(ok, data_start(ok) + 64, "gguf");
  ASSERT_TRUE(r.ok()) << r.errors().front().message;
  EXPECT_EQ(r.value().placement.layers.size(), 2u);
  const std::string stray = llama_with({{"blk.0.attn_q.weight", 8, 0}, {"blk.65535.attn_q.weight", 8, 32}});
  EXPECT_EQ(gguf_error(stray, data_start(stray) + 64),
            "tensor \"blk.65535.attn_q.weight\": block 65535 is not below llama.block_count = 2 (llama.cpp refuses "
            "the file)");
  const std::string none = llama_with({{"blk.0.attn_q.weight", 8, 0}}, false);
  EXPECT_EQ(gguf_error(none, data_start(none) + 32),
            "tensor \"blk.0.attn_q.weight\": a block tensor, but the file has no llama.block_count (llama.cpp "
            "refuses the file)");
  // Other names are not blocks: "blk.x" has no index, "blk.7" no '.' after it.
  const std::string other = llama_with({{"blk.x.weight", 8, 0}, {"blk.7", 8, 32}});
  EXPECT_EQ(gguf_error(other, data_start(other) + 64), "");
}

// Each tensor's data starts where the previous one's ends, padded to the alignment: a 1-value F32 tensor takes 4
// bytes, padded to 32, so the next starts at 32 (64 with general.alignment 64).
TEST(checkpoint, gguf_offsets_follow_each_other) {
  const std::string padded = llama_with({{"a", 1, 0}, {"b", 1, 32}});
  EXPECT_EQ(gguf_error(padded, data_start(padded) + 36), "");
  const std::string overlap = llama_with({{"a", 16, 0}, {"b", 1, 32}});  // a: 64 bytes at 0..64
  EXPECT_EQ(gguf_error(overlap, data_start(overlap) + 68),
            "tensor \"b\": its data starts at byte 32 of the data section, overlapping the previous tensor's; "
            "gguf.cpp expects byte 64 (llama.cpp refuses the file)");
  const std::string gap = llama_with({{"a", 1, 0}, {"b", 1, 64}});
  EXPECT_EQ(gguf_error(gap, data_start(gap) + 68),
            "tensor \"b\": its data starts at byte 64 of the data section, leaving a gap; gguf.cpp expects byte 32 "
            "(llama.cpp refuses the file)");
  const std::string first = llama_with({{"a", 1, 32}});
  EXPECT_NE(gguf_error(first, data_start(first) + 36).find("leaving a gap; gguf.cpp expects byte 0"),
            std::string::npos);
  EXPECT_EQ(gguf_error(llama_with({{"a", 1, 0}, {"b", 1, 4}}), 1000),
            "tensor \"b\": its data offset is not a multiple of the alignment (llama.cpp refuses the file)");
  gguf_writer wide;
  wide.head(2, 2).kv_str("general.architecture", "llama").kv_u32("general.alignment", 64);
  wide.tensor("a", {1}, 0, 0).tensor("b", {1}, 0, 32);
  EXPECT_NE(gguf_error(wide.bytes, 1000).find("not a multiple of the alignment"), std::string::npos);
  gguf_writer wide_ok;
  wide_ok.head(2, 2).kv_str("general.architecture", "llama").kv_u32("general.alignment", 64);
  wide_ok.tensor("a", {1}, 0, 0).tensor("b", {1}, 0, 64);
  EXPECT_EQ(gguf_error(wide_ok.bytes, data_start(wide_ok.bytes, 64) + 68), "");
}

// The data section starts at the header's end padded to 32; the last tensor ends 3,108 bytes into it.
TEST(checkpoint, gguf_data_ends_inside_the_file) {
  const std::string file = llama_gguf();
  EXPECT_EQ(gguf_error(file, data_start(file) + 3108), "");
  EXPECT_EQ(gguf_error(file, data_start(file) + 3107),
            "tensor \"blk.0.ffn_down.weight\": its data runs past the end of the file (" +
                std::to_string(data_start(file) + 3107) + " bytes; the data section starts at byte " +
                std::to_string(data_start(file)) + ") (llama.cpp refuses the file as corrupted or incomplete)");
  // A file that ends inside the padding before the data section.
  EXPECT_NE(gguf_error(file, file.size()).find("past the end of the file"), std::string::npos);
}

TEST(checkpoint, gguf_empty_and_long_names_are_refused) {
  gguf_writer empty;
  empty.head(0, 1).kv_str("general.architecture", "llama");
  EXPECT_EQ(gguf_error(empty.bytes, empty.bytes.size()),
            "lists no tensors (a vocabulary-only file?): it says nothing of the model's size");
  const std::string name63(63, 'n');
  const std::string fits = llama_with({{name63, 1, 0}});
  EXPECT_EQ(gguf_error(fits, data_start(fits) + 4), "");
  const std::string name64(64, 'n');
  EXPECT_NE(gguf_error(llama_with({{name64, 1, 0}}), 1000).find("its name is over ggml's 63 bytes (GGML_MAX_NAME)"),
            std::string::npos);  // the name itself is quoted shortened
}

}  // namespace
