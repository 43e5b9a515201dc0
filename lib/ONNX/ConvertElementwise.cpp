//===- ConvertElementwise.cpp - Elementwise ONNX operators ----------------===//
//
/// \file
/// Elementwise ONNX operators: direct counterparts (Abs, Add, ...), activations
/// composed of elementwise calls (Elu, HardSwish, Shrink, ...), Clip, Where
/// and the casts.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace nnir {
namespace onnximport {

/// Before opset 7, binary operators broadcast only with broadcast=1, B
/// aligned at `axis` of A (default: its trailing axes).
static Expected<Value> legacyBroadcast(NodeContext &ctx, const Value &a,
                                       const Value &b) {
  if (ctx.getOpset() >= 7)
    return b;
  // The legacy rule aligns by extents.
  for (size_t i = 0; i < 2; ++i)
    if (Error err = ctx.staticShape(i).takeError())
      return err;
  TRY(broadcast, ctx.getInt("broadcast", 0));
  if (!broadcast) {
    if (a.shape() != b.shape())
      return ctx.error("operand shapes differ and broadcast=0");
    return b;
  }
  TRY(axisAttr, ctx.getOptInt("axis"));
  int64_t axis = axisAttr ? *axisAttr : a.rank() - b.rank();
  if (axis < 0)
    axis += a.rank();
  if (axis < 0 || axis + b.rank() > a.rank())
    return ctx.error("axis " + Twine(axis) + " does not fit operand ranks");
  std::vector<int64_t> shape(b.shape().begin(), b.shape().end());
  shape.resize(a.rank() - axis, 1);
  return reshape(ctx, b, shape);
}

Result convertUnary(NodeContext &ctx, ops::UnaryBuilder build) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  // Opsets before 6 carry `consumed_inputs` (legacy in-place hints); it does
  // not change the result.
  TRY(out, ctx.typed(build(ctx.input(0), SMLoc())));
  return one(out);
}

Result convertBinary(NodeContext &ctx, ops::BinaryBuilder build) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(b, legacyBroadcast(ctx, ctx.input(0), ctx.input(1)));
  TRY(out, ctx.typed(build(ctx.input(0), b, SMLoc())));
  return one(out);
}

Result convertPow(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(b, legacyBroadcast(ctx, ctx.input(0), ctx.input(1)));
  // The exponent may have another type (opset 12): compute in the base's.
  TRY(exponent, cast(ctx, b, ctx.input(0).dtype()));
  TRY(out, ctx.typed(ops::power(ctx.input(0), exponent)));
  return one(out);
}

Result convertMod(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(fmod, ctx.getInt("fmod", 0));
  const Value &a = ctx.input(0);
  if (!fmod && a.dtype().isFloatingPoint())
    return ctx.error("fmod=0 is only defined for integers");
  // fmod=1: C's fmod (sign of the dividend); fmod=0: Python's % (sign of
  // the divisor).
  TRY(out, ctx.typed(fmod ? ops::truncMod(a, ctx.input(1))
                          : ops::floorMod(a, ctx.input(1))));
  return one(out);
}

Result convertBitShift(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(direction, ctx.getString("direction", ""));
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.error("direction must be \"LEFT\" or \"RIGHT\", got \"" +
                     direction + "\"");
  TRY(out, ctx.typed(direction == "LEFT"
                         ? ops::leftShift(ctx.input(0), ctx.input(1))
                         : ops::rightShift(ctx.input(0), ctx.input(1))));
  return one(out);
}

/// A left fold of the inputs by \p build (broadcasting).
static Expected<Value> foldInputs(NodeContext &ctx, ops::BinaryBuilder build) {
  if (ctx.getNumInputs() < 1)
    return ctx.error("expects at least one input");
  Value acc = ctx.input(0);
  for (size_t i = 1; i < ctx.getNumInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.error(formatv("input {0} is missing", i).str());
    TRY(next, ctx.typed(build(acc, ctx.input(i), SMLoc())));
    acc = next;
  }
  return acc;
}

Result convertVariadic(NodeContext &ctx, ops::BinaryBuilder build) {
  TRY(acc, foldInputs(ctx, build));
  return one(acc);
}

Result convertMean(NodeContext &ctx) {
  TRY(acc, foldInputs(ctx, ops::add));
  if (ctx.getNumInputs() == 1)
    return one(acc);
  TRY(mean, ctx.typed(ops::divide(
                acc, scalarLike(ctx, acc, double(ctx.getNumInputs())))));
  return one(mean);
}

Result convertIdentity(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  return one(ctx.input(0));
}

Result convertReciprocal(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  TRY(out, ctx.typed(ops::divide(scalarLike(ctx, x, 1), x)));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// where(x > 0, x, negativePart)
static Expected<Value> selectPositive(NodeContext &ctx, const Value &x,
                                      const Value &negativePart) {
  TRY(positive, ctx.typed(ops::greater(x, scalarLike(ctx, x, 0))));
  return ctx.typed(ops::where(positive, x, negativePart));
}

/// alpha * (exp(x) - 1)
static Expected<Value> expm1Scaled(NodeContext &ctx, const Value &x,
                                   double alpha) {
  TRY(e, ctx.typed(ops::exp(x)));
  TRY(em1, ctx.typed(ops::subtract(e, scalarLike(ctx, x, 1))));
  return ctx.typed(ops::multiply(em1, scalarLike(ctx, x, alpha)));
}

/// The input of a one-input activation, or the arity error.
static Expected<Value> activationInput(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  return ctx.input(0);
}

Result convertLeakyRelu(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(alpha, ctx.getFloat("alpha", 0.01));
  TRY(out, ctx.typed(ops::leakyRelu(x, alpha)));
  return one(out);
}

Result convertElu(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(alpha, ctx.getFloat("alpha", 1.0));
  TRY(neg, expm1Scaled(ctx, x, alpha));
  TRY(out, selectPositive(ctx, x, neg));
  return one(out);
}

Result convertSelu(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(alpha, ctx.getFloat("alpha", 1.67326319217681884765625));
  TRY(gamma, ctx.getFloat("gamma", 1.05070102214813232421875));
  TRY(neg, expm1Scaled(ctx, x, alpha));
  TRY(sel, selectPositive(ctx, x, neg));
  TRY(out, ctx.typed(ops::multiply(sel, scalarLike(ctx, x, gamma))));
  return one(out);
}

Result convertCelu(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(alpha, ctx.getFloat("alpha", 1.0));
  // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
  TRY(scaled, ctx.typed(ops::divide(x, scalarLike(ctx, x, alpha))));
  TRY(neg, expm1Scaled(ctx, scaled, alpha));
  TRY(lo, ctx.typed(ops::minimum(neg, scalarLike(ctx, x, 0))));
  TRY(hi, ctx.typed(ops::maximum(x, scalarLike(ctx, x, 0))));
  TRY(out, ctx.typed(ops::add(hi, lo)));
  return one(out);
}

Result convertThresholdedRelu(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(alpha, ctx.getFloat("alpha", 1.0));
  TRY(above, ctx.typed(ops::greater(x, scalarLike(ctx, x, alpha))));
  TRY(out, ctx.typed(ops::where(above, x, scalarLike(ctx, x, 0))));
  return one(out);
}

/// min(max(alpha * x + beta, 0), 1)
static Expected<Value> hardSigmoid(NodeContext &ctx, const Value &x,
                                   double alpha, double beta) {
  TRY(ax, ctx.typed(ops::multiply(x, scalarLike(ctx, x, alpha))));
  TRY(axb, ctx.typed(ops::add(ax, scalarLike(ctx, x, beta))));
  TRY(lo, ctx.typed(ops::maximum(axb, scalarLike(ctx, x, 0))));
  return ctx.typed(ops::minimum(lo, scalarLike(ctx, x, 1)));
}

Result convertHardSigmoid(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(alpha, ctx.getFloat("alpha", 0.2));
  TRY(beta, ctx.getFloat("beta", 0.5));
  TRY(out, hardSigmoid(ctx, x, alpha, beta));
  return one(out);
}

Result convertHardSwish(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(hs, hardSigmoid(ctx, x, 1.0 / 6, 0.5));
  TRY(out, ctx.typed(ops::multiply(x, hs)));
  return one(out);
}

Result convertSoftplus(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(e, ctx.typed(ops::exp(x)));
  TRY(e1, ctx.typed(ops::add(e, scalarLike(ctx, x, 1))));
  TRY(out, ctx.typed(ops::log(e1)));
  return one(out);
}

Result convertSoftsign(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(a, ctx.typed(ops::abs(x)));
  TRY(a1, ctx.typed(ops::add(a, scalarLike(ctx, x, 1))));
  TRY(out, ctx.typed(ops::divide(x, a1)));
  return one(out);
}

Result convertShrink(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(lambd, ctx.getFloat("lambd", 0.5));
  TRY(bias, ctx.getFloat("bias", 0.0));
  TRY(below, ctx.typed(ops::less(x, scalarLike(ctx, x, -lambd))));
  TRY(above, ctx.typed(ops::greater(x, scalarLike(ctx, x, lambd))));
  TRY(plus, ctx.typed(ops::add(x, scalarLike(ctx, x, bias))));
  TRY(minus, ctx.typed(ops::subtract(x, scalarLike(ctx, x, bias))));
  TRY(inner, ctx.typed(ops::where(above, minus, scalarLike(ctx, x, 0))));
  TRY(out, ctx.typed(ops::where(below, plus, inner)));
  return one(out);
}

Result convertHyperbolic(NodeContext &ctx, ops::BinaryBuilder combine) {
  TRY(x, activationInput(ctx));
  TRY(e, ctx.typed(ops::exp(x)));
  TRY(nx, ctx.typed(ops::negative(x)));
  TRY(en, ctx.typed(ops::exp(nx)));
  TRY(s, ctx.typed(combine(e, en, SMLoc())));
  TRY(out, ctx.typed(ops::multiply(s, scalarLike(ctx, x, 0.5))));
  return one(out);
}

Result convertInverseHyperbolic(NodeContext &ctx, ops::BinaryBuilder combine) {
  TRY(x, activationInput(ctx));
  TRY(sq, ctx.typed(ops::multiply(x, x)));
  TRY(t, ctx.typed(combine(sq, scalarLike(ctx, x, 1), SMLoc())));
  TRY(r, ctx.typed(ops::sqrt(t)));
  TRY(s, ctx.typed(ops::add(x, r)));
  TRY(out, ctx.typed(ops::log(s)));
  return one(out);
}

Result convertAtanh(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  // 0.5 * log((1 + x) / (1 - x))
  TRY(num, ctx.typed(ops::add(scalarLike(ctx, x, 1), x)));
  TRY(den, ctx.typed(ops::subtract(scalarLike(ctx, x, 1), x)));
  TRY(q, ctx.typed(ops::divide(num, den)));
  TRY(l, ctx.typed(ops::log(q)));
  TRY(out, ctx.typed(ops::multiply(l, scalarLike(ctx, x, 0.5))));
  return one(out);
}

Result convertIsInf(NodeContext &ctx) {
  TRY(x, activationInput(ctx));
  TRY(detectNegative, ctx.getInt("detect_negative", 1));
  TRY(detectPositive, ctx.getInt("detect_positive", 1));
  TRY(inf, ctx.typed(ops::isInf(x)));
  if (detectNegative && detectPositive)
    return one(inf);
  if (!detectNegative && !detectPositive) {
    TRY(out,
        ctx.typed(ops::logicalAnd(inf, ctx.scalar(DataType::boolean(), 0))));
    return one(out);
  }
  Value zero = scalarLike(ctx, x, 0);
  TRY(side,
      ctx.typed(detectPositive ? ops::greater(x, zero) : ops::less(x, zero)));
  TRY(out, ctx.typed(ops::logicalAnd(inf, side)));
  return one(out);
}

Result convertPRelu(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &x = ctx.input(0);
  Value slope = ctx.input(1);
  // Before opset 7 a 1-D slope runs along the channel axis.
  if (ctx.getOpset() < 7)
    for (size_t i = 0; i < 2; ++i)
      if (Error err = ctx.staticShape(i).takeError())
        return err;
  if (ctx.getOpset() < 7 && slope.rank() == 1 && x.rank() > 2 &&
      slope.shape()[0] == x.shape()[1]) {
    std::vector<int64_t> shape(x.rank() - 1, 1);
    shape[0] = slope.shape()[0];
    TRY(r, reshape(ctx, slope, shape));
    slope = r;
  }
  TRY(scaled, ctx.typed(ops::multiply(x, slope)));
  TRY(negative, ctx.typed(ops::less(x, scalarLike(ctx, x, 0))));
  TRY(out, ctx.typed(ops::where(negative, scaled, x)));
  return one(out);
}

Result convertClip(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 3))
    return err;
  Value x = ctx.input(0);
  std::optional<Value> lo, hi;
  if (ctx.getOpset() < 11) {
    if (ctx.hasAttr("min")) {
      TRY(v, ctx.getFloat("min", 0));
      lo = scalarLike(ctx, x, v);
    }
    if (ctx.hasAttr("max")) {
      TRY(v, ctx.getFloat("max", 0));
      hi = scalarLike(ctx, x, v);
    }
  } else {
    if (ctx.hasInput(1))
      lo = ctx.input(1);
    if (ctx.hasInput(2))
      hi = ctx.input(2);
  }
  if (lo) {
    TRY(v, ctx.typed(ops::maximum(x, *lo)));
    x = v;
  }
  if (hi) {
    TRY(v, ctx.typed(ops::minimum(x, *hi)));
    x = v;
  }
  return one(x);
}

Result convertWhere(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  TRY(out, ctx.typed(ops::where(ctx.input(0), ctx.input(1), ctx.input(2))));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

Result convertCast(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  DataType to;
  if (ctx.getOpset() < 6) {
    // Opsets 1-5 name the type as a string ("FLOAT").
    TRY(name, ctx.getString("to", ""));
    onnx::TensorProto::DataType type;
    if (!onnx::TensorProto::DataType_Parse(name, &type))
      return ctx.error("unknown type name '" + name + "' in 'to'");
    TRY(dtype, dataTypeFromONNX(type));
    to = dtype;
  } else {
    TRY(code, ctx.getOptInt("to"));
    if (!code)
      return ctx.error("attribute 'to' is required");
    Expected<DataType> dtype = dataTypeFromONNX(*code);
    if (!dtype)
      return ctx.unsupported(toString(dtype.takeError()));
    to = *dtype;
  }
  TRY(out, cast(ctx, ctx.input(0), to));
  return one(out);
}

Result convertCastLike(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(out, cast(ctx, ctx.input(0), ctx.input(1).dtype()));
  return one(out);
}

} // namespace onnximport
} // namespace nnir
