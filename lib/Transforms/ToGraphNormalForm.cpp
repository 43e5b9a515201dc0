//===- ToGraphNormalForm.cpp - Conversion to graph normal form ------------===//
//
/// \file
/// A memoised rewrite in which a let variable maps to its converted value:
/// the let chain loop records the mapping in the memo table, so every later
/// use of the variable is a memo hit.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/ToGraphNormalForm.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Module.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace llvm;
using namespace nnir;

/// Calls \p fn on every child of \p e (operators excluded).
template <typename Fn> static void forEachChild(Expr *e, Fn &&fn) {
  auto visit = [&](const Ref<Expr> &child) {
    if (child && !isa<Op>(child.get()))
      fn(child.get());
  };
  switch (e->getKind()) {
  case Expr::Kind::Call:
    visit(cast<Call>(e)->getCallee());
    for (const Ref<Expr> &arg : cast<Call>(e)->getArgs())
      visit(arg);
    return;
  case Expr::Kind::Tuple:
    for (const Ref<Expr> &field : cast<Tuple>(e)->getFields())
      visit(field);
    return;
  case Expr::Kind::TupleGetItem:
    visit(cast<TupleGetItem>(e)->getTuple());
    return;
  case Expr::Kind::Let:
    visit(cast<Let>(e)->getValue());
    visit(cast<Let>(e)->getBody());
    return;
  case Expr::Kind::If:
    visit(cast<If>(e)->getCond());
    visit(cast<If>(e)->getThen());
    visit(cast<If>(e)->getElse());
    return;
  case Expr::Kind::Function:
    visit(cast<Function>(e)->getBody());
    return;
  case Expr::Kind::Constant:
  case Expr::Kind::Var:
  case Expr::Kind::GlobalVar:
  case Expr::Kind::Op:
    return;
  }
}

/// True if \p var occurs in \p value. Iterative; linear in the size of
/// \p value (let values in A-normal form are small).
static bool usesVar(const Var *var, Expr *value) {
  SmallPtrSet<const Expr *, 16> visited;
  SmallVector<Expr *, 16> stack{value};
  while (!stack.empty()) {
    Expr *e = stack.pop_back_val();
    if (e == var)
      return true;
    if (!visited.insert(e).second)
      continue;
    forEachChild(e, [&](Expr *child) { stack.push_back(child); });
  }
  return false;
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
  PassInfo info("ToGraphNormalForm", /*optLevel=*/1);
  info.description = "replace let-bound variables by their values";
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> {
        Ref<Expr> result = toGraphNormalForm(func.get());
        return Ref<Function>(cast<Function>(result.get()));
      },
      std::move(info));
}
