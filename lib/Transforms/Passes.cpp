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

    addPass(registry, "ToANormalForm",
            "bind every non-atomic expression to a let variable, once, in "
            "the innermost scope covering its uses",
            createToANormalFormPass);
    addPass(registry, "ToGraphNormalForm",
            "replace let-bound variables by their values",
            createToGraphNormalFormPass);
  });
}
