//===- FreeVars.cpp - Free variables of an expression ---------------------===//
//
/// \file
/// An iterative depth-first walk with explicit scope enter/exit events.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/FreeVars.h"

#include "nnir/IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

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
    // Binders first (their scope ends when the walk is back here), then
    // the other children, pushed in reverse to be visited left to right.
    SmallVector<Child, 4> children = getChildren(e);
    for (const Child &child : children)
      if (isBinder(child.role) && child.expr)
        bind(cast<Var>(child.expr));
    for (const Child &child : reverse(children))
      if (!isBinder(child.role))
        push(child.expr);
  }
  return result;
}
