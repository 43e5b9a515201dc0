//===- PassInfo.h - Metadata of a pass --------------------------*- C++ -*-===//
//
/// \file
/// PassInfo names a pass and says when it runs: its optimisation level (the
/// minimum PassContext opt level at which a Sequential runs it), the passes it
/// requires (run before it by a Sequential, resolved by name through the
/// PassRegistry), and what it does to the module's checked types.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PASSINFO_H
#define NNIR_PASS_PASSINFO_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

struct PassInfo {
  std::string name;
  int optLevel = 0;
  std::vector<std::string> required;
  /// One line for `--list-passes`.
  std::string description;
  /// The pass leaves every checked type of the module up to date (it changes
  /// nothing whose type could change, or it restores the types itself). When
  /// false and the pass changes the module, the module's types are marked
  /// stale (IRModule::hasValidTypes()).
  bool preservesTypes = false;
  /// The pass brings every checked type up to date (InferType). A Sequential
  /// skips such a pass when it is only required and the module's types are
  /// already valid.
  bool establishesTypes = false;

  PassInfo() = default;
  PassInfo(llvm::StringRef name, int optLevel,
           std::vector<std::string> required = {})
      : name(name.str()), optLevel(optLevel), required(std::move(required)) {}

  /// TVM's repr: "The meta data of the pass - pass name: X, opt_level: N,
  /// required passes: [...]".
  void print(llvm::raw_ostream &os) const;
};

} // namespace nnir

#endif // NNIR_PASS_PASSINFO_H
