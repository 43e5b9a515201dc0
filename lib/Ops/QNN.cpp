//===- QNN.cpp - Quantized operators ---------------------------------------===//
//
/// \file
/// The qnn.* operators with TVM v0.19's arguments (scales and zero points are
/// tensor arguments: float32 scales, int32 zero points, each a scalar or one
/// value per index of the channel axis), attribute records and type
/// relations, and their canonicalizations into primitive operators (see
/// nnir/Ops/QNN.h). Canonicalization needs the values of the scales where
/// the arithmetic depends on them (requantize's fixed-point multipliers, as
/// in TVM): those must be constants.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/QNN.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Builders.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/QNNAttrs.h"
#include "nnir/Ops/TypeRelations.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace llvm;
using namespace nnir;

const QnnCanonicalizeFn *nnir::getQnnCanonicalization(const Op *op) {
  const OpAttrMap<QnnCanonicalizeFn> *map =
      OpRegistry::instance().findAttrMap<QnnCanonicalizeFn>(
          kQnnCanonicalizeAttr);
  if (!map || !map->has(op))
    return nullptr;
  return &map->get(op);
}

//===----------------------------------------------------------------------===//
// Type relations
//===----------------------------------------------------------------------===//

/// TVM's channel axis: a negative axis counts from the end; rank 0 has axis 0.
static int64_t channelAxis(int64_t axis, unsigned rank) {
  if (axis >= 0)
    return axis;
  return rank > 0 ? int64_t(rank) + axis : 0;
}

/// Checks quantization parameter \p index (\p name): a tensor of \p dtype,
/// either a scalar or one value per index of the channel axis (of extent
/// \p extent); \p allowOne also accepts a single value of shape (1).
static Error checkQParam(ArrayRef<const Type *> args, unsigned index,
                         StringRef name, DataType dtype, int64_t extent,
                         bool allowOne, const TypeRelationContext &ctx) {
  Expected<const TensorType *> param = getTensorArg(args, index, name, ctx);
  if (!param)
    return param.takeError();
  const TensorType *t = *param;
  if (t->getDType() != dtype)
    return ctx.error("expected " + dtype.str() + " for '" + name + "', got " +
                     t->str());
  if (t->getRank() == 0)
    return Error::success();
  if (t->getRank() == 1 &&
      (t->getShape()[0] == extent || (allowOne && t->getShape()[0] == 1)))
    return Error::success();
  return ctx.error("expected a scalar or " + Twine(extent) +
                   " values (one per channel) for '" + name + "', got " +
                   t->str());
}

/// Checks the scale and zero point at \p index and index + 1 of a tensor
/// quantized along \p axis.
static Error checkQParams(ArrayRef<const Type *> args, unsigned index,
                          StringRef scaleName, StringRef zpName,
                          const TensorType *data, int64_t axis, bool allowOne,
                          const TypeRelationContext &ctx) {
  unsigned rank = data->getRank();
  int64_t normalized = channelAxis(axis, rank);
  bool perChannel = false;
  for (unsigned i : {index, index + 1})
    if (const auto *t = dyn_cast_or_null<TensorType>(args[i]))
      perChannel |= t->getRank() != 0 &&
                    !(allowOne && t->getRank() == 1 && t->getShape()[0] == 1);
  if (perChannel && (normalized < 0 || normalized >= int64_t(std::max(rank, 1u))))
    return ctx.error("axis " + Twine(axis) +
                     " is out of range for a tensor of rank " + Twine(rank));
  int64_t extent = rank > 0 && normalized >= 0 && normalized < int64_t(rank)
                       ? data->getShape()[normalized]
                       : 1;
  if (Error err = checkQParam(args, index, scaleName, DataType::float32(),
                              extent, allowOne, ctx))
    return err;
  return checkQParam(args, index + 1, zpName, DataType::int32(), extent,
                     allowOne, ctx);
}

/// Checks a scalar parameter (an output scale or zero point).
static Error checkScalarParam(ArrayRef<const Type *> args, unsigned index,
                              StringRef name, DataType dtype,
                              const TypeRelationContext &ctx) {
  Expected<const TensorType *> param = getTensorArg(args, index, name, ctx);
  if (!param)
    return param.takeError();
  if ((*param)->getDType() != dtype || (*param)->getRank() != 0)
    return ctx.error("expected a scalar " + dtype.str() + " for '" + name +
                     "', got " + (*param)->str());
  return Error::success();
}

/// An error unless \p dtype is one of \p allowed.
static Error checkDType(DataType dtype, ArrayRef<DataType> allowed,
                        StringRef what, const TypeRelationContext &ctx) {
  if (is_contained(allowed, dtype))
    return Error::success();
  std::string names;
  for (DataType d : allowed)
    names += (names.empty() ? "" : ", ") + d.str();
  return ctx.error(what + " must be one of [" + names + "], got " +
                   (dtype.isVoid() ? std::string("none") : dtype.str()));
}

static const DataType kQuantizedTypes[] = {
    DataType::int8(), DataType::uint8(), DataType::int16(), DataType::uint16(),
    DataType::int32()};

/// qnn.quantize: float32 data; out_dtype int8, uint8, int16, uint16, int32.
static RelationResult quantizeRelation(const QuantizeAttrs *attrs,
                                       const TensorType *data,
                                       ArrayRef<const Type *> args,
                                       const TypeRelationContext &ctx) {
  if (Error err = checkDType(data->getDType(), {DataType::float32()},
                             "the input type", ctx))
    return err;
  if (Error err = checkQParams(args, 1, "output_scale", "output_zero_point",
                               data, attrs->axis, /*allowOne=*/false, ctx))
    return err;
  if (Error err = checkDType(attrs->outDtype, kQuantizedTypes, "out_dtype", ctx))
    return err;
  return makeTensorType(data->getShape(), attrs->outDtype, ctx);
}

/// qnn.dequantize: quantized data; out_dtype float32 or float16.
static RelationResult dequantizeRelation(const DequantizeAttrs *attrs,
                                         const TensorType *data,
                                         ArrayRef<const Type *> args,
                                         const TypeRelationContext &ctx) {
  if (Error err =
          checkDType(data->getDType(), kQuantizedTypes, "the input type", ctx))
    return err;
  if (Error err = checkQParams(args, 1, "input_scale", "input_zero_point",
                               data, attrs->axis, /*allowOne=*/true, ctx))
    return err;
  if (Error err = checkDType(attrs->outDtype,
                             {DataType::float32(), DataType::float16()},
                             "out_dtype", ctx))
    return err;
  return makeTensorType(data->getShape(), attrs->outDtype, ctx);
}

/// qnn.requantize: per-tensor or per-channel input parameters, scalar
/// output parameters.
static RelationResult requantizeRelation(const RequantizeAttrs *attrs,
                                         const TensorType *data,
                                         ArrayRef<const Type *> args,
                                         const TypeRelationContext &ctx) {
  if (Error err = checkDType(data->getDType(),
                             {DataType::int8(), DataType::uint8(),
                              DataType::int16(), DataType::int32(),
                              DataType::int64()},
                             "the input type", ctx))
    return err;
  unsigned rank = data->getRank();
  int64_t axis = channelAxis(attrs->axis, rank);
  if (axis < 0 || axis >= int64_t(std::max(rank, 1u)))
    return ctx.error("axis " + Twine(attrs->axis) +
                     " is out of range for a tensor of rank " + Twine(rank));
  if (Error err = checkQParams(args, 1, "input_scale", "input_zero_point",
                               data, attrs->axis, /*allowOne=*/false, ctx))
    return err;
  if (Error err = checkScalarParam(args, 3, "output_scale",
                                   DataType::float32(), ctx))
    return err;
  if (Error err = checkScalarParam(args, 4, "output_zero_point",
                                   DataType::int32(), ctx))
    return err;
  if (Error err = checkDType(attrs->outDtype,
                             {DataType::int8(), DataType::uint8(),
                              DataType::int16(), DataType::int32()},
                             "out_dtype", ctx))
    return err;
  return makeTensorType(data->getShape(), attrs->outDtype, ctx);
}

/// qnn.add, qnn.subtract, qnn.mul: broadcasting lhs and rhs of one dtype,
/// each with its parameters along its own axis; scalar output parameters.
static RelationResult qnnBinaryRelation(const QnnBroadcastAttrs *attrs,
                                        const TensorType *lhs,
                                        const TensorType *rhs,
                                        ArrayRef<const Type *> args,
                                        const TypeRelationContext &ctx) {
  if (Error err = checkQParams(args, 2, "lhs_scale", "lhs_zero_point", lhs,
                               attrs->lhsAxis, /*allowOne=*/false, ctx))
    return err;
  if (Error err = checkQParams(args, 4, "rhs_scale", "rhs_zero_point", rhs,
                               attrs->rhsAxis, /*allowOne=*/false, ctx))
    return err;
  if (Error err = checkScalarParam(args, 6, "output_scale",
                                   DataType::float32(), ctx))
    return err;
  if (Error err = checkScalarParam(args, 7, "output_zero_point",
                                   DataType::int32(), ctx))
    return err;
  return broadcastTypes(lhs, rhs, ctx);
}

/// The type relation of the primitive operator \p name applied to the
/// first two arguments (qnn.dense and qnn.conv2d reuse nn.dense's and
/// nn.conv2d's), with an int32 result when the record has no out_dtype.
static RelationResult primitiveRelation(StringRef name,
                                        ArrayRef<const Type *> args,
                                        const Attrs *attrs, DataType outDtype,
                                        const TypeRelationContext &ctx) {
  const TypeRelationFn *relation = getTypeRelation(Op::lookup(name));
  if (!relation)
    return ctx.error(name + " is not registered");
  TypeRelationContext inner{ctx.opName, ctx.loc};
  RelationResult result = (*relation)(args.take_front(2), attrs, inner);
  if (!result || !outDtype.isVoid())
    return result;
  const auto *tensor = cast<TensorType>(result->get());
  return makeTensorType(tensor->getShape(), DataType::int32(), ctx);
}

static const DataType kMatmulInputTypes[] = {
    DataType::int8(), DataType::uint8(), DataType::int16(), DataType::uint16()};

/// The checks qnn.dense and qnn.conv2d share: quantized data and weight,
/// scalar input parameters, kernel parameters per tensor or per output
/// channel (\p channels of them).
static Error checkMatmulParams(const TensorType *data, const TensorType *weight,
                               int64_t channels, ArrayRef<const Type *> args,
                               const TypeRelationContext &ctx) {
  if (Error err =
          checkDType(data->getDType(), kMatmulInputTypes, "the data type", ctx))
    return err;
  if (Error err = checkDType(weight->getDType(), kMatmulInputTypes,
                             "the weight type", ctx))
    return err;
  if (Error err = checkScalarParam(args, 2, "input_zero_point",
                                   DataType::int32(), ctx))
    return err;
  if (Error err = checkScalarParam(args, 4, "input_scale",
                                   DataType::float32(), ctx))
    return err;
  if (Error err = checkQParam(args, 3, "kernel_zero_point", DataType::int32(),
                              channels, /*allowOne=*/false, ctx))
    return err;
  return checkQParam(args, 5, "kernel_scale", DataType::float32(), channels,
                     /*allowOne=*/false, ctx);
}

/// qnn.dense: data and weight [units, K]; the kernel's parameters are per
/// tensor or per output unit.
static RelationResult qnnDenseRelation(const DenseAttrs *attrs,
                                       const TensorType *data,
                                       const TensorType *weight,
                                       ArrayRef<const Type *> args,
                                       const TypeRelationContext &ctx) {
  int64_t units = weight->getRank() > 0 ? weight->getShape()[0] : 1;
  if (Error err = checkMatmulParams(data, weight, units, args, ctx))
    return err;
  return primitiveRelation("nn.dense", args, attrs, attrs->outDtype, ctx);
}

/// The position of the output channels ('O') in a kernel layout.
static unsigned getKernelOutputAxis(StringRef kernelLayout) {
  size_t pos = kernelLayout.find('O');
  return pos == StringRef::npos ? 0 : unsigned(pos);
}

/// qnn.conv2d: as nn.conv2d, with the kernel's parameters per tensor or per
/// output channel.
static RelationResult qnnConv2dRelation(const Conv2DAttrs *attrs,
                                        const TensorType *data,
                                        const TensorType *weight,
                                        ArrayRef<const Type *> args,
                                        const TypeRelationContext &ctx) {
  unsigned axis = getKernelOutputAxis(
      attrs->kernelLayout.empty() ? "OIHW" : attrs->kernelLayout);
  int64_t channels =
      axis < weight->getRank() ? weight->getShape()[axis] : int64_t(1);
  if (Error err = checkMatmulParams(data, weight, channels, args, ctx))
    return err;
  return primitiveRelation("nn.conv2d", args, attrs, attrs->outDtype, ctx);
}

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

namespace {

/// One argument of a QNN call being canonicalized: its expression and type.
struct Arg {
  Ref<Expr> expr;
  const TensorType *type;
  unsigned rank() const { return type->getRank(); }
};

/// The arguments of \p call with their types.
SmallVector<Arg, 8> getArgs(const Call &call, ArrayRef<const Type *> types) {
  SmallVector<Arg, 8> args;
  for (auto [expr, type] : zip(call.getArgs(), types))
    args.push_back({expr, cast<TensorType>(type)});
  return args;
}

/// The values of a constant argument, or none.
std::optional<SmallVector<double, 4>> getConstantValues(const Expr *e) {
  const auto *constant = dyn_cast<Constant>(e);
  if (!constant)
    return std::nullopt;
  const NDArray &data = constant->getData();
  SmallVector<double, 4> values;
  for (int64_t i = 0, n = data.getNumElements(); i < n; ++i)
    values.push_back(data.getElementAsDouble(i));
  return values;
}

/// True if \p e is a constant whose values are all 0 (a zero point that
/// changes nothing).
bool isZero(const Expr *e) {
  std::optional<SmallVector<double, 4>> values = getConstantValues(e);
  return values && all_of(*values, [](double v) { return v == 0; });
}

/// True if \p a and \p b are constant scalars of equal value.
bool isEqualScalar(const Expr *a, const Expr *b) {
  std::optional<SmallVector<double, 4>> x = getConstantValues(a),
                                        y = getConstantValues(b);
  return x && y && x->size() == 1 && y->size() == 1 && (*x)[0] == (*y)[0];
}

/// The values of the scale \p scale, which must be a constant.
Expected<SmallVector<double, 4>> getScaleValues(const Call &call,
                                                const Expr *scale,
                                                StringRef name) {
  std::optional<SmallVector<double, 4>> values = getConstantValues(scale);
  if (!values)
    return makeError(call.getLoc(),
                     call.getCalledOp()->getName() + ": cannot canonicalize: '" +
                         name + "' must be a constant");
  return *values;
}

/// A quantization parameter laid along axis \p axis of \p data; null when it
/// is a constant 0 (and \p dropZero).
Ref<Expr> alignParam(const Arg &param, const Arg &data, int64_t axis,
                     bool dropZero, SMLoc loc) {
  if (dropZero && isZero(param.expr.get()))
    return nullptr;
  unsigned rank = data.rank();
  unsigned normalized = unsigned(channelAxis(axis, rank));
  int64_t length = param.rank() ? param.type->getShape()[0] : 1;
  return qnn::alongAxis(param.expr, param.rank(), length, rank, normalized,
                        loc);
}

/// A float constant of \p values (a scalar when there is one) of \p dtype.
Ref<Expr> realConstant(DataType dtype, ArrayRef<double> values) {
  if (values.size() == 1)
    return Constant::getScalar(dtype, values[0]);
  Expected<NDArray> array = NDArray::create(dtype, {int64_t(values.size())});
  if (!array)
    report_fatal_error(array.takeError());
  for (size_t i = 0; i < values.size(); ++i)
    array->setElementFromDouble(i, values[i]);
  return Constant::get(std::move(*array));
}

/// What requantize needs to know besides its operands.
struct RequantizeParams {
  int64_t axis = -1;
  StringRef rounding = "None";
  StringRef computeDtype = "None";
  DataType outDtype = DataType::int32();
};

/// TVM's requantize lowering: x (an integer tensor with parameters
/// inScale/inZeroPoint along params.axis) re-expressed with the scalar
/// parameters outScale/outZeroPoint, rounded as params.rounding says ("None"
/// is UPWARD), computed in params.computeDtype ("None" is int64: fixed
/// point) and saturated to params.outDtype. The scales must be constants.
Expected<Ref<Expr>> lowerRequantize(const Call &call, const Arg &x,
                                    const Arg &inScale, const Arg &inZeroPoint,
                                    const Arg &outScale,
                                    const Arg &outZeroPoint,
                                    const RequantizeParams &params) {
  SMLoc loc = call.getLoc();
  StringRef opName = call.getCalledOp()->getName();
  StringRef rounding = params.rounding == "None" ? "UPWARD" : params.rounding;
  if (rounding != "UPWARD" && rounding != "TONEAREST")
    return makeError(loc, opName + ": rounding must be UPWARD or TONEAREST, "
                                   "got '" +
                              params.rounding + "'");
  StringRef compute =
      params.computeDtype == "None" ? "int64" : params.computeDtype;
  if (compute != "int64" && compute != "float32" && compute != "float64")
    return makeError(loc, opName + ": compute_dtype must be int64, float32 "
                                   "or float64, got '" +
                              params.computeDtype + "'");
  Expected<SmallVector<double, 4>> inScales =
      getScaleValues(call, inScale.expr.get(), "input_scale");
  if (!inScales)
    return inScales.takeError();
  Expected<SmallVector<double, 4>> outScales =
      getScaleValues(call, outScale.expr.get(), "output_scale");
  if (!outScales)
    return outScales.takeError();
  if ((*outScales)[0] == 0)
    return makeError(loc, opName + ": the output scale must not be 0");
  // The scales are float32 values; their ratio is taken in double.
  SmallVector<double, 4> multipliers;
  for (double s : *inScales)
    multipliers.push_back(double(float(s)) / double(float((*outScales)[0])));
  unsigned rank = x.rank();
  unsigned axis = unsigned(channelAxis(params.axis, rank));
  bool sameScale = isEqualScalar(inScale.expr.get(), outScale.expr.get());
  Ref<Expr> inZp = alignParam(inZeroPoint, x, params.axis, true, loc);
  Ref<Expr> outZp =
      isZero(outZeroPoint.expr.get()) ? nullptr : outZeroPoint.expr;
  Ref<Expr> result;
  if (compute == "int64") {
    result = qnn::centerInt32(x.expr, inZp, loc);
    if (!sameScale)
      result = qnn::fixedPointMultiply(
          result, multipliers, rank, axis,
          rounding == "UPWARD" ? qnn::Rounding::Upward
                               : qnn::Rounding::ToNearest,
          loc);
    if (outZp)
      result = ops::add(ops::cast(outZp, DataType::int32(), loc), result, loc);
  } else {
    DataType real = compute == "float32" ? DataType::float32()
                                         : DataType::float64();
    result = ops::cast(x.expr, real, loc);
    if (inZp)
      result = ops::subtract(result, ops::cast(inZp, real, loc), loc);
    if (!sameScale)
      result = ops::multiply(
          result,
          qnn::alongAxis(realConstant(real, multipliers),
                         multipliers.size() == 1 ? 0 : 1, multipliers.size(),
                         rank, axis, loc),
          loc);
    if (outZp)
      result = ops::add(result, ops::cast(outZp, real, loc), loc);
    Ref<Expr> half = Constant::getScalar(real, 0.5);
    Ref<Expr> up = ops::floor(ops::add(result, half, loc), loc);
    if (rounding == "TONEAREST") {
      Ref<Expr> down = ops::negative(
          ops::floor(ops::add(ops::negative(result, loc), half, loc), loc),
          loc);
      up = ops::where(ops::less(result, Constant::getScalar(real, 0), loc),
                      down, up, loc);
    }
    result = ops::cast(up, DataType::int32(), loc);
  }
  if (params.outDtype == DataType::int32())
    return result;
  return qnn::saturate(result, params.outDtype, loc);
}

Expected<Ref<Expr>> canonicalizeQuantize(const Call &call,
                                         ArrayRef<const Type *> types,
                                         const Type *) {
  const auto *attrs = call.getAttrsAs<QuantizeAttrs>();
  SmallVector<Arg, 8> a = getArgs(call, types);
  SMLoc loc = call.getLoc();
  return qnn::quantize(a[0].expr, alignParam(a[1], a[0], attrs->axis, false, loc),
                       alignParam(a[2], a[0], attrs->axis, true, loc),
                       attrs->outDtype, DataType::float32(), loc);
}

Expected<Ref<Expr>> canonicalizeDequantize(const Call &call,
                                           ArrayRef<const Type *> types,
                                           const Type *) {
  const auto *attrs = call.getAttrsAs<DequantizeAttrs>();
  SmallVector<Arg, 8> a = getArgs(call, types);
  SMLoc loc = call.getLoc();
  return qnn::dequantize(
      a[0].expr, alignParam(a[1], a[0], attrs->axis, false, loc),
      alignParam(a[2], a[0], attrs->axis, true, loc), DataType::float32(),
      attrs->outDtype, loc);
}

Expected<Ref<Expr>> canonicalizeRequantize(const Call &call,
                                           ArrayRef<const Type *> types,
                                           const Type *) {
  const auto *attrs = call.getAttrsAs<RequantizeAttrs>();
  SmallVector<Arg, 8> a = getArgs(call, types);
  RequantizeParams params;
  params.axis = attrs->axis;
  params.rounding = attrs->rounding;
  params.computeDtype = attrs->computeDtype;
  params.outDtype = attrs->outDtype;
  return lowerRequantize(call, a[0], a[1], a[2], a[3], a[4], params);
}

/// An operand of qnn.add/qnn.subtract in int32 with the output's
/// parameters (TVM's RequantizeOrUpcast).
Expected<Ref<Expr>> toOutputParams(const Call &call, ArrayRef<Arg> a,
                                   unsigned operand, int64_t axis) {
  const Arg &x = a[operand], &scale = a[2 + 2 * operand],
            &zp = a[3 + 2 * operand];
  if (isEqualScalar(scale.expr.get(), a[6].expr.get()) &&
      isEqualScalar(zp.expr.get(), a[7].expr.get()))
    return ops::cast(x.expr, DataType::int32(), call.getLoc());
  RequantizeParams params;
  params.axis = axis;
  return lowerRequantize(call, x, scale, zp, a[6], a[7], params);
}

/// qnn.add and qnn.subtract: both operands requantized to the output's
/// parameters, added (subtracted) in int32, the output zero point
/// corrected, saturated to the lhs's dtype.
template <bool IsAdd>
Expected<Ref<Expr>> canonicalizeAddSub(const Call &call,
                                       ArrayRef<const Type *> types,
                                       const Type *) {
  const auto *attrs = call.getAttrsAs<QnnBroadcastAttrs>();
  SmallVector<Arg, 8> a = getArgs(call, types);
  SMLoc loc = call.getLoc();
  Expected<Ref<Expr>> lhs = toOutputParams(call, a, 0, attrs->lhsAxis);
  if (!lhs)
    return lhs.takeError();
  Expected<Ref<Expr>> rhs = toOutputParams(call, a, 1, attrs->rhsAxis);
  if (!rhs)
    return rhs.takeError();
  Ref<Expr> out = IsAdd ? ops::add(*lhs, *rhs, loc)
                        : ops::subtract(*lhs, *rhs, loc);
  if (!isZero(a[7].expr.get())) {
    Ref<Expr> zp = ops::cast(a[7].expr, DataType::int32(), loc);
    out = IsAdd ? ops::subtract(out, zp, loc) : ops::add(out, zp, loc);
  }
  return qnn::saturate(out, a[0].type->getDType(), loc);
}

/// qnn.mul: (lhs - lhs_zp) * (rhs - rhs_zp) in int32 has the scale
/// lhs_scale * rhs_scale and zero point 0; it is requantized to the output's
/// parameters and the lhs's dtype. Per-tensor scales only.
Expected<Ref<Expr>> canonicalizeMul(const Call &call,
                                    ArrayRef<const Type *> types,
                                    const Type *resultType) {
  SmallVector<Arg, 8> a = getArgs(call, types);
  SMLoc loc = call.getLoc();
  if (a[2].rank() != 0 || a[4].rank() != 0 || a[3].rank() != 0 ||
      a[5].rank() != 0)
    return makeError(loc, "qnn.mul: cannot canonicalize per-channel "
                          "parameters (not implemented)");
  Expected<SmallVector<double, 4>> lhsScale =
      getScaleValues(call, a[2].expr.get(), "lhs_scale");
  if (!lhsScale)
    return lhsScale.takeError();
  Expected<SmallVector<double, 4>> rhsScale =
      getScaleValues(call, a[4].expr.get(), "rhs_scale");
  if (!rhsScale)
    return rhsScale.takeError();
  auto center = [&](const Arg &x, const Arg &zp) {
    return qnn::centerInt32(x.expr, isZero(zp.expr.get()) ? nullptr : zp.expr,
                            loc);
  };
  Ref<Expr> product =
      ops::multiply(center(a[0], a[3]), center(a[1], a[5]), loc);
  Ref<TensorType> productType = TensorType::get(
      cast<TensorType>(resultType)->getShape(),
      DataType::int32());
  Arg productArg{product, productType.get()};
  float scale = float((*lhsScale)[0]) * float((*rhsScale)[0]);
  Ref<Expr> scaleExpr = Constant::getScalar(DataType::float32(), scale);
  Ref<Expr> zeroExpr = Constant::getScalar(DataType::int32(), 0);
  Ref<TensorType> f32 = TensorType::getScalar(DataType::float32());
  Ref<TensorType> i32 = TensorType::getScalar(DataType::int32());
  RequantizeParams params;
  params.outDtype = a[0].type->getDType();
  return lowerRequantize(call, productArg, Arg{scaleExpr, f32.get()},
                         Arg{zeroExpr, i32.get()}, a[6], a[7], params);
}

/// The result of an int32 accumulation as \p outDtype.
Ref<Expr> castAccumulator(Ref<Expr> acc, DataType outDtype, SMLoc loc) {
  if (outDtype.isVoid() || outDtype == DataType::int32())
    return acc;
  return ops::cast(std::move(acc), outDtype, loc);
}

/// qnn.dense: nn.dense of the centred operands in int32 (the kernel's zero
/// point per output unit when it is a vector).
Expected<Ref<Expr>> canonicalizeDense(const Call &call,
                                      ArrayRef<const Type *> types,
                                      const Type *) {
  const auto *attrs = call.getAttrsAs<DenseAttrs>();
  SmallVector<Arg, 8> a = getArgs(call, types);
  SMLoc loc = call.getLoc();
  Ref<Expr> data = qnn::centerInt32(
      a[0].expr, isZero(a[2].expr.get()) ? nullptr : a[2].expr, loc);
  Ref<Expr> weight = qnn::centerInt32(
      a[1].expr, alignParam(a[3], a[1], 0, true, loc), loc);
  return castAccumulator(ops::dense(data, weight, attrs->units, loc),
                         attrs->outDtype, loc);
}

/// qnn.conv2d: nn.conv2d of the centred operands in int32 (the kernel's
/// zero point per output channel when it is a vector). Padding the centred
/// data with 0 is padding the data with its zero point, as TVM does.
Expected<Ref<Expr>> canonicalizeConv2d(const Call &call,
                                       ArrayRef<const Type *> types,
                                       const Type *) {
  const auto *attrs = call.getAttrsAs<Conv2DAttrs>();
  SmallVector<Arg, 8> a = getArgs(call, types);
  SMLoc loc = call.getLoc();
  Ref<Expr> data = qnn::centerInt32(
      a[0].expr, isZero(a[2].expr.get()) ? nullptr : a[2].expr, loc);
  unsigned axis = getKernelOutputAxis(
      attrs->kernelLayout.empty() ? "OIHW" : attrs->kernelLayout);
  Ref<Expr> kernelZp =
      isZero(a[3].expr.get())
          ? nullptr
          : qnn::alongAxis(a[3].expr, a[3].rank(),
                           a[3].rank() ? a[3].type->getShape()[0] : 1,
                           a[1].rank(), axis, loc);
  Ref<Expr> weight = qnn::centerInt32(a[1].expr, kernelZp, loc);
  Ref<Conv2DAttrs> conv = attrs->with(
      [](Conv2DAttrs &c) { c.outDtype = DataType::int32(); });
  return castAccumulator(ops::conv2d(data, weight, conv, loc), attrs->outDtype,
                         loc);
}

} // namespace

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Adds the arguments \p names (all tensors) to \p builder.
static OpBuilder &addArguments(OpBuilder &builder,
                               ArrayRef<const char *> names) {
  builder.setNumInputs(int(names.size()));
  for (const char *name : names)
    builder.addArgument(name, "Tensor");
  return builder;
}

/// Registers a QNN operator: arguments, record, relation, canonicalization.
template <typename AttrsT>
static void registerQnnOp(OpRegistry &registry, StringRef name,
                          StringRef description, ArrayRef<const char *> args,
                          TypeRelationFn relation,
                          QnnCanonicalizeFn canonicalize) {
  OpBuilder builder = registry.add(name);
  builder.describe(description);
  addArguments(builder, args);
  builder.setAttrsType<AttrsT>();
  builder.setAttr<TypeRelationFn>(kTypeRelationAttr, std::move(relation))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Opaque)
      .setAttr<QnnCanonicalizeFn>(kQnnCanonicalizeAttr,
                                  std::move(canonicalize));
}

void nnir::registerQNNOps() {
  OpRegistry &registry = OpRegistry::instance();
  registerQnnOp<QuantizeAttrs>(
      registry, "qnn.quantize",
      "quantize float32 data: saturate(round(data / scale) + zero_point)",
      {"data", "output_scale", "output_zero_point"},
      makeRelation<QuantizeAttrs>(quantizeRelation, "data"),
      canonicalizeQuantize);
  registerQnnOp<DequantizeAttrs>(
      registry, "qnn.dequantize",
      "dequantize quantized data: (data - zero_point) * scale",
      {"data", "input_scale", "input_zero_point"},
      makeRelation<DequantizeAttrs>(dequantizeRelation, "data"),
      canonicalizeDequantize);
  registerQnnOp<RequantizeAttrs>(
      registry, "qnn.requantize",
      "re-express quantized data with other scale and zero point",
      {"data", "input_scale", "input_zero_point", "output_scale",
       "output_zero_point"},
      makeRelation<RequantizeAttrs>(requantizeRelation, "data"),
      canonicalizeRequantize);
  const char *binaryArgs[] = {"lhs",          "rhs",
                              "lhs_scale",    "lhs_zero_point",
                              "rhs_scale",    "rhs_zero_point",
                              "output_scale", "output_zero_point"};
  TypeRelationFn binary =
      makeRelation<QnnBroadcastAttrs>(qnnBinaryRelation, "lhs", "rhs");
  registerQnnOp<QnnBroadcastAttrs>(registry, "qnn.add",
                                   "elementwise add of quantized tensors",
                                   binaryArgs, binary,
                                   canonicalizeAddSub<true>);
  registerQnnOp<QnnBroadcastAttrs>(
      registry, "qnn.subtract", "elementwise subtract of quantized tensors",
      binaryArgs, binary, canonicalizeAddSub<false>);
  registerQnnOp<QnnBroadcastAttrs>(registry, "qnn.mul",
                                   "elementwise multiply of quantized tensors",
                                   binaryArgs, binary, canonicalizeMul);
  const char *matmulArgs[] = {"data",       "weight",
                              "input_zero_point", "kernel_zero_point",
                              "input_scale",      "kernel_scale"};
  registerQnnOp<DenseAttrs>(
      registry, "qnn.dense", "dense layer of quantized tensors (int32 result)",
      matmulArgs, makeRelation<DenseAttrs>(qnnDenseRelation, "data", "weight"),
      canonicalizeDense);
  registerQnnOp<Conv2DAttrs>(
      registry, "qnn.conv2d",
      "2-D convolution of quantized tensors (int32 result)", matmulArgs,
      makeRelation<Conv2DAttrs>(qnnConv2dRelation, "data", "weight"),
      canonicalizeConv2d);
}

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::QnnCanonicalizeFn)
