//===- Elementwise.cpp - Unary and binary elementwise operators -----------===//
//
/// \file
/// Relay's elementwise operators with their type relations, fusion patterns
/// and flags: the unary ones (`exp`, `nn.relu`, `clip`, `cast`, `cast_like`,
/// `reinterpret`, `nn.leaky_relu`, ...; ElemWise) keep their input's type
/// (isnan/isinf/isfinite give bool, the casts take a new dtype); the binary
/// ones (`add`, ..., comparisons; Broadcast) broadcast numpy-style from the
/// right and require equal dtypes, comparisons give bool; `where` broadcasts
/// all three operands; `nn.prelu` (Broadcast) takes alpha along one axis.
/// Every one is a row of one table (kElementwiseOps): name, description,
/// arguments, fusion pattern, type relation, scalar compute and attribute
/// record; registration reads the table and nothing else.
///
/// The computes are the example of the two simplest kinds: *elementwise*
/// (`te::compute(x.shape, [&](i) { return f(x(i)); })`) and *broadcast*
/// (`te::broadcastShape` + `te::broadcastRead`). A row gives only f, the
/// scalar function; the pattern decides which of the two maps it. Both work
/// from the argument shapes alone, so their kernels can be shape-generic.
///
/// Where Relay's relation accepts a dtype that its compute then rejects, the
/// relation here rejects it at the call instead: logical operators take bool
/// tensors, bitwise ones integer or bool tensors, shifts integer tensors, and
/// reinterpret needs equal bit widths.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"
#include "nnir/TE/Broadcast.h"

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Type relations
//===----------------------------------------------------------------------===//

namespace {
/// The element types an operator accepts.
enum class DTypeClass { Any, Bool, IntegerOrBool, Integer };
} // namespace

/// True if \p dtype belongs to \p cls.
static bool isInClass(DataType dtype, DTypeClass cls) {
  switch (cls) {
  case DTypeClass::Any:
    return true;
  case DTypeClass::Bool:
    return dtype.isBool();
  case DTypeClass::IntegerOrBool:
    return dtype.isInteger() || dtype.isBool();
  case DTypeClass::Integer:
    return dtype.isInteger();
  }
  return false;
}

/// "bool", "integer or bool", "integer": what an operator of \p cls takes.
static StringRef describeClass(DTypeClass cls) {
  switch (cls) {
  case DTypeClass::Any:
    return "any";
  case DTypeClass::Bool:
    return "bool";
  case DTypeClass::IntegerOrBool:
    return "integer or bool";
  case DTypeClass::Integer:
    return "integer";
  }
  return "";
}

/// Unary operators: the input's type, restricted to \p Cls.
template <DTypeClass Cls>
static Expected<Ref<Type>> unaryRelation(ArrayRef<const Type *> args,
                                         const Attrs *attrs,
                                         const TypeRelationContext &ctx) {
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  if (!isInClass((*data)->getDType(), Cls))
    return ctx.error("expected a tensor of " + describeClass(Cls) +
                     " dtype, got " + (*data)->str());
  return identityRelation(args, attrs, ctx);
}

/// isnan, isinf, isfinite: the input's shape, bool.
static Expected<Ref<Type>>
unaryPredicateRelation(ArrayRef<const Type *> args, const Attrs *,
                       const TypeRelationContext &ctx) {
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  return makeTensorType((*data)->getShape(), DataType::boolean(), ctx);
}

/// Broadcasting binary operators on \p Cls operands; comparisons when
/// \p Compare (bool result).
template <DTypeClass Cls, bool Compare>
static Expected<Ref<Type>> binaryRelation(ArrayRef<const Type *> args,
                                          const Attrs *,
                                          const TypeRelationContext &ctx) {
  Expected<const TensorType *> lhs = getTensorArg(args, 0, "lhs", ctx);
  if (!lhs)
    return lhs.takeError();
  Expected<const TensorType *> rhs = getTensorArg(args, 1, "rhs", ctx);
  if (!rhs)
    return rhs.takeError();
  for (const TensorType *operand : {*lhs, *rhs})
    if (!isInClass(operand->getDType(), Cls))
      return ctx.error("expected operands of " + describeClass(Cls) +
                       " dtype, got " + operand->str());
  std::optional<DataType> outDType;
  if (Compare)
    outDType = DataType::boolean();
  return broadcastTypes(*lhs, *rhs, ctx, outDType);
}

/// clip: identity. As in Relay, a_min > a_max is accepted (every element
/// becomes a_min).
static Expected<Ref<Type>> clipRelation(ArrayRef<const Type *> args,
                                        const Attrs *attrs,
                                        const TypeRelationContext &ctx) {
  Expected<const ClipAttrs *> clip = getAttrs<ClipAttrs>(attrs, ctx);
  if (!clip)
    return clip.takeError();
  return identityRelation(args, attrs, ctx);
}

/// cast: the input's shape with the dtype attribute.
static Expected<Ref<Type>> castRelation(ArrayRef<const Type *> args,
                                        const Attrs *attrs,
                                        const TypeRelationContext &ctx) {
  Expected<const CastAttrs *> cast = getAttrs<CastAttrs>(attrs, ctx);
  if (!cast)
    return cast.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  if ((*cast)->dtype.isVoid())
    return ctx.error("the target dtype is not set");
  return makeTensorType((*data)->getShape(), (*cast)->dtype, ctx);
}

/// cast_like(data, dtype_like): data's shape with dtype_like's dtype.
static Expected<Ref<Type>> castLikeRelation(ArrayRef<const Type *> args,
                                            const Attrs *,
                                            const TypeRelationContext &ctx) {
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Expected<const TensorType *> like = getTensorArg(args, 1, "dtype_like", ctx);
  if (!like)
    return like.takeError();
  return makeTensorType((*data)->getShape(), (*like)->getDType(), ctx);
}

/// reinterpret: a bit cast to the dtype attribute. Relay's relation accepts
/// any pair of dtypes and leaves the check to lowering (tir's reinterpret
/// requires equal bit widths); nnir checks it here, so a module that cannot
/// be compiled is rejected where the call is: bits x lanes must be equal.
static Expected<Ref<Type>> reinterpretRelation(ArrayRef<const Type *> args,
                                               const Attrs *attrs,
                                               const TypeRelationContext &ctx) {
  Expected<const CastAttrs *> cast = getAttrs<CastAttrs>(attrs, ctx);
  if (!cast)
    return cast.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  DataType from = (*data)->getDType();
  DataType to = (*cast)->dtype;
  if (to.isVoid())
    return ctx.error("the target dtype is not set");
  auto bits = [](DataType dtype) { return dtype.getBits() * dtype.getLanes(); };
  auto describe = [&](DataType dtype) {
    return dtype.str() + " (" + std::to_string(bits(dtype)) +
           (bits(dtype) == 1 ? " bit)" : " bits)");
  };
  if (bits(from) != bits(to))
    return ctx.error("cannot reinterpret " + describe(from) + " as " +
                     describe(to) + ": the element sizes differ");
  return makeTensorType((*data)->getShape(), to, ctx);
}

/// nn.leaky_relu: identity.
static Expected<Ref<Type>> leakyReluRelation(ArrayRef<const Type *> args,
                                             const Attrs *attrs,
                                             const TypeRelationContext &ctx) {
  Expected<const LeakyReluAttrs *> leaky = getAttrs<LeakyReluAttrs>(attrs, ctx);
  if (!leaky)
    return leaky.takeError();
  return identityRelation(args, attrs, ctx);
}

/// nn.prelu(data, alpha): alpha is `[data.shape[axis]]` of data's dtype; the
/// result is data's type. A negative axis counts from the end.
static Expected<Ref<Type>> preluRelation(ArrayRef<const Type *> args,
                                         const Attrs *attrs,
                                         const TypeRelationContext &ctx) {
  Expected<const PReluAttrs *> prelu = getAttrs<PReluAttrs>(attrs, ctx);
  if (!prelu)
    return prelu.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Expected<const TensorType *> alpha = getTensorArg(args, 1, "alpha", ctx);
  if (!alpha)
    return alpha.takeError();
  Expected<unsigned> axis =
      normalizeAxis((*prelu)->axis, (*data)->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  int64_t channels = (*data)->getShape()[*axis];
  ArrayRef<int64_t> alphaShape = (*alpha)->getShape();
  if (alphaShape.size() != 1 || alphaShape[0] != channels ||
      (*alpha)->getDType() != (*data)->getDType())
    return ctx.error("expected alpha of type " +
                     TensorType::get({channels}, (*data)->getDType())->str() +
                     " (data.shape[" + Twine(*axis) + "] of " + (*data)->str() +
                     "), got " + (*alpha)->str());
  return identityRelation(args, attrs, ctx);
}

/// where(condition, x, y): x and y have one dtype; the result is the
/// broadcast of all three shapes, with x's dtype. The condition's dtype is
/// not checked (Relay's WhereRel does not either; nonzero means true).
static Expected<Ref<Type>> whereRelation(ArrayRef<const Type *> args,
                                         const Attrs *,
                                         const TypeRelationContext &ctx) {
  Expected<const TensorType *> cond = getTensorArg(args, 0, "condition", ctx);
  if (!cond)
    return cond.takeError();
  Expected<const TensorType *> x = getTensorArg(args, 1, "x", ctx);
  if (!x)
    return x.takeError();
  Expected<const TensorType *> y = getTensorArg(args, 2, "y", ctx);
  if (!y)
    return y.takeError();
  Expected<Ref<Type>> xy = broadcastTypes(*x, *y, ctx);
  if (!xy)
    return xy.takeError();
  const auto *xyType = cast<TensorType>(xy->get());
  std::optional<Shape> shape =
      broadcastShapes((*cond)->getShape(), xyType->getShape());
  if (!shape)
    return ctx.error("cannot broadcast " + (*cond)->str() + " with " +
                     xyType->str());
  return makeTensorType(*shape, (*x)->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// Computes
//===----------------------------------------------------------------------===//

namespace {
/// The scalar function of an elementwise operator: one output element from
/// the elements of its mapped operands at one (broadcast) index, \p x; the
/// call's attributes and argument tensors are in \p args.
using ScalarFn = te::Expr (*)(ArrayRef<te::Expr> x, const ComputeArgs &args);
/// A compute that is not a scalar function mapped by the pattern.
using ComputeFn = Expected<std::vector<te::Tensor>> (*)(const ComputeArgs &);
} // namespace

/// ElemWise: `out(i) = fn(x(i))` over the first argument (the others, such
/// as cast_like's dtype_like, are read through \p args only).
static Expected<std::vector<te::Tensor>> mapCompute(const ComputeArgs &args,
                                                    ScalarFn fn) {
  const te::Tensor &x = args.arg(0);
  return std::vector<te::Tensor>{compute(
      x.getShape(), [&](ArrayRef<te::Expr> i) { return fn({x(i)}, args); },
      "elemwise")};
}

/// Broadcast: `out(i) = fn(a(bcast i), b(bcast i), ...)` over every
/// argument.
static Expected<std::vector<te::Tensor>>
broadcastCompute(const ComputeArgs &args, ScalarFn fn) {
  SmallVector<te::Tensor, 3> operands;
  for (size_t i = 0, e = args.args.size(); i != e; ++i)
    operands.push_back(args.arg(i));
  std::vector<te::Expr> shape = operands[0].getShape();
  for (const te::Tensor &t : ArrayRef(operands).drop_front()) {
    std::optional<std::vector<te::Expr>> joined =
        te::broadcastShape(shape, t.getShape());
    if (!joined)
      return computeError("operand shapes do not broadcast");
    shape = *joined;
  }
  return std::vector<te::Tensor>{compute(
      shape,
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 3> values;
        for (const te::Tensor &t : operands)
          values.push_back(te::broadcastRead(t, i));
        return fn(values, args);
      },
      "broadcast")};
}

template <te::Intrinsic F>
static te::Expr intrinsic(ArrayRef<te::Expr> x, const ComputeArgs &) {
  return te::call(F, {x[0]});
}

/// floor, ceil, round and trunc leave integers unchanged.
template <te::Intrinsic F>
static te::Expr rounding(ArrayRef<te::Expr> x, const ComputeArgs &) {
  return x[0].getDType().isFloatingPoint() ? te::call(F, {x[0]}) : x[0];
}

template <te::BinaryOp Op>
static te::Expr binaryOp(ArrayRef<te::Expr> x, const ComputeArgs &) {
  return te::binary(Op, x[0], x[1]);
}

static te::Expr negative(ArrayRef<te::Expr> x, const ComputeArgs &) {
  return te::neg(x[0]);
}

static te::Expr logicalNot(ArrayRef<te::Expr> x, const ComputeArgs &) {
  return te::logicalNot(x[0]);
}

static te::Expr copy(ArrayRef<te::Expr> x, const ComputeArgs &) { return x[0]; }

template <int Value>
static te::Expr fill(ArrayRef<te::Expr> x, const ComputeArgs &) {
  return te::constant(x[0].getDType(), Value);
}

static te::Expr relu(ArrayRef<te::Expr> x, const ComputeArgs &) {
  return te::max(x[0], te::constant(x[0].getDType(), 0));
}

/// Truncating for integers (as divide), trunc(a / b) for floats.
static te::Expr truncDivide(ArrayRef<te::Expr> x, const ComputeArgs &) {
  te::Expr q = x[0] / x[1];
  return x[0].getDType().isFloatingPoint() ? te::call(te::Intrinsic::Trunc, {q})
                                           : q;
}

static te::Expr clip(ArrayRef<te::Expr> x, const ComputeArgs &args) {
  const auto *attrs = cast<ClipAttrs>(args.attrs);
  DataType t = x[0].getDType();
  return te::max(te::min(x[0], te::constant(t, attrs->aMax)),
                 te::constant(t, attrs->aMin));
}

static te::Expr castTo(ArrayRef<te::Expr> x, const ComputeArgs &args) {
  return te::cast(cast<CastAttrs>(args.attrs)->dtype, x[0]);
}

static te::Expr castLike(ArrayRef<te::Expr> x, const ComputeArgs &args) {
  return te::cast(args.arg(1).getDType(), x[0]);
}

static te::Expr reinterpret(ArrayRef<te::Expr> x, const ComputeArgs &args) {
  return te::reinterpret(cast<CastAttrs>(args.attrs)->dtype, x[0]);
}

static te::Expr leakyRelu(ArrayRef<te::Expr> x, const ComputeArgs &args) {
  double alpha = cast<LeakyReluAttrs>(args.attrs)->alpha;
  DataType t = x[0].getDType();
  return te::select(x[0] > te::constant(t, 0), x[0],
                    x[0] * te::constant(t, alpha));
}

/// where(condition, x, y); a nonzero condition selects x.
static te::Expr where(ArrayRef<te::Expr> x, const ComputeArgs &) {
  return te::select(te::cast(DataType::boolean(), x[0]), x[1], x[2]);
}

/// nn.prelu reads alpha along one axis, not by NumPy broadcasting.
static Expected<std::vector<te::Tensor>> preluCompute(const ComputeArgs &args) {
  const te::Tensor &x = args.arg(0);
  const te::Tensor &alpha = args.arg(1);
  int64_t axis = cast<PReluAttrs>(args.attrs)->axis;
  if (axis < 0)
    axis += x.getRank();
  return std::vector<te::Tensor>{compute(
      x.getShape(),
      [&](ArrayRef<te::Expr> i) {
        te::Expr v = x(i);
        return te::select(v > te::constant(v.getDType(), 0), v,
                          v * alpha(i[axis]));
      },
      "prelu")};
}

//===----------------------------------------------------------------------===//
// The table of elementwise operators
//===----------------------------------------------------------------------===//

namespace {
using RelationFn = Expected<Ref<Type>> (*)(ArrayRef<const Type *> args,
                                           const Attrs *attrs,
                                           const TypeRelationContext &ctx);

/// One elementwise operator. To give every operator a new property, add a
/// field with a default here and fill it in the rows below; registration
/// reads the table and nothing else.
struct ElementwiseOpDef {
  StringLiteral name;
  StringLiteral description;
  /// The names of the tensor arguments, in order.
  ArrayRef<StringLiteral> args;
  /// Relay's TOpPattern. It also says how the compute maps the scalar
  /// function: ElemWise over the first argument, Broadcast over all.
  OpPatternKind pattern;
  RelationFn relation;
  /// What one output element is; null when `compute` says it all.
  ScalarFn scalar;
  /// Declares the attribute record of the op (withAttrs<T>), if it has one.
  void (*declareAttrs)(OpBuilder &) = nullptr;
  /// The whole compute, for an operator that is not a scalar function of
  /// its operands' elements at one index (nn.prelu).
  ComputeFn compute = nullptr;
};
} // namespace

template <typename AttrsT> static void withAttrs(OpBuilder &builder) {
  builder.setAttrsType<AttrsT>();
}

static constexpr StringLiteral kData[] = {"data"};
static constexpr StringLiteral kLhsRhs[] = {"lhs", "rhs"};
static constexpr StringLiteral kCastLikeArgs[] = {"data", "dtype_like"};
static constexpr StringLiteral kPReluArgs[] = {"data", "alpha"};
static constexpr StringLiteral kWhereArgs[] = {"condition", "x", "y"};
static constexpr StringLiteral kUnary = "elementwise unary operator";
static constexpr StringLiteral kBinary =
    "elementwise binary operator with numpy broadcasting";

using P = OpPatternKind;
using C = DTypeClass;
using I = te::Intrinsic;
using B = te::BinaryOp;

/// Every elementwise operator, in registration order. Unary operators are
/// Relay's RELAY_REGISTER_UNARY_OP ones (and fast_exp/fast_tanh/fast_erf,
/// which TVM's FastMath pass introduces), binary ones its
/// RELAY_REGISTER_BINARY_OP and RELAY_REGISTER_CMP_OP ones.
static const ElementwiseOpDef kElementwiseOps[] = {
    // name, description, arguments, pattern, type relation, scalar
    // compute[, attributes[, compute]]
    {"abs", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Abs>},
    {"negative", kUnary, kData, P::ElemWise, identityRelation, negative},
    {"exp", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Exp>},
    {"log", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Log>},
    {"log2", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Log2>},
    {"log10", kUnary, kData, P::ElemWise, identityRelation,
     intrinsic<I::Log10>},
    {"sqrt", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Sqrt>},
    {"rsqrt", kUnary, kData, P::ElemWise, identityRelation,
     intrinsic<I::Rsqrt>},
    {"erf", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Erf>},
    {"sigmoid", kUnary, kData, P::ElemWise, identityRelation,
     intrinsic<I::Sigmoid>},
    {"tanh", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Tanh>},
    {"sin", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Sin>},
    {"cos", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Cos>},
    {"tan", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Tan>},
    {"asin", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Asin>},
    {"acos", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Acos>},
    {"atan", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Atan>},
    {"floor", kUnary, kData, P::ElemWise, identityRelation, rounding<I::Floor>},
    {"ceil", kUnary, kData, P::ElemWise, identityRelation, rounding<I::Ceil>},
    {"round", kUnary, kData, P::ElemWise, identityRelation, rounding<I::Round>},
    {"trunc", kUnary, kData, P::ElemWise, identityRelation, rounding<I::Trunc>},
    {"sign", kUnary, kData, P::ElemWise, identityRelation, intrinsic<I::Sign>},
    {"logical_not", kUnary, kData, P::ElemWise, unaryRelation<C::Bool>,
     logicalNot},
    {"bitwise_not", kUnary, kData, P::ElemWise, unaryRelation<C::IntegerOrBool>,
     logicalNot},
    {"copy", kUnary, kData, P::ElemWise, identityRelation, copy},
    {"zeros_like", kUnary, kData, P::ElemWise, identityRelation, fill<0>},
    {"ones_like", kUnary, kData, P::ElemWise, identityRelation, fill<1>},
    {"isnan", kUnary, kData, P::ElemWise, unaryPredicateRelation,
     intrinsic<I::IsNan>},
    {"isinf", kUnary, kData, P::ElemWise, unaryPredicateRelation,
     intrinsic<I::IsInf>},
    {"isfinite", kUnary, kData, P::ElemWise, unaryPredicateRelation,
     intrinsic<I::IsFinite>},
    {"nn.relu", kUnary, kData, P::ElemWise, identityRelation, relu},
    {"fast_exp", kUnary, kData, P::ElemWise, identityRelation,
     intrinsic<I::Exp>},
    {"fast_tanh", kUnary, kData, P::ElemWise, identityRelation,
     intrinsic<I::Tanh>},
    {"fast_erf", kUnary, kData, P::ElemWise, identityRelation,
     intrinsic<I::Erf>},

    {"add", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::Add>},
    {"subtract", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::Sub>},
    {"multiply", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::Mul>},
    {"divide", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::Div>},
    {"floor_divide", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, false>, binaryOp<B::FloorDiv>},
    {"trunc_divide", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, false>, truncDivide},
    {"mod", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::TruncMod>},
    {"floor_mod", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::FloorMod>},
    {"trunc_mod", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::TruncMod>},
    {"power", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::Pow>},
    {"maximum", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::Max>},
    {"minimum", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>,
     binaryOp<B::Min>},
    {"logical_and", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Bool, false>, binaryOp<B::And>},
    {"logical_or", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Bool, false>, binaryOp<B::Or>},
    {"logical_xor", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Bool, false>, binaryOp<B::Xor>},
    {"bitwise_and", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::IntegerOrBool, false>, binaryOp<B::And>},
    {"bitwise_or", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::IntegerOrBool, false>, binaryOp<B::Or>},
    {"bitwise_xor", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::IntegerOrBool, false>, binaryOp<B::Xor>},
    {"left_shift", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Integer, false>, binaryOp<B::Shl>},
    {"right_shift", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Integer, false>, binaryOp<B::Shr>},
    {"equal", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>,
     binaryOp<B::EQ>},
    {"not_equal", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>,
     binaryOp<B::NE>},
    {"less", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>,
     binaryOp<B::LT>},
    {"less_equal", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>,
     binaryOp<B::LE>},
    {"greater", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>,
     binaryOp<B::GT>},
    {"greater_equal", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, true>, binaryOp<B::GE>},

    {"clip", "clamp every element to [a_min, a_max]", kData, P::ElemWise,
     clipRelation, clip, withAttrs<ClipAttrs>},
    {"cast", "convert every element to dtype", kData, P::ElemWise, castRelation,
     castTo, withAttrs<CastAttrs>},
    {"cast_like", "convert every element to the dtype of dtype_like",
     kCastLikeArgs, P::ElemWise, castLikeRelation, castLike},
    {"reinterpret", "reinterpret the bits of every element as dtype", kData,
     P::ElemWise, reinterpretRelation, reinterpret, withAttrs<CastAttrs>},
    {"nn.leaky_relu", "x if x > 0, else alpha * x", kData, P::ElemWise,
     leakyReluRelation, leakyRelu, withAttrs<LeakyReluAttrs>},
    // Relay registers nn.prelu as Broadcast: alpha runs along one axis.
    {"nn.prelu", "x if x > 0, else alpha[c] * x along the channel axis",
     kPReluArgs, P::Broadcast, preluRelation, nullptr, withAttrs<PReluAttrs>,
     preluCompute},
    {"where", "select elements of x or y by a condition", kWhereArgs,
     P::Broadcast, whereRelation, where},
};

/// The compute of row \p def: its own, or its scalar function mapped as its
/// pattern says.
static TECompute makeCompute(const ElementwiseOpDef &def) {
  if (def.compute)
    return def.compute;
  ScalarFn fn = def.scalar;
  assert(fn && "an elementwise row without a compute");
  if (def.pattern == OpPatternKind::Broadcast)
    return [fn](const ComputeArgs &args) { return broadcastCompute(args, fn); };
  return [fn](const ComputeArgs &args) { return mapCompute(args, fn); };
}

void nnir::registerElementwiseOps() {
  OpRegistry &registry = OpRegistry::instance();
  for (const ElementwiseOpDef &def : kElementwiseOps) {
    OpBuilder builder = registry.add(def.name);
    builder.describe(def.description).setNumInputs(def.args.size());
    for (StringLiteral arg : def.args)
      builder.addArgument(arg, "Tensor");
    if (def.declareAttrs)
      def.declareAttrs(builder);
    // As Relay's elementwise registrations do, every one is marked
    // explicitly as not stateful.
    builder.setAttr<TypeRelationFn>(kTypeRelationAttr, def.relation)
        .setAttr<OpPatternKind>(kOpPatternAttr, def.pattern)
        .setAttr<bool>(kOpIsStatefulAttr, false)
        .setAttr<TECompute>(kTEComputeAttr, makeCompute(def))
        // The scalar functions mapped by NumPy's rule; rows with their own
        // compute (nn.prelu reads an axis) are shape-specific.
        .setAttr<bool>(kTEBroadcastRuleAttr, !def.compute);
  }
}
