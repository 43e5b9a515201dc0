//===- QNNLowering.cpp - The arithmetic of quantization -------------------===//
//
/// \file
/// Builders of the primitive calls that quantize, dequantize and rescale
/// integers (see nnir/Ops/QNN.h): shared by the QNN operators'
/// canonicalizations and the ONNX importer's quantization converters.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/QNN.h"

#include "nnir/Ops/Builders.h"

#include "llvm/Support/ErrorHandling.h"

#include <cmath>

using namespace llvm;
using namespace nnir;

double qnn::getQMin(DataType dtype) {
  if (dtype.isUInt() || dtype.isBool())
    return 0;
  return -std::ldexp(1.0, int(dtype.getBits()) - 1);
}

double qnn::getQMax(DataType dtype) {
  if (dtype.isUInt())
    return std::ldexp(1.0, int(dtype.getBits())) - 1;
  return std::ldexp(1.0, int(dtype.getBits()) - 1) - 1;
}

Ref<Expr> qnn::alongAxis(Ref<Expr> values, unsigned valuesRank,
                         int64_t length, unsigned rank, unsigned axis,
                         SMLoc loc) {
  if (valuesRank == 0 || rank == 0)
    return values;
  IntList shape(rank - axis, 1);
  shape[0] = length;
  return ops::reshape(std::move(values), std::move(shape), loc);
}

Ref<Expr> qnn::saturate(Ref<Expr> v, DataType dtype, SMLoc loc) {
  return ops::cast(ops::clip(std::move(v), getQMin(dtype), getQMax(dtype), loc),
                   dtype, loc);
}

Ref<Expr> qnn::roundToQuantized(Ref<Expr> v, Ref<Expr> zeroPoint,
                                DataType dtype, DataType realType, SMLoc loc) {
  Ref<Expr> y = ops::round(std::move(v), loc);
  if (zeroPoint)
    y = ops::add(y, ops::cast(std::move(zeroPoint), realType, loc), loc);
  return saturate(std::move(y), dtype, loc);
}

Ref<Expr> qnn::quantize(Ref<Expr> x, Ref<Expr> scale, Ref<Expr> zeroPoint,
                        DataType dtype, DataType realType, SMLoc loc) {
  return roundToQuantized(ops::divide(std::move(x), std::move(scale), loc),
                          std::move(zeroPoint), dtype, realType, loc);
}

Ref<Expr> qnn::centerInt32(Ref<Expr> x, Ref<Expr> zeroPoint, SMLoc loc) {
  Ref<Expr> x32 = ops::cast(std::move(x), DataType::int32(), loc);
  if (!zeroPoint)
    return x32;
  return ops::subtract(
      x32, ops::cast(std::move(zeroPoint), DataType::int32(), loc), loc);
}

Ref<Expr> qnn::dequantize(Ref<Expr> x, Ref<Expr> scale, Ref<Expr> zeroPoint,
                          DataType realType, DataType outType, SMLoc loc) {
  Ref<Expr> centered = centerInt32(std::move(x), std::move(zeroPoint), loc);
  Ref<Expr> real = ops::multiply(ops::cast(centered, realType, loc),
                                 std::move(scale), loc);
  if (outType == realType)
    return real;
  // float16 results: saturated to the type's range, as TVM's lowering does.
  double limit = outType.getBits() == 16 ? 65504.0 : HUGE_VAL;
  return ops::cast(ops::clip(real, -limit, limit, loc), outType, loc);
}

/// A constant 1-D int64 tensor of \p values, or a scalar when there is one.
static Ref<Expr> int64Constant(ArrayRef<int64_t> values) {
  if (values.size() == 1)
    return Constant::getScalar(DataType::int64(), double(values[0]));
  Expected<NDArray> array =
      NDArray::create(DataType::int64(), {int64_t(values.size())});
  if (!array)
    report_fatal_error(array.takeError());
  for (size_t i = 0; i < values.size(); ++i)
    array->setElementFromInt(i, values[i]);
  return Constant::get(std::move(*array));
}

/// TVM's fixed-point form of a real multiplier: a significand in Q31 and a
/// power of two (multiplier = significand * 2^(shift - 31)).
static std::pair<int64_t, int> getFixedPoint(double multiplier) {
  if (multiplier == 0)
    return {0, 0};
  int exponent = 0;
  double significand = std::frexp(multiplier, &exponent);
  auto q31 = int64_t(std::round(significand * double(int64_t(1) << 31)));
  if (q31 == (int64_t(1) << 31)) {
    q31 /= 2;
    ++exponent;
  }
  return {q31, exponent};
}

Ref<Expr> qnn::fixedPointMultiply(Ref<Expr> x, ArrayRef<double> multipliers,
                                  unsigned rank, unsigned axis,
                                  Rounding rounding, SMLoc loc) {
  SmallVector<int64_t, 8> significands, leftShifts, rightShifts, halves;
  bool anyLeftShift = false;
  for (double multiplier : multipliers) {
    auto [significand, shift] = getFixedPoint(multiplier);
    significands.push_back(significand);
    leftShifts.push_back(shift > 0 ? shift : 0);
    anyLeftShift |= shift > 0;
    int total = (shift > 0 ? 0 : -shift) + 31;
    rightShifts.push_back(total);
    halves.push_back(int64_t(1) << (total - 1));
  }
  auto perAxis = [&](ArrayRef<int64_t> values) {
    return alongAxis(int64Constant(values), values.size() == 1 ? 0 : 1,
                     values.size(), rank, axis, loc);
  };
  Ref<Expr> wide = ops::cast(std::move(x), DataType::int64(), loc);
  if (anyLeftShift)
    wide = ops::leftShift(wide, perAxis(leftShifts), loc);
  wide = ops::multiply(wide, perAxis(significands), loc);
  Ref<Expr> half = perAxis(halves);
  if (rounding == Rounding::ToNearest) {
    // Half away from zero: a negative product rounds with half - 1.
    Ref<Expr> zero = Constant::getScalar(DataType::int64(), 0);
    Ref<Expr> one = Constant::getScalar(DataType::int64(), 1);
    half = ops::where(ops::greaterEqual(wide, zero, loc), half,
                      ops::subtract(half, one, loc), loc);
  }
  wide = ops::rightShift(ops::add(wide, half, loc), perAxis(rightShifts), loc);
  return ops::cast(wide, DataType::int32(), loc);
}
