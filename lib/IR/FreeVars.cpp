//===- FreeVars.cpp - Free variables of an expression ---------------------===//
//
/// \file
/// An iterative depth-first walk with explicit scope enter/exit events.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/FreeVars.h"

#include "nnir/IR/ExprFunctor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace llvm;
using namespace nnir;

std::vector<Ref<Var>> nnir::getFreeVars(const Expr *root) {
  std::vector<Ref<Var>> result;
  if (!root)
    return result;
  DenseMap<const Var *, unsigned> bound;
  DenseSet<const Var *> reported;
  DenseSet<const Expr *> visited;

  // An entry either visits a node or (unbind != nullptr) leaves a scope.
  struct Item {
    const Expr *expr;
    const Var *unbind;
  };
  SmallVector<Item, 64> stack;
  stack.push_back({root, nullptr});
  auto push = [&](const Expr *e) {
    if (e)
      stack.push_back({e, nullptr});
  };
  auto bind = [&](const Var *v) {
    ++bound[v];
    stack.push_back({nullptr, v});
  };

  while (!stack.empty()) {
    Item item = stack.pop_back_val();
    if (item.unbind) {
      if (--bound[item.unbind] == 0)
        bound.erase(item.unbind);
      continue;
    }
    const Expr *e = item.expr;
    if (auto *v = dyn_cast<Var>(e)) {
      if (!bound.count(v) && reported.insert(v).second)
        result.push_back(const_cast<Var *>(v));
      continue;
    }
    if (!visited.insert(e).second)
      continue;
    switch (e->getKind()) {
    case Expr::Kind::Constant:
    case Expr::Kind::GlobalVar:
    case Expr::Kind::Op:
    case Expr::Kind::Var:
      break;
    case Expr::Kind::Call:
    case Expr::Kind::Tuple:
    case Expr::Kind::TupleGetItem:
      // Pushed in reverse so that operands are visited left to right.
      forEachOperandReversed(const_cast<Expr *>(e), push);
      break;
    case Expr::Kind::Let: {
      auto *let = cast<Let>(e);
      bind(let->getVar().get());
      push(let->getBody().get());
      push(let->getValue().get());
      break;
    }
    case Expr::Kind::If: {
      auto *ifExpr = cast<If>(e);
      push(ifExpr->getElse().get());
      push(ifExpr->getThen().get());
      push(ifExpr->getCond().get());
      break;
    }
    case Expr::Kind::Function: {
      auto *func = cast<Function>(e);
      for (const Ref<Var> &param : func->getParams())
        bind(param.get());
      push(func->getBody().get());
      break;
    }
    }
  }
  return result;
}
