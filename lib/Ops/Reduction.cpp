//===- Reduction.cpp - Reduction operators --------------------------------===//
//
/// \file
/// Relay's reductions (sum, mean, max, min, prod, all, any, argmax, argmin,
/// variance), all CommReduce, with the shape rule of Relay's ReduceRel:
/// `axis` None or `[]` reduces every axis; negative axes count from the end;
/// an axis may be listed once; `exclude` reduces every axis not listed;
/// reduced dimensions are dropped, or kept as 1 with `keepdims`. The dtype is
/// the input's, except argmax/argmin (int32, the dtype of Relay's shape
/// dimensions). all and any take bool tensors (their compute is a logical
/// and/or).
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace llvm;
using namespace nnir;

/// The shape of \p data reduced over \p axis (see the file comment); the
/// reduced axes go to \p reducedAxes when given.
static Expected<Shape> reduceShape(const TensorType *data,
                                   const std::optional<IntList> &axis,
                                   bool keepdims, bool exclude,
                                   const TypeRelationContext &ctx,
                                   SmallBitVector *reducedAxes = nullptr) {
  unsigned rank = data->getRank();
  SmallBitVector reduced(rank);
  if (!axis || axis->empty()) {
    // As in Relay, no axis means every axis, even with exclude.
    reduced.set();
  } else {
    SmallBitVector listed(rank);
    for (int64_t a : *axis) {
      Expected<unsigned> index = normalizeAxis(a, rank, ctx);
      if (!index)
        return index.takeError();
      if (listed.test(*index))
        return ctx.error("axis " + Twine(*index) + " is listed twice");
      listed.set(*index);
    }
    reduced = listed;
    if (exclude)
      reduced.flip();
  }

  if (reducedAxes)
    *reducedAxes = reduced;
  Shape shape;
  for (unsigned i = 0; i != rank; ++i) {
    if (!reduced.test(i))
      shape.push_back(data->getShape()[i]);
    else if (keepdims)
      shape.push_back(1);
  }
  return shape;
}

/// sum, mean, max, min, prod (any dtype), all, any (bool when \p boolOnly).
static TypeRelationFn reduceRelation(bool boolOnly) {
  return [boolOnly](ArrayRef<const Type *> args, const Attrs *attrs,
                    const TypeRelationContext &ctx) -> Expected<Ref<Type>> {
    Expected<const ReduceAttrs *> reduce = getAttrs<ReduceAttrs>(attrs, ctx);
    if (!reduce)
      return reduce.takeError();
    Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
    if (!data)
      return data.takeError();
    Expected<Shape> shape = reduceShape(
        *data, (*reduce)->axis, (*reduce)->keepdims, (*reduce)->exclude, ctx);
    if (!shape)
      return shape.takeError();
    if (boolOnly && !(*data)->getDType().isBool())
      return ctx.error("expected a tensor of bool dtype, got " +
                       (*data)->str());
    return makeTensorType(*shape, (*data)->getDType(), ctx);
  };
}

/// argmax, argmin: the reduced shape, int32 indices. A reduced axis of
/// extent 0 has no element to point at (NumPy's "empty sequence" error),
/// while sum, max, ... of it are their identities (0, -inf, ...).
static RelationResult argReduceRelation(const ArgReduceAttrs *reduce,
                                        const TensorType *data,
                                        ArrayRef<const Type *>,
                                        const TypeRelationContext &ctx) {
  SmallBitVector reduced;
  Expected<Shape> shape = reduceShape(data, reduce->axis, reduce->keepdims,
                                      reduce->exclude, ctx, &reduced);
  if (!shape)
    return shape.takeError();
  for (unsigned i : reduced.set_bits())
    if (data->getShape()[i] == 0)
      return ctx.error("axis " + Twine(i) + " of " + data->str() +
                       " is empty: it has no element to index");
  return makeTensorType(*shape, DataType::int32(), ctx);
}

/// variance(data, mean): the reduced shape of data, data's dtype. data has
/// rank >= 1 and mean the same rank (Relay's VarianceRel); mean (the Python
/// API passes `mean(data, axis, keepdims=True, exclude)`) must also have
/// data's dtype and broadcast to data's shape, since the compute subtracts
/// it from data.
static RelationResult varianceRelation(const VarianceAttrs *variance,
                                       const TensorType *data,
                                       const TensorType *mean,
                                       ArrayRef<const Type *>,
                                       const TypeRelationContext &ctx) {
  unsigned rank = data->getRank();
  if (rank == 0)
    return ctx.error("expected data of rank at least 1, got " + data->str());
  if (mean->getRank() != rank)
    return ctx.error("expected mean of rank " + Twine(rank) +
                     " (the rank of data " + data->str() + "), got " +
                     mean->str());
  if (mean->getDType() != data->getDType())
    return ctx.error("dtype mismatch: data " + data->str() + " vs mean " +
                     mean->str());
  for (unsigned i = 0; i != rank; ++i) {
    int64_t m = mean->getShape()[i];
    if (m != 1 && !dimsMatch(m, data->getShape()[i]))
      return ctx.error("mean " + mean->str() + " does not broadcast to data " +
                       data->str());
  }
  Expected<Shape> shape = reduceShape(data, variance->axis, variance->keepdims,
                                      variance->exclude, ctx);
  if (!shape)
    return shape.takeError();
  return makeTensorType(*shape, data->getDType(), ctx);
}

void nnir::registerReductionOps() {
  OpRegistry &registry = OpRegistry::instance();
  for (const char *name : {"sum", "mean", "max", "min", "prod", "all", "any"}) {
    StringRef opName = name;
    registry.add(name)
        .describe("reduction over axes")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttrsType<ReduceAttrs>()
        .setAttr<TypeRelationFn>(
            kTypeRelationAttr,
            reduceRelation(opName == "all" || opName == "any"))
        .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::CommReduce)
        .setAttr<bool>(kDynamicShapesAttr, true);
  }
  for (const char *name : {"argmax", "argmin"})
    registry.add(name)
        .describe("indices of the extreme elements over axes")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttrsType<ArgReduceAttrs>()
        .setAttr<TypeRelationFn>(
            kTypeRelationAttr,
            makeRelation<ArgReduceAttrs>(argReduceRelation, "data"))
        .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::CommReduce)
        .setAttr<bool>(kDynamicShapesAttr, true);
  registry.add("variance")
      .describe("variance over axes, given the mean (keepdims shape)")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("mean", "Tensor")
      .setAttrsType<VarianceAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<VarianceAttrs>(varianceRelation, "data", "mean"))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::CommReduce)
      .setAttr<bool>(kDynamicShapesAttr, true);
}
