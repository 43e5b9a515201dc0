//===- NumPyPrinter.cpp - Print arrays as NumPy's str() does --------------===//
//
/// \file
/// A port of the parts of NumPy 1.24's arrayprint.py that str() uses with
/// the default options: the element formats (FloatingFormat, IntegerFormat,
/// BoolFormat), fitted to the elements that are printed, and the layout of
/// _formatArray (line wrapping, summarisation), with the float text of its
/// Dragon4 (FormatPositional, FormatScientific) on top of
/// generateFloatDigits(). Names follow arrayprint.py where that helps to
/// compare the two.
//
//===----------------------------------------------------------------------===//

#include "nnir/Tools/NumPyPrinter.h"

#include "nnir/Support/FloatDigits.h"
#include "nnir/Support/Numbers.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

using namespace llvm;
using namespace nnir;

namespace {

/// numpy.get_printoptions() defaults.
constexpr int kLineWidth = 75;
constexpr int kPrecision = 8;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

//===----------------------------------------------------------------------===//
// Float text (Dragon4's FormatPositional and FormatScientific)
//===----------------------------------------------------------------------===//

/// Dragon4's trim modes: what happens to trailing zeros and the point.
enum class Trim {
  Keep,         ///< 'k': keep them (and pad zeros up to the minimum digits)
  Zeros,        ///< '.': drop trailing zeros, keep the point
  LeaveOneZero, ///< '0': drop trailing zeros but one after the point
  DropPoint,    ///< '-': drop trailing zeros and a bare point
};

/// The bits of one element with its format.
struct FloatValue {
  const fltSemantics *sem;
  uint64_t bits;

  unsigned size() const { return APFloat::semanticsSizeInBits(*sem); }
  uint64_t signMask() const { return uint64_t(1) << (size() - 1); }
  bool isNegative() const { return bits & signMask(); }
  uint64_t magnitude() const { return bits & (signMask() - 1); }
  uint64_t exponentMask() const {
    unsigned fraction = APFloat::semanticsPrecision(*sem) - 1;
    return (signMask() - 1) & ~((uint64_t(1) << fraction) - 1);
  }
  bool isFinite() const {
    return (magnitude() & exponentMask()) != exponentMask();
  }
  bool isNaN() const { return !isFinite() && magnitude() != exponentMask(); }
  double toDouble() const { return widenToDouble(*sem, bits); }
};

/// The point and the zeros Dragon4 writes after the digits: a point unless
/// \p trim drops it, then one zero (LeaveOneZero) or zeros up to \p wanted
/// fraction digits (Keep).
void appendFractionZeros(std::string &text, int &fractionDigits, int wanted,
                         Trim trim) {
  if (trim != Trim::DropPoint && fractionDigits == 0)
    text += '.';
  if (trim == Trim::LeaveOneZero) {
    if (fractionDigits == 0) {
      text += '0';
      ++fractionDigits;
    }
  } else if (trim == Trim::Keep && wanted > fractionDigits) {
    text += std::string(wanted - fractionDigits, '0');
    fractionDigits = wanted;
  }
}

/// Dragon4's FormatPositional: `-12.345`, padded to \p padLeft characters
/// before the point (sign included) and \p padRight after it (negative:
/// no padding). \p precision and \p minDigits bound the digits, counted as
/// \p count says.
std::string formatPositional(const FloatValue &v, int precision, int minDigits,
                             DigitCount count, Trim trim, int padLeft,
                             int padRight) {
  FloatDigits d =
      generateFloatDigits(*v.sem, v.bits, precision, minDigits, count);
  std::string sign = v.isNegative() ? "-" : "";
  std::string text;
  int wholeDigits, fractionDigits;
  int numDigits = int(d.digits.size());
  if (d.exponent >= 0) {
    wholeDigits = d.exponent + 1;
    if (numDigits <= wholeDigits) {
      text = d.digits + std::string(wholeDigits - numDigits, '0');
      fractionDigits = 0;
    } else {
      text =
          d.digits.substr(0, wholeDigits) + "." + d.digits.substr(wholeDigits);
      fractionDigits = numDigits - wholeDigits;
    }
  } else {
    int zeros = -(d.exponent + 1);
    text = "0." + std::string(zeros, '0') + d.digits;
    wholeDigits = 1;
    fractionDigits = zeros + numDigits;
  }
  appendFractionZeros(text, fractionDigits,
                      count == DigitCount::Significant
                          ? minDigits - wholeDigits
                          : std::max(minDigits, 0),
                      trim);
  if (trim != Trim::Keep && fractionDigits > 0) {
    while (text.back() == '0') {
      text.pop_back();
      --fractionDigits;
    }
    if (text.back() == '.') {
      if (trim == Trim::LeaveOneZero) {
        text += '0';
        ++fractionDigits;
      } else if (trim == Trim::DropPoint) {
        text.pop_back();
      }
    }
  }
  if (padRight >= fractionDigits) {
    if (trim == Trim::DropPoint && fractionDigits == 0)
      text += ' ';
    text += std::string(padRight - fractionDigits, ' ');
  }
  int left = wholeDigits + int(sign.size());
  std::string indent = padLeft > left ? std::string(padLeft - left, ' ') : "";
  return indent + sign + text;
}

/// Dragon4's FormatScientific: `-1.2345e+06`, padded to \p padLeft
/// characters before the point; the exponent has at least \p expDigits
/// digits (negative: 2).
std::string formatScientific(const FloatValue &v, int precision, int minDigits,
                             Trim trim, int padLeft, int expDigits) {
  FloatDigits d = generateFloatDigits(
      *v.sem, v.bits, precision < 0 ? -1 : precision + 1,
      minDigits < 0 ? -1 : minDigits + 1, DigitCount::Significant);
  int left = v.isNegative() ? 2 : 1;
  std::string text = padLeft > left ? std::string(padLeft - left, ' ') : "";
  if (v.isNegative())
    text += '-';
  text += d.digits[0];
  int fractionDigits = int(d.digits.size()) - 1;
  if (fractionDigits > 0)
    text += "." + d.digits.substr(1);
  appendFractionZeros(text, fractionDigits, std::max(minDigits, 0), trim);
  if (trim != Trim::Keep && fractionDigits > 0) {
    while (text.back() == '0')
      text.pop_back();
    if (trim == Trim::LeaveOneZero && text.back() == '.')
      text += '0';
  }
  int exponent = d.exponent;
  text += exponent < 0 ? "e-" : "e+";
  std::string digits = std::to_string(exponent < 0 ? -exponent : exponent);
  int width = expDigits < 0 ? 2 : std::min(expDigits, 5);
  if (int(digits.size()) < width)
    digits.insert(0, width - digits.size(), '0');
  return text + digits;
}

/// str() of a float scalar (a 0-d array): positional for zero, nan and
/// magnitudes from 1e-4 up to 1e16, `1.0` style; scientific otherwise,
/// `1e+16` style.
std::string formatFloatScalar(const FloatValue &v) {
  if (!v.isFinite())
    return v.isNaN() ? "nan" : v.isNegative() ? "-inf" : "inf";
  double magnitude = std::fabs(v.toDouble());
  if (magnitude == 0 || (magnitude < 1e16 && magnitude >= 1e-4))
    return formatPositional(v, -1, -1, DigitCount::Significant,
                            Trim::LeaveOneZero, -1, -1);
  return formatScientific(v, -1, -1, Trim::DropPoint, -1, -1);
}

/// \p a / \p b as NumPy computes it in the array's format: float64 and
/// float32 directly, the 16-bit formats in float32 with the quotient rounded
/// back (so it may overflow to inf).
double divideInFormat(const fltSemantics &sem, double a, double b) {
  if (&sem == &APFloat::IEEEdouble())
    return a / b;
  float quotient = float(a) / float(b);
  if (&sem == &APFloat::IEEEsingle())
    return quotient;
  APFloat rounded(quotient);
  bool losesInfo;
  rounded.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
  rounded.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return rounded.convertToDouble();
}

//===----------------------------------------------------------------------===//
// Element formats
//===----------------------------------------------------------------------===//

/// arrayprint.FloatingFormat with floatmode 'maxprec', precision 8, sign
/// '-', suppress_small off, fitted to the printed elements.
class FloatingFormat {
public:
  FloatingFormat(const fltSemantics &sem, ArrayRef<uint64_t> data) : sem(sem) {
    SmallVector<FloatValue, 0> finite;
    for (uint64_t bits : data)
      if (FloatValue{&sem, bits}.isFinite())
        finite.push_back({&sem, bits});
    // Scientific notation is chosen from the nonzero finite magnitudes.
    std::optional<double> maxValue, minValue;
    for (const FloatValue &v : finite) {
      double magnitude = std::fabs(v.toDouble());
      if (magnitude == 0)
        continue;
      maxValue = std::max(maxValue.value_or(magnitude), magnitude);
      minValue = std::min(minValue.value_or(magnitude), magnitude);
    }
    if (maxValue)
      expFormat = *maxValue >= 1e8 || *minValue < 0.0001 ||
                  divideInFormat(sem, *maxValue, *minValue) > 1000.;

    if (finite.empty()) {
      padLeft = padRight = 0;
    } else if (expFormat) {
      size_t expLength = 0, fractionLength = 0, intLength = 0;
      for (const FloatValue &v : finite) {
        std::string text =
            formatScientific(v, kPrecision, -1, Trim::Zeros, -1, -1);
        auto [mantissa, exponent] = StringRef(text).split('e');
        auto [intPart, fractionPart] = mantissa.split('.');
        expLength = std::max(expLength, exponent.size());
        intLength = std::max(intLength, intPart.size());
        fractionLength = std::max(fractionLength, fractionPart.size());
      }
      expSize = int(expLength) - 1;
      precision = minDigits = int(fractionLength);
      padLeft = int(intLength);
      padRight = expSize + 2 + precision;
    } else {
      size_t intLength = 0, fractionLength = 0;
      for (const FloatValue &v : finite) {
        std::string text = formatPositional(
            v, kPrecision, -1, DigitCount::Fractional, Trim::Zeros, -1, -1);
        auto [intPart, fractionPart] = StringRef(text).split('.');
        intLength = std::max(intLength, intPart.size());
        fractionLength = std::max(fractionLength, fractionPart.size());
      }
      padLeft = int(intLength);
      padRight = int(fractionLength);
    }
    // Room for nan and inf (and -inf when there is one) in the same width.
    if (finite.size() != data.size()) {
      bool negativeInf = any_of(data, [&](uint64_t bits) {
        FloatValue v{&sem, bits};
        return !v.isFinite() && !v.isNaN() && v.isNegative();
      });
      int offset = padRight + 1;
      padLeft = std::max({padLeft, 3 - offset, 3 + int(negativeInf) - offset});
    }
  }

  std::string operator()(uint64_t bits) const {
    FloatValue v{&sem, bits};
    if (!v.isFinite()) {
      std::string text = v.isNaN() ? "nan" : v.isNegative() ? "-inf" : "inf";
      int width = padLeft + padRight + 1;
      return std::string(std::max(0, width - int(text.size())), ' ') + text;
    }
    if (expFormat)
      return formatScientific(v, precision, minDigits, Trim::Keep, padLeft,
                              expSize);
    return formatPositional(v, kPrecision, 0, DigitCount::Fractional,
                            Trim::Zeros, padLeft, padRight);
  }

private:
  const fltSemantics &sem;
  bool expFormat = false;
  int padLeft = 0, padRight = 0;
  /// Scientific notation: fraction digits and exponent digits.
  int precision = kPrecision, minDigits = -1, expSize = -1;
};

//===----------------------------------------------------------------------===//
// Layout (_formatArray)
//===----------------------------------------------------------------------===//

class ArrayPrinter {
public:
  explicit ArrayPrinter(const NDArray &array)
      : array(array), dtype(array.getDType()), shape(array.getShape()),
        summarise(array.getNumElements() > kThreshold),
        strides(shape.size(), 1) {
    for (size_t d = shape.size(); d-- > 1;)
      strides[d - 1] = strides[d] * shape[d];
  }

  std::string print();

private:
  /// The items printed along \p axis, -1 standing for the `...` of a
  /// summarised axis.
  SmallVector<int64_t, 8> getItems(unsigned axis) const;
  std::string formatElement(int64_t index) const;
  /// The text of the row (last axis) at \p base, nested \p axis deep.
  std::string formatRow(unsigned axis, int64_t base) const;

  const NDArray &array;
  DataType dtype;
  ArrayRef<int64_t> shape;
  bool summarise;
  SmallVector<int64_t, 4> strides;
  /// The element format, fitted to the printed elements.
  std::function<std::string(int64_t)> format;
};

} // namespace

SmallVector<int64_t, 8> ArrayPrinter::getItems(unsigned axis) const {
  int64_t length = shape[axis];
  SmallVector<int64_t, 8> items;
  if (summarise && length > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i)
      items.push_back(i);
    items.push_back(-1);
    for (int64_t i = length - kEdgeItems; i < length; ++i)
      items.push_back(i);
    return items;
  }
  for (int64_t i = 0; i < length; ++i)
    items.push_back(i);
  return items;
}

/// _extendLine: appends \p word to \p line, first moving \p line to \p s and
/// starting a new one with \p prefix when the word would pass \p width (but
/// never leaving a line with nothing but the prefix).
static void extendLine(std::string &s, std::string &line, StringRef word,
                       int width, StringRef prefix) {
  bool wrap =
      line.size() + word.size() > size_t(width) && line.size() > prefix.size();
  if (wrap) {
    s += StringRef(line).rtrim(' ');
    s += '\n';
    line = prefix.str();
  }
  line += word;
}

std::string ArrayPrinter::formatRow(unsigned axis, int64_t base) const {
  std::string indent(axis + 1, ' ');
  // The row's width leaves room for the closing brackets of every level.
  int width = kLineWidth - int(axis) - 1;
  SmallVector<int64_t, 8> items = getItems(axis);
  std::string s, line = indent;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string word =
        items[i] < 0 ? std::string("...") : format(base + items[i]);
    extendLine(s, line, word, width, indent);
    if (i + 1 < items.size())
      line += ' ';
  }
  s += line;
  return "[" + s.substr(indent.size()) + "]";
}

std::string ArrayPrinter::formatElement(int64_t index) const {
  if (dtype.isBool())
    return array.getElementAsInt(index) ? "True" : "False";
  if (dtype.isFloatingPoint())
    return formatFloatScalar(
        {dtype.getFloatSemantics(), array.getElementBits(index)});
  if (dtype.isUInt())
    return utostr(array.getElementBits(index));
  return itostr(array.getElementAsInt(index));
}

std::string ArrayPrinter::print() {
  if (shape.empty())
    return formatElement(0);
  if (array.getNumElements() == 0)
    return "[]";

  // The printed elements (all, or the corners of a summarised array) decide
  // the widths.
  SmallVector<int64_t, 0> printed = {0};
  for (unsigned axis = 0; axis < shape.size(); ++axis) {
    SmallVector<int64_t, 0> next;
    SmallVector<int64_t, 8> items = getItems(axis);
    for (int64_t base : printed)
      for (int64_t item : items)
        if (item >= 0)
          next.push_back(base + item * strides[axis]);
    printed = std::move(next);
  }
  if (dtype.isBool()) {
    format = [this](int64_t i) -> std::string {
      return array.getElementAsInt(i) ? " True" : "False";
    };
  } else if (dtype.isFloatingPoint()) {
    SmallVector<uint64_t, 0> data;
    for (int64_t i : printed)
      data.push_back(array.getElementBits(i));
    auto floating =
        std::make_shared<FloatingFormat>(*dtype.getFloatSemantics(), data);
    format = [this, floating](int64_t i) {
      return (*floating)(array.getElementBits(i));
    };
  } else {
    size_t width = 0;
    for (int64_t i : printed)
      width = std::max(width, formatElement(i).size());
    format = [this, width](int64_t i) {
      std::string text = formatElement(i);
      return std::string(width - text.size(), ' ') + text;
    };
  }

  // _formatArray's recursion over the axes, with an explicit stack: a
  // block of rank > 1 lists its sub-blocks one per line (rank - 1 line
  // breaks between them), each indented under the brackets.
  struct Block {
    unsigned axis;
    int64_t base;
    SmallVector<int64_t, 8> items;
    size_t next = 0;
    std::string text;
  };
  unsigned rank = shape.size();
  SmallVector<Block, 4> stack;
  auto close = [](const Block &block) {
    return "[" + block.text.substr(block.axis + 1) + "]";
  };
  // Adds the text of a sub-block to its parent.
  auto append = [&](Block &parent, const std::string &nested) {
    parent.text += std::string(parent.axis + 1, ' ') + nested;
    if (parent.next < parent.items.size())
      parent.text += std::string(rank - parent.axis - 1, '\n');
  };
  if (rank == 1)
    return formatRow(0, 0);
  stack.push_back({0, 0, getItems(0), 0, {}});
  while (true) {
    Block &block = stack.back();
    if (block.next == block.items.size()) {
      std::string text = close(block);
      stack.pop_back();
      if (stack.empty())
        return text;
      append(stack.back(), text);
      continue;
    }
    int64_t item = block.items[block.next++];
    if (item < 0) {
      append(block, "...");
      continue;
    }
    int64_t base = block.base + item * strides[block.axis];
    unsigned axis = block.axis + 1;
    if (axis + 1 == rank) {
      std::string row = formatRow(axis, base);
      append(block, row);
    } else {
      stack.push_back({axis, base, getItems(axis), 0, {}});
    }
  }
}

void nnir::printArrayLikeNumPy(const NDArray &array, raw_ostream &os) {
  os << ArrayPrinter(array).print();
}
