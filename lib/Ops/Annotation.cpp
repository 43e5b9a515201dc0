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
#include "nnir/IR/VirtualDevice.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/OnDevice.h"
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

//===----------------------------------------------------------------------===//
// on_device helpers (OnDevice.h)
//===----------------------------------------------------------------------===//

OnDeviceProps nnir::getOnDeviceProps(const Expr *e) {
  const auto *call = dyn_cast_or_null<Call>(e);
  if (!call || call->getNumArgs() != 1)
    return {};
  const Op *op = call->getCalledOp();
  // By name: called on every node of large graphs, and cheap (the length
  // differs for almost every other operator).
  if (!op || op->getName() != "on_device")
    return {};
  const auto *attrs = call->getAttrsAs<OnDeviceAttrs>();
  if (!attrs)
    return {};
  return {call->getArg(0).get(), attrs};
}

Ref<Expr> nnir::maybeOnDevice(Ref<Expr> body, const AttrValue &device,
                              bool constrainResult, bool constrainBody) {
  if (isFullyUnconstrained(device))
    return body;
  if (isa<Op, Var, GlobalVar, Function>(body.get()))
    return body;
  AttrValue placed = device;
  if (OnDeviceProps inner = getOnDeviceProps(body.get())) {
    // on_device(on_device(x, inner), outer): one wrapper when no two
    // constraints name different devices.
    const AttrValue &innerDevice = inner.attrs->virtualDevice;
    bool same = innerDevice == device;
    bool constrainInner = inner.attrs->constrainBody;
    if (same || !((constrainResult && constrainInner) ||
                  (constrainBody && inner.attrs->constrainResult))) {
      if (!constrainInner && !constrainResult)
        placed = innerDevice;
      constrainBody = constrainInner;
      body = inner.body;
    }
  }
  SMLoc loc = body->getLoc();
  Ref<OnDeviceAttrs> attrs = OnDeviceAttrs::create();
  attrs->virtualDevice = std::move(placed);
  attrs->constrainResult = constrainResult;
  attrs->constrainBody = constrainBody;
  return Call::get(Op::lookup("on_device"), {std::move(body)}, attrs, loc);
}
