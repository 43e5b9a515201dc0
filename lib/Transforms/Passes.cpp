//===- Passes.cpp - Registration of the Transforms passes -----------------===//
//
/// \file
/// registerTransformPasses(): adds every pass of the library to the
/// PassRegistry, once per process.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Passes.h"

#include "nnir/Pass/PassRegistry.h"
#include "nnir/Transforms/DeadCodeElimination.h"
#include "nnir/Transforms/EliminateCommonSubexpr.h"
#include "nnir/Transforms/FoldScaleAxis.h"
#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/SimplifyExpr.h"
#include "nnir/Transforms/SimplifyInference.h"

#include <mutex>

using namespace llvm;
using namespace nnir;

/// Registers \p registration unless a plugin or a test registered a pass of
/// the same name first (the registry keeps the first registration).
static void add(PassRegistration registration) {
  PassRegistry &registry = PassRegistry::instance();
  if (!registry.lookup(registration.name))
    consumeError(registry.registerPass(std::move(registration)));
}

/// A registration without options.
static PassRegistration simple(StringRef name, StringRef description,
                               Ref<Pass> (*factory)()) {
  PassRegistration registration;
  registration.name = name.str();
  registration.description = description.str();
  registration.factory = [factory](const PassOptions &) -> Expected<Ref<Pass>> {
    return factory();
  };
  return registration;
}

static PassRegistration deadCodeElimination() {
  PassRegistration registration;
  registration.name = "DeadCodeElimination";
  registration.description =
      "remove unused pure let bindings (and, on request, unreachable "
      "functions)";
  registration.options = {
      {"inline_once", OptionType::Bool, OptionValue(false),
       "inline pure bindings used exactly once"},
      {"ignore_impurity", OptionType::Bool, OptionValue(false),
       "treat every binding as pure"},
      {"remove_unused_functions", OptionType::Bool, OptionValue(false),
       "also remove global functions the entry functions do not reach"},
      {"entry_functions", OptionType::StringList,
       OptionValue(std::vector<std::string>{"main"}),
       "the entry functions for remove_unused_functions"}};
  registration.factory =
      [](const PassOptions &options) -> Expected<Ref<Pass>> {
    DeadCodeEliminationOptions dce;
    dce.inlineOnce = options.getBool("inline_once");
    dce.ignoreImpurity = options.getBool("ignore_impurity");
    dce.removeUnusedFunctions = options.getBool("remove_unused_functions");
    dce.entryFunctions = options.get("entry_functions").getList();
    return createDeadCodeEliminationPass(std::move(dce));
  };
  return registration;
}

void nnir::registerTransformPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    add(simple("InferType", "infer and record the type of every expression",
               createInferTypePass));
    add(deadCodeElimination());
    add(simple("EliminateCommonSubexpr",
               "merge operator calls with equal attributes and equivalent "
               "arguments",
               createEliminateCommonSubexprPass));
    add(simple("SimplifyInference",
               "rewrite batch_norm, dropout, layer/group/instance_norm and "
               "l2_normalize into arithmetic for inference",
               createSimplifyInferencePass));
    add(simple("SimplifyExpr",
               "fold consecutive reshapes and transposes, identity arithmetic "
               "and casts to the same type",
               createSimplifyExprPass));
    add(simple("BackwardFoldScaleAxis",
               "fold a per-channel multiply after conv2d/conv3d/dense into "
               "the weights",
               createBackwardFoldScaleAxisPass));
  });
}
