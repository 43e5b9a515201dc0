//===- AnnotationCompute.cpp - Computes of the annotation operators -------===//
//
/// \file
/// The TE computes of on_device, device_copy and annotation.stop_fusion. On
/// the one host device nnir runs on, each is the identity: placement and
/// fusion boundaries are for the passes, the values pass through.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Compute.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

void nnir::registerAnnotationComputes() {
  for (const char *name :
       {"on_device", "device_copy", "annotation.stop_fusion"})
    setOpCompute(name,
                 [](const ComputeArgs &args) -> Expected<std::vector<Tensor>> {
                   // A tuple argument passes through field by field.
                   std::vector<Tensor> outs;
                   for (const Tensor &x : args.args[0])
                     outs.push_back(compute(
                         x.getShape(), [&](ArrayRef<Expr> i) { return x(i); },
                         "identity"));
                   return outs;
                 });
}
