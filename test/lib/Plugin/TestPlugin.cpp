//===- TestPlugin.cpp - A pass plugin built with the tests ----------------===//
//
/// \file
/// A plugin that registers `test-plugin-add-function` (a module pass adding
/// `@from_plugin`, option `name`). nnir-opt from the build tree loads it in
/// test/Plugin: its pass is listed with the plugin as origin and runs in
/// pipelines and in the `required` lists of other passes, which shows that
/// the plugin registered into the tool's own PassRegistry.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassPlugin.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

static Expected<Ref<Pass>> createAddFunction(const PassOptions &options) {
  std::string name = options.getString("name");
  return createModulePass(
      [name](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
        if (module->contains(name))
          return makeError("test-plugin-add-function: @" + name +
                           " exists already");
        Ref<IRModule> result = module->shallowCopy();
        result->addOrUpdate(
            name,
            Function::get({}, Constant::getScalar(DataType::float32(), 2.0)));
        return result;
      },
      PassInfo("test-plugin-add-function", /*optLevel=*/0));
}

static void registerPasses(PassRegistry &registry) {
  PassRegistration registration;
  registration.name = "test-plugin-add-function";
  registration.description = "Add a function returning 2f (from a plugin)";
  registration.factory = createAddFunction;
  registration.options = {{"name", OptionType::String,
                           OptionValue("from_plugin"),
                           "Name of the new function"}};
  if (Error err = registry.registerPass(std::move(registration)))
    logAllUnhandledErrors(std::move(err), errs(), "NNIRTestPlugin: ");
}

extern "C" NNIR_PLUGIN_EXPORT PassPluginInfo nnirGetPassPluginInfo() {
  return {NNIR_PLUGIN_API_VERSION, "NNIRTestPlugin", "0.1", registerPasses};
}
