// SPDX-License-Identifier: MIT
// Errors as values: the core never throws and never aborts.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llm_memory {

/// One problem with the input, always naming the setting it concerns.
struct error {
  std::string setting;  ///< settings key (or "config.json", "url") the problem is about
  std::string message;  ///< what is wrong and what is accepted, e.g. `must be an integer >= 1, got "0"`
};

/// "batch: must be an integer >= 1, got "0"" — the one-line form shown by the CLI and the page. Control
/// characters and bytes that are not UTF-8 (from a key or a file name) come out as `\xNN`, so the line is
/// one line and cannot drive a terminal (core/src/text.cpp escape_controls).
[[nodiscard]] std::string to_string(const error& e);

/// Either a value or a non-empty list of errors.
template <class T>
class result {
 public:
  // Two overloads, not one by value: a value moved in is moved once (into the optional), not twice.
  result(T&& value) : value_(std::move(value)) {}                    // NOLINT: implicit by design
  result(const T& value) : value_(value) {}                          // NOLINT
  result(error e) : errors_{std::move(e)} {}                         // NOLINT
  result(std::vector<error> errors) : errors_(std::move(errors)) {}  // NOLINT

  [[nodiscard]] bool ok() const { return value_.has_value(); }
  [[nodiscard]] const T& value() const& { return *value_; }
  [[nodiscard]] T& value() & { return *value_; }
  [[nodiscard]] T&& value() && { return std::move(*value_); }
  [[nodiscard]] const std::vector<error>& errors() const { return errors_; }

 private:
  std::optional<T> value_;
  std::vector<error> errors_;
};

}  // namespace llm_memory
