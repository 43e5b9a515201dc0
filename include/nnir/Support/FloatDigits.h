//===- FloatDigits.h - Decimal digits of binary floats ----------*- C++ -*-===//
//
/// \file
/// generateFloatDigits() gives the decimal digits of a binary floating-point
/// value the way Dragon4 (Steele & White's free-format algorithm, with
/// Burger & Dybvig's exponent estimate) gives them in NumPy's printing: the
/// shortest digits that tell the value apart from its neighbours in its
/// format (a neighbour's rounding boundary counts as the value's own when
/// the significand is even, as IEEE round-half-even reads decimal text), at
/// most and at least a given number of digits. Where the digits are cut or
/// extended past the shortest, the last one is rounded from the exact value,
/// half to even. Printers that promise NumPy's layout build on it; the
/// ordinary text of numbers is nnir/Support/Numbers.h's.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_FLOATDIGITS_H
#define NNIR_SUPPORT_FLOATDIGITS_H

#include <cstdint>
#include <string>

namespace llvm {
struct fltSemantics;
} // namespace llvm

namespace nnir {

/// What digit counts are counted from.
enum class DigitCount {
  /// From the first (most significant) digit: significant digits.
  Significant,
  /// From the decimal point: fractional digits.
  Fractional,
};

struct FloatDigits {
  /// The digits, without leading zeros: "15" for 1.5, 0.15 and 150; "0" for
  /// zero.
  std::string digits;
  /// The power of ten of the first digit: 0 for 1.5, -1 for 0.15.
  int exponent = 0;
};

/// The digits of the finite value with bit pattern \p bits in \p sem (its
/// sign is ignored): the shortest unique digits, cut after \p maxDigits and
/// continued to at least \p minDigits, both counted as \p count says (a
/// negative count: no limit).
FloatDigits generateFloatDigits(const llvm::fltSemantics &sem, uint64_t bits,
                                int maxDigits = -1, int minDigits = -1,
                                DigitCount count = DigitCount::Significant);

} // namespace nnir

#endif // NNIR_SUPPORT_FLOATDIGITS_H
