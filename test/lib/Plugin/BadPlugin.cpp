//===- BadPlugin.cpp - Plugins that PassPlugin::load refuses --------------===//
//
/// \file
/// Built twice: with BAD_PLUGIN_WRONG_VERSION the entry point reports a plugin
/// API version nnir does not support; with BAD_PLUGIN_NO_CALLBACK it gives no
/// registration callback. Both must be refused with an error, not called.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/PassPlugin.h"

#include "llvm/Support/raw_ostream.h"

using namespace nnir;

static void registerPasses(PassRegistry &) {
  llvm::errs() << "BadPlugin: registerPasses must not be called\n";
}

extern "C" NNIR_PLUGIN_EXPORT PassPluginInfo nnirGetPassPluginInfo() {
#if defined(BAD_PLUGIN_WRONG_VERSION)
  return {NNIR_PLUGIN_API_VERSION + 41, "NNIRTestWrongVersionPlugin", "0.1",
          registerPasses};
#elif defined(BAD_PLUGIN_NO_CALLBACK)
  (void)registerPasses;
  return {NNIR_PLUGIN_API_VERSION, "NNIRTestNoCallbackPlugin", "0.1", nullptr};
#else
#error "define BAD_PLUGIN_WRONG_VERSION or BAD_PLUGIN_NO_CALLBACK"
#endif
}
