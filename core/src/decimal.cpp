// SPDX-License-Identifier: MIT
#include "decimal.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace llm_memory::detail {
namespace {

// A natural number in base 2^32, least significant limb first, with no zero limb on top: just the operations
// an exact decimal-to-binary conversion needs.
class natural {
 public:
  explicit natural(std::uint32_t v = 0) {
    if (v) limbs_.push_back(v);
  }

  [[nodiscard]] bool zero() const { return limbs_.empty(); }

  /// Number of significant bits.
  [[nodiscard]] long bits() const {
    if (limbs_.empty()) return 0;
    long n = static_cast<long>(limbs_.size() - 1) * 32;
    for (std::uint32_t top = limbs_.back(); top; top >>= 1) ++n;
    return n;
  }

  /// this = this * m + add.
  void multiply_add(std::uint32_t m, std::uint32_t add) {
    std::uint64_t carry = add;
    for (auto& limb : limbs_) {
      const std::uint64_t v = static_cast<std::uint64_t>(limb) * m + carry;
      limb = static_cast<std::uint32_t>(v);
      carry = v >> 32;
    }
    if (carry) limbs_.push_back(static_cast<std::uint32_t>(carry));
  }

  void multiply_pow10(long n) {
    for (; n >= 9; n -= 9) multiply_add(1000000000u, 0);
    static constexpr std::array<std::uint32_t, 9> small = {1,      10,      100,      1000,     10000,
                                                           100000, 1000000, 10000000, 100000000};
    if (n > 0) multiply_add(small[static_cast<std::size_t>(n)], 0);
  }

  void shift_left(long n) {
    if (limbs_.empty() || n <= 0) return;
    const auto words = static_cast<std::size_t>(n / 32);
    const unsigned rest = static_cast<unsigned>(n % 32);
    if (rest) {
      std::uint32_t carry = 0;
      for (auto& limb : limbs_) {
        const std::uint32_t next = limb >> (32 - rest);
        limb = (limb << rest) | carry;
        carry = next;
      }
      if (carry) limbs_.push_back(carry);
    }
    limbs_.insert(limbs_.begin(), words, 0u);
  }

  void shift_right_one() {
    for (std::size_t i = 0; i < limbs_.size(); ++i)
      limbs_[i] = (limbs_[i] >> 1) | (i + 1 < limbs_.size() ? limbs_[i + 1] << 31 : 0u);
    trim();
  }

  [[nodiscard]] int compare(const natural& o) const {
    if (limbs_.size() != o.limbs_.size()) return limbs_.size() < o.limbs_.size() ? -1 : 1;
    for (std::size_t i = limbs_.size(); i-- > 0;)
      if (limbs_[i] != o.limbs_[i]) return limbs_[i] < o.limbs_[i] ? -1 : 1;
    return 0;
  }

  /// this -= o, where o <= this.
  void subtract(const natural& o) {
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      std::int64_t v = static_cast<std::int64_t>(limbs_[i]) - borrow - (i < o.limbs_.size() ? o.limbs_[i] : 0);
      borrow = v < 0;
      limbs_[i] = static_cast<std::uint32_t>(v + (borrow << 32));
    }
    trim();
  }

 private:
  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<std::uint32_t> limbs_;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// digits x 10^exp10 (digits without leading zeros, not all zero), rounded to nearest, ties to even.
double exact(std::string_view digits, long exp10) {
  const auto n = static_cast<long>(digits.size());
  if (n + exp10 > 310) return HUGE_VAL;  // >= 10^310
  if (n + exp10 < -324) return 0.0;      // < 10^-325, under half the smallest subnormal

  // Exact operands and one correctly rounded operation (powers of ten up to 10^22 are exact doubles).
  static constexpr std::array<double, 23> pow10 = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (n <= 15 && exp10 >= -22 && exp10 <= 22) {
    std::int64_t m = 0;
    for (char c : digits) m = m * 10 + (c - '0');
    const auto d = static_cast<double>(m);
    return exp10 >= 0 ? d * pow10[static_cast<std::size_t>(exp10)] : d / pow10[static_cast<std::size_t>(-exp10)];
  }

  // value = num / den exactly; q = floor(num * 2^s / den) with 2^53 <= q < 2^55, the rest only as a sticky bit.
  natural num, den(1);
  for (char c : digits) num.multiply_add(10, static_cast<std::uint32_t>(c - '0'));
  if (exp10 > 0)
    num.multiply_pow10(exp10);
  else
    den.multiply_pow10(-exp10);
  long s = 54 - num.bits() + den.bits();
  if (s >= 0)
    num.shift_left(s);
  else
    den.shift_left(-s);
  den.shift_left(54);
  std::uint64_t q = 0;
  for (int bit = 54; bit >= 0; --bit) {
    if (num.compare(den) >= 0) {
      num.subtract(den);
      q |= std::uint64_t{1} << bit;
    }
    den.shift_right_one();
  }
  bool sticky = !num.zero();
  while (q >> 54) {
    sticky = sticky || (q & 1);
    q >>= 1;
    --s;
  }
  // value = q * 2^-s, q has 54 bits: 53 for the significand and one to round with, fewer below the normal range.
  long e = 1 - s;
  int drop = 1;
  if (e < -1074) {
    drop = static_cast<int>(std::min<long>(60, 1 - 1074 - e));
    e = -1074;
  }
  const std::uint64_t round = (q >> (drop - 1)) & 1;
  sticky = sticky || (q & ((std::uint64_t{1} << (drop - 1)) - 1)) != 0;
  std::uint64_t m = q >> drop;
  if (round && (sticky || (m & 1))) ++m;
  return std::ldexp(static_cast<double>(m), static_cast<int>(e));
}

}  // namespace

std::size_t read_double(std::string_view text, double& out) {
  out = 0;
  std::size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  // Significant digits (leading zeros skipped) and the power of ten of the last one kept.
  constexpr long max_digits = 780;  // more never changes the rounding, as long as a cut nonzero tail is kept
  std::string digits;
  long exp10 = 0;
  bool any_digit = false;
  bool cut_nonzero = false;
  for (bool fraction = false;; ++i) {
    if (i < text.size() && text[i] == '.' && !fraction) {
      fraction = true;
      continue;
    }
    if (i >= text.size() || !is_digit(text[i])) break;
    any_digit = true;
    if (fraction) --exp10;
    if (digits.empty() && text[i] == '0') continue;
    if (static_cast<long>(digits.size()) < max_digits) {
      digits += text[i];
    } else {
      ++exp10;
      cut_nonzero = cut_nonzero || text[i] != '0';
    }
  }
  if (!any_digit) return 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    const bool minus = j < text.size() && text[j] == '-';
    if (j < text.size() && (text[j] == '-' || text[j] == '+')) ++j;
    if (j < text.size() && is_digit(text[j])) {
      long e = 0;
      for (; j < text.size() && is_digit(text[j]); ++j) e = std::min(e * 10 + (text[j] - '0'), 100000L);
      exp10 += minus ? -e : e;
      i = j;
    }
  }
  if (cut_nonzero) {
    digits += '1';  // strictly between the cut value and the next one: keeps the rounding direction
    --exp10;
  }
  const double magnitude = digits.empty() ? 0.0 : exact(digits, exp10);
  out = negative ? -magnitude : magnitude;
  return i;
}

}  // namespace llm_memory::detail
