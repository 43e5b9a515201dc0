//===- HelloPlugin.cpp - An example nnir pass plugin ----------------------===//
//
/// \file
/// A pass plugin: a shared library that nnir-opt loads with
/// `--load-pass-plugin=libNNIRHelloPlugin.so`. It registers one function
/// pass, `hello-rename`, which puts a prefix (option `prefix`, default
/// "hello_") in front of every variable name and counts the renamed
/// variables (see `--stats`):
///
///   nnir-opt --load-pass-plugin=libNNIRHelloPlugin.so \
///            --passes='hello-rename{prefix=hi_}' model.nnir
///
/// The entry point is nnirGetPassPluginInfo(), which returns the plugin API
/// version it was built with, a name and version (shown by `--list-passes`
/// as the origin of its passes), and the function that registers them.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassPlugin.h"
#include "nnir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace nnir;

namespace {
/// Renames every variable, binders and uses alike (ExprMutator maps a binder
/// and its uses through the same memo table).
struct PrefixVars : ExprMutator {
  explicit PrefixVars(std::string prefix) : prefix(std::move(prefix)) {}

  Ref<Expr> visitVar(Var *var) override {
    ++numRenamed;
    return Var::get(prefix + var->getNameHint().str(), var->getTypeAnnotation(),
                    var->getLoc(), var->getCheckedType());
  }

  std::string prefix;
  int64_t numRenamed = 0;
};
} // namespace

/// The factory: receives every declared option, parsed and typed.
static llvm::Expected<Ref<Pass>> createHelloRename(const PassOptions &options) {
  std::string prefix = options.getString("prefix");
  // Opt level 1: a Sequential runs it at -O1 and above.
  PassInfo info("hello-rename", /*optLevel=*/1);
  info.description = "Prefix every variable name";
  return createFunctionPass(
      [prefix](Ref<Function> func, const IRModule &,
               PassContext &ctx) -> llvm::Expected<Ref<Function>> {
        PrefixVars renamer(prefix);
        Ref<Expr> renamed = renamer.mutate(func.get());
        ctx.getStatistics().add("hello-rename", "num-renamed",
                                renamer.numRenamed,
                                "Number of variables renamed");
        return Ref<Function>(llvm::cast<Function>(renamed.get()));
      },
      std::move(info));
}

static void registerHelloPasses(PassRegistry &registry) {
  PassRegistration registration;
  registration.name = "hello-rename";
  registration.description = "Prefix every variable name (example plugin)";
  registration.factory = createHelloRename;
  registration.options = {{"prefix", OptionType::String, OptionValue("hello_"),
                           "Text put before each name"}};
  // A name clash is reported; nnir-opt goes on without the pass.
  if (llvm::Error err = registry.registerPass(std::move(registration)))
    llvm::logAllUnhandledErrors(std::move(err), llvm::errs(),
                                "NNIRHelloPlugin: ");
}

extern "C" NNIR_PLUGIN_EXPORT PassPluginInfo nnirGetPassPluginInfo() {
  return {NNIR_PLUGIN_API_VERSION, "NNIRHelloPlugin", "1.0",
          registerHelloPasses};
}
