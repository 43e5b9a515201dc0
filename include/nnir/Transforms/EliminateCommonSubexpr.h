//===- EliminateCommonSubexpr.h - Merge equal operator calls ----*- C++ -*-===//
//
/// \file
/// EliminateCommonSubexpr replaces an operator call by an earlier call of the
/// same operator with structurally equal attributes and equivalent
/// arguments, and a tuple projection by an earlier projection of the same
/// index from the same tuple (Relay's EliminateCommonSubexpr). Arguments are
/// equivalent when they are the same node after rewriting or equal scalar
/// constants (tuple arguments field by field). Calls without arguments,
/// calls of non-operators and calls of stateful operators are never merged.
///
/// Unlike Relay, whose table spans the whole function, a call inside an if
/// branch or a nested function is only merged with calls of the enclosing
/// scopes, never with one in a sibling branch: a merged node must stay
/// computable wherever it is used.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_ELIMINATECOMMONSUBEXPR_H
#define NNIR_TRANSFORMS_ELIMINATECOMMONSUBEXPR_H

#include "nnir/IR/Expr.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

#include <functional>

namespace nnir {

/// Relay's `fskip`: called with each rewritten operator call and tuple
/// projection before it is looked up; true leaves that node alone (it is
/// neither merged nor merged into). An error stops the pass with it.
using CommonSubexprSkipFn = std::function<llvm::Expected<bool>(const Ref<Expr> &)>;

/// Merges the common subexpressions of \p expr, except the nodes \p skip
/// (if given) leaves alone. \p numMerged, if given, is incremented per
/// merged node.
llvm::Expected<Ref<Expr>>
eliminateCommonSubexpr(Expr *expr, int64_t *numMerged = nullptr,
                       const CommonSubexprSkipFn &skip = nullptr);

/// The "EliminateCommonSubexpr" function pass (opt level 3, requires
/// InferType).
Ref<Pass> createEliminateCommonSubexprPass();
/// The same pass with a skip predicate (Relay's
/// `EliminateCommonSubexpr(fskip)`).
Ref<Pass> createEliminateCommonSubexprSkipping(CommonSubexprSkipFn skip);

} // namespace nnir

#endif // NNIR_TRANSFORMS_ELIMINATECOMMONSUBEXPR_H
