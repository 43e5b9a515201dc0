//===- Transform.cpp - Data movement operators ----------------------------===//
//
/// \file
/// reshape, transpose, concatenate, split.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

using namespace nnir;

void nnir::registerTransformOps() {
  OpRegistry &registry = OpRegistry::instance();
  registry.add("reshape")
      .describe("reshape to newshape (codes 0, -1, -2, -3, -4)")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<ReshapeAttrs>();
  registry.add("transpose")
      .describe("permute the axes")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<TransposeAttrs>();
  registry.add("concatenate")
      .describe("join a tuple of tensors along an axis")
      .setNumInputs(1)
      .addArgument("data", "Tuple of Tensors")
      .setAttrsType<ConcatenateAttrs>();
  registry.add("split")
      .describe("split a tensor into a tuple of tensors")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<SplitAttrs>();
}
