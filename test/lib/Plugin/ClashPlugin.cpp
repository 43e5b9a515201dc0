//===- ClashPlugin.cpp - A plugin whose pass name is taken ----------------===//
//
/// \file
/// Registers a pass named `test-fail`, which nnir-opt has already: the
/// registry refuses it (a plugin cannot replace a pass), the plugin reports
/// the error, and the built-in pass stays.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassPlugin.h"
#include "nnir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

static void registerPasses(PassRegistry &registry) {
  Error err = registry.registerPass("test-fail", "Replaces test-fail", [] {
    return createModulePass(
        [](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
          return module;
        },
        PassInfo("test-fail", /*optLevel=*/0));
  });
  if (err)
    logAllUnhandledErrors(std::move(err), errs(), "NNIRTestClashPlugin: ");
}

extern "C" NNIR_PLUGIN_EXPORT PassPluginInfo nnirGetPassPluginInfo() {
  return {NNIR_PLUGIN_API_VERSION, "NNIRTestClashPlugin", "0.1",
          registerPasses};
}
