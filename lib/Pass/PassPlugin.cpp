//===- PassPlugin.cpp - Passes loaded from shared libraries ---------------===//
//
/// \file
/// Loads a pass plugin with llvm::sys::DynamicLibrary and checks its entry
/// point, as LLVM's PassPlugin::Load does.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/PassPlugin.h"

#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"

#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#endif

using namespace llvm;
using namespace nnir;

/// Keeps the already loaded library \p filename mapped until the process
/// ends. LLVM closes its "permanent" libraries from a static destructor, which
/// may run before the destructors of the registries that still hold the
/// plugin's objects (a pass factory's std::function, whose code is in the
/// plugin); with RTLD_NODELETE, dlclose leaves the code in place.
static void pinLibrary(const std::string &filename) {
#if defined(RTLD_NODELETE) && defined(RTLD_NOLOAD)
  // Promotes the loaded library; the extra reference is never dropped.
  (void)dlopen(filename.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
#endif
}

/// The symbol every plugin exports.
static constexpr const char *kEntryPoint = "nnirGetPassPluginInfo";

Expected<PassPlugin> PassPlugin::load(const std::string &filename) {
  std::string message;
  sys::DynamicLibrary library =
      sys::DynamicLibrary::getPermanentLibrary(filename.c_str(), &message);
  if (!library.isValid())
    return makeError("cannot load pass plugin '" + filename + "': " + message);
  pinLibrary(filename);

  PassPlugin plugin(filename, library);
  // Looked up in the plugin (and the libraries it depends on), not in the
  // process: the tool itself defines no entry point.
  auto *getInfo = reinterpret_cast<decltype(nnirGetPassPluginInfo) *>(
      library.getAddressOfSymbol(kEntryPoint));
  if (!getInfo)
    return makeError("'" + filename + "' is not an nnir pass plugin: " +
                     "it does not export " + kEntryPoint + "()");
  plugin.info = getInfo();
  if (plugin.info.apiVersion != NNIR_PLUGIN_API_VERSION)
    return makeError("pass plugin '" + filename + "' was built for " +
                     "plugin API version " + Twine(plugin.info.apiVersion) +
                     "; this nnir supports version " +
                     Twine(NNIR_PLUGIN_API_VERSION));
  if (!plugin.info.registerPasses)
    return makeError("pass plugin '" + filename +
                     "' gives no registerPasses callback");
  if (!plugin.info.pluginName)
    plugin.info.pluginName = "";
  if (!plugin.info.pluginVersion)
    plugin.info.pluginVersion = "";
  return plugin;
}

std::vector<std::string>
PassPlugin::registerPasses(PassRegistry &registry) const {
  size_t before = registry.getRegistrations().size();
  std::string previous = registry.setDefaultOrigin(
      getPluginName().empty() ? filename : getPluginName().str());
  info.registerPasses(registry);
  registry.setDefaultOrigin(std::move(previous));
  // Registrations are kept in registration order: the new ones are last.
  std::vector<const PassRegistration *> all = registry.getRegistrations();
  std::vector<std::string> names;
  for (size_t i = before; i < all.size(); ++i)
    names.push_back(all[i]->name);
  return names;
}
