// SPDX-License-Identifier: MIT
// The core's JSON value, reader and writer (private to the sources that read or write JSON). Written for the
// few shapes the core reads and writes, in place of nlohmann-json, whose parser, builders and serialiser were
// 35 KB of the wasm module's code (docs/performance.md); the interface is the subset of nlohmann's the core
// used, and the text it writes is nlohmann's byte for byte (its number formatting is kept: to_chars).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace llm_memory::detail {

class json {
 public:
  enum class value_t : std::uint8_t {
    null,
    object,
    array,
    string,
    boolean,
    number_integer,
    number_unsigned,
    number_float,
    discarded
  };
  /// Members in insertion order (the reports' key order); a key appears once.
  using object_t = std::vector<std::pair<std::string, json>>;
  using array_t = std::vector<json>;

  /// Walks an array's elements or an object's values (`key()` names the member); nothing for other values.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = json;
    using difference_type = std::ptrdiff_t;
    using pointer = const json*;
    using reference = const json&;

    const_iterator(const json* owner, std::size_t index) : owner_(owner), index_(index) {}
    [[nodiscard]] const json& operator*() const { return value(); }
    [[nodiscard]] const json* operator->() const { return &value(); }
    [[nodiscard]] const json& value() const {
      const auto* object = std::get_if<object_t>(&owner_->value_);
      return object != nullptr ? (*object)[index_].second : std::get<array_t>(owner_->value_)[index_];
    }
    [[nodiscard]] const std::string& key() const { return std::get<object_t>(owner_->value_)[index_].first; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    [[nodiscard]] bool operator==(const const_iterator& other) const { return index_ == other.index_; }
    [[nodiscard]] bool operator!=(const const_iterator& other) const { return index_ != other.index_; }

   private:
    const json* owner_;
    std::size_t index_;
  };

  json() = default;
  // Out of line: inlined at every temporary of the reports, they grew the module by kilobytes.
  json(const json& other);
  json(json&& other) noexcept;
  json& operator=(const json& other);
  json& operator=(json&& other) noexcept;
  ~json();
  json(std::nullptr_t) {}
  json(value_t type);
  json(bool value) : value_(value) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  json(T value) {
    if constexpr (std::is_signed_v<T>) {
      value_.emplace<std::int64_t>(value);
    } else {
      value_.emplace<std::uint64_t>(value);
    }
  }
  json(double value) : value_(value) {}
  json(const char* text) : value_(std::string(text)) {}
  json(std::string text) : value_(std::move(text)) {}
  json(std::string_view text) : value_(std::string(text)) {}
  template <class T>
  json(const std::vector<T>& items) : value_(array_t(items.begin(), items.end())) {}
  /// As nlohmann: an object when every item is a two-element array whose first element is a string
  /// ({{"key", value}, ...}), else an array.
  json(std::initializer_list<json> items);

  [[nodiscard]] static json object() { return json(value_t::object); }
  [[nodiscard]] static json array(std::initializer_list<json> items = {});

  [[nodiscard]] value_t type() const { return static_cast<value_t>(value_.index()); }
  [[nodiscard]] bool is_null() const { return type() == value_t::null; }
  [[nodiscard]] bool is_object() const { return type() == value_t::object; }
  [[nodiscard]] bool is_array() const { return type() == value_t::array; }
  [[nodiscard]] bool is_string() const { return type() == value_t::string; }
  [[nodiscard]] bool is_boolean() const { return type() == value_t::boolean; }
  [[nodiscard]] bool is_discarded() const { return type() == value_t::discarded; }
  [[nodiscard]] bool is_number_integer() const {
    return type() == value_t::number_integer || type() == value_t::number_unsigned;
  }
  [[nodiscard]] bool is_number_unsigned() const { return type() == value_t::number_unsigned; }
  [[nodiscard]] bool is_number_float() const { return type() == value_t::number_float; }
  [[nodiscard]] bool is_number() const { return is_number_integer() || is_number_float(); }

  /// The value as T: a number as any arithmetic type, a string, a boolean; T's zero value for another type.
  template <class T>
  [[nodiscard]] T get() const {
    if constexpr (std::is_same_v<T, std::string>) {
      const auto* s = std::get_if<std::string>(&value_);
      return s != nullptr ? *s : std::string();
    } else if constexpr (std::is_same_v<T, bool>) {
      const auto* b = std::get_if<bool>(&value_);
      return b != nullptr && *b;
    } else {
      if (const auto* f = std::get_if<double>(&value_)) return static_cast<T>(*f);
      if (const auto* u = std::get_if<std::uint64_t>(&value_)) return static_cast<T>(*u);
      if (const auto* i = std::get_if<std::int64_t>(&value_)) return static_cast<T>(*i);
      return T{};
    }
  }
  /// An object's members (none for another value); the mutable one makes a null value an empty object first.
  [[nodiscard]] const object_t& members() const;
  [[nodiscard]] object_t& members();

  /// The member `key` of an object, appended (null) when missing; a null value becomes an empty object first.
  json& operator[](std::string_view key);
  /// The member `key`, or a null value when it is missing or this is not an object.
  [[nodiscard]] const json& operator[](std::string_view key) const;
  /// An array's element `index` (the caller checked the size).
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  [[nodiscard]] json& operator[](T index) {
    return std::get<array_t>(value_)[static_cast<std::size_t>(index)];
  }
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  [[nodiscard]] const json& operator[](T index) const {
    return std::get<array_t>(value_)[static_cast<std::size_t>(index)];
  }

  [[nodiscard]] const_iterator find(std::string_view key) const;
  [[nodiscard]] bool contains(std::string_view key) const { return find(key) != end(); }
  [[nodiscard]] const_iterator begin() const { return {this, 0}; }
  [[nodiscard]] const_iterator end() const { return {this, size()}; }
  /// Elements of an array, members of an object, 0 for anything else.
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] bool empty() const { return size() == 0; }

  /// Appends to an array; a null value becomes an empty array first.
  void push_back(json value);

  /// The text, as nlohmann's dump(indent, ' ', false, replace) writes it: `indent` < 0 gives one line;
  /// ill-formed UTF-8 in strings becomes U+FFFD.
  [[nodiscard]] std::string dump(int indent = -1) const;

  /// Equal as nlohmann compares: numbers by value across integer and float, containers element by element.
  friend bool operator==(const json& a, const json& b);
  [[nodiscard]] friend bool operator!=(const json& a, const json& b) { return !(a == b); }

 private:
  friend class json_writer;
  /// Marks a value that failed to parse.
  struct discarded_t {};

  /// One alternative per value_t, in its order (type() is the index): a value holds only its own kind, 40 bytes
  /// natively and 24 in wasm where the old one held every kind at once (~110 bytes; issue 37).
  std::variant<std::nullptr_t, object_t, array_t, std::string, bool, std::int64_t, std::uint64_t, double, discarded_t>
      value_;
};

/// Bounds on a document's width (its depth is bounded too, at 512), so a wide input is refused as it is read
/// rather than held: a value takes 40 bytes natively, 24 in wasm, before its text and its container's slack.
struct json_limits {
  /// Most elements in one array [values].
  std::size_t array_values = std::size_t{1} << 20;
  /// Most members in one object [members].
  std::size_t object_members = std::size_t{1} << 20;
  /// Most values in the whole document [values]: containers, elements and members alike.
  std::size_t values = std::size_t{1} << 22;
};

/// `text` parsed as strict JSON (RFC 8259; a leading UTF-8 byte-order mark skipped, duplicate keys keeping the
/// first one's place and the last one's value, as nlohmann reads them), or a discarded value when it is not JSON
/// or passes `limits`; then `why`, when given, says where and why ("syntax error at line 3, column 1 (byte 40):
/// ..." or "too wide at line 1, column 9 (byte 8): an array of more than 1048576 values").
[[nodiscard]] json parse_json(std::string_view text, std::string* why = nullptr, const json_limits& limits = {});

/// Why stream_json_members stopped short.
struct json_stream_error {
  /// parse_json's `why`.
  std::string why;
  /// The key whose value was being read; empty when the error is outside any member's value.
  std::string member;
  /// Whether a json_limits bound stopped the read (else the text is not JSON).
  bool over_limit = false;
};

/// Reads `text`, one JSON object, a member at a time, never building the object: each key and its value (parsed
/// within `limits`; `limits.values` counts per member) goes to `take` in the text's order, duplicates included;
/// `take` returns false to stop there (no error: the caller knows why). A checkpoint header's millions of members
/// are judged one by one this way (checkpoint.cpp).
[[nodiscard]] std::optional<json_stream_error> stream_json_members(
    std::string_view text, const json_limits& limits, const std::function<bool(std::string&&, json&&)>& take);

/// A JSON object holding `values`' members in their order (the keys of a std::map are unique).
template <class Map>
[[nodiscard]] json object_of(const Map& values) {
  json out = json::object();
  auto& members = out.members();
  members.reserve(values.size());
  for (const auto& [key, value] : values) members.emplace_back(key, value);
  return out;
}

/// The members of a JSON object (the caller checked is_object) in key order, as std::map held them: the
/// readers that stop at the first bad member or list members keep the order they always had.
[[nodiscard]] std::vector<const json::object_t::value_type*> sorted_members(const json& object);

}  // namespace llm_memory::detail
