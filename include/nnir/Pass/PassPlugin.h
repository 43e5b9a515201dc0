//===- PassPlugin.h - Passes loaded from shared libraries -------*- C++ -*-===//
//
/// \file
/// Pass plugins, in the model of LLVM's `-load-pass-plugin`: a plugin is a
/// shared library that exports
///
/// \code
///   extern "C" NNIR_PLUGIN_EXPORT nnir::PassPluginInfo
///   nnirGetPassPluginInfo() {
///     return {NNIR_PLUGIN_API_VERSION, "MyPlugin", "1.0",
///             [](nnir::PassRegistry &registry) { ... register passes ... }};
///   }
/// \endcode
///
/// `nnir-opt --load-pass-plugin=libMyPlugin.so` loads it with
/// PassPlugin::load() and calls registerPasses() with the PassRegistry, after
/// which its passes are listed by `--list-passes` and usable in `--passes=`.
///
/// The plugin must link the nnir libraries as shared libraries (NNIR::Pass,
/// NNIR::IR, ... from an nnir built with NNIR_BUILD_SHARED_LIBS, the default),
/// so that it and the tool share one PassRegistry and one operator registry.
/// A plugin that linked static copies would register into its own copies,
/// invisible to the tool.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PASSPLUGIN_H
#define NNIR_PASS_PASSPLUGIN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

/// The version of the plugin interface (PassPluginInfo and the PassRegistry
/// API a plugin calls). A plugin built against another version is refused.
/// 2: PassOptionInfo has a range.
#define NNIR_PLUGIN_API_VERSION 2

/// Marks the entry point as exported even when a plugin is compiled with
/// -fvisibility=hidden.
#define NNIR_PLUGIN_EXPORT LLVM_ATTRIBUTE_VISIBILITY_DEFAULT

namespace nnir {

class PassRegistry;

/// What a plugin's entry point returns.
struct PassPluginInfo {
  /// NNIR_PLUGIN_API_VERSION of the nnir the plugin was built against.
  uint32_t apiVersion;
  /// A short name, shown as the origin of the plugin's passes.
  const char *pluginName;
  const char *pluginVersion;
  /// Registers the plugin's passes. Registration errors (a name already
  /// taken) are the plugin's to report; they do not stop the tool.
  void (*registerPasses)(PassRegistry &registry);
};

/// A loaded plugin. The library stays loaded until the process exits.
class PassPlugin {
public:
  /// Loads \p filename and reads its PassPluginInfo. Errors: the library
  /// cannot be loaded (missing file, not a shared library), it exports no
  /// nnirGetPassPluginInfo, its API version is not NNIR_PLUGIN_API_VERSION,
  /// or it gives no registration callback.
  static llvm::Expected<PassPlugin> load(const std::string &filename);

  llvm::StringRef getFilename() const { return filename; }
  llvm::StringRef getPluginName() const { return info.pluginName; }
  llvm::StringRef getPluginVersion() const { return info.pluginVersion; }
  uint32_t getAPIVersion() const { return info.apiVersion; }

  /// Calls the plugin's registerPasses with \p registry, whose default
  /// origin is meanwhile the plugin's name (its file name if it gives none),
  /// so the passes it registers, and the errors about names already taken,
  /// name the plugin. Returns the names of the passes it registered.
  std::vector<std::string> registerPasses(PassRegistry &registry) const;

private:
  PassPlugin(std::string filename, llvm::sys::DynamicLibrary library)
      : filename(std::move(filename)), library(library) {}

  std::string filename;
  llvm::sys::DynamicLibrary library;
  PassPluginInfo info = {};
};

} // namespace nnir

/// The entry point a plugin defines (declared weak here so that the tool,
/// which includes this header but defines no entry point, still links).
extern "C" ::nnir::PassPluginInfo LLVM_ATTRIBUTE_WEAK nnirGetPassPluginInfo();

#endif // NNIR_PASS_PASSPLUGIN_H
