//===- Elementwise.cpp - Unary and binary elementwise operators -----------===//
//
/// \file
/// Relay's unary (`exp`, `nn.relu`, ...) and broadcasting binary (`add`,
/// `multiply`, comparisons, ...) operators, with their type relations:
/// unary operators keep their input's type (isnan/isinf/isfinite give bool),
/// binary ones broadcast numpy-style from the right and require equal
/// dtypes, comparisons give bool. Logical operators take bool tensors,
/// bitwise ones integer or bool tensors, shifts integer tensors.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
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

/// clip: identity; a_min must not exceed a_max.
static Expected<Ref<Type>> clipRelation(ArrayRef<const Type *> args,
                                        const Attrs *attrs,
                                        const TypeRelationContext &ctx) {
  Expected<const ClipAttrs *> clip = getAttrs<ClipAttrs>(attrs, ctx);
  if (!clip)
    return clip.takeError();
  if ((*clip)->aMin > (*clip)->aMax)
    return ctx.error("a_min " + formatDouble((*clip)->aMin) +
                     " is greater than a_max " + formatDouble((*clip)->aMax));
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

/// where(condition, x, y): x and y have one dtype; the result is the
/// broadcast of all three shapes, with x's dtype.
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

void nnir::registerElementwiseOps() {
  OpRegistry &registry = OpRegistry::instance();
  for (const char *name :
       {"abs",         "negative", "exp",        "log",       "log2",
        "log10",       "sqrt",     "rsqrt",      "erf",       "sigmoid",
        "tanh",        "sin",      "cos",        "tan",       "floor",
        "ceil",        "round",    "trunc",      "sign",      "logical_not",
        "bitwise_not", "copy",     "zeros_like", "ones_like", "isnan",
        "isinf",       "isfinite", "nn.relu"}) {
    StringRef opName = name;
    TypeRelationFn relation = identityRelation;
    if (opName == "isnan" || opName == "isinf" || opName == "isfinite")
      relation = unaryPredicateRelation;
    else if (opName == "logical_not")
      relation = unaryRelation(DTypeClass::Bool);
    else if (opName == "bitwise_not")
      relation = unaryRelation(DTypeClass::IntegerOrBool);
    registry.add(name)
        .describe("elementwise unary operator")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttr<TypeRelationFn>(kTypeRelationAttr, std::move(relation));
  }
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
  for (const BinaryFamily &family : binaryFamilies)
    for (const char *name : family.names)
      registry.add(name)
          .describe("elementwise binary operator with numpy broadcasting")
          .setNumInputs(2)
          .addArgument("lhs", "Tensor")
          .addArgument("rhs", "Tensor")
          .setAttr<TypeRelationFn>(kTypeRelationAttr,
                                   binaryRelation(family.cls, family.compare));
  registry.add("clip")
      .describe("clamp every element to [a_min, a_max]")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<ClipAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, clipRelation);
  registry.add("cast")
      .describe("convert every element to dtype")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<CastAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, castRelation);
  registry.add("where")
      .describe("select elements of x or y by a condition")
      .setNumInputs(3)
      .addArgument("condition", "Tensor")
      .addArgument("x", "Tensor")
      .addArgument("y", "Tensor")
      .setAttr<TypeRelationFn>(kTypeRelationAttr, whereRelation);
}
