//===- Reduction.cpp - Reduction operators --------------------------------===//
//
/// \file
/// sum, mean, max, min, prod, all, any.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

using namespace nnir;

void nnir::registerReductionOps() {
  OpRegistry &registry = OpRegistry::instance();
  for (const char *name : {"sum", "mean", "max", "min", "prod", "all", "any"})
    registry.add(name)
        .describe("reduction over axes")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttrsType<ReduceAttrs>();
}
