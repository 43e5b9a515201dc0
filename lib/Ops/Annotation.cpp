//===- Annotation.cpp - Annotation operators ------------------------------===//
//
/// \file
/// The annotations passes must respect: `on_device` (places its body on a
/// virtual device; non-computational, so FoldConstant and the code generator
/// look through it), `device_copy` (copies between virtual devices; never
/// folded) and `annotation.stop_fusion` (a fusion barrier that FuseOps
/// removes). All three are Opaque, and their result has the type of their
/// argument, whatever it is (Relay's IdentityRel: a tensor, a tuple, ...).
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

using namespace llvm;
using namespace nnir;

/// The type of the argument, unchanged. The attribute record, when the op
/// has one, must be of type \p AttrsT.
template <typename AttrsT>
static Expected<Ref<Type>> annotationRelation(ArrayRef<const Type *> args,
                                              const Attrs *attrs,
                                              const TypeRelationContext &ctx) {
  if constexpr (!std::is_void_v<AttrsT>) {
    Expected<const AttrsT *> record = getAttrs<AttrsT>(attrs, ctx);
    if (!record)
      return record.takeError();
  }
  if (args.empty() || !args[0])
    return ctx.error("missing argument");
  return Ref<Type>(const_cast<Type *>(args[0]));
}

void nnir::registerAnnotationOps() {
  OpRegistry &registry = OpRegistry::instance();
  registry.add("on_device")
      .describe("place the body on a virtual device")
      .setNumInputs(1)
      .addArgument("body", "Expr")
      .setAttrsType<OnDeviceAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               annotationRelation<OnDeviceAttrs>)
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Opaque)
      .setAttr<bool>(kOpIsStatefulAttr, false)
      .setAttr<bool>(kOpNonComputationalAttr, true);
  registry.add("device_copy")
      .describe("copy data from one virtual device to another")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<DeviceCopyAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               annotationRelation<DeviceCopyAttrs>)
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Opaque)
      .setAttr<bool>(kOpIsStatefulAttr, false);
  registry.add("annotation.stop_fusion")
      .describe("stop operator fusion at this point")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttr<TypeRelationFn>(kTypeRelationAttr, annotationRelation<void>)
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Opaque)
      .setAttr<bool>(kOpIsStatefulAttr, false);
}
