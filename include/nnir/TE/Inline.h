//===- Inline.h - Substitution and inlining of compute stages ----*- C++
//-*-===//
//
/// \file
/// The two rewrites lowering needs: substituting expressions for variables,
/// and inlining compute stages into their readers (TVM's te inline, Halide's
/// default schedule), which turns a chain of injective stages into one
/// expression per output element with no intermediate buffers.
///
/// Both keep sharing: a node reached twice is rewritten once, and reading
/// one inlined stage twice at the same index expressions yields one shared
/// node, so a fused diamond does not grow exponentially (Codegen emits each
/// shared node once per element).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TE_INLINE_H
#define NNIR_TE_INLINE_H

#include "nnir/TE/Tensor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <map>
#include <vector>

namespace nnir::te {

/// \p e with every variable in \p map replaced by its expression.
Expr substitute(const Expr &e,
                const llvm::DenseMap<const ExprNode *, Expr> &map);

/// Rewrites expressions so that reads of the compute stages for which
/// \p shouldInline is true are replaced by those stages' bodies at the read
/// indices (transitively). One Inliner memoises across all calls, so use one
/// per kernel.
class Inliner {
public:
  explicit Inliner(std::function<bool(const TensorNode *)> shouldInline)
      : shouldInline(std::move(shouldInline)) {}

  Expr rewrite(const Expr &e);

private:
  Expr rewriteImpl(const Expr &e, llvm::DenseMap<const ExprNode *, Expr> &memo);
  /// The body of an inlined stage with its own reads inlined.
  const Expr &getInlinedBody(const TensorNode *t);

  std::function<bool(const TensorNode *)> shouldInline;
  llvm::DenseMap<const TensorNode *, Expr> inlinedBodies;
  /// (tensor, index nodes) -> the shared inlined read.
  std::map<std::pair<const TensorNode *, std::vector<const ExprNode *>>, Expr>
      reads;
  llvm::DenseMap<const ExprNode *, Expr> memo;
};

/// Calls \p fn on every node of \p e once (pre-order), including the bodies
/// of reductions; does not enter the tensors that reads refer to.
void visit(const Expr &e, llvm::function_ref<void(const ExprNode *)> fn);

} // namespace nnir::te

#endif // NNIR_TE_INLINE_H
