//===- Numbers.cpp - Locale-independent number text -----------------------===//
//
/// \file
/// Shortest round-trip formatting with std::to_chars and correctly rounded
/// reading with std::from_chars, falling back to llvm::APFloat for float16,
/// bfloat16 and the out-of-range cases from_chars does not classify
/// (underflow is not an error here; overflow is).
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Numbers.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

using namespace llvm;
using namespace nnir;

uint64_t nnir::getDoubleBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

double nnir::getDoubleFromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

namespace {
/// The bit fields of an IEEE-style binary format.
struct Format {
  unsigned size;
  unsigned mantBits;
  uint64_t signMask;
  uint64_t expMask;
  uint64_t mantMask;

  explicit Format(const fltSemantics &sem) {
    size = APFloat::semanticsSizeInBits(sem);
    mantBits = APFloat::semanticsPrecision(sem) - 1;
    signMask = uint64_t(1) << (size - 1);
    mantMask = (uint64_t(1) << mantBits) - 1;
    expMask = (signMask - 1) & ~mantMask;
  }
  bool isNaN(uint64_t bits) const {
    return (bits & expMask) == expMask && (bits & mantMask) != 0;
  }
  bool isInf(uint64_t bits) const {
    return (bits & expMask) == expMask && (bits & mantMask) == 0;
  }
  uint64_t quietBit() const { return uint64_t(1) << (mantBits - 1); }
};
} // namespace

static bool isDouble(const fltSemantics &sem) {
  return &sem == &APFloat::IEEEdouble();
}
static bool isSingle(const fltSemantics &sem) {
  return &sem == &APFloat::IEEEsingle();
}

double nnir::widenToDouble(const fltSemantics &sem, uint64_t bits) {
  if (isDouble(sem))
    return getDoubleFromBits(bits);
  Format f(sem);
  if (f.isNaN(bits)) {
    uint64_t sign = (bits & f.signMask) ? uint64_t(1) << 63 : 0;
    uint64_t mant = (bits & f.mantMask) << (52 - f.mantBits);
    return getDoubleFromBits(sign | 0x7FF0000000000000ULL | mant);
  }
  APFloat value(sem, APInt(f.size, bits));
  bool losesInfo;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

std::optional<uint64_t> nnir::narrowFromDouble(double value,
                                               const fltSemantics &sem) {
  uint64_t bits = getDoubleBits(value);
  if (isDouble(sem))
    return bits;
  Format f(sem);
  if (std::isnan(value)) {
    unsigned shift = 52 - f.mantBits;
    uint64_t mant = bits & 0x000FFFFFFFFFFFFFULL;
    if (mant & ((uint64_t(1) << shift) - 1))
      return std::nullopt;
    uint64_t sign = (bits >> 63) ? f.signMask : 0;
    return sign | f.expMask | (mant >> shift);
  }
  APFloat narrow(value);
  bool losesInfo = false;
  APFloat::opStatus status =
      narrow.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
  if (losesInfo || status != APFloat::opOK)
    return std::nullopt;
  return narrow.bitcastToAPInt().getZExtValue();
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// True for `digits[.digits][(e|E)[+|-]digits]` with at least one digit
/// before the exponent (`1`, `1.`, `.5`, `1e5`).
static bool isDecimalText(StringRef text) {
  size_t i = 0, n = text.size();
  size_t digits = 0;
  while (i < n && isDigit(text[i]))
    ++i, ++digits;
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && isDigit(text[i]))
      ++i, ++digits;
  }
  if (digits == 0)
    return false;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-'))
      ++i;
    size_t expStart = i;
    while (i < n && isDigit(text[i]))
      ++i;
    if (i == expStart)
      return false;
  }
  return i == n;
}

/// Correctly rounded decimal reading with APFloat (any format, any range).
static FloatParseStatus
parseWithAPFloat(StringRef text, const fltSemantics &sem, uint64_t &bits) {
  APFloat value(sem);
  Expected<APFloat::opStatus> status =
      value.convertFromString(text, APFloat::rmNearestTiesToEven);
  if (!status) {
    consumeError(status.takeError());
    return FloatParseStatus::Invalid;
  }
  if (*status & APFloat::opOverflow)
    return FloatParseStatus::Overflow;
  bits = value.bitcastToAPInt().getZExtValue();
  return FloatParseStatus::Ok;
}

FloatParseStatus nnir::parseFloatBits(StringRef text, const fltSemantics &sem,
                                      uint64_t &bits) {
  Format f(sem);
  bool negative = text.consume_front("-");
  uint64_t sign = negative ? f.signMask : 0;
  if (text == "inf") {
    bits = sign | f.expMask;
    return FloatParseStatus::Ok;
  }
  if (text.consume_front("nan")) {
    uint64_t payload = f.quietBit();
    if (text.consume_front(":0x")) {
      if (text.empty() || !llvm::all_of(text, isHexDigit) ||
          text.getAsInteger(16, payload) || payload == 0 ||
          payload > f.mantMask)
        return FloatParseStatus::Invalid;
    } else if (!text.empty()) {
      return FloatParseStatus::Invalid;
    }
    bits = sign | f.expMask | payload;
    return FloatParseStatus::Ok;
  }
  if (!isDecimalText(text))
    return FloatParseStatus::Invalid;

  const char *first = text.data(), *last = text.data() + text.size();
  if (isDouble(sem)) {
    double value;
    std::from_chars_result r = std::from_chars(first, last, value);
    if (r.ec == std::errc() && r.ptr == last) {
      bits = getDoubleBits(value) | (negative ? sign : 0);
      return FloatParseStatus::Ok;
    }
  } else if (isSingle(sem)) {
    float value;
    std::from_chars_result r = std::from_chars(first, last, value);
    if (r.ec == std::errc() && r.ptr == last) {
      uint32_t word;
      std::memcpy(&word, &value, sizeof(word));
      bits = word | sign;
      return FloatParseStatus::Ok;
    }
  }
  // float16, bfloat16, and out-of-range float32/float64 text (from_chars
  // reports underflow and overflow alike; only overflow is an error here).
  FloatParseStatus status = parseWithAPFloat(text, sem, bits);
  bits |= sign;
  return status;
}

//===----------------------------------------------------------------------===//
// Formatting
//===----------------------------------------------------------------------===//

/// std::to_chars of \p value (a float when \p single) with format \p fmt and
/// \p precision significant digits (the shortest round trip if negative).
static std::string toChars(double value, bool single, std::chars_format fmt,
                           int precision) {
  char buf[64];
  std::to_chars_result r;
  if (single) {
    float f = static_cast<float>(value);
    r = precision < 0
            ? std::to_chars(buf, buf + sizeof(buf), f, fmt)
            : std::to_chars(buf, buf + sizeof(buf), f, fmt, precision);
  } else {
    r = precision < 0
            ? std::to_chars(buf, buf + sizeof(buf), value, fmt)
            : std::to_chars(buf, buf + sizeof(buf), value, fmt, precision);
  }
  return std::string(buf, r.ptr);
}

/// Significant digits of a scientific-notation mantissa ("1.25e+02": 3).
static int countDigits(StringRef scientific) {
  StringRef mantissa = scientific.take_until([](char c) { return c == 'e'; });
  return llvm::count_if(mantissa, isDigit);
}

static bool readsBack(StringRef text, const fltSemantics &sem, uint64_t bits) {
  uint64_t parsed;
  return parseFloatBits(text, sem, parsed) == FloatParseStatus::Ok &&
         parsed == bits;
}

/// The shortest text of a finite, non-negative value.
static std::string formatFinite(const fltSemantics &sem, uint64_t bits) {
  double value = widenToDouble(sem, bits);
  // Small integers, the common case, print as themselves.
  if (value < 1e6 && std::trunc(value) == value && !std::signbit(value)) {
    char buf[32];
    std::to_chars_result r =
        std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(value));
    return std::string(buf, r.ptr);
  }
  bool single = isSingle(sem);
  int digits;
  std::string shortest;
  if (single || isDouble(sem)) {
    shortest = toChars(value, single, std::chars_format::scientific, -1);
    digits = countDigits(shortest);
  } else {
    for (digits = 1; digits < 17; ++digits) {
      shortest = toChars(value, false, std::chars_format::general, digits);
      if (readsBack(shortest, sem, bits))
        break;
    }
  }
  // As %g with the shortest digits; where that needs an exponent but %g
  // with 6 digits (TVM's ostream default) does not, the latter (120, not
  // 1.2e+02).
  std::string text = toChars(value, single, std::chars_format::general, digits);
  if (!readsBack(text, sem, bits))
    text = shortest;
  if (text.find('e') != std::string::npos && digits < 6) {
    std::string wide = toChars(value, single, std::chars_format::general, 6);
    if (wide.find('e') == std::string::npos && readsBack(wide, sem, bits))
      text = std::move(wide);
  }
  // A reader that checks the range on the decimal value as a double (TVM's)
  // would refuse text above the largest finite float32 or float16 value
  // (`3.4028235e+38`): write the exact value's digits instead.
  if (!isDouble(sem)) {
    uint64_t asDouble;
    double largest = widenToDouble(
        sem, APFloat::getLargest(sem).bitcastToAPInt().getZExtValue());
    if (parseFloatBits(text, APFloat::IEEEdouble(), asDouble) ==
            FloatParseStatus::Ok &&
        getDoubleFromBits(asDouble) > largest)
      return formatFinite(APFloat::IEEEdouble(), getDoubleBits(value));
  }
  return text;
}

std::string nnir::formatFloatBits(const fltSemantics &sem, uint64_t bits,
                                  StringRef suffix) {
  Format f(sem);
  std::string text = (bits & f.signMask) ? "-" : "";
  uint64_t magnitude = bits & ~f.signMask;
  if (f.isNaN(magnitude)) {
    text += "nan";
    text += suffix;
    uint64_t mant = magnitude & f.mantMask;
    if (mant != f.quietBit())
      text += ":0x" + utohexstr(mant, /*LowerCase=*/true);
    return text;
  }
  if (f.isInf(magnitude))
    text += "inf";
  else
    text += formatFinite(sem, magnitude);
  text += suffix;
  return text;
}

std::string nnir::formatDouble(double value) {
  return formatFloatBits(APFloat::IEEEdouble(), getDoubleBits(value));
}

std::string nnir::formatFloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return formatFloatBits(APFloat::IEEEsingle(), bits);
}
