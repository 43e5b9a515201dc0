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
/// arguments, fusion pattern, type relation and attribute record.
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
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

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
  /// Relay's TOpPattern.
  OpPatternKind pattern;
  RelationFn relation;
  /// Declares the attribute record of the op (withAttrs<T>), if it has one.
  void (*declareAttrs)(OpBuilder &) = nullptr;
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

/// Every elementwise operator, in registration order. Unary operators are
/// Relay's RELAY_REGISTER_UNARY_OP ones (and fast_exp/fast_tanh/fast_erf,
/// which TVM's FastMath pass introduces), binary ones its
/// RELAY_REGISTER_BINARY_OP and RELAY_REGISTER_CMP_OP ones.
static const ElementwiseOpDef kElementwiseOps[] = {
    // name, description, arguments, pattern, type relation[, attributes]
    {"abs", kUnary, kData, P::ElemWise, identityRelation},
    {"negative", kUnary, kData, P::ElemWise, identityRelation},
    {"exp", kUnary, kData, P::ElemWise, identityRelation},
    {"log", kUnary, kData, P::ElemWise, identityRelation},
    {"log2", kUnary, kData, P::ElemWise, identityRelation},
    {"log10", kUnary, kData, P::ElemWise, identityRelation},
    {"sqrt", kUnary, kData, P::ElemWise, identityRelation},
    {"rsqrt", kUnary, kData, P::ElemWise, identityRelation},
    {"erf", kUnary, kData, P::ElemWise, identityRelation},
    {"sigmoid", kUnary, kData, P::ElemWise, identityRelation},
    {"tanh", kUnary, kData, P::ElemWise, identityRelation},
    {"sin", kUnary, kData, P::ElemWise, identityRelation},
    {"cos", kUnary, kData, P::ElemWise, identityRelation},
    {"tan", kUnary, kData, P::ElemWise, identityRelation},
    {"asin", kUnary, kData, P::ElemWise, identityRelation},
    {"acos", kUnary, kData, P::ElemWise, identityRelation},
    {"atan", kUnary, kData, P::ElemWise, identityRelation},
    {"floor", kUnary, kData, P::ElemWise, identityRelation},
    {"ceil", kUnary, kData, P::ElemWise, identityRelation},
    {"round", kUnary, kData, P::ElemWise, identityRelation},
    {"trunc", kUnary, kData, P::ElemWise, identityRelation},
    {"sign", kUnary, kData, P::ElemWise, identityRelation},
    {"logical_not", kUnary, kData, P::ElemWise, unaryRelation<C::Bool>},
    {"bitwise_not", kUnary, kData, P::ElemWise,
     unaryRelation<C::IntegerOrBool>},
    {"copy", kUnary, kData, P::ElemWise, identityRelation},
    {"zeros_like", kUnary, kData, P::ElemWise, identityRelation},
    {"ones_like", kUnary, kData, P::ElemWise, identityRelation},
    {"isnan", kUnary, kData, P::ElemWise, unaryPredicateRelation},
    {"isinf", kUnary, kData, P::ElemWise, unaryPredicateRelation},
    {"isfinite", kUnary, kData, P::ElemWise, unaryPredicateRelation},
    {"nn.relu", kUnary, kData, P::ElemWise, identityRelation},
    {"fast_exp", kUnary, kData, P::ElemWise, identityRelation},
    {"fast_tanh", kUnary, kData, P::ElemWise, identityRelation},
    {"fast_erf", kUnary, kData, P::ElemWise, identityRelation},

    {"add", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>},
    {"subtract", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>},
    {"multiply", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>},
    {"divide", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>},
    {"floor_divide", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, false>},
    {"trunc_divide", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, false>},
    {"mod", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>},
    {"floor_mod", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, false>},
    {"trunc_mod", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, false>},
    {"power", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>},
    {"maximum", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>},
    {"minimum", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, false>},
    {"logical_and", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Bool, false>},
    {"logical_or", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Bool, false>},
    {"logical_xor", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Bool, false>},
    {"bitwise_and", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::IntegerOrBool, false>},
    {"bitwise_or", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::IntegerOrBool, false>},
    {"bitwise_xor", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::IntegerOrBool, false>},
    {"left_shift", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Integer, false>},
    {"right_shift", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Integer, false>},
    {"equal", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>},
    {"not_equal", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>},
    {"less", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>},
    {"less_equal", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, true>},
    {"greater", kBinary, kLhsRhs, P::Broadcast, binaryRelation<C::Any, true>},
    {"greater_equal", kBinary, kLhsRhs, P::Broadcast,
     binaryRelation<C::Any, true>},

    {"clip", "clamp every element to [a_min, a_max]", kData, P::ElemWise,
     clipRelation, withAttrs<ClipAttrs>},
    {"cast", "convert every element to dtype", kData, P::ElemWise,
     castRelation, withAttrs<CastAttrs>},
    {"cast_like", "convert every element to the dtype of dtype_like",
     kCastLikeArgs, P::ElemWise, castLikeRelation},
    {"reinterpret", "reinterpret the bits of every element as dtype", kData,
     P::ElemWise, reinterpretRelation, withAttrs<CastAttrs>},
    {"nn.leaky_relu", "x if x > 0, else alpha * x", kData, P::ElemWise,
     leakyReluRelation, withAttrs<LeakyReluAttrs>},
    // Relay registers nn.prelu as Broadcast: alpha runs along one axis.
    {"nn.prelu", "x if x > 0, else alpha[c] * x along the channel axis",
     kPReluArgs, P::Broadcast, preluRelation, withAttrs<PReluAttrs>},
    {"where", "select elements of x or y by a condition", kWhereArgs,
     P::Broadcast, whereRelation},
};

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
        .setAttr<bool>(kOpIsStatefulAttr, false);
  }
}
