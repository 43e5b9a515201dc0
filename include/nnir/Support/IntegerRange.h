//===- IntegerRange.h - The integers a setting accepts ----------*- C++ -*-===//
//
/// \file
/// IntegerRange is the inclusive range of integers a numeric setting accepts
/// (a command-line option of the tools, a pass config entry), with the one
/// way to state it ("0 to 3", "1 to 2^63-1") and to check a value or read a
/// text against it, so that every such setting refuses what is out of range
/// with the same words, saying the range.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_INTEGERRANGE_H
#define NNIR_SUPPORT_INTEGERRANGE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace nnir {

/// \p value as a range bound: decimal, except the ends of the 32- and 64-bit
/// integer types, which read better as powers of two ("2^63-1", "-2^31").
std::string formatIntegerBound(int64_t value);
std::string formatIntegerBound(uint64_t value);

template <typename T> class IntegerRange {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>,
                "IntegerRange holds integers");

public:
  constexpr IntegerRange(T min, T max) : min(min), max(max) {}
  /// Every value of T.
  static constexpr IntegerRange all() {
    return {std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
  }

  T getMin() const { return min; }
  T getMax() const { return max; }
  bool contains(T value) const { return min <= value && value <= max; }

  /// "0 to 3", "-1 to 3", "1 to 2^63-1".
  std::string str() const { return bound(min) + " to " + bound(max); }

  /// "expected an integer from 0 to 3, got '7'": what a setting says of a
  /// value (or text) \p got that is out of range or not an integer.
  std::string describeMismatch(const llvm::Twine &got) const {
    return "expected an integer from " + str() + ", got '" + got.str() + "'";
  }

  /// Reads \p text as an integer in the range. Like llvm::cl, a `0x` prefix
  /// means hexadecimal and a leading `0` octal. Text that is no integer, or
  /// one outside the range (or beyond T, or negative for an unsigned T), is
  /// an error saying the range.
  llvm::Expected<T> parse(llvm::StringRef text) const {
    if constexpr (std::is_signed_v<T>) {
      long long value;
      if (!text.getAsInteger(0, value) && min <= value && value <= max)
        return static_cast<T>(value);
    } else {
      unsigned long long value;
      if (!text.getAsInteger(0, value) && min <= value && value <= max)
        return static_cast<T>(value);
    }
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   describeMismatch(text));
  }

private:
  static std::string bound(T value) {
    if constexpr (std::is_signed_v<T>)
      return formatIntegerBound(static_cast<int64_t>(value));
    else
      return formatIntegerBound(static_cast<uint64_t>(value));
  }

  T min, max;
};

} // namespace nnir

#endif // NNIR_SUPPORT_INTEGERRANGE_H
