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

/// Unary operators: the input's type, restricted to \p cls.
static TypeRelationFn unaryRelation(DTypeClass cls) {
  return [cls](ArrayRef<const Type *> args, const Attrs *attrs,
               const TypeRelationContext &ctx) -> Expected<Ref<Type>> {
    Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
    if (!data)
      return data.takeError();
    if (!isInClass((*data)->getDType(), cls))
      return ctx.error("expected a tensor of " + describeClass(cls) +
                       " dtype, got " + (*data)->str());
    return identityRelation(args, attrs, ctx);
  };
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

/// Broadcasting binary operators on \p cls operands; comparisons when
/// \p compare (bool result).
static TypeRelationFn binaryRelation(DTypeClass cls, bool compare) {
  return [cls, compare](ArrayRef<const Type *> args, const Attrs *,
                        const TypeRelationContext &ctx) -> Expected<Ref<Type>> {
    Expected<const TensorType *> lhs = getTensorArg(args, 0, "lhs", ctx);
    if (!lhs)
      return lhs.takeError();
    Expected<const TensorType *> rhs = getTensorArg(args, 1, "rhs", ctx);
    if (!rhs)
      return rhs.takeError();
    for (const TensorType *operand : {*lhs, *rhs})
      if (!isInClass(operand->getDType(), cls))
        return ctx.error("expected operands of " + describeClass(cls) +
                         " dtype, got " + operand->str());
    std::optional<DataType> outDType;
    if (compare)
      outDType = DataType::boolean();
    return broadcastTypes(*lhs, *rhs, ctx, outDType);
  };
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
// Registration
//===----------------------------------------------------------------------===//

/// Sets the fusion pattern of the op being built and, as Relay's
/// elementwise registrations do, marks it explicitly as not stateful.
static OpBuilder &setPattern(OpBuilder &builder, OpPatternKind kind) {
  return builder.setAttr<OpPatternKind>(kOpPatternAttr, kind)
      .setAttr<bool>(kOpIsStatefulAttr, false);
}

void nnir::registerElementwiseOps() {
  OpRegistry &registry = OpRegistry::instance();
  // RELAY_REGISTER_UNARY_OP (and fast_exp/fast_tanh/fast_erf, which TVM's
  // FastMath pass introduces), isnan/isinf/isfinite, nn.relu,
  // zeros_like/ones_like: ElemWise.
  for (const char *name :
       {"abs",         "negative", "exp",        "log",       "log2",
        "log10",       "sqrt",     "rsqrt",      "erf",       "sigmoid",
        "tanh",        "sin",      "cos",        "tan",       "floor",
        "ceil",        "round",    "trunc",      "sign",      "logical_not",
        "bitwise_not", "copy",     "zeros_like", "ones_like", "isnan",
        "isinf",       "isfinite", "nn.relu",    "fast_exp",  "fast_tanh",
        "fast_erf"}) {
    StringRef opName = name;
    TypeRelationFn relation = identityRelation;
    if (opName == "isnan" || opName == "isinf" || opName == "isfinite")
      relation = unaryPredicateRelation;
    else if (opName == "logical_not")
      relation = unaryRelation(DTypeClass::Bool);
    else if (opName == "bitwise_not")
      relation = unaryRelation(DTypeClass::IntegerOrBool);
    OpBuilder builder = registry.add(name);
    builder.describe("elementwise unary operator")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttr<TypeRelationFn>(kTypeRelationAttr, std::move(relation));
    setPattern(builder, OpPatternKind::ElemWise);
  }

  // RELAY_REGISTER_BINARY_OP and RELAY_REGISTER_CMP_OP: Broadcast.
  struct BinaryFamily {
    std::initializer_list<const char *> names;
    DTypeClass cls;
    bool compare;
  };
  const BinaryFamily binaryFamilies[] = {
      {{"add", "subtract", "multiply", "divide", "floor_divide", "trunc_divide",
        "mod", "floor_mod", "trunc_mod", "power", "maximum", "minimum"},
       DTypeClass::Any,
       false},
      {{"logical_and", "logical_or", "logical_xor"}, DTypeClass::Bool, false},
      {{"bitwise_and", "bitwise_or", "bitwise_xor"},
       DTypeClass::IntegerOrBool,
       false},
      {{"left_shift", "right_shift"}, DTypeClass::Integer, false},
      {{"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"},
       DTypeClass::Any,
       true},
  };
  for (const BinaryFamily &family : binaryFamilies) {
    for (const char *name : family.names) {
      OpBuilder builder = registry.add(name);
      builder.describe("elementwise binary operator with numpy broadcasting")
          .setNumInputs(2)
          .addArgument("lhs", "Tensor")
          .addArgument("rhs", "Tensor")
          .setAttr<TypeRelationFn>(kTypeRelationAttr,
                                   binaryRelation(family.cls, family.compare));
      setPattern(builder, OpPatternKind::Broadcast);
    }
  }

  OpBuilder clip = registry.add("clip");
  clip.describe("clamp every element to [a_min, a_max]")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<ClipAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, clipRelation);
  setPattern(clip, OpPatternKind::ElemWise);

  OpBuilder castOp = registry.add("cast");
  castOp.describe("convert every element to dtype")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<CastAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, castRelation);
  setPattern(castOp, OpPatternKind::ElemWise);

  OpBuilder castLike = registry.add("cast_like");
  castLike.describe("convert every element to the dtype of dtype_like")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("dtype_like", "Tensor")
      .setAttr<TypeRelationFn>(kTypeRelationAttr, castLikeRelation);
  setPattern(castLike, OpPatternKind::ElemWise);

  OpBuilder reinterpret = registry.add("reinterpret");
  reinterpret.describe("reinterpret the bits of every element as dtype")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<CastAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, reinterpretRelation);
  setPattern(reinterpret, OpPatternKind::ElemWise);

  OpBuilder leakyRelu = registry.add("nn.leaky_relu");
  leakyRelu.describe("x if x > 0, else alpha * x")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<LeakyReluAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, leakyReluRelation);
  setPattern(leakyRelu, OpPatternKind::ElemWise);

  // Relay registers nn.prelu as Broadcast: alpha runs along one axis.
  OpBuilder prelu = registry.add("nn.prelu");
  prelu.describe("x if x > 0, else alpha[c] * x along the channel axis")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("alpha", "Tensor")
      .setAttrsType<PReluAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, preluRelation);
  setPattern(prelu, OpPatternKind::Broadcast);

  OpBuilder where = registry.add("where");
  where.describe("select elements of x or y by a condition")
      .setNumInputs(3)
      .addArgument("condition", "Tensor")
      .addArgument("x", "Tensor")
      .addArgument("y", "Tensor")
      .setAttr<TypeRelationFn>(kTypeRelationAttr, whereRelation);
  setPattern(where, OpPatternKind::Broadcast);
}
