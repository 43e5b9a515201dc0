//===- DeadCodeElimination.h - Drop unused let bindings ---------*- C++ -*-===//
//
/// \file
/// DeadCodeElimination removes let bindings whose variable is never used
/// and whose value is pure, and with `inlineOnce` inlines pure bindings used
/// exactly once (Relay's DeadCodeElimination). A binding is removed when
/// the only uses of its variable are in bindings that are removed, so a dead
/// chain goes in one run. A value is impure when it calls a stateful
/// operator (TOpIsStateful), an external function (Extern=1), or a
/// function-typed value whose purity is unknown (a parameter, a tuple
/// field); global functions are analysed through their calls, recursion
/// included. Impure bindings are never touched; `ignoreImpurity` treats
/// everything as pure. A variable bound outside a local function and used
/// inside it counts as used twice (the function may run many times), so it
/// is never inlined there.
///
/// With `removeUnusedFunctions`, global functions that no entry function
/// reaches through calls or references are removed as well (Relay's
/// RemoveUnusedFunctions); the entry functions must exist.
///
/// Unlike Relay, which assumes every call nested more than 25 deep is
/// impure (and keeps such bindings), the analysis is iterative and exact at
/// any depth.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_DEADCODEELIMINATION_H
#define NNIR_TRANSFORMS_DEADCODEELIMINATION_H

#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace nnir {

struct DeadCodeEliminationOptions {
  /// Inline pure bindings whose variable is used once.
  bool inlineOnce = false;
  /// Treat every binding as pure.
  bool ignoreImpurity = false;
  /// Remove the global functions the entry functions do not reach.
  bool removeUnusedFunctions = false;
  std::vector<std::string> entryFunctions = {"main"};
};

/// Runs the elimination on \p module; returns \p module itself when nothing
/// changed. \p numRemoved / \p numInlined, if given, count bindings.
/// With \p ctx, the functions are rewritten in parallel on its thread pool
/// (nnir/Pass/Parallel.h).
llvm::Expected<Ref<IRModule>>
eliminateDeadCode(Ref<IRModule> module,
                  const DeadCodeEliminationOptions &options = {},
                  int64_t *numRemoved = nullptr, int64_t *numInlined = nullptr,
                  int64_t *numFunctionsRemoved = nullptr,
                  PassContext *ctx = nullptr);

/// The "DeadCodeElimination" module pass (opt level 1, requires InferType).
Ref<Pass>
createDeadCodeEliminationPass(DeadCodeEliminationOptions options = {});

} // namespace nnir

#endif // NNIR_TRANSFORMS_DEADCODEELIMINATION_H
