// SPDX-License-Identifier: MIT
// safetensors headers (huggingface/safetensors README "Format", tensor.rs @24b0b285): small hand-made headers,
// each expectation derived from the layout: bytes = elements x the dtype's bits / 8, the buffer covered exactly.
#include "llm_memory/checkpoint.hpp"

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
  EXPECT_TRUE(c.elements_are_params());
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
  EXPECT_FALSE(r.value().elements_are_params());
  // 3 F4 values are 12 bits: not whole bytes (tensor.rs MisalignedSlice).
  EXPECT_TRUE(has_error(parse_safetensors_header(R"({"f": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}})", 2,
                                                 "safetensors"),
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
  EXPECT_TRUE(has_error(safetensors_header_length(length_bytes(max_safetensors_header_bytes + 1), 1000000000, "safetensors"),
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
                      "b": {"dtype": "F16", "shape": [1], "data_offsets": [2, 4]}})", 4, "overlaps"));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}})", 3, "holds 3"));
  EXPECT_TRUE(bad(R"({"__metadata__": {"format": 1}})", 0, "__metadata__"));
  EXPECT_TRUE(bad(" {}", 0, "starting with '{'"));
  EXPECT_TRUE(bad("{\"w\": ", 0, "not a valid JSON"));
  EXPECT_TRUE(bad(R"({"w": {"dtype": "F16", "shape": [[[[1]]]], "data_offsets": [0, 2]}})", 2, "nests deeper"));
  // An empty checkpoint is valid: no tensors, no buffer.
  EXPECT_EQ(parse_safetensors_header("{}", 0, "safetensors").value().tensors, 0);
}

TEST(checkpoint, index_names_shards_beside_it) {
  const auto r = parse_safetensors_index(R"({"metadata": {"total_size": 10}, "weight_map": {
      "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors",
      "c": "model-00001-of-00002.safetensors"}})", "safetensors");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), (std::vector<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"weight_map": {"a": "../secret.safetensors"}})", "safetensors"),
                        "file name beside the index"));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"weight_map": {"a": "/etc/passwd"}})", "safetensors"), "beside"));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"weight_map": {"a": ".."}})", "safetensors"), "beside"));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"weight_map": {"a": 3}})", "safetensors"), "not a file name"));
  EXPECT_TRUE(has_error(parse_safetensors_index(R"({"metadata": {}})", "safetensors"), "weight_map"));
  EXPECT_TRUE(has_error(parse_safetensors_index("[", "safetensors"), "valid JSON"));
}

}  // namespace
