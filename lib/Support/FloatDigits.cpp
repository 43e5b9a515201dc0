//===- FloatDigits.cpp - Decimal digits of binary floats ------------------===//
//
/// \file
/// Dragon4 in exact integer arithmetic (llvm::APInt): the value and the
/// half-distances to its neighbours are scaled to integers over a common
/// denominator, and each step divides out one decimal digit until the
/// remainder lies within a margin (the digits so far then identify the
/// value) or a digit limit is reached; the last digit is then rounded.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/FloatDigits.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
using namespace nnir;

namespace {
/// A finite, non-zero magnitude as significand * 2^exponent.
struct Decomposed {
  uint64_t significand;
  int exponent;
  /// Index of the highest set bit of the significand.
  unsigned topBit;
  /// The gap to the next smaller value is half the gap to the next larger
  /// one (the significand is a power of two above the smallest normal).
  bool unequalGaps;
};
} // namespace

static Decomposed decompose(const fltSemantics &sem, uint64_t magnitude) {
  unsigned fractionBits = APFloat::semanticsPrecision(sem) - 1;
  int bias = APFloat::semanticsMaxExponent(sem);
  uint64_t fraction = magnitude & ((uint64_t(1) << fractionBits) - 1);
  uint64_t biased = magnitude >> fractionBits;
  Decomposed d;
  if (biased != 0) {
    d.significand = fraction | (uint64_t(1) << fractionBits);
    d.exponent = int(biased) - bias - int(fractionBits);
    d.topBit = fractionBits;
    d.unequalGaps = biased != 1 && fraction == 0;
  } else {
    d.significand = fraction;
    d.exponent = 1 - bias - int(fractionBits);
    d.topBit = 63 - __builtin_clzll(fraction);
    d.unequalGaps = false;
  }
  return d;
}

FloatDigits nnir::generateFloatDigits(const fltSemantics &sem, uint64_t bits,
                                      int maxDigits, int minDigits,
                                      DigitCount count) {
  unsigned size = APFloat::semanticsSizeInBits(sem);
  uint64_t magnitude = bits & ((uint64_t(1) << (size - 1)) - 1);
  FloatDigits result;
  if (magnitude == 0) {
    result.digits = "0";
    return result;
  }
  Decomposed d = decompose(sem, magnitude);

  // Room for the value times the largest power of ten it is scaled by, and
  // for the margins grown by a digit per step.
  unsigned width = 2 * (APFloat::semanticsMaxExponent(sem) -
                        APFloat::semanticsMinExponent(sem) +
                        APFloat::semanticsPrecision(sem)) +
                   512;
  width = (width + 63) / 64 * 64;
  auto pow2 = [&](int n) { return APInt::getOneBitSet(width, n); };
  auto pow10 = [&](int n) {
    APInt p(width, 1);
    APInt ten(width, 10);
    for (int i = 0; i < n; ++i)
      p *= ten;
    return p;
  };

  // value = num / den; lowGap = half the distance to the next smaller value
  // over den, highGap the same upwards. With unequal gaps everything is
  // doubled once more so that the low gap stays an integer.
  int extra = d.unequalGaps ? 1 : 0;
  APInt num(width, d.significand), den(width, 0), lowGap(width, 0);
  if (d.exponent > 0) {
    num <<= d.exponent + 1 + extra;
    den = APInt(width, 2u << extra);
    lowGap = pow2(d.exponent);
  } else {
    num <<= 1 + extra;
    den = pow2(1 + extra - d.exponent);
    lowGap = APInt(width, 1);
  }
  auto highGap = [&] { return d.unequalGaps ? lowGap.shl(1) : lowGap; };

  // The power of ten just above the value, estimated from the binary
  // exponent (exact or one too small), and pulled up to the first digit a
  // fractional limit lets through.
  int power = int(std::ceil(double(int(d.topBit) + d.exponent) *
                                0.30102999566398119521373889472449 -
                            0.69));
  if (maxDigits >= 0 && count == DigitCount::Fractional && power <= -maxDigits)
    power = -maxDigits + 1;
  if (power > 0) {
    den *= pow10(power);
  } else if (power < 0) {
    APInt scale = pow10(-power);
    num *= scale;
    lowGap *= scale;
  }
  APInt ten(width, 10);
  if (num.uge(den)) {
    ++power;
  } else {
    num *= ten;
    lowGap *= ten;
  }

  // The power of ten of the last digit allowed, and of the last one
  // required.
  int lastAllowed = INT32_MIN;
  if (maxDigits >= 0)
    lastAllowed =
        count == DigitCount::Significant ? power - maxDigits : -maxDigits;
  int lastRequired = power;
  if (minDigits >= 0)
    lastRequired = std::min(lastRequired, count == DigitCount::Significant
                                              ? power - minDigits
                                              : -minDigits);
  result.exponent = power - 1;

  bool even = (d.significand & 1) == 0;
  unsigned digit = 0;
  bool low = false, high = false;
  while (true) {
    --power;
    // num / den < 10: the digit is the quotient.
    APInt quotient = num.udiv(den);
    digit = unsigned(quotient.getZExtValue());
    num -= quotient * den;
    // Within the low gap, the digits so far round down to the value; within
    // the high gap, rounding up does.
    low = even ? num.ule(lowGap) : num.ult(lowGap);
    APInt up = num + highGap();
    high = even ? up.uge(den) : up.ugt(den);
    if (((low || high) && power <= lastRequired) || power == lastAllowed)
      break;
    result.digits += char('0' + digit);
    num *= ten;
    lowGap *= ten;
  }

  // Round the last digit: down when only that identifies the value, else to
  // the nearer one, ties to an even digit.
  bool roundDown = low;
  if (low == high) {
    APInt twice = num.shl(1);
    roundDown = twice.ult(den) || (twice == den && digit % 2 == 0);
  }
  if (roundDown || digit < 9) {
    result.digits += char('0' + digit + (roundDown ? 0 : 1));
    return result;
  }
  // Round 9 up: carry into the digits before it.
  while (!result.digits.empty() && result.digits.back() == '9')
    result.digits.pop_back();
  if (result.digits.empty()) {
    result.digits = "1";
    ++result.exponent;
  } else {
    ++result.digits.back();
  }
  return result;
}
