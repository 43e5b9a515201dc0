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

// Each relation below is typed: the table's rows hand it to
// makeRelationForArgs(), which fetches the attribute record and the tensor
// arguments (named as the row names them) and reports their errors.

/// Unary operators (and clip, nn.leaky_relu): the input's type.
static RelationResult identity(const TensorType *data, ArrayRef<const Type *>,
                               const TypeRelationContext &) {
  return Ref<Type>(const_cast<TensorType *>(data));
}

/// Unary operators: the input's type, restricted to \p Cls.
template <DTypeClass Cls>
static RelationResult unaryRelation(const TensorType *data,
                                    ArrayRef<const Type *> args,
                                    const TypeRelationContext &ctx) {
  if (!isInClass(data->getDType(), Cls))
    return ctx.error("expected a tensor of " + describeClass(Cls) +
                     " dtype, got " + data->str());
  return identity(data, args, ctx);
}

/// isnan, isinf, isfinite: the input's shape, bool.
static RelationResult unaryPredicateRelation(const TensorType *data,
                                             ArrayRef<const Type *>,
                                             const TypeRelationContext &ctx) {
  return makeTensorType(data->getShape(), DataType::boolean(), ctx);
}

/// Broadcasting binary operators on \p Cls operands; comparisons when
/// \p Compare (bool result).
template <DTypeClass Cls, bool Compare>
static RelationResult
binaryRelation(const TensorType *lhs, const TensorType *rhs,
               ArrayRef<const Type *>, const TypeRelationContext &ctx) {
  for (const TensorType *operand : {lhs, rhs})
    if (!isInClass(operand->getDType(), Cls))
      return ctx.error("expected operands of " + describeClass(Cls) +
                       " dtype, got " + operand->str());
  std::optional<DataType> outDType;
  if (Compare)
    outDType = DataType::boolean();
  return broadcastTypes(lhs, rhs, ctx, outDType);
}

/// clip and nn.leaky_relu: identity, once the record is checked. As in
/// Relay, clip accepts a_min > a_max (every element becomes a_min).
template <typename AttrsT>
static RelationResult identityWithAttrs(const AttrsT *, const TensorType *data,
                                        ArrayRef<const Type *> args,
                                        const TypeRelationContext &ctx) {
  return identity(data, args, ctx);
}

/// cast: the input's shape with the dtype attribute.
static RelationResult castRelation(const CastAttrs *cast,
                                   const TensorType *data,
                                   ArrayRef<const Type *>,
                                   const TypeRelationContext &ctx) {
  if (cast->dtype.isVoid())
    return ctx.error("the target dtype is not set");
  return makeTensorType(data->getShape(), cast->dtype, ctx);
}

/// cast_like(data, dtype_like): data's shape with dtype_like's dtype.
static RelationResult castLikeRelation(const TensorType *data,
                                       const TensorType *like,
                                       ArrayRef<const Type *>,
                                       const TypeRelationContext &ctx) {
  return makeTensorType(data->getShape(), like->getDType(), ctx);
}

/// reinterpret: a bit cast to the dtype attribute. Relay's relation accepts
/// any pair of dtypes and leaves the check to lowering (tir's reinterpret
/// requires equal bit widths); nnir checks it here, so a module that cannot
/// be compiled is rejected where the call is: bits x lanes must be equal.
static RelationResult reinterpretRelation(const CastAttrs *cast,
                                          const TensorType *data,
                                          ArrayRef<const Type *>,
                                          const TypeRelationContext &ctx) {
  DataType from = data->getDType();
  DataType to = cast->dtype;
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
  return makeTensorType(data->getShape(), to, ctx);
}

/// nn.prelu(data, alpha): alpha is `[data.shape[axis]]` of data's dtype; the
/// result is data's type. A negative axis counts from the end.
static RelationResult preluRelation(const PReluAttrs *prelu,
                                    const TensorType *data,
                                    const TensorType *alpha,
                                    ArrayRef<const Type *> args,
                                    const TypeRelationContext &ctx) {
  Expected<unsigned> axis = normalizeAxis(prelu->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  int64_t channels = data->getShape()[*axis];
  ArrayRef<int64_t> alphaShape = alpha->getShape();
  if (alphaShape.size() != 1 || !dimsMatch(alphaShape[0], channels) ||
      alpha->getDType() != data->getDType())
    return ctx.error("expected alpha of type " +
                     TensorType::get({channels}, data->getDType())->str() +
                     " (data.shape[" + Twine(*axis) + "] of " + data->str() +
                     "), got " + alpha->str());
  return identity(data, args, ctx);
}

/// where(condition, x, y): x and y have one dtype; the result is the
/// broadcast of all three shapes, with x's dtype. The condition's dtype is
/// not checked (Relay's WhereRel does not either; nonzero means true).
static RelationResult whereRelation(const TensorType *cond, const TensorType *x,
                                    const TensorType *y, ArrayRef<const Type *>,
                                    const TypeRelationContext &ctx) {
  Expected<Ref<Type>> xy = broadcastTypes(x, y, ctx);
  if (!xy)
    return xy.takeError();
  const auto *xyType = cast<TensorType>(xy->get());
  std::optional<Shape> shape =
      broadcastShapes(cond->getShape(), xyType->getShape());
  if (!shape)
    return ctx.error("cannot broadcast " + cond->str() + " with " +
                     xyType->str());
  return makeTensorType(*shape, x->getDType(), ctx);
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
/// Makes a row's type relation at registration from the row's argument
/// names (see relation<>()).
using RelationMaker = TypeRelationFn (*)(ArrayRef<StringLiteral> argNames);

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
  RelationMaker relation;
  /// What one output element is; null when `compute` says it all.
  ScalarFn scalar;
  /// Declares the attribute record of the op (withAttrs<T>), if it has one.
  void (*declareAttrs)(OpBuilder &) = nullptr;
  /// The whole compute, for an operator that is not a scalar function of
  /// its operands' elements at one index (nn.prelu).
  ComputeFn compute = nullptr;
};
} // namespace

using P = OpPatternKind;
using C = DTypeClass;
using I = te::Intrinsic;
using B = te::BinaryOp;

template <typename AttrsT> static void withAttrs(OpBuilder &builder) {
  builder.setAttrsType<AttrsT>();
}

/// A row's type relation: the typed relation \p Fn behind the one adaptor,
/// with the attribute record AttrsT (void for none).
template <auto Fn, typename AttrsT = void>
static TypeRelationFn relation(ArrayRef<StringLiteral> argNames) {
  return makeRelationForArgs<AttrsT>(Fn, argNames);
}

/// The relations most rows share.
static constexpr RelationMaker kSameType = relation<identity>;
static constexpr RelationMaker kPredicate = relation<unaryPredicateRelation>;
static constexpr RelationMaker kArith = relation<binaryRelation<C::Any, false>>;
static constexpr RelationMaker kCompare =
    relation<binaryRelation<C::Any, true>>;
static constexpr RelationMaker kLogical =
    relation<binaryRelation<C::Bool, false>>;
static constexpr RelationMaker kBitwise =
    relation<binaryRelation<C::IntegerOrBool, false>>;
static constexpr RelationMaker kShift =
    relation<binaryRelation<C::Integer, false>>;

static constexpr StringLiteral kData[] = {"data"};
static constexpr StringLiteral kLhsRhs[] = {"lhs", "rhs"};
static constexpr StringLiteral kCastLikeArgs[] = {"data", "dtype_like"};
static constexpr StringLiteral kPReluArgs[] = {"data", "alpha"};
static constexpr StringLiteral kWhereArgs[] = {"condition", "x", "y"};
static constexpr StringLiteral kUnary = "elementwise unary operator";
static constexpr StringLiteral kBinary =
    "elementwise binary operator with numpy broadcasting";

/// Every elementwise operator, in registration order. Unary operators are
/// Relay's RELAY_REGISTER_UNARY_OP ones (and fast_exp/fast_tanh/fast_erf,
/// which TVM's FastMath pass introduces), binary ones its
/// RELAY_REGISTER_BINARY_OP and RELAY_REGISTER_CMP_OP ones.
static const ElementwiseOpDef kElementwiseOps[] = {
    // name, description, arguments, pattern, type relation, scalar
    // compute[, attributes[, compute]]
    {"abs", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Abs>},
    {"negative", kUnary, kData, P::ElemWise, kSameType, negative},
    {"exp", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Exp>},
    {"log", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Log>},
    {"log2", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Log2>},
    {"log10", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Log10>},
    {"sqrt", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Sqrt>},
    {"rsqrt", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Rsqrt>},
    {"erf", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Erf>},
    {"sigmoid", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Sigmoid>},
    {"tanh", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Tanh>},
    {"sin", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Sin>},
    {"cos", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Cos>},
    {"tan", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Tan>},
    {"asin", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Asin>},
    {"acos", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Acos>},
    {"atan", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Atan>},
    {"floor", kUnary, kData, P::ElemWise, kSameType, rounding<I::Floor>},
    {"ceil", kUnary, kData, P::ElemWise, kSameType, rounding<I::Ceil>},
    {"round", kUnary, kData, P::ElemWise, kSameType, rounding<I::Round>},
    {"trunc", kUnary, kData, P::ElemWise, kSameType, rounding<I::Trunc>},
    {"sign", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Sign>},
    {"logical_not", kUnary, kData, P::ElemWise,
     relation<unaryRelation<C::Bool>>, logicalNot},
    {"bitwise_not", kUnary, kData, P::ElemWise,
     relation<unaryRelation<C::IntegerOrBool>>, logicalNot},
    {"copy", kUnary, kData, P::ElemWise, kSameType, copy},
    {"zeros_like", kUnary, kData, P::ElemWise, kSameType, fill<0>},
    {"ones_like", kUnary, kData, P::ElemWise, kSameType, fill<1>},
    {"isnan", kUnary, kData, P::ElemWise, kPredicate, intrinsic<I::IsNan>},
    {"isinf", kUnary, kData, P::ElemWise, kPredicate, intrinsic<I::IsInf>},
    {"isfinite", kUnary, kData, P::ElemWise, kPredicate,
     intrinsic<I::IsFinite>},
    {"nn.relu", kUnary, kData, P::ElemWise, kSameType, relu},
    {"fast_exp", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Exp>},
    {"fast_tanh", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Tanh>},
    {"fast_erf", kUnary, kData, P::ElemWise, kSameType, intrinsic<I::Erf>},

    {"add", kBinary, kLhsRhs, P::Broadcast, kArith, binaryOp<B::Add>},
    {"subtract", kBinary, kLhsRhs, P::Broadcast, kArith, binaryOp<B::Sub>},
    {"multiply", kBinary, kLhsRhs, P::Broadcast, kArith, binaryOp<B::Mul>},
    {"divide", kBinary, kLhsRhs, P::Broadcast, kArith, binaryOp<B::Div>},
    {"floor_divide", kBinary, kLhsRhs, P::Broadcast, kArith,
     binaryOp<B::FloorDiv>},
    {"trunc_divide", kBinary, kLhsRhs, P::Broadcast, kArith, truncDivide},
    {"mod", kBinary, kLhsRhs, P::Broadcast, kArith, binaryOp<B::TruncMod>},
    {"floor_mod", kBinary, kLhsRhs, P::Broadcast, kArith,
     binaryOp<B::FloorMod>},
    {"trunc_mod", kBinary, kLhsRhs, P::Broadcast, kArith,
     binaryOp<B::TruncMod>},
    {"power", kBinary, kLhsRhs, P::Broadcast, kArith, binaryOp<B::Pow>},
    {"maximum", kBinary, kLhsRhs, P::Broadcast, kArith, binaryOp<B::Max>},
    {"minimum", kBinary, kLhsRhs, P::Broadcast, kArith, binaryOp<B::Min>},
    {"logical_and", kBinary, kLhsRhs, P::Broadcast, kLogical, binaryOp<B::And>},
    {"logical_or", kBinary, kLhsRhs, P::Broadcast, kLogical, binaryOp<B::Or>},
    {"logical_xor", kBinary, kLhsRhs, P::Broadcast, kLogical, binaryOp<B::Xor>},
    {"bitwise_and", kBinary, kLhsRhs, P::Broadcast, kBitwise, binaryOp<B::And>},
    {"bitwise_or", kBinary, kLhsRhs, P::Broadcast, kBitwise, binaryOp<B::Or>},
    {"bitwise_xor", kBinary, kLhsRhs, P::Broadcast, kBitwise, binaryOp<B::Xor>},
    {"left_shift", kBinary, kLhsRhs, P::Broadcast, kShift, binaryOp<B::Shl>},
    {"right_shift", kBinary, kLhsRhs, P::Broadcast, kShift, binaryOp<B::Shr>},
    {"equal", kBinary, kLhsRhs, P::Broadcast, kCompare, binaryOp<B::EQ>},
    {"not_equal", kBinary, kLhsRhs, P::Broadcast, kCompare, binaryOp<B::NE>},
    {"less", kBinary, kLhsRhs, P::Broadcast, kCompare, binaryOp<B::LT>},
    {"less_equal", kBinary, kLhsRhs, P::Broadcast, kCompare, binaryOp<B::LE>},
    {"greater", kBinary, kLhsRhs, P::Broadcast, kCompare, binaryOp<B::GT>},
    {"greater_equal", kBinary, kLhsRhs, P::Broadcast, kCompare,
     binaryOp<B::GE>},

    {"clip", "clamp every element to [a_min, a_max]", kData, P::ElemWise,
     relation<identityWithAttrs<ClipAttrs>, ClipAttrs>, clip,
     withAttrs<ClipAttrs>},
    {"cast", "convert every element to dtype", kData, P::ElemWise,
     relation<castRelation, CastAttrs>, castTo, withAttrs<CastAttrs>},
    {"cast_like", "convert every element to the dtype of dtype_like",
     kCastLikeArgs, P::ElemWise, relation<castLikeRelation>, castLike},
    {"reinterpret", "reinterpret the bits of every element as dtype", kData,
     P::ElemWise, relation<reinterpretRelation, CastAttrs>, reinterpret,
     withAttrs<CastAttrs>},
    {"nn.leaky_relu", "x if x > 0, else alpha * x", kData, P::ElemWise,
     relation<identityWithAttrs<LeakyReluAttrs>, LeakyReluAttrs>, leakyRelu,
     withAttrs<LeakyReluAttrs>},
    // Relay registers nn.prelu as Broadcast: alpha runs along one axis.
    {"nn.prelu", "x if x > 0, else alpha[c] * x along the channel axis",
     kPReluArgs, P::Broadcast, relation<preluRelation, PReluAttrs>, nullptr,
     withAttrs<PReluAttrs>, preluCompute},
    {"where", "select elements of x or y by a condition", kWhereArgs,
     P::Broadcast, relation<whereRelation>, where},
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
    builder.setAttr<TypeRelationFn>(kTypeRelationAttr, def.relation(def.args))
        .setAttr<OpPatternKind>(kOpPatternAttr, def.pattern)
        .setAttr<bool>(kOpIsStatefulAttr, false)
        .setAttr<TECompute>(kTEComputeAttr, makeCompute(def))
        // The scalar functions mapped by NumPy's rule; rows with their own
        // compute (nn.prelu reads an axis) are shape-specific.
        .setAttr<bool>(kTEBroadcastRuleAttr, !def.compute)
        // Every relation above keeps `?` extents (broadcastShapes has TVM's
        // rules for them).
        .setAttr<bool>(kDynamicShapesAttr, true);
  }
}
