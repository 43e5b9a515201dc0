//===- FreeVars.cpp - Free variables of an expression ---------------------===//
//
/// \file
/// A PostOrderWalker whose enter and exit hooks open and close scopes.
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
  DenseMap<const Var *, unsigned> bound;
  DenseSet<const Var *> reported;
  // A node's binders are in scope from when it is entered until it is
  // exited; every use of a variable is checked against them.
  auto forEachBinder = [](Expr *e, auto fn) {
    forEachChild(e, [&](Expr *child, ChildRole role) {
      if (isBinder(role) && child)
        fn(cast<Var>(child));
    });
  };
  PostOrderWalker walker(PostOrderWalker::Memo::NodesButVars);
  walker.walk(
      const_cast<Expr *>(root),
      [&](Expr *e) {
        if (auto *v = dyn_cast<Var>(e)) {
          if (!bound.count(v) && reported.insert(v).second)
            result.push_back(v);
          return WalkAction::Skip;
        }
        forEachBinder(e, [&](Var *v) { ++bound[v]; });
        return WalkAction::Descend;
      },
      [&](Expr *e) {
        forEachBinder(e, [&](Var *v) {
          if (--bound[v] == 0)
            bound.erase(v);
        });
      },
      [](Expr *e, SmallVectorImpl<Expr *> &children) {
        forEachChild(e, [&](Expr *child, ChildRole role) {
          if (!isBinder(role))
            children.push_back(child);
        });
      });
  return result;
}
