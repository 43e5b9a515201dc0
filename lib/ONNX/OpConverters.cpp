//===- OpConverters.cpp - ONNX operators as nnir operators ----------------===//
//
/// \file
/// The table of ONNX operators of the default domain (opsets 1-17) and how
/// each becomes nnir operators: a direct counterpart (Relu -> nn.relu), a
/// counterpart with attributes translated (Conv -> nn.conv2d, pads and
/// auto_pad resolved against the static input shape), or a short
/// composition (Gemm, LayerNormalization, Softplus, ...). Per-opset
/// differences (attribute defaults, attributes that became inputs) are
/// handled where the converter reads them (ctx.getOpset()).
///
/// Shape-valued inputs (Reshape's shape, Slice's starts, Expand's shape,
/// ...) must be known at import time; NodeContext::constantInts computes
/// them through the ExecutionEngine when they are computed from constants.
/// Shape and Size fold to constants, since every shape is static.
///
/// Operators nnir cannot express are listed with the reason in
/// unsupportedReason().
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

using namespace llvm;
using namespace nnir;
using namespace nnir::onnximport;

namespace {

using Outputs = SmallVector<Value, 1>;
using Result = Expected<Outputs>;

//===----------------------------------------------------------------------===//
// Attribute values for nnir calls
//===----------------------------------------------------------------------===//

NamedAttrValue attr(StringRef name, AttrValue value) {
  return NamedAttrValue{name.str(), std::move(value), SMLoc()};
}
AttrValue intValue(int64_t v) { return AttrValue::integer(v); }
AttrValue floatValue(double v) { return AttrValue::floating(v); }
AttrValue boolValue(bool v) { return AttrValue::boolean(v); }
AttrValue stringValue(StringRef v) { return AttrValue::string(v); }
AttrValue intList(ArrayRef<int64_t> values) {
  std::vector<AttrValue> elems;
  for (int64_t v : values)
    elems.push_back(AttrValue::integer(v));
  return AttrValue::array(std::move(elems));
}

/// Propagates an error out of a converter: `TRY(x, expr)` declares x.
#define TRY(NAME, EXPR)                                                        \
  auto NAME##OrErr = (EXPR);                                                   \
  if (!NAME##OrErr)                                                            \
    return NAME##OrErr.takeError();                                            \
  auto NAME = std::move(*NAME##OrErr);

Outputs one(Value v) { return Outputs{std::move(v)}; }

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

//===----------------------------------------------------------------------===//
// Shared building blocks
//===----------------------------------------------------------------------===//

Expected<Value> reshape(NodeContext &ctx, const Value &x,
                        ArrayRef<int64_t> shape) {
  if (x.shape() == shape)
    return x;
  return ctx.call("reshape", {x}, {attr("newshape", intList(shape))});
}

Expected<Value> cast(NodeContext &ctx, const Value &x, DataType dtype) {
  if (x.dtype() == dtype)
    return x;
  return ctx.call("cast", {x}, {attr("dtype", stringValue(dtype.str()))});
}

Expected<Value> binary(NodeContext &ctx, StringRef op, const Value &a,
                       const Value &b) {
  return ctx.call(op, {a, b});
}

Expected<Value> unary(NodeContext &ctx, StringRef op, const Value &a) {
  return ctx.call(op, {a});
}

/// A 0-d constant of \p x's dtype.
Value scalarLike(NodeContext &ctx, const Value &x, double v) {
  return ctx.scalar(x.dtype(), v);
}

/// reduce op over \p axes (all when empty and \p allWhenEmpty).
Expected<Value> reduce(NodeContext &ctx, StringRef op, const Value &x,
                       ArrayRef<int64_t> axes, bool keepdims) {
  return ctx.call(op, {x},
                  {attr("axis", intList(axes)),
                   attr("keepdims", boolValue(keepdims)),
                   attr("exclude", boolValue(false))});
}

/// Elements [begin, end) of axis \p axis of \p x.
Expected<Value> sliceAxis(NodeContext &ctx, const Value &x, int64_t axis,
                          int64_t begin, int64_t end) {
  return ctx.call("strided_slice", {x},
                  {attr("begin", intList({begin})), attr("end", intList({end})),
                   attr("strides", intList({1})),
                   attr("axes", intList({axis}))});
}

/// Broadcast shape of two static shapes (numpy rules).
Expected<std::vector<int64_t>> broadcastShapes(NodeContext &ctx,
                                               ArrayRef<int64_t> a,
                                               ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return ctx.error(formatv("shapes cannot be broadcast: dimension {0} "
                               "vs {1}",
                               da, db)
                           .str());
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Expected<Value> broadcastTo(NodeContext &ctx, const Value &x,
                            ArrayRef<int64_t> shape) {
  if (x.shape() == shape)
    return x;
  return ctx.call("broadcast_to", {x}, {attr("shape", intList(shape))});
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// ONNX elementwise unary operators with an nnir counterpart.
StringRef unaryCounterpart(StringRef opType) {
  return StringSwitch<StringRef>(opType)
      .Case("Abs", "abs")
      .Case("Neg", "negative")
      .Case("Exp", "exp")
      .Case("Log", "log")
      .Case("Sqrt", "sqrt")
      .Case("Sigmoid", "sigmoid")
      .Case("Tanh", "tanh")
      .Case("Sin", "sin")
      .Case("Cos", "cos")
      .Case("Tan", "tan")
      .Case("Asin", "asin")
      .Case("Acos", "acos")
      .Case("Atan", "atan")
      .Case("Floor", "floor")
      .Case("Ceil", "ceil")
      .Case("Sign", "sign")
      .Case("Erf", "erf")
      .Case("Relu", "nn.relu")
      .Case("Not", "logical_not")
      .Case("IsNaN", "isnan")
      .Default("");
}

/// ONNX elementwise binary operators with an nnir counterpart.
StringRef binaryCounterpart(StringRef opType) {
  return StringSwitch<StringRef>(opType)
      .Case("Add", "add")
      .Case("Sub", "subtract")
      .Case("Mul", "multiply")
      .Case("Div", "divide")
      .Case("And", "logical_and")
      .Case("Or", "logical_or")
      .Case("Xor", "logical_xor")
      .Case("Equal", "equal")
      .Case("Greater", "greater")
      .Case("Less", "less")
      .Case("GreaterOrEqual", "greater_equal")
      .Case("LessOrEqual", "less_equal")
      .Default("");
}

Result convertUnary(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  // Opsets before 6 carry `consumed_inputs` (legacy in-place hints); it does
  // not change the result.
  TRY(out, unary(ctx, unaryCounterpart(ctx.getOpType()), ctx.input(0)));
  return one(out);
}

/// Before opset 7, binary operators broadcast only with broadcast=1, B
/// aligned at `axis` of A (default: its trailing axes).
Expected<Value> legacyBroadcast(NodeContext &ctx, const Value &a,
                                const Value &b) {
  if (ctx.getOpset() >= 7)
    return b;
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

Result convertBinary(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(b, legacyBroadcast(ctx, ctx.input(0), ctx.input(1)));
  TRY(out, binary(ctx, binaryCounterpart(ctx.getOpType()), ctx.input(0), b));
  return one(out);
}

Result convertPow(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(b, legacyBroadcast(ctx, ctx.input(0), ctx.input(1)));
  // The exponent may have another type (opset 12): compute in the base's.
  TRY(exponent, cast(ctx, b, ctx.input(0).dtype()));
  TRY(out, binary(ctx, "power", ctx.input(0), exponent));
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
  TRY(out, binary(ctx, fmod ? "trunc_mod" : "floor_mod", a, ctx.input(1)));
  return one(out);
}

Result convertBitShift(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(direction, ctx.getString("direction", ""));
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.error("direction must be \"LEFT\" or \"RIGHT\", got \"" +
                     direction + "\"");
  TRY(out, binary(ctx, direction == "LEFT" ? "left_shift" : "right_shift",
                  ctx.input(0), ctx.input(1)));
  return one(out);
}

/// Max, Min, Sum, Mean: a left fold of the inputs (broadcasting).
Result convertVariadic(NodeContext &ctx) {
  if (ctx.getNumInputs() < 1)
    return ctx.error("expects at least one input");
  StringRef type = ctx.getOpType();
  StringRef op = StringSwitch<StringRef>(type)
                     .Case("Max", "maximum")
                     .Case("Min", "minimum")
                     .Default("add");
  Value acc = ctx.input(0);
  for (size_t i = 1; i < ctx.getNumInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.error(formatv("input {0} is missing", i).str());
    TRY(next, binary(ctx, op, acc, ctx.input(i)));
    acc = next;
  }
  if (type == "Mean" && ctx.getNumInputs() > 1) {
    TRY(mean, binary(ctx, "divide", acc,
                     scalarLike(ctx, acc, ctx.getNumInputs())));
    acc = mean;
  }
  return one(acc);
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
  TRY(out, binary(ctx, "divide", scalarLike(ctx, x, 1), x));
  return one(out);
}

/// where(x > 0, x, negativePart)
Expected<Value> selectPositive(NodeContext &ctx, const Value &x,
                               const Value &negativePart) {
  TRY(positive, binary(ctx, "greater", x, scalarLike(ctx, x, 0)));
  return ctx.call("where", {positive, x, negativePart});
}

/// alpha * (exp(x) - 1)
Expected<Value> expm1Scaled(NodeContext &ctx, const Value &x, double alpha) {
  TRY(e, unary(ctx, "exp", x));
  TRY(em1, binary(ctx, "subtract", e, scalarLike(ctx, x, 1)));
  return binary(ctx, "multiply", em1, scalarLike(ctx, x, alpha));
}

Result convertActivation(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  StringRef type = ctx.getOpType();
  if (type == "LeakyRelu") {
    TRY(alpha, ctx.getFloat("alpha", 0.01));
    TRY(out, ctx.call("nn.leaky_relu", {x}, {attr("alpha", floatValue(alpha))}));
    return one(out);
  }
  if (type == "Elu") {
    TRY(alpha, ctx.getFloat("alpha", 1.0));
    TRY(neg, expm1Scaled(ctx, x, alpha));
    TRY(out, selectPositive(ctx, x, neg));
    return one(out);
  }
  if (type == "Selu") {
    TRY(alpha, ctx.getFloat("alpha", 1.67326319217681884765625));
    TRY(gamma, ctx.getFloat("gamma", 1.05070102214813232421875));
    TRY(neg, expm1Scaled(ctx, x, alpha));
    TRY(sel, selectPositive(ctx, x, neg));
    TRY(out, binary(ctx, "multiply", sel, scalarLike(ctx, x, gamma)));
    return one(out);
  }
  if (type == "Celu") {
    TRY(alpha, ctx.getFloat("alpha", 1.0));
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    TRY(scaled, binary(ctx, "divide", x, scalarLike(ctx, x, alpha)));
    TRY(neg, expm1Scaled(ctx, scaled, alpha));
    TRY(lo, binary(ctx, "minimum", neg, scalarLike(ctx, x, 0)));
    TRY(hi, binary(ctx, "maximum", x, scalarLike(ctx, x, 0)));
    TRY(out, binary(ctx, "add", hi, lo));
    return one(out);
  }
  if (type == "ThresholdedRelu") {
    TRY(alpha, ctx.getFloat("alpha", 1.0));
    TRY(above, binary(ctx, "greater", x, scalarLike(ctx, x, alpha)));
    TRY(out, ctx.call("where", {above, x, scalarLike(ctx, x, 0)}));
    return one(out);
  }
  if (type == "HardSigmoid" || type == "HardSwish") {
    double alphaDefault = type == "HardSigmoid" ? 0.2 : 1.0 / 6;
    TRY(alpha, type == "HardSigmoid" ? ctx.getFloat("alpha", alphaDefault)
                                     : Expected<double>(alphaDefault));
    TRY(beta, type == "HardSigmoid" ? ctx.getFloat("beta", 0.5)
                                    : Expected<double>(0.5));
    TRY(ax, binary(ctx, "multiply", x, scalarLike(ctx, x, alpha)));
    TRY(axb, binary(ctx, "add", ax, scalarLike(ctx, x, beta)));
    TRY(lo, binary(ctx, "maximum", axb, scalarLike(ctx, x, 0)));
    TRY(hs, binary(ctx, "minimum", lo, scalarLike(ctx, x, 1)));
    if (type == "HardSigmoid")
      return one(hs);
    TRY(out, binary(ctx, "multiply", x, hs));
    return one(out);
  }
  if (type == "Softplus") {
    TRY(e, unary(ctx, "exp", x));
    TRY(e1, binary(ctx, "add", e, scalarLike(ctx, x, 1)));
    TRY(out, unary(ctx, "log", e1));
    return one(out);
  }
  if (type == "Softsign") {
    TRY(a, unary(ctx, "abs", x));
    TRY(a1, binary(ctx, "add", a, scalarLike(ctx, x, 1)));
    TRY(out, binary(ctx, "divide", x, a1));
    return one(out);
  }
  if (type == "Shrink") {
    TRY(lambd, ctx.getFloat("lambd", 0.5));
    TRY(bias, ctx.getFloat("bias", 0.0));
    TRY(below, binary(ctx, "less", x, scalarLike(ctx, x, -lambd)));
    TRY(above, binary(ctx, "greater", x, scalarLike(ctx, x, lambd)));
    TRY(plus, binary(ctx, "add", x, scalarLike(ctx, x, bias)));
    TRY(minus, binary(ctx, "subtract", x, scalarLike(ctx, x, bias)));
    TRY(inner, ctx.call("where", {above, minus, scalarLike(ctx, x, 0)}));
    TRY(out, ctx.call("where", {below, plus, inner}));
    return one(out);
  }
  if (type == "Sinh" || type == "Cosh") {
    TRY(e, unary(ctx, "exp", x));
    TRY(nx, unary(ctx, "negative", x));
    TRY(en, unary(ctx, "exp", nx));
    TRY(s, binary(ctx, type == "Sinh" ? "subtract" : "add", e, en));
    TRY(out, binary(ctx, "multiply", s, scalarLike(ctx, x, 0.5)));
    return one(out);
  }
  if (type == "Asinh" || type == "Acosh") {
    // log(x + sqrt(x*x +- 1))
    TRY(sq, binary(ctx, "multiply", x, x));
    TRY(t, binary(ctx, type == "Asinh" ? "add" : "subtract", sq,
                  scalarLike(ctx, x, 1)));
    TRY(r, unary(ctx, "sqrt", t));
    TRY(s, binary(ctx, "add", x, r));
    TRY(out, unary(ctx, "log", s));
    return one(out);
  }
  if (type == "Atanh") {
    // 0.5 * log((1 + x) / (1 - x))
    TRY(num, binary(ctx, "add", scalarLike(ctx, x, 1), x));
    TRY(den, binary(ctx, "subtract", scalarLike(ctx, x, 1), x));
    TRY(q, binary(ctx, "divide", num, den));
    TRY(l, unary(ctx, "log", q));
    TRY(out, binary(ctx, "multiply", l, scalarLike(ctx, x, 0.5)));
    return one(out);
  }
  if (type == "IsInf") {
    TRY(detectNegative, ctx.getInt("detect_negative", 1));
    TRY(detectPositive, ctx.getInt("detect_positive", 1));
    TRY(inf, unary(ctx, "isinf", x));
    if (detectNegative && detectPositive)
      return one(inf);
    if (!detectNegative && !detectPositive) {
      TRY(out, binary(ctx, "logical_and", inf, ctx.scalar(DataType::boolean(), 0)));
      return one(out);
    }
    TRY(side, binary(ctx, detectPositive ? "greater" : "less", x,
                     scalarLike(ctx, x, 0)));
    TRY(out, binary(ctx, "logical_and", inf, side));
    return one(out);
  }
  return ctx.error("no activation converter");
}

Result convertPRelu(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &x = ctx.input(0);
  Value slope = ctx.input(1);
  // Before opset 7 a 1-D slope runs along the channel axis.
  if (ctx.getOpset() < 7 && slope.rank() == 1 && x.rank() > 2 &&
      slope.shape()[0] == x.shape()[1]) {
    std::vector<int64_t> shape(x.rank() - 1, 1);
    shape[0] = slope.shape()[0];
    TRY(r, reshape(ctx, slope, shape));
    slope = r;
  }
  TRY(scaled, binary(ctx, "multiply", x, slope));
  TRY(negative, binary(ctx, "less", x, scalarLike(ctx, x, 0)));
  TRY(out, ctx.call("where", {negative, scaled, x}));
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
    TRY(v, binary(ctx, "maximum", x, *lo));
    x = v;
  }
  if (hi) {
    TRY(v, binary(ctx, "minimum", x, *hi));
    x = v;
  }
  return one(x);
}

Result convertWhere(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  TRY(out, ctx.call("where", {ctx.input(0), ctx.input(1), ctx.input(2)}));
  return one(out);
}

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

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

Result convertConstant(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(0, 0))
    return err;
  if (ctx.hasAttr("value")) {
    TRY(t, ctx.getTensor("value"));
    return one(ctx.constant(t));
  }
  if (ctx.hasAttr("value_float")) {
    TRY(v, ctx.getFloat("value_float", 0));
    return one(ctx.scalar(DataType::float32(), v));
  }
  if (ctx.hasAttr("value_int")) {
    TRY(v, ctx.getOptInt("value_int"));
    return one(ctx.scalar(DataType::int64(), *v));
  }
  if (ctx.hasAttr("value_ints")) {
    TRY(v, ctx.getInts("value_ints"));
    return one(ctx.int64Vector(v));
  }
  if (ctx.hasAttr("value_floats")) {
    TRY(v, ctx.getFloats("value_floats"));
    NDArray array = cantFail(NDArray::create(
        DataType::float32(), {static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i)
      array.setElementFromDouble(i, v[i]);
    return one(ctx.constant(array));
  }
  if (ctx.hasAttr("sparse_value"))
    return ctx.unsupported("sparse constants");
  if (ctx.hasAttr("value_string") || ctx.hasAttr("value_strings"))
    return ctx.unsupported("string constants");
  return ctx.error("has no value attribute");
}

Result convertShape(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  ArrayRef<int64_t> shape = ctx.input(0).shape();
  int64_t rank = shape.size();
  TRY(start, ctx.getInt("start", 0));
  TRY(endAttr, ctx.getOptInt("end"));
  int64_t end = endAttr ? *endAttr : rank;
  auto clampAxis = [&](int64_t a) {
    if (a < 0)
      a += rank;
    return std::min(std::max<int64_t>(a, 0), rank);
  };
  start = clampAxis(start);
  end = clampAxis(end);
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(shape[i]);
  return one(ctx.int64Vector(dims));
}

Result convertSize(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  return one(ctx.scalar(DataType::int64(), product(ctx.input(0).shape())));
}

Result convertConstantOfShape(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(shape, ctx.constantInts(0, "the shape"));
  NDArray fill = NDArray::scalar(DataType::float32(), 0);
  if (ctx.hasAttr("value")) {
    TRY(t, ctx.getTensor("value"));
    if (t.getNumElements() != 1)
      return ctx.error("'value' must hold one element");
    fill = t;
  }
  for (int64_t d : shape)
    if (d < 0)
      return ctx.error("negative dimension " + Twine(d) + " in the shape");
  TRY(array, ctx.createArray(fill.getDType(), shape));
  size_t elem = fill.getDType().getStorageBytes();
  auto *dst = static_cast<uint8_t *>(array.getMutableData());
  for (int64_t i = 0, n = array.getNumElements(); i < n; ++i)
    std::memcpy(dst + i * elem, fill.getData(), elem);
  return one(ctx.constant(array));
}

Result convertRange(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  DataType dtype = ctx.input(0).dtype();
  TRY(start, ctx.constantFloats(0, "start"));
  TRY(limit, ctx.constantFloats(1, "limit"));
  TRY(delta, ctx.constantFloats(2, "delta"));
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1)
    return ctx.error("start, limit and delta must be scalars");
  if (delta[0] == 0)
    return ctx.error("delta is zero");
  double count = std::ceil((limit[0] - start[0]) / delta[0]);
  if (!std::isfinite(count) || count > double(int64_t(1) << 48))
    return ctx.error("Range would have " + formatv("{0}", count).str() + " elements");
  // A negative count (limit behind start) is an empty range; converting it
  // first could be out of int64's range, which is undefined.
  int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  TRY(array, ctx.createArray(dtype, {n}));
  for (int64_t i = 0; i < n; ++i) {
    if (dtype.isFloatingPoint())
      array.setElementFromDouble(i, start[0] + i * delta[0]);
    else
      array.setElementFromInt(i, static_cast<int64_t>(start[0]) +
                                     i * static_cast<int64_t>(delta[0]));
  }
  return one(ctx.constant(array));
}

/// ONNX's reshape codes (0 copies a dimension unless allowzero, -1 infers
/// one) resolved against the static input shape.
Expected<std::vector<int64_t>> resolveReshape(NodeContext &ctx,
                                              ArrayRef<int64_t> in,
                                              ArrayRef<int64_t> spec,
                                              bool allowZero) {
  std::vector<int64_t> out;
  int64_t inferAt = -1, known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return ctx.error("shape copies dimension " + Twine(i) +
                         " of a rank-" + Twine(in.size()) + " input");
      d = in[i];
    } else if (d == -1) {
      if (inferAt >= 0)
        return ctx.error("shape has more than one -1");
      inferAt = i;
      out.push_back(-1);
      continue;
    } else if (d < -1) {
      return ctx.error("invalid dimension " + Twine(d) + " in the shape");
    }
    if (MulOverflow(known, d, known))
      return ctx.error("the shape's element count overflows");
    out.push_back(d);
  }
  int64_t total = product(in);
  if (inferAt >= 0) {
    if (known == 0 || total % known)
      return ctx.error("cannot infer the -1 dimension");
    out[inferAt] = total / known;
  } else if (known != total) {
    return ctx.error(formatv("cannot reshape {0} elements into {1}", total,
                             known)
                         .str());
  }
  return out;
}

Result convertReshape(NodeContext &ctx) {
  std::vector<int64_t> spec;
  if (ctx.getOpset() < 5) {
    if (Error err = ctx.checkNumInputs(1, 1))
      return err;
    TRY(s, ctx.getInts("shape"));
    spec = s;
  } else {
    if (Error err = ctx.checkNumInputs(2, 2))
      return err;
    TRY(s, ctx.constantInts(1, "the shape"));
    spec = s;
  }
  TRY(allowZero, ctx.getInt("allowzero", 0));
  TRY(shape, resolveReshape(ctx, ctx.input(0).shape(), spec, allowZero));
  TRY(out, reshape(ctx, ctx.input(0), shape));
  return one(out);
}

Result convertFlatten(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 1));
  int64_t axis = axisAttr < 0 ? axisAttr + x.rank() : axisAttr;
  if (axis < 0 || axis > x.rank())
    return ctx.error("axis " + Twine(axisAttr) + " is out of range");
  int64_t outer = product(x.shape().take_front(axis));
  int64_t inner = product(x.shape().drop_front(axis));
  TRY(out, reshape(ctx, x, {outer, inner}));
  return one(out);
}

/// The axes of Squeeze/Unsqueeze/Reduce*: an attribute before
/// \p inputSince, the optional input 1 from then on.
Expected<std::optional<std::vector<int64_t>>>
axesOperand(NodeContext &ctx, int64_t inputSince) {
  if (ctx.getOpset() < inputSince)
    return ctx.getOptInts("axes");
  if (!ctx.hasInput(1))
    return std::nullopt;
  TRY(axes, ctx.constantInts(1, "axes"));
  return std::optional<std::vector<int64_t>>(axes);
}

Result convertSqueeze(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axes, axesOperand(ctx, 13));
  SmallVector<bool, 4> drop(x.rank(), false);
  if (!axes) {
    for (int64_t i = 0; i < x.rank(); ++i)
      drop[i] = x.shape()[i] == 1;
  } else {
    for (int64_t a : *axes) {
      TRY(axis, ctx.normalizeAxis(a, x.rank()));
      if (x.shape()[axis] != 1)
        return ctx.error(formatv("cannot squeeze axis {0} of extent {1}",
                                 axis, x.shape()[axis])
                             .str());
      drop[axis] = true;
    }
  }
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (!drop[i])
      shape.push_back(x.shape()[i]);
  TRY(out, reshape(ctx, x, shape));
  return one(out);
}

Result convertUnsqueeze(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axes, axesOperand(ctx, 13));
  if (!axes)
    return ctx.error("axes are required");
  int64_t rank = x.rank() + axes->size();
  SmallVector<bool, 4> inserted(rank, false);
  for (int64_t a : *axes) {
    TRY(axis, ctx.normalizeAxis(a, rank));
    if (inserted[axis])
      return ctx.error("axis " + Twine(axis) + " is given twice");
    inserted[axis] = true;
  }
  std::vector<int64_t> shape;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(inserted[i] ? 1 : x.shape()[next++]);
  TRY(out, reshape(ctx, x, shape));
  return one(out);
}

Result convertTranspose(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  std::vector<int64_t> reversed;
  for (int64_t i = x.rank() - 1; i >= 0; --i)
    reversed.push_back(i);
  TRY(perm, ctx.getInts("perm", reversed));
  TRY(out, ctx.call("transpose", {x}, {attr("axes", intList(perm))}));
  return one(out);
}

Result convertConcat(NodeContext &ctx) {
  if (ctx.getNumInputs() < 1)
    return ctx.error("expects at least one input");
  SmallVector<Value, 4> fields;
  for (size_t i = 0; i < ctx.getNumInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.error(formatv("input {0} is missing", i).str());
    fields.push_back(ctx.input(i));
  }
  TRY(axisAttr, ctx.getInt("axis", ctx.getOpset() < 4 ? 1 : INT64_MIN));
  if (axisAttr == INT64_MIN)
    return ctx.error("attribute 'axis' is required");
  TRY(axis, ctx.normalizeAxis(axisAttr, fields.front().rank()));
  if (fields.size() == 1)
    return one(fields.front());
  TRY(out, ctx.call("concatenate", {ctx.tuple(fields)},
                    {attr("axis", intValue(axis))}));
  return one(out);
}

/// ONNX indices may be negative (from the end of \p extent).
Expected<Value> wrapIndices(NodeContext &ctx, const Value &indices,
                            int64_t extent) {
  if (indices.constant) {
    TRY(array, ctx.evaluate(indices));
    bool anyNegative = false;
    for (int64_t i = 0, n = array.getNumElements(); i < n; ++i)
      anyNegative |= array.getElementAsInt(i) < 0;
    if (!anyNegative)
      return indices;
  }
  TRY(negative, binary(ctx, "less", indices, scalarLike(ctx, indices, 0)));
  TRY(shifted, binary(ctx, "add", indices, scalarLike(ctx, indices, extent)));
  return ctx.call("where", {negative, shifted, indices});
}

Result convertGather(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &data = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, data.rank()));
  TRY(indices, wrapIndices(ctx, ctx.input(1), data.shape()[axis]));
  TRY(out, ctx.call("take", {data, indices},
                    {attr("axis", intValue(axis)),
                     attr("mode", stringValue("fast"))}));
  return one(out);
}

Result convertGatherElements(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &data = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, data.rank()));
  TRY(indices, wrapIndices(ctx, ctx.input(1), data.shape()[axis]));
  TRY(out, ctx.call("gather", {data, indices}, {attr("axis", intValue(axis))}));
  return one(out);
}

Result convertGatherND(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &data = ctx.input(0);
  const Value &indices = ctx.input(1);
  TRY(batchDims, ctx.getInt("batch_dims", 0));
  if (indices.rank() < 1)
    return ctx.error("indices must have rank 1 or more");
  int64_t indexRank = indices.shape().back();
  // nnir (Relay) keeps the index tuple on the first axis of indices.
  std::vector<int64_t> perm{indices.rank() - 1};
  for (int64_t i = 0; i + 1 < indices.rank(); ++i)
    perm.push_back(i);
  TRY(moved, ctx.call("transpose", {indices}, {attr("axes", intList(perm))}));
  TRY(out, ctx.call("gather_nd", {data, moved},
                    {attr("batch_dims", intValue(batchDims)),
                     attr("index_rank", intValue(indexRank))}));
  return one(out);
}

/// The `reduction` of ScatterElements and ScatterND as Relay's scatter mode
/// ("none" is "update").
Expected<std::string> scatterReduction(NodeContext &ctx) {
  TRY(reduction, ctx.getString("reduction", "none"));
  if (reduction == "none")
    return std::string("update");
  if (reduction != "add" && reduction != "mul" && reduction != "min" &&
      reduction != "max")
    return ctx.unsupported("reduction '" + reduction + "'");
  return reduction;
}

/// ScatterElements (and Scatter, its opset 9-10 name): scatter_elements.
Result convertScatterElements(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  const Value &data = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, data.rank()));
  TRY(reduction, scatterReduction(ctx));
  TRY(out, ctx.call("scatter_elements",
                    {data, ctx.input(1), ctx.input(2)},
                    {attr("axis", intValue(axis)),
                     attr("reduction", stringValue(reduction))}));
  return one(out);
}

/// ScatterND: the index tuples move to the first axis of the indices, as
/// Relay's scatter_nd (and gather_nd) keep them.
Result convertScatterND(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  const Value &indices = ctx.input(1);
  TRY(reduction, scatterReduction(ctx));
  if (indices.rank() < 1)
    return ctx.error("indices must have rank 1 or more");
  std::vector<int64_t> perm{indices.rank() - 1};
  for (int64_t i = 0; i + 1 < indices.rank(); ++i)
    perm.push_back(i);
  TRY(moved, ctx.call("transpose", {indices}, {attr("axes", intList(perm))}));
  TRY(out, ctx.call("scatter_nd", {ctx.input(0), moved, ctx.input(2)},
                    {attr("mode", stringValue(reduction))}));
  return one(out);
}

/// CumSum: cumsum along the constant axis; `reverse` scans from the end
/// (reverse, scan, reverse back).
Result convertCumSum(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  Value x = ctx.input(0);
  TRY(axes, ctx.constantInts(1, "axis"));
  if (axes.size() != 1)
    return ctx.error("axis must hold one value");
  TRY(axis, ctx.normalizeAxis(axes[0], x.rank()));
  TRY(exclusive, ctx.getInt("exclusive", 0));
  TRY(reverse, ctx.getInt("reverse", 0));
  if (reverse) {
    TRY(flipped, ctx.call("reverse", {x}, {attr("axis", intValue(axis))}));
    x = flipped;
  }
  TRY(out, ctx.call("cumsum", {x},
                    {attr("axis", intValue(axis)),
                     attr("exclusive", boolValue(exclusive != 0))}));
  if (reverse) {
    TRY(back, ctx.call("reverse", {out}, {attr("axis", intValue(axis))}));
    out = back;
  }
  return one(out);
}

/// TopK: topk with both outputs and int64 indices; K is an attribute before
/// opset 10 and a constant input after. `sorted` 0 allows any order, so the
/// sorted result serves.
Result convertTopK(NodeContext &ctx) {
  const Value &x = ctx.input(0);
  int64_t k;
  if (ctx.getOpset() < 10) {
    if (Error err = ctx.checkNumInputs(1, 1))
      return err;
    TRY(kAttr, ctx.getInt("k", -1));
    k = kAttr;
  } else {
    if (Error err = ctx.checkNumInputs(2, 2))
      return err;
    TRY(ks, ctx.constantInts(1, "K"));
    if (ks.size() != 1)
      return ctx.error("K must hold one value");
    k = ks[0];
  }
  TRY(axisAttr, ctx.getInt("axis", -1));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  TRY(largest, ctx.getInt("largest", 1));
  if (k < 0 || k > x.shape()[axis])
    return ctx.error("K " + Twine(k) + " is out of range for axis " +
                     Twine(axis) + " of extent " + Twine(x.shape()[axis]));
  if (k == 0)
    return ctx.unsupported("K 0 gives empty outputs");
  TRY(both, ctx.call("topk", {x},
                     {attr("k", intValue(k)), attr("axis", intValue(axis)),
                      attr("ret_type", stringValue("both")),
                      attr("is_ascend", boolValue(largest == 0)),
                      attr("dtype", stringValue("int64"))}));
  return Result(SmallVector<Value, 1>{ctx.getItem(both, 0),
                                      ctx.getItem(both, 1)});
}

/// ReverseSequence: reverse_sequence (ONNX's defaults: time_axis 0,
/// batch_axis 1).
Result convertReverseSequence(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(batchAxis, ctx.getInt("batch_axis", 1));
  TRY(timeAxis, ctx.getInt("time_axis", 0));
  TRY(out, ctx.call("reverse_sequence", {ctx.input(0), ctx.input(1)},
                    {attr("seq_axis", intValue(timeAxis)),
                     attr("batch_axis", intValue(batchAxis))}));
  return one(out);
}

/// Einsum: einsum over the tuple of the inputs.
Result convertEinsum(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 64))
    return err;
  TRY(equation, ctx.getString("equation", ""));
  SmallVector<Value, 4> operands;
  for (size_t i = 0; i < ctx.getNumInputs(); ++i)
    operands.push_back(ctx.input(i));
  TRY(out, ctx.call("einsum", {ctx.tuple(operands)},
                    {attr("equation", stringValue(equation))}));
  return one(out);
}

/// ONNX Slice semantics (clamping per the sign of the step) resolved to a
/// static strided_slice over every axis.
Result convertSlice(NodeContext &ctx) {
  const Value &x = ctx.input(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.getOpset() < 10) {
    if (Error err = ctx.checkNumInputs(1, 1))
      return err;
    TRY(s, ctx.getInts("starts"));
    TRY(e, ctx.getInts("ends"));
    TRY(a, ctx.getOptInts("axes"));
    starts = s;
    ends = e;
    if (a)
      axes = *a;
  } else {
    if (Error err = ctx.checkNumInputs(3, 5))
      return err;
    TRY(s, ctx.constantInts(1, "starts"));
    TRY(e, ctx.constantInts(2, "ends"));
    starts = s;
    ends = e;
    if (ctx.hasInput(3)) {
      TRY(a, ctx.constantInts(3, "axes"));
      axes = a;
    }
    if (ctx.hasInput(4)) {
      TRY(st, ctx.constantInts(4, "steps"));
      steps = st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size())
    return ctx.error("starts, ends, axes and steps must have equal lengths");
  int64_t rank = x.rank();
  std::vector<AttrValue> begin(rank), end(rank);
  std::vector<int64_t> strides(rank, 1);
  for (int64_t i = 0; i < rank; ++i) {
    begin[i] = intValue(0);
    end[i] = intValue(x.shape()[i]);
  }
  SmallVector<bool, 4> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    TRY(axis, ctx.normalizeAxis(axes[i], rank));
    if (seen[axis])
      return ctx.error("axis " + Twine(axis) + " is sliced twice");
    seen[axis] = true;
    int64_t dim = x.shape()[axis], step = steps[i];
    if (step == 0)
      return ctx.error("step is zero");
    auto clamp = [](int64_t v, int64_t lo, int64_t hi) {
      return std::min(std::max(v, lo), hi);
    };
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 && ends[i] > INT64_MIN / 2 ? ends[i] + dim
                                                       : ends[i];
    if (ends[i] <= INT64_MIN / 2)
      e = -1;
    if (step > 0) {
      s = clamp(s, 0, dim);
      e = clamp(e, 0, dim);
      if (e < s)
        e = s;
    } else {
      s = clamp(s, 0, dim - 1);
      e = clamp(e, -1, dim - 1);
      if (e > s)
        e = s;
    }
    if (s == e)
      return ctx.unsupported("the slice of axis " + Twine(axis) +
                             " is empty (nnir has no empty tensors here)");
    begin[axis] = intValue(s);
    end[axis] = e < 0 ? AttrValue::none() : intValue(e);
    strides[axis] = step;
  }
  std::vector<int64_t> allAxes(rank);
  std::iota(allAxes.begin(), allAxes.end(), 0);
  TRY(out, ctx.call("strided_slice", {x},
                    {attr("begin", AttrValue::array(begin)),
                     attr("end", AttrValue::array(end)),
                     attr("strides", intList(strides)),
                     attr("axes", intList(allAxes))}));
  return one(out);
}

Result convertSplit(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  std::vector<int64_t> sizes;
  if (ctx.getOpset() < 13 && ctx.hasAttr("split")) {
    TRY(s, ctx.getInts("split"));
    sizes = s;
  } else if (ctx.hasInput(1)) {
    TRY(s, ctx.constantInts(1, "split"));
    sizes = s;
  }
  int64_t numOutputs = ctx.getNode().output_size();
  int64_t dim = x.shape()[axis];
  if (sizes.empty()) {
    if (numOutputs == 0 || dim % numOutputs)
      return ctx.error(formatv("cannot split extent {0} into {1} equal parts",
                               dim, numOutputs)
                           .str());
    sizes.assign(numOutputs, dim / numOutputs);
  }
  if (static_cast<int64_t>(sizes.size()) != numOutputs ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim)
    return ctx.error("split sizes do not match the outputs and the extent");
  Outputs outs;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    if (size <= 0)
      return ctx.unsupported("empty split parts");
    TRY(part, sliceAxis(ctx, x, axis, offset, offset + size));
    outs.push_back(part);
    offset += size;
  }
  return outs;
}

Result convertExpand(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(shape, ctx.constantInts(1, "the shape"));
  TRY(target, broadcastShapes(ctx, x.shape(), shape));
  TRY(out, broadcastTo(ctx, x, target));
  return one(out);
}

Result convertTile(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  if (ctx.getNumInputs() == 3)
    return ctx.unsupported("Tile-1's tiles/axis inputs");
  TRY(reps, ctx.constantInts(1, "repeats"));
  TRY(out, ctx.call("tile", {ctx.input(0)}, {attr("reps", intList(reps))}));
  return one(out);
}

Result convertDropout(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 3))
    return err;
  if (ctx.hasInput(2)) {
    // training_mode is a boolean scalar; with ratio 0 it drops nothing.
    TRY(training, ctx.constantFloats(2, "training_mode"));
    if (training.size() != 1)
      return ctx.error("training_mode must have one element");
    double ratio = 0.5;
    if (ctx.hasInput(1)) {
      TRY(r, ctx.constantFloats(1, "ratio"));
      if (r.size() != 1)
        return ctx.error("ratio must have one element");
      ratio = r[0];
    }
    if (training[0] != 0 && ratio != 0)
      return ctx.unsupported(
          formatv("training_mode=true with ratio {0} (random masks)", ratio));
  }
  if (ctx.getOpset() < 7) {
    TRY(isTest, ctx.getInt("is_test", 0));
    if (!isTest && ctx.getNode().output_size() > 1)
      return ctx.unsupported("is_test=0 (random masks)");
  }
  const Value &x = ctx.input(0);
  Outputs outs{x};
  if (ctx.getNode().output_size() > 1) {
    TRY(mask, ctx.createArray(DataType::boolean(), x.shape()));
    for (int64_t i = 0, n = mask.getNumElements(); i < n; ++i)
      mask.setElementFromInt(i, 1);
    outs.push_back(ctx.constant(mask));
  }
  return outs;
}

Result convertPad(NodeContext &ctx) {
  const Value &x = ctx.input(0);
  std::vector<int64_t> pads;
  double value = 0;
  std::optional<Value> padValue;
  if (ctx.getOpset() < 11) {
    if (Error err = ctx.checkNumInputs(1, 1))
      return err;
    TRY(p, ctx.getInts(ctx.getOpset() < 2 ? "paddings" : "pads"));
    pads = p;
    TRY(v, ctx.getFloat("value", 0));
    value = v;
  } else {
    if (Error err = ctx.checkNumInputs(2, 4))
      return err;
    TRY(p, ctx.constantInts(1, "pads"));
    pads = p;
    if (ctx.hasInput(2))
      padValue = ctx.input(2);
    if (ctx.hasInput(3))
      return ctx.unsupported("the axes input of Pad");
  }
  TRY(mode, ctx.getString("mode", "constant"));
  int64_t rank = x.rank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return ctx.error(formatv("pads has {0} entries, rank {1} needs {2}",
                             pads.size(), rank, 2 * rank)
                         .str());
  std::vector<AttrValue> width;
  for (int64_t i = 0; i < rank; ++i) {
    if (pads[i] < 0 || pads[i + rank] < 0)
      return ctx.unsupported("negative pads");
    width.push_back(intList({pads[i], pads[i + rank]}));
  }
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return ctx.error("unknown mode '" + mode + "'");
  Value fill = padValue ? *padValue : scalarLike(ctx, x, value);
  if (fill.rank() != 0) {
    TRY(r, reshape(ctx, fill, {}));
    fill = r;
  }
  TRY(out, ctx.call("nn.pad", {x, fill},
                    {attr("pad_width", AttrValue::array(width)),
                     attr("pad_mode", stringValue(mode))}));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Result convertReduce(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  StringRef type = ctx.getOpType();
  const Value &x = ctx.input(0);
  // ReduceSum takes its axes as an input from opset 13, the others from 18.
  TRY(axesOpt, axesOperand(ctx, type == "ReduceSum" ? 13 : 18));
  TRY(keepdims, ctx.getInt("keepdims", 1));
  TRY(noopEmpty, ctx.getInt("noop_with_empty_axes", 0));
  std::vector<int64_t> axes;
  if (axesOpt && !axesOpt->empty()) {
    for (int64_t a : *axesOpt) {
      TRY(axis, ctx.normalizeAxis(a, x.rank()));
      axes.push_back(axis);
    }
  } else {
    if (noopEmpty)
      return one(x);
    for (int64_t i = 0; i < x.rank(); ++i)
      axes.push_back(i);
  }
  auto reduceTo = [&](StringRef op, const Value &v) {
    return reduce(ctx, op, v, axes, keepdims);
  };
  if (type == "ReduceSum" || type == "ReduceMean" || type == "ReduceMax" ||
      type == "ReduceMin" || type == "ReduceProd") {
    StringRef op = StringSwitch<StringRef>(type)
                       .Case("ReduceSum", "sum")
                       .Case("ReduceMean", "mean")
                       .Case("ReduceMax", "max")
                       .Case("ReduceMin", "min")
                       .Default("prod");
    TRY(out, reduceTo(op, x));
    return one(out);
  }
  if (type == "ReduceL1") {
    TRY(a, unary(ctx, "abs", x));
    TRY(out, reduceTo("sum", a));
    return one(out);
  }
  if (type == "ReduceL2" || type == "ReduceSumSquare") {
    TRY(sq, binary(ctx, "multiply", x, x));
    TRY(s, reduceTo("sum", sq));
    if (type == "ReduceSumSquare")
      return one(s);
    TRY(out, unary(ctx, "sqrt", s));
    return one(out);
  }
  if (type == "ReduceLogSum") {
    TRY(s, reduceTo("sum", x));
    TRY(out, unary(ctx, "log", s));
    return one(out);
  }
  if (type == "ReduceLogSumExp") {
    // max + log(sum(exp(x - max))), stable for large inputs.
    TRY(m, reduce(ctx, "max", x, axes, true));
    TRY(shifted, binary(ctx, "subtract", x, m));
    TRY(e, unary(ctx, "exp", shifted));
    TRY(s, reduceTo("sum", e));
    TRY(l, unary(ctx, "log", s));
    TRY(mk, keepdims ? Expected<Value>(m) : reduce(ctx, "max", x, axes, false));
    TRY(out, binary(ctx, "add", l, mk));
    return one(out);
  }
  return ctx.error("no reduction converter");
}

Result convertArgReduce(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  TRY(keepdims, ctx.getInt("keepdims", 1));
  TRY(last, ctx.getInt("select_last_index", 0));
  TRY(indices,
      ctx.call(ctx.getOpType() == "ArgMax" ? "argmax" : "argmin", {x},
               {attr("axis", intList({axis})),
                attr("keepdims", boolValue(keepdims)),
                attr("select_last_index", boolValue(last)),
                attr("exclude", boolValue(false))}));
  TRY(out, cast(ctx, indices, DataType::int64()));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// op(A) * op(B) for matrices, as nn.dense (which multiplies by the
/// transpose of its weight), as TVM's importer does.
Expected<Value> dense(NodeContext &ctx, const Value &a, const Value &b,
                      bool transposeA, bool transposeB) {
  Value lhs = a, rhs = b;
  if (transposeA) {
    TRY(t, ctx.call("transpose", {a}, {attr("axes", intList({1, 0}))}));
    lhs = t;
  }
  if (!transposeB) {
    TRY(t, ctx.call("transpose", {b}, {attr("axes", intList({1, 0}))}));
    rhs = t;
  }
  return ctx.call("nn.dense", {lhs, rhs},
                  {attr("units", intValue(rhs.shape()[0]))});
}

/// numpy.matmul of \p a and \p b (MatMul, MatMulInteger, QLinearMatMul).
Expected<Value> matmul(NodeContext &ctx, Value a, Value b) {
  if (a.rank() == 0 || b.rank() == 0)
    return ctx.error("MatMul operands must have rank 1 or more");
  bool vecA = a.rank() == 1, vecB = b.rank() == 1;
  if (vecA) {
    TRY(r, reshape(ctx, a, {1, a.shape()[0]}));
    a = r;
  }
  if (vecB) {
    TRY(r, reshape(ctx, b, {b.shape()[0], 1}));
    b = r;
  }
  int64_t m = a.shape()[a.rank() - 2], k = a.shape().back();
  int64_t kb = b.shape()[b.rank() - 2], n = b.shape().back();
  if (k != kb)
    return ctx.error(formatv("inner dimensions differ: {0} vs {1}", k, kb)
                         .str());
  std::vector<int64_t> outShape;
  Value result;
  if (b.rank() == 2) {
    // Fold A's batch dimensions into its rows.
    std::vector<int64_t> batch(a.shape().begin(), a.shape().end() - 2);
    TRY(a2, reshape(ctx, a, {product(batch) * m, k}));
    TRY(mm, dense(ctx, a2, b, /*transposeA=*/false, /*transposeB=*/false));
    result = mm;
    outShape = batch;
  } else {
    TRY(batch, broadcastShapes(ctx, a.shape().drop_back(2),
                               b.shape().drop_back(2)));
    std::vector<int64_t> shapeA = batch, shapeB = batch;
    shapeA.insert(shapeA.end(), {m, k});
    shapeB.insert(shapeB.end(), {k, n});
    TRY(ba, broadcastTo(ctx, a, shapeA));
    TRY(bb, broadcastTo(ctx, b, shapeB));
    int64_t count = product(batch);
    TRY(a3, reshape(ctx, ba, {count, m, k}));
    TRY(b3, reshape(ctx, bb, {count, k, n}));
    TRY(mm, ctx.call("nn.batch_matmul", {a3, b3},
                     {attr("transpose_a", boolValue(false)),
                      attr("transpose_b", boolValue(false))}));
    result = mm;
    outShape = batch;
  }
  if (!vecA)
    outShape.push_back(m);
  if (!vecB)
    outShape.push_back(n);
  return reshape(ctx, result, outShape);
}

Result convertMatMul(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(out, matmul(ctx, ctx.input(0), ctx.input(1)));
  return one(out);
}

/// \p x as int32 minus its zero point (input \p zpInput, when given); a 1-D
/// zero point applies along axis \p axis of \p x.
Expected<Value> centerInt32(NodeContext &ctx, const Value &x, size_t zpInput,
                            int64_t axis) {
  TRY(x32, cast(ctx, x, DataType::int32()));
  if (!ctx.hasInput(zpInput))
    return x32;
  TRY(zp, cast(ctx, ctx.input(zpInput), DataType::int32()));
  if (zp.rank() == 1 && zp.shape()[0] != 1) {
    if (axis < 0 || axis >= x.rank() || zp.shape()[0] != x.shape()[axis])
      return ctx.error(formatv("zero point of {0} values does not match "
                               "axis {1} of the operand",
                               zp.shape()[0], axis)
                           .str());
    std::vector<int64_t> shape(x.rank() - axis, 1);
    shape[0] = zp.shape()[0];
    TRY(r, reshape(ctx, zp, shape));
    zp = r;
  } else if (zp.rank() > 1) {
    return ctx.unsupported("a zero point of rank > 1");
  }
  return binary(ctx, "subtract", x32, zp);
}

/// round_half_even(v) + zero point, saturated to \p outType (uint8 or int8).
Expected<Value> requantize(NodeContext &ctx, const Value &v,
                           std::optional<Value> zeroPoint, DataType outType) {
  if (outType != DataType::uint8() && outType != DataType::int8())
    return ctx.unsupported("quantization to " + outType.str());
  TRY(rounded, unary(ctx, "round", v));
  Value y = rounded;
  if (zeroPoint) {
    TRY(zp, cast(ctx, *zeroPoint, v.dtype()));
    TRY(s, binary(ctx, "add", y, zp));
    y = s;
  }
  bool isU8 = outType == DataType::uint8();
  TRY(lo, binary(ctx, "maximum", y, scalarLike(ctx, y, isU8 ? 0 : -128)));
  TRY(hi, binary(ctx, "minimum", lo, scalarLike(ctx, y, isU8 ? 255 : 127)));
  return cast(ctx, hi, outType);
}

/// The QLinear operators' output: requantize(acc * scaleA * scaleB / y_scale)
/// with y_zero_point (inputs \p yScale and yScale + 1); acc is int32.
Expected<Value> qlinearOutput(NodeContext &ctx, const Value &acc,
                              const Value &scaleA, const Value &scaleB,
                              size_t yScale) {
  TRY(accf, cast(ctx, acc, ctx.input(yScale).dtype()));
  TRY(scale, binary(ctx, "multiply", scaleA, scaleB));
  TRY(scaled, binary(ctx, "multiply", accf, scale));
  TRY(q, binary(ctx, "divide", scaled, ctx.input(yScale)));
  const Value &zp = ctx.input(yScale + 1);
  return requantize(ctx, q, zp, zp.dtype());
}

/// MatMulInteger: (A - a_zero_point) x (B - b_zero_point) in int32; a 1-D
/// a_zero_point is per row of A, b_zero_point per column of B.
Result convertMatMulInteger(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 4))
    return err;
  const Value &a = ctx.input(0), &b = ctx.input(1);
  TRY(a32, centerInt32(ctx, a, 2, a.rank() - 2));
  TRY(b32, centerInt32(ctx, b, 3, b.rank() - 1));
  TRY(out, matmul(ctx, a32, b32));
  return one(out);
}

/// QLinearMatMul: requantize((a - a_zp) x (b - b_zp) * a_scale * b_scale /
/// y_scale) with y_zero_point; scales per tensor, or per row of a and per
/// column of b.
Result convertQLinearMatMul(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(8, 8))
    return err;
  const Value &a = ctx.input(0), &b = ctx.input(3);
  TRY(a32, centerInt32(ctx, a, 2, a.rank() - 2));
  TRY(b32, centerInt32(ctx, b, 5, b.rank() - 1));
  TRY(acc, matmul(ctx, a32, b32));
  Value aScale = ctx.input(1);
  if (aScale.rank() == 1 && aScale.shape()[0] != 1) {
    TRY(r, reshape(ctx, aScale, {aScale.shape()[0], 1}));
    aScale = r;
  }
  TRY(out, qlinearOutput(ctx, acc, aScale, ctx.input(4), 6));
  return one(out);
}

Result convertGemm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(alpha, ctx.getFloat("alpha", 1.0));
  TRY(beta, ctx.getFloat("beta", 1.0));
  TRY(transA, ctx.getInt("transA", 0));
  TRY(transB, ctx.getInt("transB", 0));
  const Value &a = ctx.input(0), &b = ctx.input(1);
  if (a.rank() != 2 || b.rank() != 2)
    return ctx.error("Gemm operands must be matrices");
  TRY(mm, dense(ctx, a, b, transA, transB));
  Value y = mm;
  if (alpha != 1.0) {
    TRY(s, binary(ctx, "multiply", y, scalarLike(ctx, y, alpha)));
    y = s;
  }
  if (ctx.hasInput(2) && beta != 0.0) {
    Value c = ctx.input(2);
    if (beta != 1.0) {
      TRY(s, binary(ctx, "multiply", c, scalarLike(ctx, c, beta)));
      c = s;
    }
    TRY(sum, binary(ctx, "add", y, c));
    y = sum;
  }
  return one(y);
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// Spatial attributes shared by Conv, ConvTranspose and the pools.
struct WindowAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads;
};

/// Reads kernel_shape (or takes \p kernel), strides, dilations, pads and
/// auto_pad for \p spatial axes of \p inShape, resolving SAME_* padding.
Expected<WindowAttrs> readWindow(NodeContext &ctx, ArrayRef<int64_t> inShape,
                                 std::vector<int64_t> kernel,
                                 bool hasDilations) {
  size_t spatial = inShape.size() - 2;
  WindowAttrs w;
  TRY(ks, ctx.getInts("kernel_shape", kernel));
  if (ks.size() != spatial)
    return ctx.error(formatv("kernel_shape has {0} entries for {1} spatial "
                             "axes",
                             ks.size(), spatial)
                         .str());
  w.kernel = ks;
  std::vector<int64_t> ones(spatial, 1), zeros(2 * spatial, 0);
  TRY(strides, ctx.getInts("strides", ones));
  TRY(dilations, hasDilations ? ctx.getInts("dilations", ones)
                              : Expected<std::vector<int64_t>>(ones));
  TRY(pads, ctx.getInts("pads", zeros));
  if (strides.size() != spatial || dilations.size() != spatial ||
      pads.size() != 2 * spatial)
    return ctx.error("strides, dilations or pads do not match the kernel's "
                     "rank");
  constexpr int64_t limit = int64_t(1) << 31;
  for (size_t i = 0; i < spatial; ++i)
    if (w.kernel[i] < 1 || w.kernel[i] > limit || strides[i] < 1 ||
        strides[i] > limit || dilations[i] < 1 || dilations[i] > limit)
      return ctx.error("kernel_shape, strides and dilations must be "
                       "positive and below 2^31");
  for (int64_t p : pads)
    if (p < 0 || p > limit)
      return ctx.error("pads must be in [0, 2^31]");
  w.strides = strides;
  w.dilations = dilations;
  w.pads = pads;
  TRY(autoPad, ctx.getString("auto_pad", "NOTSET"));
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < spatial; ++i) {
      int64_t in = inShape[i + 2], s = w.strides[i];
      int64_t out = (in + s - 1) / s;
      int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[i + spatial] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (autoPad != "NOTSET") {
    return ctx.error("unknown auto_pad '" + autoPad + "'");
  }
  return w;
}

/// The convolution of \p x by \p weight with the node's attributes (Conv,
/// ConvInteger, QLinearConv).
Expected<Value> convolution(NodeContext &ctx, const Value &x,
                            const Value &weight) {
  if (x.rank() < 3 || x.rank() > 5 || weight.rank() != x.rank())
    return ctx.unsupported(formatv("{0} of rank {1} (nnir has 1-D, 2-D and "
                                   "3-D convolutions)",
                                   ctx.getOpType(), x.rank())
                               .str());
  TRY(group, ctx.getInt("group", 1));
  TRY(w, readWindow(ctx, x.shape(),
                    std::vector<int64_t>(weight.shape().begin() + 2,
                                         weight.shape().end()),
                    true));
  StringRef op = x.rank() == 3 ? "nn.conv1d"
                 : x.rank() == 4 ? "nn.conv2d"
                                 : "nn.conv3d";
  TRY(conv, ctx.call(op, {x, weight},
                     {attr("strides", intList(w.strides)),
                      attr("padding", intList(w.pads)),
                      attr("dilation", intList(w.dilations)),
                      attr("groups", intValue(group)),
                      attr("channels", intValue(weight.shape()[0])),
                      attr("kernel_size", intList(w.kernel))}));
  return conv;
}

Result convertConv(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(conv, convolution(ctx, ctx.input(0), ctx.input(1)));
  if (!ctx.hasInput(2))
    return one(conv);
  TRY(out, ctx.call("nn.bias_add", {conv, ctx.input(2)},
                    {attr("axis", intValue(1))}));
  return one(out);
}

/// ConvInteger: (x - x_zero_point) * (w - w_zero_point) in int32; a 1-D
/// w_zero_point is per output channel.
Result convertConvInteger(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 4))
    return err;
  const Value &x = ctx.input(0), &w = ctx.input(1);
  TRY(x32, centerInt32(ctx, x, 2, 1));
  TRY(w32, centerInt32(ctx, w, 3, 0));
  TRY(out, convolution(ctx, x32, w32));
  return one(out);
}

/// QLinearConv: requantize(((x - x_zp) * (w - w_zp) + B) * x_scale * w_scale
/// / y_scale) with y_zero_point; w_scale and w_zero_point per tensor or per
/// output channel.
Result convertQLinearConv(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(8, 9))
    return err;
  const Value &x = ctx.input(0), &w = ctx.input(3);
  TRY(x32, centerInt32(ctx, x, 2, 1));
  TRY(w32, centerInt32(ctx, w, 5, 0));
  TRY(acc, convolution(ctx, x32, w32));
  if (ctx.hasInput(8)) {
    TRY(b32, cast(ctx, ctx.input(8), DataType::int32()));
    TRY(biased,
        ctx.call("nn.bias_add", {acc, b32}, {attr("axis", intValue(1))}));
    acc = biased;
  }
  Value wScale = ctx.input(4);
  if (wScale.rank() == 1 && wScale.shape()[0] != 1) {
    std::vector<int64_t> shape(acc.rank() - 1, 1);
    shape[0] = wScale.shape()[0];
    TRY(r, reshape(ctx, wScale, shape));
    wScale = r;
  }
  TRY(out, qlinearOutput(ctx, acc, ctx.input(1), wScale, 6));
  return one(out);
}

Result convertConvTranspose(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  Value x = ctx.input(0), weight = ctx.input(1);
  bool oneD = x.rank() == 3;
  if ((x.rank() != 3 && x.rank() != 4) || weight.rank() != x.rank())
    return ctx.unsupported(formatv("ConvTranspose of rank {0} (nnir has "
                                   "2-D transposed convolutions)",
                                   x.rank())
                               .str());
  TRY(group, ctx.getInt("group", 1));
  size_t spatial = x.rank() - 2;
  std::vector<int64_t> kernel(weight.shape().begin() + 2,
                              weight.shape().end());
  TRY(ks, ctx.getInts("kernel_shape", kernel));
  std::vector<int64_t> ones(spatial, 1), zeros(spatial, 0);
  TRY(strides, ctx.getInts("strides", ones));
  TRY(dilations, ctx.getInts("dilations", ones));
  TRY(outputPadding, ctx.getInts("output_padding", zeros));
  TRY(pads, ctx.getInts("pads", std::vector<int64_t>(2 * spatial, 0)));
  TRY(outputShape, ctx.getOptInts("output_shape"));
  TRY(autoPad, ctx.getString("auto_pad", "NOTSET"));
  if (ks.size() != spatial || strides.size() != spatial ||
      dilations.size() != spatial || outputPadding.size() != spatial ||
      pads.size() != 2 * spatial)
    return ctx.error("attribute lengths do not match the kernel's rank");
  if (outputShape && outputShape->size() < spatial)
    return ctx.error("output_shape has fewer entries than spatial axes");
  constexpr int64_t limit = int64_t(1) << 31;
  for (size_t i = 0; i < spatial; ++i)
    if (ks[i] < 1 || ks[i] > limit || strides[i] < 1 || strides[i] > limit ||
        dilations[i] < 1 || dilations[i] > limit || outputPadding[i] < 0 ||
        outputPadding[i] > limit)
      return ctx.error("kernel_shape, strides and dilations must be positive, "
                       "and output_padding not negative, all up to 2^31");
  if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < spatial; ++i) {
      // The full extent, strides * (in - 1) + output_padding + (kernel - 1)
      // * dilation + 1, less the target, in * strides or output_shape's: an
      // input extent or an output_shape near int64's limits overflows.
      int64_t in = x.shape()[i + 2], full, target, total;
      if (MulOverflow(strides[i], in - 1, full) ||
          AddOverflow(full, outputPadding[i] + (ks[i] - 1) * dilations[i] + 1,
                      full))
        return ctx.error("the full output extent overflows");
      if (outputShape)
        target = (*outputShape)[outputShape->size() - spatial + i];
      else if (MulOverflow(in, strides[i], target))
        return ctx.error("the SAME output extent overflows");
      if (SubOverflow(full, target, total) || total < 0)
        return ctx.unsupported("output_shape larger than the full output");
      int64_t small = total / 2, large = total - small;
      bool lower = autoPad == "SAME_LOWER";
      pads[i] = lower ? large : small;
      pads[i + spatial] = lower ? small : large;
    }
  } else if (autoPad == "VALID") {
    std::fill(pads.begin(), pads.end(), 0);
  }
  if (oneD) {
    // As a 2-D transposed convolution of height 1.
    TRY(x4, reshape(ctx, x, {x.shape()[0], x.shape()[1], 1, x.shape()[2]}));
    TRY(w4, reshape(ctx, weight, {weight.shape()[0], weight.shape()[1], 1,
                                  weight.shape()[2]}));
    x = x4;
    weight = w4;
    ks.insert(ks.begin(), 1);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    outputPadding.insert(outputPadding.begin(), 0);
    pads = {0, pads[0], 0, pads[1]};
  }
  TRY(conv, ctx.call("nn.conv2d_transpose", {x, weight},
                     {attr("channels", intValue(weight.shape()[1] * group)),
                      attr("kernel_size", intList(ks)),
                      attr("strides", intList(strides)),
                      attr("output_padding", intList(outputPadding)),
                      attr("padding", intList(pads)),
                      attr("dilation", intList(dilations)),
                      attr("groups", intValue(group))}));
  Value y = conv;
  if (oneD) {
    std::vector<int64_t> shape{y.shape()[0], y.shape()[1], y.shape()[3]};
    TRY(r, reshape(ctx, y, shape));
    y = r;
  }
  if (!ctx.hasInput(2))
    return one(y);
  TRY(out, ctx.call("nn.bias_add", {y, ctx.input(2)},
                    {attr("axis", intValue(1))}));
  return one(out);
}

Result convertPool(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  bool isMax = ctx.getOpType() == "MaxPool";
  if (isMax && ctx.getNode().output_size() > 1 &&
      !ctx.getNode().output(1).empty())
    return ctx.unsupported("the Indices output of MaxPool");
  Value x = ctx.input(0);
  if (x.rank() < 3 || x.rank() > 5)
    return ctx.unsupported(formatv("{0} of rank {1} (nnir has 1-D, 2-D and "
                                   "3-D pools)",
                                   ctx.getOpType(), x.rank())
                               .str());
  TRY(w, readWindow(ctx, x.shape(), {}, isMax && ctx.getOpset() >= 10));
  TRY(ceilMode, ctx.getInt("ceil_mode", 0));
  TRY(countIncludePad, ctx.getInt("count_include_pad", 0));
  StringRef op = isMax ? "nn.max_pool2d" : "nn.avg_pool2d";
  // The nnir 2-D pool of the last two axes of \p in.
  auto pool2d = [&](const Value &in, ArrayRef<int64_t> kernel,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                    ArrayRef<int64_t> pads) -> Expected<Value> {
    SmallVector<NamedAttrValue, 8> attrs{
        attr("pool_size", intList(kernel)), attr("strides", intList(strides)),
        attr("dilation", intList(dilations)), attr("padding", intList(pads)),
        attr("ceil_mode", boolValue(ceilMode))};
    if (!isMax)
      attrs.push_back(attr("count_include_pad", boolValue(countIncludePad)));
    return ctx.call(op, {in}, attrs);
  };
  if (x.rank() == 5) {
    // A box is the product of its axes' windows, so a 3-D pool is a 2-D
    // pool over (H, W) and then a 1-D pool over D: the maximum of maxima,
    // and the mean of means (each divisor, with or without padding, is the
    // product of the axes' counts).
    ArrayRef<int64_t> s = x.shape();
    TRY(x4, reshape(ctx, x, {s[0], s[1] * s[2], s[3], s[4]}));
    TRY(hw, pool2d(x4, {w.kernel[1], w.kernel[2]}, {w.strides[1], w.strides[2]},
                   {w.dilations[1], w.dilations[2]},
                   {w.pads[1], w.pads[2], w.pads[4], w.pads[5]}));
    int64_t oh = hw.shape()[2], ow = hw.shape()[3];
    TRY(d4, reshape(ctx, hw, {s[0], s[1], s[2], oh * ow}));
    TRY(d, pool2d(d4, {w.kernel[0], 1}, {w.strides[0], 1}, {w.dilations[0], 1},
                  {w.pads[0], 0, w.pads[3], 0}));
    TRY(out, reshape(ctx, d, {s[0], s[1], d.shape()[2], oh, ow}));
    return one(out);
  }
  bool oneD = x.rank() == 3;
  if (oneD) {
    TRY(x4, reshape(ctx, x, {x.shape()[0], x.shape()[1], 1, x.shape()[2]}));
    x = x4;
    w.kernel.insert(w.kernel.begin(), 1);
    w.strides.insert(w.strides.begin(), 1);
    w.dilations.insert(w.dilations.begin(), 1);
    w.pads = {0, w.pads[0], 0, w.pads[1]};
  }
  TRY(pool, pool2d(x, w.kernel, w.strides, w.dilations, w.pads));
  if (!oneD)
    return one(pool);
  TRY(out, reshape(ctx, pool, {pool.shape()[0], pool.shape()[1],
                               pool.shape()[3]}));
  return one(out);
}

Result convertGlobalPool(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() < 3)
    return ctx.error("input must have rank 3 or more");
  std::vector<int64_t> axes;
  for (int64_t i = 2; i < x.rank(); ++i)
    axes.push_back(i);
  TRY(out, reduce(ctx, ctx.getOpType() == "GlobalMaxPool" ? "max" : "mean", x,
                  axes, true));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Recurrent layers
//===----------------------------------------------------------------------===//

/// Slice \p index of axis 0 of \p x, without that axis.
Expected<Value> takeFirstAxis(NodeContext &ctx, const Value &x, int64_t index) {
  TRY(s, sliceAxis(ctx, x, 0, index, index + 1));
  return reshape(ctx, s, x.shape().drop_front());
}

/// An RNN activation function by its ONNX name, with its alpha and beta
/// (NaN when the node gives none).
Expected<Value> rnnActivation(NodeContext &ctx, StringRef name, const Value &x,
                              double alpha, double beta) {
  auto orDefault = [](double v, double def) { return std::isnan(v) ? def : v; };
  auto affine = [&](double a, double b) -> Expected<Value> {
    TRY(ax, binary(ctx, "multiply", x, scalarLike(ctx, x, a)));
    return binary(ctx, "add", ax, scalarLike(ctx, x, b));
  };
  if (name == "Tanh")
    return unary(ctx, "tanh", x);
  if (name == "Sigmoid")
    return unary(ctx, "sigmoid", x);
  if (name == "Relu")
    return unary(ctx, "nn.relu", x);
  if (name == "Affine")
    return affine(orDefault(alpha, 1), orDefault(beta, 0));
  if (name == "LeakyRelu")
    return ctx.call("nn.leaky_relu", {x},
                    {attr("alpha", floatValue(orDefault(alpha, 0.01)))});
  if (name == "ScaledTanh") {
    TRY(bx, binary(ctx, "multiply", x, scalarLike(ctx, x, orDefault(beta, 1))));
    TRY(t, unary(ctx, "tanh", bx));
    return binary(ctx, "multiply", t, scalarLike(ctx, x, orDefault(alpha, 1)));
  }
  if (name == "HardSigmoid") {
    TRY(axb, affine(orDefault(alpha, 0.2), orDefault(beta, 0.5)));
    return ctx.call(
        "clip", {axb},
        {attr("a_min", floatValue(0)), attr("a_max", floatValue(1))});
  }
  return ctx.unsupported("the RNN activation '" + name + "'");
}

/// RNN, GRU and LSTM (opsets 7-14), unrolled over the static sequence
/// length: per direction, X times W for every step at once, then one
/// dense of the hidden state by R per step, the gates' activations and the
/// state update. Outputs Y, Y_h (and Y_c), in layout 0 or 1.
Result convertRecurrent(NodeContext &ctx) {
  StringRef type = ctx.getOpType();
  bool isLSTM = type == "LSTM", isGRU = type == "GRU";
  int64_t gates = isLSTM ? 4 : isGRU ? 3 : 1;
  if (Error err = ctx.checkNumInputs(3, isLSTM ? 8 : 6))
    return err;
  TRY(layout, ctx.getInt("layout", 0));
  TRY(direction, ctx.getString("direction", "forward"));
  TRY(hiddenAttr, ctx.getOptInt("hidden_size"));
  TRY(clipAttr, ctx.getFloat("clip", 0));
  TRY(linearBeforeReset,
      isGRU ? ctx.getInt("linear_before_reset", 0) : Expected<int64_t>(0));
  TRY(inputForget,
      isLSTM ? ctx.getInt("input_forget", 0) : Expected<int64_t>(0));
  TRY(names, ctx.getStrings("activations"));
  TRY(alphas, ctx.getFloats("activation_alpha"));
  TRY(betas, ctx.getFloats("activation_beta"));
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.error("unknown direction '" + direction + "'");
  if (inputForget)
    return ctx.unsupported("input_forget=1");
  int64_t numDirections = direction == "bidirectional" ? 2 : 1;

  Value x = ctx.input(0);
  const Value &w = ctx.input(1), &r = ctx.input(2);
  if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3)
    return ctx.error("X, W and R must have rank 3");
  if (layout) {
    TRY(t, ctx.call("transpose", {x}, {attr("axes", intList({1, 0, 2}))}));
    x = t;
  }
  int64_t steps = x.shape()[0], batch = x.shape()[1], inputSize = x.shape()[2];
  int64_t hidden = r.shape()[2];
  if (hiddenAttr && *hiddenAttr != hidden)
    return ctx.error(
        formatv("hidden_size {0} does not match R's {1}", *hiddenAttr, hidden)
            .str());
  if (w.shape()[0] != numDirections || w.shape()[1] != gates * hidden ||
      w.shape()[2] != inputSize || r.shape()[0] != numDirections ||
      r.shape()[1] != gates * hidden)
    return ctx.error("W or R does not match X, the direction and the hidden "
                     "size");
  if (ctx.hasInput(4)) {
    TRY(lens, ctx.constantInts(4, "sequence_lens"));
    for (int64_t len : lens)
      if (len != steps)
        return ctx.unsupported(formatv("sequence_lens other than the "
                                       "sequence length {0}",
                                       steps));
  }
  // The activations: f, g (and h) per direction.
  size_t perDirection = isLSTM ? 3 : isGRU ? 2 : 1;
  std::vector<std::string> defaults =
      isLSTM  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : isGRU ? std::vector<std::string>{"Sigmoid", "Tanh"}
              : std::vector<std::string>{"Tanh"};
  if (names.empty())
    for (int64_t d = 0; d < numDirections; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != perDirection * numDirections)
    return ctx.error(formatv("activations has {0} entries, expected {1}",
                             names.size(), perDirection * numDirections)
                         .str());
  auto activation = [&](int64_t d, size_t k, const Value &v) {
    size_t i = d * perDirection + k;
    double nan = std::numeric_limits<double>::quiet_NaN();
    return rnnActivation(ctx, names[i], v, i < alphas.size() ? alphas[i] : nan,
                         i < betas.size() ? betas[i] : nan);
  };
  auto clip = [&](const Value &v) -> Expected<Value> {
    if (clipAttr <= 0)
      return v;
    return ctx.call("clip", {v},
                    {attr("a_min", floatValue(-clipAttr)),
                     attr("a_max", floatValue(clipAttr))});
  };
  // The initial states, [D, B, H], in layout 1 [B, D, H].
  auto initial = [&](size_t i) -> Expected<std::optional<Value>> {
    if (!ctx.hasInput(i))
      return std::nullopt;
    Value v = ctx.input(i);
    if (layout) {
      TRY(t, ctx.call("transpose", {v}, {attr("axes", intList({1, 0, 2}))}));
      v = t;
    }
    if (v.shape() != ArrayRef<int64_t>{numDirections, batch, hidden})
      return ctx.error("an initial state does not match [directions, batch, "
                       "hidden_size]");
    return std::optional<Value>(v);
  };
  TRY(initialH, initial(5));
  TRY(initialC,
      isLSTM ? initial(6) : Expected<std::optional<Value>>(std::nullopt));
  TRY(x2, reshape(ctx, x, {steps * batch, inputSize}));

  std::vector<Value> ys, lastH, lastC;
  for (int64_t d = 0; d < numDirections; ++d) {
    TRY(wd, takeFirstAxis(ctx, w, d));
    TRY(rd, takeFirstAxis(ctx, r, d));
    // GRU without linear_before_reset multiplies r * H by R's h rows alone.
    Value rZR = rd, rH = rd;
    if (isGRU && !linearBeforeReset) {
      TRY(zr, sliceAxis(ctx, rd, 0, 0, 2 * hidden));
      TRY(hRows, sliceAxis(ctx, rd, 0, 2 * hidden, 3 * hidden));
      rZR = zr;
      rH = hRows;
    }
    // X W^T (+ Wb, and Rb where it is not applied after the reset gate).
    TRY(xw, ctx.call("nn.dense", {x2, wd},
                     {attr("units", intValue(gates * hidden))}));
    Value xwb = xw;
    std::optional<Value> rbH; // GRU's Rb of the hidden gate.
    if (ctx.hasInput(3)) {
      TRY(bd, takeFirstAxis(ctx, ctx.input(3), d));
      if (bd.shape()[0] != 2 * gates * hidden)
        return ctx.error("B does not match the hidden size");
      TRY(wb, sliceAxis(ctx, bd, 0, 0, gates * hidden));
      TRY(rb, sliceAxis(ctx, bd, 0, gates * hidden, 2 * gates * hidden));
      Value bias = wb;
      if (isGRU && linearBeforeReset) {
        TRY(rzr, sliceAxis(ctx, rb, 0, 0, 2 * hidden));
        TRY(rh, sliceAxis(ctx, rb, 0, 2 * hidden, 3 * hidden));
        TRY(zeros, binary(ctx, "multiply", rh, scalarLike(ctx, rh, 0)));
        TRY(rb2, ctx.call("concatenate", {ctx.tuple({rzr, zeros})},
                          {attr("axis", intValue(0))}));
        rbH = rh;
        TRY(sum, binary(ctx, "add", wb, rb2));
        bias = sum;
      } else {
        TRY(sum, binary(ctx, "add", wb, rb));
        bias = sum;
      }
      TRY(withBias, binary(ctx, "add", xw, bias));
      xwb = withBias;
    }
    std::optional<Value> peephole[3];
    if (isLSTM && ctx.hasInput(7)) {
      TRY(pd, takeFirstAxis(ctx, ctx.input(7), d));
      if (pd.shape()[0] != 3 * hidden)
        return ctx.error("P does not match the hidden size");
      for (int64_t k = 0; k < 3; ++k) {
        TRY(pk, sliceAxis(ctx, pd, 0, k * hidden, (k + 1) * hidden));
        peephole[k] = pk;
      }
    }
    Value h, c;
    if (initialH) {
      TRY(h0, takeFirstAxis(ctx, *initialH, d));
      h = h0;
    } else {
      TRY(zero, ctx.createArray(x.dtype(), {batch, hidden}));
      h = ctx.constant(zero);
    }
    if (isLSTM) {
      if (initialC) {
        TRY(c0, takeFirstAxis(ctx, *initialC, d));
        c = c0;
      } else {
        TRY(zero, ctx.createArray(x.dtype(), {batch, hidden}));
        c = ctx.constant(zero);
      }
    }
    bool reverse = direction == "reverse" || d == 1;
    std::vector<Value> outputs(steps);
    for (int64_t i = 0; i < steps; ++i) {
      int64_t t = reverse ? steps - 1 - i : i;
      TRY(xt, sliceAxis(ctx, xwb, 0, t * batch, (t + 1) * batch));
      auto gate = [&](const Value &v, int64_t k) {
        return sliceAxis(ctx, v, 1, k * hidden, (k + 1) * hidden);
      };
      if (isGRU) {
        // Gates z, r, h.
        TRY(hr, ctx.call("nn.dense", {h, rZR},
                         {attr("units", intValue(rZR.shape()[0]))}));
        TRY(xz, gate(xt, 0));
        TRY(xr, gate(xt, 1));
        TRY(xh, gate(xt, 2));
        TRY(hz, gate(hr, 0));
        TRY(hrr, gate(hr, 1));
        TRY(zs, binary(ctx, "add", xz, hz));
        TRY(zc, clip(zs));
        TRY(z, activation(d, 0, zc));
        TRY(rs, binary(ctx, "add", xr, hrr));
        TRY(rc, clip(rs));
        TRY(rg, activation(d, 0, rc));
        Value hh;
        if (linearBeforeReset) {
          TRY(hhr, gate(hr, 2));
          Value lin = hhr;
          if (rbH) {
            TRY(b, binary(ctx, "add", hhr, *rbH));
            lin = b;
          }
          TRY(m, binary(ctx, "multiply", rg, lin));
          hh = m;
        } else {
          TRY(rh, binary(ctx, "multiply", rg, h));
          TRY(m, ctx.call("nn.dense", {rh, rH},
                          {attr("units", intValue(hidden))}));
          hh = m;
        }
        TRY(hs, binary(ctx, "add", xh, hh));
        TRY(hc, clip(hs));
        TRY(ht, activation(d, 1, hc));
        // H = (1 - z) * ht + z * H = ht + z * (H - ht).
        TRY(diff, binary(ctx, "subtract", h, ht));
        TRY(zd, binary(ctx, "multiply", z, diff));
        TRY(next, binary(ctx, "add", ht, zd));
        h = next;
      } else {
        TRY(hr, ctx.call("nn.dense", {h, rd},
                         {attr("units", intValue(gates * hidden))}));
        TRY(pre, binary(ctx, "add", xt, hr));
        if (!isLSTM) {
          TRY(pc, clip(pre));
          TRY(next, activation(d, 0, pc));
          h = next;
        } else {
          // Gates i, o, f, c; peepholes i, o, f.
          auto withPeephole = [&](Value v, int p,
                                  const Value &state) -> Expected<Value> {
            if (peephole[p]) {
              TRY(ps, binary(ctx, "multiply", *peephole[p], state));
              TRY(sum, binary(ctx, "add", v, ps));
              v = sum;
            }
            return clip(v);
          };
          TRY(pi, gate(pre, 0));
          TRY(po, gate(pre, 1));
          TRY(pf, gate(pre, 2));
          TRY(pcg, gate(pre, 3));
          TRY(ii, withPeephole(pi, 0, c));
          TRY(ig, activation(d, 0, ii));
          TRY(ff, withPeephole(pf, 2, c));
          TRY(fg, activation(d, 0, ff));
          TRY(cc, clip(pcg));
          TRY(cg, activation(d, 1, cc));
          TRY(fc, binary(ctx, "multiply", fg, c));
          TRY(icg, binary(ctx, "multiply", ig, cg));
          TRY(nextC, binary(ctx, "add", fc, icg));
          c = nextC;
          TRY(oo, withPeephole(po, 1, c));
          TRY(og, activation(d, 0, oo));
          TRY(hc, activation(d, 2, c));
          TRY(next, binary(ctx, "multiply", og, hc));
          h = next;
        }
      }
      outputs[t] = h;
    }
    TRY(y,
        ctx.call("stack", {ctx.tuple(outputs)}, {attr("axis", intValue(0))}));
    ys.push_back(y);
    lastH.push_back(h);
    if (isLSTM)
      lastC.push_back(c);
  }
  // Y [T, D, B, H]; Y_h, Y_c [D, B, H]; layout 1: [B, T, D, H], [B, D, H].
  TRY(y, ctx.call("stack", {ctx.tuple(ys)}, {attr("axis", intValue(1))}));
  TRY(yh, ctx.call("stack", {ctx.tuple(lastH)}, {attr("axis", intValue(0))}));
  Outputs outs{y, yh};
  if (isLSTM) {
    TRY(yc, ctx.call("stack", {ctx.tuple(lastC)}, {attr("axis", intValue(0))}));
    outs.push_back(yc);
  }
  if (layout) {
    TRY(yt, ctx.call("transpose", {outs[0]},
                     {attr("axes", intList({2, 0, 1, 3}))}));
    outs[0] = yt;
    for (size_t i = 1; i < outs.size(); ++i) {
      TRY(t,
          ctx.call("transpose", {outs[i]}, {attr("axes", intList({1, 0, 2}))}));
      outs[i] = t;
    }
  }
  outs.resize(std::min<size_t>(outs.size(), ctx.getNode().output_size()));
  return outs;
}

//===----------------------------------------------------------------------===//
// Resizing
//===----------------------------------------------------------------------===//

/// Resize (opsets 10-17) and Upsample (7-9) as image.resize2d of the last two
/// axes of an NCHW tensor. Scales and sizes must be known at import time.
/// image.resize2d derives each axis's scale from the input and output
/// extents (as TVM does), so `scales` whose input * scale is not a whole
/// number (a downscale by 0.6 of 4 elements gives 2 of them, where ONNX
/// maps coordinates through 2.4) are refused rather than computed with
/// another scale than ONNX's.
Result convertResize(NodeContext &ctx) {
  bool upsample = ctx.getOpType() == "Upsample";
  int64_t opset = ctx.getOpset();
  if (Error err = ctx.checkNumInputs(1, upsample ? 2 : 4))
    return err;
  const Value &x = ctx.input(0);
  // Inputs: Upsample-9 (X, scales); Resize-10 (X, scales); Resize-11+ (X,
  // roi, scales, sizes).
  size_t roiInput = 1, scalesInput = opset >= 11 && !upsample ? 2 : 1,
         sizesInput = 3;
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  if (upsample && opset < 9) {
    TRY(attrScales, ctx.getFloats("scales"));
    scales = attrScales;
  } else if (ctx.hasInput(scalesInput)) {
    TRY(values, ctx.constantFloats(scalesInput, "scales"));
    scales = values;
  }
  if (!upsample && opset >= 11 && ctx.hasInput(sizesInput)) {
    TRY(values, ctx.constantInts(sizesInput, "sizes"));
    sizes = values;
  }
  size_t rank = x.rank();
  if (!sizes.empty() && !scales.empty())
    return ctx.error("scales and sizes are both given");
  if (sizes.empty() && scales.empty())
    return ctx.error("neither scales nor sizes is given");
  if ((!sizes.empty() && sizes.size() != rank) ||
      (!scales.empty() && scales.size() != rank))
    return ctx.error(formatv("scales or sizes must have {0} values (the "
                             "input's rank)",
                             rank)
                         .str());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (!sizes.empty()) {
      out[i] = sizes[i];
    } else {
      if (!(scales[i] > 0) || !std::isfinite(scales[i]))
        return ctx.error("scales must be positive and finite");
      double extent = std::floor(double(x.shape()[i]) * scales[i]);
      if (extent > double(int64_t(1) << 40))
        return ctx.error("the output is too large");
      out[i] = int64_t(extent);
    }
    if (out[i] <= 0)
      return ctx.error("the output would be empty");
  }

  std::string mode = "nearest", coordMode, nearestMode = "round_prefer_floor";
  double cubicA = -0.75, extrapolation = 0;
  int64_t excludeOutside = 0;
  {
    TRY(m, ctx.getString("mode", "nearest"));
    mode = m;
  }
  if (upsample || opset < 11) {
    // Upsample and Resize-10: asymmetric coordinates, nearest rounds down.
    coordMode = "asymmetric";
    nearestMode = "floor";
  } else {
    TRY(c, ctx.getString("coordinate_transformation_mode", "half_pixel"));
    TRY(n, ctx.getString("nearest_mode", "round_prefer_floor"));
    TRY(a, ctx.getFloat("cubic_coeff_a", -0.75));
    TRY(e, ctx.getInt("exclude_outside", 0));
    TRY(v, ctx.getFloat("extrapolation_value", 0));
    coordMode = c;
    nearestMode = n;
    cubicA = a;
    excludeOutside = e;
    extrapolation = v;
    if (coordMode == "tf_crop_and_resize") {
      if (!ctx.hasInput(roiInput))
        return ctx.error("tf_crop_and_resize needs the roi input");
      TRY(values, ctx.constantFloats(roiInput, "roi"));
      if (values.size() != 2 * rank)
        return ctx.error(
            formatv("roi must have {0} values (twice the input's rank)",
                    2 * rank)
                .str());
      roi = values;
    }
  }
  if (mode == "bilinear" || mode == "linear")
    mode = "linear";
  else if (mode != "nearest" && mode != "cubic")
    return ctx.error("unknown mode '" + mode + "'");
  if (mode == "cubic" && (upsample || opset < 11))
    return ctx.error("mode 'cubic' needs opset 11 or later");

  if (rank < 2 || rank > 4)
    return ctx.unsupported(formatv("{0} of a tensor of rank {1} (nnir resizes "
                                   "the last two axes of a 2-D to 4-D tensor)",
                                   ctx.getOpType(), rank)
                               .str());
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (out[i] != x.shape()[i])
      return ctx.unsupported(formatv("resizing axis {0} (nnir resizes the "
                                     "last two axes)",
                                     i)
                                 .str());
    if (!roi.empty() && (roi[i] != 0 || roi[i + rank] != 1))
      return ctx.unsupported(
          formatv("a roi that crops axis {0} (nnir resizes the last two axes)",
                  i)
              .str());
  }
  // ONNX maps coordinates through input * scale, unrounded (align_corners
  // through input * scale - 1); image.resize2d through the output extent.
  if (!scales.empty())
    for (size_t i = rank - 2; i < rank; ++i)
      if (double(x.shape()[i]) * scales[i] != double(out[i]))
        return ctx.unsupported(
            formatv("scale {0} of axis {1}: {2} x {0} is not a whole number "
                    "(image.resize2d maps coordinates through the output "
                    "extent, ONNX through input x scale)",
                    scales[i], i, x.shape()[i]));

  // image.resize2d works on NCHW: give the tensor leading axes of 1.
  std::vector<int64_t> shape4(4 - rank, 1);
  shape4.insert(shape4.end(), x.shape().begin(), x.shape().end());
  TRY(x4, reshape(ctx, x, shape4));
  SmallVector<NamedAttrValue, 10> attrs{
      attr("size", intList({out[rank - 2], out[rank - 1]})),
      attr("layout", stringValue("NCHW")),
      attr("method", stringValue(mode == "nearest" ? "nearest_neighbor"
                                                   : StringRef(mode))),
      attr("coordinate_transformation_mode", stringValue(coordMode)),
      attr("rounding_method",
           stringValue(mode == "nearest" ? StringRef(nearestMode) : "")),
      attr("cubic_alpha", floatValue(cubicA)),
      attr("cubic_exclude", intValue(excludeOutside)),
      attr("extrapolation_value", floatValue(extrapolation))};
  if (!roi.empty())
    attrs.push_back(attr(
        "roi",
        AttrValue::array({floatValue(roi[rank - 2]), floatValue(roi[rank - 1]),
                          floatValue(roi[2 * rank - 2]),
                          floatValue(roi[2 * rank - 1])})));
  TRY(resized, ctx.call("image.resize2d", {x4}, attrs));
  TRY(y, reshape(ctx, resized, out));
  return one(y);
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

Result convertBatchNorm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(5, 5))
    return err;
  TRY(training, ctx.getInt("training_mode", 0));
  if (training)
    return ctx.unsupported("training_mode=1 (running statistics)");
  if (ctx.getOpset() < 9) {
    TRY(spatial, ctx.getInt("spatial", 1));
    if (!spatial)
      return ctx.unsupported("spatial=0");
  }
  TRY(epsilon, ctx.getFloat("epsilon", 1e-5));
  TRY(bn, ctx.call("nn.batch_norm",
                   {ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3),
                    ctx.input(4)},
                   {attr("axis", intValue(1)),
                    attr("epsilon", floatValue(epsilon))}));
  return one(ctx.getItem(bn, 0));
}

Result convertInstanceNorm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  TRY(epsilon, ctx.getFloat("epsilon", 1e-5));
  TRY(out, ctx.call("nn.instance_norm",
                    {ctx.input(0), ctx.input(1), ctx.input(2)},
                    {attr("axis", intValue(1)),
                     attr("epsilon", floatValue(epsilon))}));
  return one(out);
}

Result convertLayerNorm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", -1));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  TRY(epsilon, ctx.getFloat("epsilon", 1e-5));
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < x.rank(); ++i)
    axes.push_back(i);
  TRY(mean, reduce(ctx, "mean", x, axes, true));
  TRY(centered, binary(ctx, "subtract", x, mean));
  TRY(sq, binary(ctx, "multiply", centered, centered));
  TRY(var, reduce(ctx, "mean", sq, axes, true));
  TRY(ve, binary(ctx, "add", var, scalarLike(ctx, x, epsilon)));
  TRY(invStd, unary(ctx, "rsqrt", ve));
  TRY(normed, binary(ctx, "multiply", centered, invStd));
  TRY(scaled, binary(ctx, "multiply", normed, ctx.input(1)));
  Value y = scaled;
  if (ctx.hasInput(2)) {
    TRY(b, binary(ctx, "add", y, ctx.input(2)));
    y = b;
  }
  return Outputs{y, mean, invStd};
}

Result convertMeanVarianceNorm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  TRY(axesAttr, ctx.getInts("axes", {0, 2, 3}));
  std::vector<int64_t> axes;
  for (int64_t a : axesAttr) {
    TRY(axis, ctx.normalizeAxis(a, x.rank()));
    axes.push_back(axis);
  }
  TRY(mean, reduce(ctx, "mean", x, axes, true));
  TRY(centered, binary(ctx, "subtract", x, mean));
  TRY(sq, binary(ctx, "multiply", centered, centered));
  TRY(var, reduce(ctx, "mean", sq, axes, true));
  TRY(sd, unary(ctx, "sqrt", var));
  TRY(sde, binary(ctx, "add", sd, scalarLike(ctx, x, 1e-9)));
  TRY(out, binary(ctx, "divide", centered, sde));
  return one(out);
}

Result convertLRN(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(size, ctx.getOptInt("size"));
  if (!size)
    return ctx.error("attribute 'size' is required");
  TRY(alpha, ctx.getFloat("alpha", 1e-4));
  TRY(beta, ctx.getFloat("beta", 0.75));
  TRY(bias, ctx.getFloat("bias", 1.0));
  TRY(out, ctx.call("nn.lrn", {ctx.input(0)},
                    {attr("size", intValue(*size)), attr("axis", intValue(1)),
                     attr("bias", floatValue(bias)),
                     attr("alpha", floatValue(alpha)),
                     attr("beta", floatValue(beta))}));
  return one(out);
}

/// Softmax, LogSoftmax, Hardmax. Before opset 13 they flatten the input to
/// 2-D at `axis` (default 1); from 13 they work along `axis` (default -1).
Result convertSoftmax(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  bool legacy = ctx.getOpset() < 13;
  TRY(axisAttr, ctx.getInt("axis", legacy ? 1 : -1));
  TRY(axis, ctx.normalizeAxis(axisAttr, std::max<int64_t>(x.rank(), 1)));
  Value in = x;
  int64_t along = axis;
  if (legacy) {
    TRY(flat, reshape(ctx, x, {product(x.shape().take_front(axis)),
                               product(x.shape().drop_front(axis))}));
    in = flat;
    along = 1;
  }
  StringRef type = ctx.getOpType();
  Value y;
  if (type == "Hardmax") {
    TRY(idx, ctx.call("argmax", {in},
                      {attr("axis", intList({along})),
                       attr("keepdims", boolValue(false)),
                       attr("select_last_index", boolValue(false)),
                       attr("exclude", boolValue(false))}));
    TRY(hot, ctx.call("one_hot",
                      {idx, scalarLike(ctx, x, 1), scalarLike(ctx, x, 0)},
                      {attr("depth", intValue(in.shape()[along])),
                       attr("axis", intValue(along)),
                       attr("dtype", stringValue(x.dtype().str()))}));
    y = hot;
  } else {
    TRY(s, ctx.call(type == "Softmax" ? "nn.softmax" : "nn.log_softmax", {in},
                    {attr("axis", intValue(along))}));
    y = s;
  }
  TRY(out, reshape(ctx, y, x.shape()));
  return one(out);
}

/// Round: nnir's round rounds halves to even (llvm.roundeven), as ONNX.
Result convertRound(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(out, unary(ctx, "round", ctx.input(0)));
  return one(out);
}

/// Trilu: the input times a constant triangular mask of its last two axes.
Result convertTrilu(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() < 2)
    return ctx.error("input must have rank 2 or more");
  TRY(upper, ctx.getInt("upper", 1));
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    TRY(ks, ctx.constantInts(1, "k"));
    if (ks.size() != 1)
      return ctx.error("k must hold one value");
    k = ks[0];
  }
  int64_t rows = x.shape()[x.rank() - 2], cols = x.shape().back();
  TRY(mask, ctx.createArray(DataType::boolean(), {rows, cols}));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.setElementFromInt(i * cols + j, upper ? j - i >= k : j - i <= k);
  TRY(out, ctx.call("where", {ctx.constant(mask), x, scalarLike(ctx, x, 0)}));
  return one(out);
}

Result convertEyeLike(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() != 2)
    return ctx.error("input must be a matrix");
  TRY(k, ctx.getInt("k", 0));
  DataType dtype = x.dtype();
  TRY(code, ctx.getOptInt("dtype"));
  if (code) {
    TRY(d, dataTypeFromONNX(*code));
    dtype = d;
  }
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  TRY(eye, ctx.createArray(dtype, {rows, cols}));
  // Column i + k, where it is one: k may be any int64, so i + k is formed
  // only once it is known to be in [0, cols).
  for (int64_t i = 0; i < rows; ++i)
    if (k >= -i && k < cols - i)
      eye.setElementFromInt(i * cols + i + k, 1);
  return one(ctx.constant(eye));
}

/// HannWindow, HammingWindow and BlackmanWindow (opset 17): generalised
/// cosine windows of a size known at import, computed in double and stored
/// as a constant of output_datatype.
Result convertWindow(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(sizes, ctx.constantInts(0, "size"));
  if (sizes.size() != 1)
    return ctx.error("size must be a scalar");
  int64_t size = sizes[0];
  if (size <= 0)
    return ctx.unsupported(formatv("a window of size {0} (nnir has no empty "
                                   "tensors)",
                                   size));
  TRY(periodic, ctx.getInt("periodic", 1));
  TRY(code, ctx.getInt("output_datatype", onnx::TensorProto::FLOAT));
  TRY(dtype, dataTypeFromONNX(code));
  TRY(window, ctx.createArray(dtype, {size}));
  // a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
  double a[3] = {0.5, 0.5, 0};
  if (ctx.getOpType() == "HammingWindow")
    a[0] = 25.0 / 46, a[1] = 1 - a[0];
  else if (ctx.getOpType() == "BlackmanWindow")
    a[0] = 0.42, a[2] = 0.08;
  double n1 = double(periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    constexpr double pi = 3.14159265358979323846;
    double t = n1 > 0 ? 2 * pi * double(n) / n1 : 0;
    double v = a[0] - a[1] * std::cos(t) + a[2] * std::cos(2 * t);
    if (dtype.isFloatingPoint())
      window.setElementFromDouble(n, v);
    else
      window.setElementFromInt(n, int64_t(v));
  }
  return one(ctx.constant(window));
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth as reshape-transpose-reshape.
Result convertDepthSpace(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() != 4)
    return ctx.error("input must have rank 4");
  TRY(bs, ctx.getOptInt("blocksize"));
  if (!bs || *bs <= 0)
    return ctx.error("attribute 'blocksize' is required and positive");
  int64_t b = *bs, n = x.shape()[0], c = x.shape()[1], h = x.shape()[2],
          w = x.shape()[3];
  if (b > std::max({c, h, w, int64_t(1)}))
    return ctx.error("blocksize " + Twine(b) + " is larger than the input");
  std::vector<int64_t> mid, perm, outShape;
  if (ctx.getOpType() == "DepthToSpace") {
    if (c % (b * b))
      return ctx.error("channels are not a multiple of blocksize^2");
    TRY(mode, ctx.getString("mode", "DCR"));
    if (mode == "DCR") {
      mid = {n, b, b, c / (b * b), h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      mid = {n, c / (b * b), b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      return ctx.error("unknown mode '" + mode + "'");
    }
    outShape = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b || w % b)
      return ctx.error("spatial extents are not multiples of blocksize");
    mid = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    outShape = {n, c * b * b, h / b, w / b};
  }
  TRY(r, reshape(ctx, x, mid));
  TRY(t, ctx.call("transpose", {r}, {attr("axes", intList(perm))}));
  TRY(out, reshape(ctx, t, outShape));
  return one(out);
}

Result convertOneHot(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  const Value &indices = ctx.input(0), &values = ctx.input(2);
  TRY(depthValues, ctx.constantFloats(1, "depth"));
  if (depthValues.size() != 1)
    return ctx.error("depth must hold one value");
  if (!(depthValues[0] >= 1 && depthValues[0] <= double(int64_t(1) << 32)))
    return ctx.error("depth " + formatv("{0}", depthValues[0]).str() + " is out of range");
  int64_t depth = static_cast<int64_t>(depthValues[0]);
  if (values.rank() != 1 || values.shape()[0] != 2)
    return ctx.error("values must be [off_value, on_value]");
  TRY(axisAttr, ctx.getInt("axis", -1));
  TRY(axis, ctx.normalizeAxis(axisAttr, indices.rank() + 1));
  TRY(intIndices, cast(ctx, indices, DataType::int64()));
  TRY(wrapped, wrapIndices(ctx, intIndices, depth));
  TRY(off1, sliceAxis(ctx, values, 0, 0, 1));
  TRY(on1, sliceAxis(ctx, values, 0, 1, 2));
  TRY(off, reshape(ctx, off1, {}));
  TRY(on, reshape(ctx, on1, {}));
  TRY(out, ctx.call("one_hot", {wrapped, on, off},
                    {attr("depth", intValue(depth)),
                     attr("axis", intValue(axis)),
                     attr("dtype", stringValue(values.dtype().str()))}));
  return one(out);
}

/// The loss of NegativeLogLikelihoodLoss on log-probabilities \p input
/// (N, C, d1, ...) and integer \p target (N, d1, ...), reduced as asked.
Expected<Value> nllLoss(NodeContext &ctx, const Value &input,
                        const Value &target, std::optional<Value> weight,
                        StringRef reduction,
                        std::optional<int64_t> ignoreIndex) {
  if (input.rank() < 2 || target.rank() != input.rank() - 1)
    return ctx.error("input must be (N, C, ...) and target (N, ...)");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.error("unknown reduction '" + reduction + "'");
  Value t = target;
  std::optional<Value> keep;
  if (ignoreIndex) {
    TRY(ii, binary(ctx, "not_equal", t,
                   scalarLike(ctx, t, static_cast<double>(*ignoreIndex))));
    TRY(safe, ctx.call("where", {ii, t, scalarLike(ctx, t, 0)}));
    keep = ii;
    t = safe;
  }
  std::vector<int64_t> withChannel(t.shape().begin(), t.shape().end());
  withChannel.insert(withChannel.begin() + 1, 1);
  TRY(t1, reshape(ctx, t, withChannel));
  TRY(picked1, ctx.call("gather", {input, t1}, {attr("axis", intValue(1))}));
  TRY(picked, reshape(ctx, picked1, t.shape()));
  TRY(loss0, unary(ctx, "negative", picked));
  Value loss = loss0;
  std::optional<Value> w;
  if (weight) {
    TRY(wt, ctx.call("take", {*weight, t},
                     {attr("axis", intValue(0)),
                      attr("mode", stringValue("fast"))}));
    w = wt;
  }
  if (keep) {
    TRY(k, cast(ctx, *keep, input.dtype()));
    if (w) {
      TRY(wk, binary(ctx, "multiply", *w, k));
      w = wk;
    } else {
      w = k;
    }
  }
  if (w) {
    TRY(lw, binary(ctx, "multiply", loss, *w));
    loss = lw;
  }
  if (reduction == "none")
    return loss;
  std::vector<int64_t> all(loss.rank());
  std::iota(all.begin(), all.end(), 0);
  TRY(total, reduce(ctx, "sum", loss, all, false));
  if (reduction == "sum")
    return total;
  if (!w)
    return reduce(ctx, "mean", loss, all, false);
  TRY(wsum, reduce(ctx, "sum", *w, all, false));
  return binary(ctx, "divide", total, wsum);
}

Result convertNLLLoss(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(reduction, ctx.getString("reduction", "mean"));
  TRY(ignore, ctx.getOptInt("ignore_index"));
  std::optional<Value> weight;
  if (ctx.hasInput(2))
    weight = ctx.input(2);
  TRY(out, nllLoss(ctx, ctx.input(0), ctx.input(1), weight, reduction, ignore));
  return one(out);
}

Result convertSoftmaxCrossEntropy(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(reduction, ctx.getString("reduction", "mean"));
  TRY(ignore, ctx.getOptInt("ignore_index"));
  const Value &scores = ctx.input(0);
  if (scores.rank() < 2)
    return ctx.error("scores must be (N, C, ...)");
  TRY(logProb, ctx.call("nn.log_softmax", {scores},
                        {attr("axis", intValue(1))}));
  std::optional<Value> weight;
  if (ctx.hasInput(2))
    weight = ctx.input(2);
  TRY(loss, nllLoss(ctx, logProb, ctx.input(1), weight, reduction, ignore));
  return Outputs{loss, logProb};
}

/// DequantizeLinear: (x - zero_point) * scale, per tensor or per axis.
Result convertDequantize(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  const Value &x = ctx.input(0);
  Value scale = ctx.input(1);
  TRY(axisAttr, ctx.getInt("axis", 1));
  auto alongAxis = [&](const Value &v) -> Expected<Value> {
    if (v.rank() == 0 || x.rank() == 0)
      return v;
    TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
    std::vector<int64_t> shape(x.rank(), 1);
    shape[axis] = v.shape()[0];
    return reshape(ctx, v, shape);
  };
  TRY(xf, cast(ctx, x, scale.dtype()));
  Value centered = xf;
  if (ctx.hasInput(2)) {
    TRY(zp, cast(ctx, ctx.input(2), scale.dtype()));
    TRY(zpa, alongAxis(zp));
    TRY(c, binary(ctx, "subtract", xf, zpa));
    centered = c;
  }
  TRY(sa, alongAxis(scale));
  TRY(out, binary(ctx, "multiply", centered, sa));
  return one(out);
}

/// QuantizeLinear: saturate(round_half_even(x / scale) + zero_point).
Result convertQuantize(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 1));
  auto alongAxis = [&](const Value &v) -> Expected<Value> {
    if (v.rank() == 0 || x.rank() == 0)
      return v;
    TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
    std::vector<int64_t> shape(x.rank(), 1);
    shape[axis] = v.shape()[0];
    return reshape(ctx, v, shape);
  };
  DataType outType = DataType::uint8();
  std::optional<Value> zeroPoint;
  if (ctx.hasInput(2)) {
    outType = ctx.input(2).dtype();
    TRY(zpa, alongAxis(ctx.input(2)));
    zeroPoint = zpa;
  }
  TRY(sa, alongAxis(ctx.input(1)));
  TRY(q, binary(ctx, "divide", x, sa));
  TRY(out, requantize(ctx, q, zeroPoint, outType));
  return one(out);
}

/// DynamicQuantizeLinear: uint8 quantization with the scale and zero point
/// of the range of x extended to 0: scale = (max - min) / 255, zero point
/// = saturate(round(-min / scale)).
Result convertDynamicQuantize(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.dtype() != DataType::float32())
    return ctx.error("input must be float32, got " + x.dtype().str());
  std::vector<int64_t> axes(x.rank());
  std::iota(axes.begin(), axes.end(), 0);
  TRY(mn, reduce(ctx, "min", x, axes, false));
  TRY(mx, reduce(ctx, "max", x, axes, false));
  TRY(lo, binary(ctx, "minimum", mn, scalarLike(ctx, mn, 0)));
  TRY(hi, binary(ctx, "maximum", mx, scalarLike(ctx, mx, 0)));
  TRY(range, binary(ctx, "subtract", hi, lo));
  TRY(scale, binary(ctx, "divide", range, scalarLike(ctx, range, 255)));
  TRY(negLo, unary(ctx, "negative", lo));
  TRY(zpf, binary(ctx, "divide", negLo, scale));
  TRY(zp, requantize(ctx, zpf, std::nullopt, DataType::uint8()));
  TRY(q, binary(ctx, "divide", x, scale));
  TRY(y, requantize(ctx, q, zp, DataType::uint8()));
  return Outputs{y, scale, zp};
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

struct ConverterEntry {
  StringLiteral opType;
  ConverterFn fn;
};

const ConverterEntry kConverters[] = {
    {"Abs", convertUnary},
    {"Acos", convertUnary},
    {"Acosh", convertActivation},
    {"Add", convertBinary},
    {"And", convertBinary},
    {"ArgMax", convertArgReduce},
    {"ArgMin", convertArgReduce},
    {"Asin", convertUnary},
    {"Asinh", convertActivation},
    {"Atan", convertUnary},
    {"Atanh", convertActivation},
    {"AveragePool", convertPool},
    {"BatchNormalization", convertBatchNorm},
    {"BitShift", convertBitShift},
    {"BlackmanWindow", convertWindow},
    {"Cast", convertCast},
    {"CastLike", convertCastLike},
    {"Ceil", convertUnary},
    {"Celu", convertActivation},
    {"Clip", convertClip},
    {"Concat", convertConcat},
    {"Constant", convertConstant},
    {"ConstantOfShape", convertConstantOfShape},
    {"Conv", convertConv},
    {"ConvInteger", convertConvInteger},
    {"ConvTranspose", convertConvTranspose},
    {"Cos", convertUnary},
    {"CumSum", convertCumSum},
    {"Cosh", convertActivation},
    {"DepthToSpace", convertDepthSpace},
    {"DequantizeLinear", convertDequantize},
    {"Div", convertBinary},
    {"Dropout", convertDropout},
    {"Einsum", convertEinsum},
    {"DynamicQuantizeLinear", convertDynamicQuantize},
    {"Elu", convertActivation},
    {"Equal", convertBinary},
    {"Erf", convertUnary},
    {"Exp", convertUnary},
    {"Expand", convertExpand},
    {"EyeLike", convertEyeLike},
    {"Flatten", convertFlatten},
    {"Floor", convertUnary},
    {"GRU", convertRecurrent},
    {"Gather", convertGather},
    {"GatherElements", convertGatherElements},
    {"GatherND", convertGatherND},
    {"Gemm", convertGemm},
    {"GlobalAveragePool", convertGlobalPool},
    {"GlobalMaxPool", convertGlobalPool},
    {"Greater", convertBinary},
    {"GreaterOrEqual", convertBinary},
    {"HammingWindow", convertWindow},
    {"HannWindow", convertWindow},
    {"HardSigmoid", convertActivation},
    {"HardSwish", convertActivation},
    {"Hardmax", convertSoftmax},
    {"Identity", convertIdentity},
    {"InstanceNormalization", convertInstanceNorm},
    {"IsInf", convertActivation},
    {"IsNaN", convertUnary},
    {"LRN", convertLRN},
    {"LSTM", convertRecurrent},
    {"LayerNormalization", convertLayerNorm},
    {"LeakyRelu", convertActivation},
    {"Less", convertBinary},
    {"LessOrEqual", convertBinary},
    {"Log", convertUnary},
    {"LogSoftmax", convertSoftmax},
    {"MatMul", convertMatMul},
    {"MatMulInteger", convertMatMulInteger},
    {"Max", convertVariadic},
    {"MaxPool", convertPool},
    {"Mean", convertVariadic},
    {"MeanVarianceNormalization", convertMeanVarianceNorm},
    {"Min", convertVariadic},
    {"Mod", convertMod},
    {"Mul", convertBinary},
    {"Neg", convertUnary},
    {"NegativeLogLikelihoodLoss", convertNLLLoss},
    {"Not", convertUnary},
    {"OneHot", convertOneHot},
    {"Or", convertBinary},
    {"PRelu", convertPRelu},
    {"Pad", convertPad},
    {"Pow", convertPow},
    {"QLinearConv", convertQLinearConv},
    {"QLinearMatMul", convertQLinearMatMul},
    {"QuantizeLinear", convertQuantize},
    {"RNN", convertRecurrent},
    {"Range", convertRange},
    {"Reciprocal", convertReciprocal},
    {"ReduceL1", convertReduce},
    {"ReduceL2", convertReduce},
    {"ReduceLogSum", convertReduce},
    {"ReduceLogSumExp", convertReduce},
    {"ReduceMax", convertReduce},
    {"ReduceMean", convertReduce},
    {"ReduceMin", convertReduce},
    {"ReduceProd", convertReduce},
    {"ReduceSum", convertReduce},
    {"ReduceSumSquare", convertReduce},
    {"Relu", convertUnary},
    {"Reshape", convertReshape},
    {"Resize", convertResize},
    {"ReverseSequence", convertReverseSequence},
    {"Round", convertRound},
    {"Scatter", convertScatterElements},
    {"ScatterElements", convertScatterElements},
    {"ScatterND", convertScatterND},
    {"Selu", convertActivation},
    {"Shape", convertShape},
    {"Shrink", convertActivation},
    {"Sigmoid", convertUnary},
    {"Sign", convertUnary},
    {"Sin", convertUnary},
    {"Sinh", convertActivation},
    {"Size", convertSize},
    {"Slice", convertSlice},
    {"Softmax", convertSoftmax},
    {"SoftmaxCrossEntropyLoss", convertSoftmaxCrossEntropy},
    {"Softplus", convertActivation},
    {"Softsign", convertActivation},
    {"SpaceToDepth", convertDepthSpace},
    {"Split", convertSplit},
    {"Sqrt", convertUnary},
    {"Squeeze", convertSqueeze},
    {"Sub", convertBinary},
    {"Sum", convertVariadic},
    {"Tan", convertUnary},
    {"Tanh", convertUnary},
    {"ThresholdedRelu", convertActivation},
    {"Tile", convertTile},
    {"TopK", convertTopK},
    {"Transpose", convertTranspose},
    {"Trilu", convertTrilu},
    {"Unsqueeze", convertUnsqueeze},
    {"Upsample", convertResize},
    {"Where", convertWhere},
    {"Xor", convertBinary},
};

} // namespace

ConverterFn onnximport::lookupConverter(StringRef opType) {
  static const StringMap<ConverterFn> table = [] {
    StringMap<ConverterFn> map;
    for (const ConverterEntry &entry : kConverters)
      map[entry.opType] = entry.fn;
    return map;
  }();
  return table.lookup(opType);
}

StringRef onnximport::unsupportedReason(StringRef opType) {
  return StringSwitch<StringRef>(opType)
      .Cases("NonZero", "Unique", "Compress", "NonMaxSuppression",
             "the output shape depends on the input values")
      .Cases("Det", "GridSample", "RoiAlign", "MaxUnpool", "DFT", "STFT",
             "MelWeightMatrix", "nnir has no counterpart of this operator yet")
      .Cases("If", "Loop", "Scan",
             "control flow with subgraphs is not supported")
      .Cases("SequenceAt", "SequenceConstruct", "SequenceEmpty",
             "SequenceErase", "SequenceInsert", "SequenceLength", "SequenceMap",
             "ConcatFromSequence", "SplitToSequence",
             "sequences are not supported")
      .Cases("Optional", "OptionalGetElement", "OptionalHasElement",
             "optionals are not supported")
      .Cases("StringNormalizer", "TfIdfVectorizer", "RegexFullMatch",
             "strings are not supported")
      .Cases("RandomNormal", "RandomNormalLike", "RandomUniform",
             "RandomUniformLike", "Bernoulli", "Multinomial",
             "random number generation is not supported")
      .Cases("Adagrad", "Adam", "Momentum", "Gradient",
             "training operators are not supported")
      .Default("");
}
