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
#include "nnir/Transforms/FoldConstant.h"
#include "nnir/Transforms/FuseOps.h"
#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/ToANormalForm.h"
#include "nnir/Transforms/ToGraphNormalForm.h"

#include <mutex>

using namespace llvm;
using namespace nnir;

/// Registers \p registration unless a pass of that name exists: a plugin or
/// a test may have registered one first, and the registry keeps the first.
static void addPass(PassRegistry &registry, PassRegistration registration) {
  if (!registry.lookup(registration.name))
    consumeError(registry.registerPass(std::move(registration)));
}

/// The same for a pass without options.
static void addPass(PassRegistry &registry, StringRef name,
                    StringRef description, Ref<Pass> (*factory)()) {
  if (!registry.lookup(name))
    consumeError(registry.registerPass(name, description, factory));
}

void nnir::registerTransformPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    PassConfigRegistry &configs = PassConfigRegistry::instance();
    configs.registerOption(kFuseOpsMaxDepthConfig, OptionType::Int,
                           "FuseOps: the largest number of nodes in one "
                           "fused group (default 256)");
    configs.registerOption(kFuseOpsLinkParamsConfig, OptionType::Bool,
                           "FuseOps: keep constant arguments inside the "
                           "primitive functions (default false)");

    configs.registerOption(kFoldConstantMaxBytesConfig, OptionType::Int,
                           "FoldConstant: do not materialise a value larger "
                           "than this and than its constant inputs "
                           "(default 10 MiB)");

    PassRegistry &registry = PassRegistry::instance();
    addPass(registry, "InferType",
            "infer and record the type of every expression",
            createInferTypePass);

    PassRegistration fuseOps;
    fuseOps.name = "FuseOps";
    fuseOps.description = "group operator calls into primitive functions";
    fuseOps.factory = [](const PassOptions &options) -> Expected<Ref<Pass>> {
      return createFuseOpsPass(options.getInt("fuse_opt_level"));
    };
    fuseOps.options = {{"fuse_opt_level", OptionType::Int, OptionValue(-1),
                        "0: every call its own primitive function; -1: the "
                        "context's opt level"}};
    addPass(registry, std::move(fuseOps));

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
    addPass(registry, std::move(foldConstant));

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
         "the seed of random=true"}};
    addPass(registry, std::move(bindParams));

    addPass(registry, "ToANormalForm",
            "bind every non-atomic expression to a let variable, once, in "
            "the innermost scope covering its uses",
            createToANormalFormPass);
    addPass(registry, "ToGraphNormalForm",
            "replace let-bound variables by their values",
            createToGraphNormalFormPass);
  });
}
