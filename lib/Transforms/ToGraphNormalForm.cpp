//===- ToGraphNormalForm.cpp - Conversion to graph normal form ------------===//
//
/// \file
/// A memoised rewrite in which a let variable maps to its converted value:
/// the let chain loop records the mapping in the memo table, so every later
/// use of the variable is a memo hit.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/ToGraphNormalForm.h"
#include "nnir/Transforms/Passes.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Traversal.h"

using namespace llvm;
using namespace nnir;

/// True if \p var occurs in \p value. Iterative; linear in the size of
/// \p value (let values in A-normal form are small).
static bool usesVar(const Var *var, Expr *value) {
  return walk(
             value,
             [var](Expr *e) {
               return e == var ? WalkResult::interrupt()
                               : WalkResult::advance();
             },
             WalkOrder::PreOrder)
      .wasInterrupted();
}

namespace {

class GraphNormalizer final : public ExprMutator {
  Ref<Expr> visitLet(Let *let) override {
    SmallVector<Let *, 8> chain;
    Let *cur = let;
    for (;;) {
      chain.push_back(cur);
      Var *var = cur->getVar().get();
      Ref<Expr> value = mutate(cur->getValue().get());
      // A recursive value keeps its binding: `let %f = value; %f`.
      if (usesVar(var, cur->getValue().get()))
        value = Let::get(var, std::move(value), var, cur->getLoc());
      memo[var] = std::move(value);
      auto *next = dyn_cast<Let>(cur->getBody().get());
      if (!next || memo.count(next))
        break;
      cur = next;
    }
    Ref<Expr> body = mutate(cur->getBody().get());
    for (Let *l : chain)
      if (l != let)
        memo[l] = body;
    return body;
  }
};

} // namespace

Ref<Expr> nnir::toGraphNormalForm(Expr *expr) {
  GraphNormalizer normalizer;
  return normalizer.mutate(expr);
}

Ref<Pass> nnir::createToGraphNormalFormPass() {
  PassInfo info = getBuiltinPassInfo(BuiltinPass::ToGraphNormalForm);
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> {
        Ref<Expr> result = toGraphNormalForm(func.get());
        return Ref<Function>(cast<Function>(result.get()));
      },
      std::move(info));
}
