//===- PassRegistry.h - Passes by name, and pipeline text -------*- C++ -*-===//
//
/// \file
/// The PassRegistry maps pass names to factories, so that pipeline text
/// (`--passes=`), the `required` lists of passes and plugins all find passes
/// the same way. It is filled by explicit registration calls (each library's
/// register...Passes(), a plugin's entry point; no static constructors), made
/// before concurrent use.
///
/// A registered pass may declare options, written `Name{key=value,...}` in
/// pipeline text (as in MLIR); each option has a type, a default and a
/// description, and the factory receives the parsed values.
///
/// Pipeline text: a comma-separated list of pass names with optional
/// options, where `Sequential(...)` nests a pipeline (its own PassInfo may be
/// given as options: `Sequential{name=foo,opt_level=2}(A,B)`).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PASSREGISTRY_H
#define NNIR_PASS_PASSREGISTRY_H

#include "nnir/Pass/OptionValue.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Support/IntegerRange.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nnir {

/// A declared option of a registered pass.
struct PassOptionInfo {
  std::string name;
  OptionType type;
  OptionValue defaultValue;
  std::string description;
  /// The values an int option accepts (none: every int64); a value written
  /// outside it is an error that says the range.
  std::optional<IntegerRange<int64_t>> range = std::nullopt;
};

/// The option values given to a factory: every declared option, set to the
/// written value or its default.
class PassOptions {
public:
  const OptionValue &get(llvm::StringRef name) const;
  bool getBool(llvm::StringRef name) const { return get(name).getBool(); }
  int64_t getInt(llvm::StringRef name) const { return get(name).getInt(); }
  double getFloat(llvm::StringRef name) const { return get(name).getFloat(); }
  const std::string &getString(llvm::StringRef name) const {
    return get(name).getString();
  }
  void set(llvm::StringRef name, OptionValue value) {
    values[name] = std::move(value);
  }

private:
  llvm::StringMap<OptionValue> values;
};

struct PassRegistration {
  std::string name;
  std::string description;
  /// Creates the pass; the PassInfo of the result must carry `name`.
  std::function<llvm::Expected<Ref<Pass>>(const PassOptions &)> factory;
  std::vector<PassOptionInfo> options;
  /// Where it came from ("nnir", or a plugin's name), for --list-passes and
  /// the error about a name registered twice. Left empty, registerPass()
  /// fills in the registry's default origin.
  std::string origin;
};

class PassRegistry {
public:
  static PassRegistry &instance();

  /// Registers a pass. A second registration of a name is an error (a
  /// plugin may not replace a built-in pass).
  llvm::Error registerPass(PassRegistration registration);
  /// Shorthand for a pass without options.
  llvm::Error registerPass(llvm::StringRef name, llvm::StringRef description,
                           std::function<Ref<Pass>()> factory);

  const PassRegistration *lookup(llvm::StringRef name) const;
  /// The origin given to registrations that name none: "nnir", or a
  /// plugin's name while PassPlugin::registerPasses() runs its callback (so
  /// an error about a name registered twice already names the plugin).
  /// Returns the previous one. Like registration, not for concurrent use.
  std::string setDefaultOrigin(std::string origin) {
    std::swap(origin, defaultOrigin);
    return origin;
  }
  /// Every registration in registration order.
  std::vector<const PassRegistration *> getRegistrations() const;

  /// Creates pass \p name with \p options (text values, parsed with the
  /// declared types). Unknown names give "unknown pass 'X'; did you mean
  /// 'Y'?"; unknown or mistyped options list the valid ones.
  llvm::Expected<Ref<Pass>> create(
      llvm::StringRef name,
      llvm::ArrayRef<std::pair<std::string, std::string>> options = {}) const;

  /// "unknown pass 'X'; did you mean 'Y'?", the one wording for every place
  /// that names passes (pipeline text, `required` lists, nnir-opt's flags).
  /// The suggestions are the closest registered names or \p extraNames (at
  /// most three, ties only); none when nothing is close.
  std::string
  getUnknownPassMessage(llvm::StringRef name,
                        llvm::ArrayRef<llvm::StringRef> extraNames = {}) const;

  /// Up to \p maxResults registered names close to \p name.
  std::vector<std::string> suggest(llvm::StringRef name,
                                   unsigned maxResults = 3) const;

private:
  PassRegistry() = default;
  std::vector<PassRegistration> registrations;
  llvm::StringMap<size_t> index;
  std::string defaultOrigin = "nnir";
};

/// How each pass that pipeline text names was written (`FoldConstant{
/// fold_qnn=true}`), by the address of the pass's PassInfo, which is what
/// instruments see: a crash reproducer replays one pass as written.
using PassSpellings = llvm::DenseMap<const PassInfo *, std::string>;

/// Parses pipeline text into one pass (a Sequential when it lists several).
/// The text is added to \p sourceMgr as a buffer named \p bufferName, so
/// errors are located DiagnosticErrors with a caret under the offending name.
/// \p spellings, if given, receives how each pass other than a Sequential
/// was written.
llvm::Expected<Ref<Pass>>
parsePassPipeline(llvm::StringRef text, llvm::SourceMgr &sourceMgr,
                  llvm::StringRef bufferName = "<pass pipeline>",
                  PassSpellings *spellings = nullptr);

} // namespace nnir

#endif // NNIR_PASS_PASSREGISTRY_H
