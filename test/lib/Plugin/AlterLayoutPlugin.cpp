//===- AlterLayoutPlugin.cpp - Test layout alterations from a plugin ------===//
//
/// \file
/// A plugin that registers layout alterations (FTVMAlterOpLayout) at load,
/// as a target's plugin would, for test/Plugin/alter-op-layout.nnir:
///  - nn.conv2d in NCHW/OIHW is computed in NHWC/HWIO between
///    layout_transforms (the call's type is kept; other layouts: null, the
///    call stays);
///  - nn.log_softmax is replaced by a sum over its data (a wrong type, for
///    the error naming both types);
///  - nn.softmax's alteration fails with an error of its own.
/// It registers no pass: AlterOpLayout is the built-in pass.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Builders.h"
#include "nnir/Pass/PassPlugin.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/AlterOpLayout.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

/// nn.conv2d(x, w) in NCHW/OIHW as
/// layout_transform(nn.conv2d(x in NHWC, w in HWIO), NHWC -> NCHW).
static Expected<Ref<Expr>> alterConv2D(const Call &call,
                                       ArrayRef<const Type *>, const Type *) {
  const auto *attrs = call.getAttrsAs<Conv2DAttrs>();
  if (!attrs || attrs->dataLayout != "NCHW" || attrs->kernelLayout != "OIHW")
    return Ref<Expr>();
  Ref<Conv2DAttrs> nhwc = attrs->with([](Conv2DAttrs &a) {
    a.dataLayout = "NHWC";
    a.kernelLayout = "HWIO";
  });
  Ref<Expr> data = ops::layoutTransform(call.getArg(0), "NCHW", "NHWC");
  Ref<Expr> weight = ops::layoutTransform(call.getArg(1), "OIHW", "HWIO");
  return ops::layoutTransform(ops::conv2d(data, weight, nhwc), "NHWC", "NCHW");
}

static void registerAlterations(PassRegistry &) {
  auto set = [](StringRef name, AlterOpLayoutFn fn) {
    if (Error err = setAlterOpLayout(*Op::lookup(name), std::move(fn)))
      logAllUnhandledErrors(std::move(err), errs(), "NNIRTestAlterLayout: ");
  };
  set("nn.conv2d", alterConv2D);
  set("nn.log_softmax",
      [](const Call &call, ArrayRef<const Type *>,
         const Type *) -> Expected<Ref<Expr>> {
        return ops::sum(call.getArg(0), std::nullopt, false);
      });
  set("nn.softmax",
      [](const Call &call, ArrayRef<const Type *>,
         const Type *) -> Expected<Ref<Expr>> {
        return makeError(call.getLoc(),
                         "NNIRTestAlterLayout: no layout for nn.softmax");
      });
}

extern "C" NNIR_PLUGIN_EXPORT PassPluginInfo nnirGetPassPluginInfo() {
  return {NNIR_PLUGIN_API_VERSION, "NNIRTestAlterLayoutPlugin", "0.1",
          registerAlterations};
}
