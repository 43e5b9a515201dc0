//===- Reduction.cpp - Reduction operators --------------------------------===//
//
/// \file
/// sum, mean, max, min, prod, all, any, and their type relation (Relay's
/// ReduceRel): `axis` None or `[]` reduces every axis; negative axes count
/// from the end; `exclude` reduces every axis not listed; reduced dimensions
/// are dropped, or kept as 1 with `keepdims`. The dtype is the input's.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace llvm;
using namespace nnir;

/// The type of a reduction of args[0] as \p attrs say.
static Expected<Ref<Type>> reduceRelation(ArrayRef<const Type *> args,
                                          const Attrs *attrs,
                                          const TypeRelationContext &ctx) {
  Expected<const ReduceAttrs *> reduce = getAttrs<ReduceAttrs>(attrs, ctx);
  if (!reduce)
    return reduce.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  unsigned rank = (*data)->getRank();
  const std::optional<IntList> &axis = (*reduce)->axis;

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
    if ((*reduce)->exclude)
      reduced.flip();
  }

  Shape shape;
  for (unsigned i = 0; i != rank; ++i) {
    if (!reduced.test(i))
      shape.push_back((*data)->getShape()[i]);
    else if ((*reduce)->keepdims)
      shape.push_back(1);
  }
  return makeTensorType(shape, (*data)->getDType(), ctx);
}

void nnir::registerReductionOps() {
  OpRegistry &registry = OpRegistry::instance();
  for (const char *name : {"sum", "mean", "max", "min", "prod", "all", "any"})
    registry.add(name)
        .describe("reduction over axes")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttrsType<ReduceAttrs>()
        .setAttr<TypeRelationFn>(kTypeRelationAttr, reduceRelation);
}
