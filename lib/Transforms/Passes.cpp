//===- Passes.cpp - Registration of the Transforms passes -----------------===//
//
/// \file
/// registerTransformPasses(): adds every pass of the library to the
/// PassRegistry, and the config keys they read to the PassConfigRegistry,
/// once per process.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Passes.h"

#include "nnir/Pass/PassContext.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/BindParams.h"
#include "nnir/Transforms/DeadCodeElimination.h"
#include "nnir/Transforms/EliminateCommonSubexpr.h"
#include "nnir/Transforms/FoldConstant.h"
#include "nnir/Transforms/FoldScaleAxis.h"
#include "nnir/Transforms/FuseOps.h"
#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/SimplifyExpr.h"
#include "nnir/Transforms/SimplifyInference.h"
#include "nnir/Transforms/ToANormalForm.h"
#include "nnir/Transforms/ToGraphNormalForm.h"

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

/// The same for a pass without options, through the registry's own
/// overload for that case.
static void add(StringRef name, StringRef description, Ref<Pass> (*factory)()) {
  PassRegistry &registry = PassRegistry::instance();
  if (!registry.lookup(name))
    consumeError(registry.registerPass(name, description, factory));
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
  registration.factory = [](const PassOptions &options) -> Expected<Ref<Pass>> {
    DeadCodeEliminationOptions dce;
    dce.inlineOnce = options.getBool("inline_once");
    dce.ignoreImpurity = options.getBool("ignore_impurity");
    dce.removeUnusedFunctions = options.getBool("remove_unused_functions");
    dce.entryFunctions = options.get("entry_functions").getList();
    return createDeadCodeEliminationPass(std::move(dce));
  };
  return registration;
}

/// TVM's FoldScaleAxis: a Sequential of the scale folds (opt level 3) and
/// FoldConstant (looked up by name), so at -O2 only FoldConstant runs.
static PassRegistration foldScaleAxis() {
  PassRegistration registration;
  registration.name = "FoldScaleAxis";
  registration.description =
      "Sequential(BackwardFoldScaleAxis, ForwardFoldScaleAxis, FoldConstant): "
      "fold per-channel "
      "scales into weights, then fold the weights";
  registration.factory = [](const PassOptions &) -> Expected<Ref<Pass>> {
    Expected<Ref<Pass>> foldConstant =
        PassRegistry::instance().create("FoldConstant");
    if (!foldConstant)
      return foldConstant.takeError();
    return createSequential({createBackwardFoldScaleAxisPass(),
                             createForwardFoldScaleAxisPass(),
                             std::move(*foldConstant)},
                            PassInfo("FoldScaleAxis", /*optLevel=*/0));
  };
  return registration;
}

void nnir::registerTransformPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    add("InferType", "infer and record the type of every expression",
        createInferTypePass);
    add(deadCodeElimination());
    add("EliminateCommonSubexpr",
        "merge operator calls with equal attributes and equivalent "
        "arguments",
        createEliminateCommonSubexprPass);
    add("SimplifyInference",
        "rewrite batch_norm, dropout, layer/group/instance_norm and "
        "l2_normalize into arithmetic for inference",
        createSimplifyInferencePass);
    add("SimplifyExpr",
        "fold consecutive reshapes and transposes, identity arithmetic "
        "and casts to the same type",
        createSimplifyExprPass);
    add("BackwardFoldScaleAxis",
        "fold a per-channel multiply after conv2d/conv3d/dense into "
        "the weights",
        createBackwardFoldScaleAxisPass);

    PassConfigRegistry &configs = PassConfigRegistry::instance();
    configs.registerIntOption(kFuseOpsMaxDepthConfig,
                              IntegerRange<int64_t>(1, INT64_MAX),
                              "FuseOps: the largest number of nodes in one "
                              "fused group (default 256)");
    configs.registerOption(kFuseOpsLinkParamsConfig, OptionType::Bool,
                           "FuseOps: keep constant arguments inside the "
                           "primitive functions (default false)");

    configs.registerIntOption(kFoldConstantMaxBytesConfig,
                              IntegerRange<int64_t>(0, INT64_MAX),
                              "FoldConstant: do not materialise a value "
                              "larger than this and than its constant inputs "
                              "(default 10 MiB)");
    configs.registerIntOption(kFoldConstantMaxBufferBytesConfig,
                              IntegerRange<int64_t>(0, INT64_MAX),
                              "FoldConstant: leave unfolded what would need "
                              "a buffer larger than this to evaluate "
                              "(default 4 GiB)");
    configs.registerIntOption(kFoldConstantMaxWorkConfig,
                              IntegerRange<int64_t>(0, INT64_MAX),
                              "FoldConstant: leave unfolded what would take "
                              "more scalar operations than this to evaluate "
                              "(default 2^34)");

    PassRegistration fuseOps;
    fuseOps.name = "FuseOps";
    fuseOps.description = "group operator calls into primitive functions";
    fuseOps.factory = [](const PassOptions &options) -> Expected<Ref<Pass>> {
      return createFuseOpsPass(options.getInt("fuse_opt_level"));
    };
    fuseOps.options = {{"fuse_opt_level", OptionType::Int, OptionValue(-1),
                        "0: every call its own primitive function; -1: the "
                        "context's opt level",
                        IntegerRange<int64_t>(-1, 3)}};
    add(std::move(fuseOps));

    PassRegistration foldConstant;
    foldConstant.name = "FoldConstant";
    foldConstant.description =
        "evaluate constant subexpressions through the JIT";
    foldConstant.factory =
        [](const PassOptions &options) -> Expected<Ref<Pass>> {
      return createFoldConstantPass(options.getBool("per_call"));
    };
    foldConstant.options = {{"per_call", OptionType::Bool, OptionValue(false),
                             "evaluate every call on its own, as TVM does "
                             "(the result is the same)"}};
    add(std::move(foldConstant));

    PassRegistration bindParams;
    bindParams.name = "BindParams";
    bindParams.description = "bind parameters of @main to constants";
    bindParams.factory = [](const PassOptions &options) -> Expected<Ref<Pass>> {
      BindParamsOptions bind;
      bind.npz = options.getString("npz");
      bind.dir = options.getString("dir");
      bind.random = options.getBool("random");
      int64_t seed = options.getInt("seed");
      if (seed < 0)
        return makeError("BindParams: seed must not be negative, got " +
                         Twine(seed));
      bind.seed = uint64_t(seed);
      return createBindParamsPass(std::move(bind));
    };
    bindParams.options = {
        {"npz", OptionType::String, OptionValue(std::string()),
         "a NumPy .npz archive of arrays named after the parameters"},
        {"dir", OptionType::String, OptionValue(std::string()),
         "a directory of <param>.npy files"},
        {"random", OptionType::Bool, OptionValue(false),
         "bind every parameter but the first to values in [0.1, 1.0)"},
        {"seed", OptionType::Int, OptionValue(int64_t(0)),
         "the seed of random=true", IntegerRange<int64_t>(0, INT64_MAX)}};
    add(std::move(bindParams));

    add("ToANormalForm",
        "bind every non-atomic expression to a let variable, once, in "
        "the innermost scope covering its uses",
        createToANormalFormPass);
    add("ToGraphNormalForm", "replace let-bound variables by their values",
        createToGraphNormalFormPass);

    add("ForwardFoldScaleAxis",
        "fold a per-channel multiply on the input of "
        "conv2d/conv3d/dense into the weights",
        createForwardFoldScaleAxisPass);
    add(foldScaleAxis());
  });
}
