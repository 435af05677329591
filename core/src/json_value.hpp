// SPDX-License-Identifier: MIT
// The core's JSON value, reader and writer (private to the sources that read or write JSON). Written for the
// few shapes the core reads and writes, in place of nlohmann-json, whose parser, builders and serialiser were
// 35 KB of the wasm module's code (docs/performance.md); the interface is the subset of nlohmann's the core
// used, and the text it writes is nlohmann's byte for byte (its number formatting is kept: to_chars).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
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
      return owner_->type_ == value_t::object ? owner_->object_[index_].second : owner_->array_[index_];
    }
    [[nodiscard]] const std::string& key() const { return owner_->object_[index_].first; }
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
  json(value_t type) : type_(type) {}
  json(bool value) : type_(value_t::boolean), bool_(value) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  json(T value)
      : type_(std::is_signed_v<T> ? value_t::number_integer : value_t::number_unsigned),
        int_(static_cast<std::int64_t>(value)),
        uint_(static_cast<std::uint64_t>(value)) {}
  json(double value) : type_(value_t::number_float), float_(value) {}
  json(const char* text) : type_(value_t::string), string_(text) {}
  json(std::string text) : type_(value_t::string), string_(std::move(text)) {}
  json(std::string_view text) : type_(value_t::string), string_(text) {}
  template <class T>
  json(const std::vector<T>& items) : type_(value_t::array), array_(items.begin(), items.end()) {}
  /// As nlohmann: an object when every item is a two-element array whose first element is a string
  /// ({{"key", value}, ...}), else an array.
  json(std::initializer_list<json> items);

  [[nodiscard]] static json object() { return json(value_t::object); }
  [[nodiscard]] static json array(std::initializer_list<json> items = {});

  [[nodiscard]] value_t type() const { return type_; }
  [[nodiscard]] bool is_null() const { return type_ == value_t::null; }
  [[nodiscard]] bool is_object() const { return type_ == value_t::object; }
  [[nodiscard]] bool is_array() const { return type_ == value_t::array; }
  [[nodiscard]] bool is_string() const { return type_ == value_t::string; }
  [[nodiscard]] bool is_boolean() const { return type_ == value_t::boolean; }
  [[nodiscard]] bool is_discarded() const { return type_ == value_t::discarded; }
  [[nodiscard]] bool is_number_integer() const {
    return type_ == value_t::number_integer || type_ == value_t::number_unsigned;
  }
  [[nodiscard]] bool is_number_unsigned() const { return type_ == value_t::number_unsigned; }
  [[nodiscard]] bool is_number_float() const { return type_ == value_t::number_float; }
  [[nodiscard]] bool is_number() const { return is_number_integer() || is_number_float(); }

  /// The value as T: a number as any arithmetic type, a string, a boolean; T's zero value for another type.
  template <class T>
  [[nodiscard]] T get() const {
    if constexpr (std::is_same_v<T, std::string>) {
      return string_;
    } else if constexpr (std::is_same_v<T, bool>) {
      return bool_;
    } else {
      if (type_ == value_t::number_float) return static_cast<T>(float_);
      if (type_ == value_t::number_unsigned) return static_cast<T>(uint_);
      return static_cast<T>(int_);
    }
  }
  [[nodiscard]] const object_t& members() const { return object_; }
  [[nodiscard]] object_t& members() { return object_; }

  /// The member `key` of an object, appended (null) when missing; a null value becomes an empty object first.
  json& operator[](std::string_view key);
  /// The member `key`, or a null value when it is missing or this is not an object.
  [[nodiscard]] const json& operator[](std::string_view key) const;
  /// An array's element `index` (the caller checked the size).
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  [[nodiscard]] json& operator[](T index) {
    return array_[static_cast<std::size_t>(index)];
  }
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  [[nodiscard]] const json& operator[](T index) const {
    return array_[static_cast<std::size_t>(index)];
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

  value_t type_ = value_t::null;
  bool bool_ = false;
  std::int64_t int_ = 0;
  std::uint64_t uint_ = 0;
  double float_ = 0;
  std::string string_;
  array_t array_;
  object_t object_;
};

/// `text` parsed as strict JSON (RFC 8259; a leading UTF-8 byte-order mark skipped, duplicate keys keeping the
/// first one's place and the last one's value, as nlohmann reads them), or a discarded value when it is not JSON;
/// then `why`, when given, says where and why ("syntax error at line 3, column 1 (byte 40): ...").
[[nodiscard]] json parse_json(std::string_view text, std::string* why = nullptr);

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
