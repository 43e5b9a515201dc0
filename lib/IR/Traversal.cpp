//===- Traversal.cpp - The children of expressions, and walks -------------===//
//
/// \file
/// Indexed access to children, rebuilding a node with new children (and the
/// rule for keeping its checked type), and the iterative post-order walker.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Traversal.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/TypeRelation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;

StringRef nnir::getChildRoleName(ChildRole role) {
  switch (role) {
  case ChildRole::Callee:
    return "callee";
  case ChildRole::Argument:
    return "argument";
  case ChildRole::Field:
    return "field";
  case ChildRole::Operand:
    return "operand";
  case ChildRole::LetVar:
    return "variable";
  case ChildRole::LetValue:
    return "value";
  case ChildRole::LetBody:
  case ChildRole::FunctionBody:
    return "body";
  case ChildRole::Condition:
    return "condition";
  case ChildRole::Then:
    return "then branch";
  case ChildRole::Else:
    return "else branch";
  case ChildRole::Param:
    return "parameter";
  }
  return "child";
}

SmallVector<Child, 4> nnir::getChildren(const Expr *e) {
  SmallVector<Child, 4> children;
  forEachChild(e, [&](Expr *child, ChildRole role) {
    children.push_back({child, role});
  });
  return children;
}

unsigned nnir::getNumChildren(const Expr *e) {
  if (const auto *call = dyn_cast<Call>(e))
    return call->getNumArgs() + 1;
  if (const auto *tuple = dyn_cast<Tuple>(e))
    return tuple->size();
  if (const auto *func = dyn_cast<Function>(e))
    return func->getNumParams() + 1;
  unsigned count = 0;
  forEachChild(e, [&](Expr *) { ++count; });
  return count;
}

Expr *nnir::getChild(const Expr *e, unsigned i) {
  assert(i < getNumChildren(e) && "child index out of range");
  if (const auto *call = dyn_cast<Call>(e))
    return i == 0 ? call->getCallee().get() : call->getArg(i - 1).get();
  if (const auto *tuple = dyn_cast<Tuple>(e))
    return tuple->getField(i).get();
  if (const auto *func = dyn_cast<Function>(e))
    return i < func->getNumParams() ? func->getParam(i).get()
                                    : func->getBody().get();
  // The kinds with a fixed number of children.
  Expr *result = nullptr;
  unsigned index = 0;
  forEachChild(e, [&](Expr *child) {
    if (index++ == i)
      result = child;
  });
  return result;
}

ChildRole nnir::getChildRole(const Expr *e, unsigned i) {
  assert(i < getNumChildren(e) && "child index out of range");
  if (isa<Call>(e))
    return i == 0 ? ChildRole::Callee : ChildRole::Argument;
  if (isa<Tuple>(e))
    return ChildRole::Field;
  if (const auto *func = dyn_cast<Function>(e))
    return i < func->getNumParams() ? ChildRole::Param
                                    : ChildRole::FunctionBody;
  ChildRole result = ChildRole::Operand;
  unsigned index = 0;
  forEachChild(e, [&](Expr *, ChildRole role) {
    if (index++ == i)
      result = role;
  });
  return result;
}

//===----------------------------------------------------------------------===//
// Rebuilding
//===----------------------------------------------------------------------===//

Ref<Type> nnir::getPreservedType(const Expr *e, ArrayRef<Ref<Expr>> children) {
  const Ref<Type> &type = e->getCheckedType();
  if (!type)
    return nullptr;
  const Op *op = nullptr;
  if (const auto *call = dyn_cast<Call>(e))
    op = call->getCalledOp();
  bool readsArgValues = op && typeDependsOnArgValues(op);
  bool keep = true;
  unsigned i = 0;
  forEachChild(e, [&](Expr *old, ChildRole role) {
    const Expr *now = children[i++].get();
    if (!keep || now == old)
      return;
    if (readsArgValues && role == ChildRole::Argument) {
      keep = false;
      return;
    }
    const Type *oldType = old ? old->getCheckedType().get() : nullptr;
    const Type *newType = now ? now->getCheckedType().get() : nullptr;
    keep = oldType && newType && typesEqual(oldType, newType);
  });
  return keep ? type : nullptr;
}

Ref<Expr> nnir::rebuildWithChildren(const Expr *e,
                                    ArrayRef<Ref<Expr>> children) {
  assert(children.size() == getNumChildren(e) &&
         "wrong number of children for the node kind");
  Ref<Type> type = getPreservedType(e, children);
  auto binder = [](const Ref<Expr> &child) -> Ref<Var> {
    return cast_or_null<Var>(child.get());
  };
  switch (e->getKind()) {
  case Expr::Kind::Call: {
    const auto *call = cast<Call>(e);
    return Call::get(children[0], children.drop_front(), call->getAttrs(),
                     call->getLoc(), std::move(type));
  }
  case Expr::Kind::Tuple:
    return Tuple::get(children, e->getLoc(), std::move(type));
  case Expr::Kind::TupleGetItem:
    return TupleGetItem::get(children[0], cast<TupleGetItem>(e)->getIndex(),
                             e->getLoc(), std::move(type));
  case Expr::Kind::Let:
    return Let::get(binder(children[0]), children[1], children[2], e->getLoc(),
                    std::move(type));
  case Expr::Kind::If:
    return If::get(children[0], children[1], children[2], e->getLoc(),
                   std::move(type));
  case Expr::Kind::Function: {
    const auto *func = cast<Function>(e);
    SmallVector<Ref<Var>, 4> params;
    for (const Ref<Expr> &param : children.drop_back())
      params.push_back(binder(param));
    return Function::get(params, children.back(), func->getRetType(),
                         func->getAttrs(), func->getLoc(), std::move(type));
  }
  case Expr::Kind::Constant:
  case Expr::Kind::Var:
  case Expr::Kind::GlobalVar:
  case Expr::Kind::Op:
    break;
  }
  return const_cast<Expr *>(e);
}

//===----------------------------------------------------------------------===//
// walk
//===----------------------------------------------------------------------===//

WalkResult PostOrderWalker::walkImpl(Expr *root, EnterFn enter, ExitFn exit,
                                     ChildrenFn getChildren) {
  if (!root)
    return WalkResult::advance();
  // An item is a node to enter, or (entered) one to exit once the items
  // above it, its children, are done. Sixteen bytes: the stack of a
  // 1,000,000-node chain holds a million of them.
  struct Item {
    Expr *expr;
    PointerIntPair<Expr *, 1, bool> parentAndEntered;
  };
  SmallVector<Item, 64> stack;
  SmallVector<Expr *, 8> children;
  auto memoized = [this, root](const Expr *e) {
    switch (memo) {
    case Memo::Nodes:
      return true;
    case Memo::NodesButVars:
      return !isa<Var>(e);
    case Memo::SharedNodes:
      // The graph holds a reference for each of its edges and the caller
      // keeps it alive, so a node with one reference has one user in it.
      return e == root || e->getRefCount() > 1;
    case Memo::Hooks:
      break;
    }
    return false;
  };
  // Children are looked up in the memo when they come up, not when they are
  // pushed: one hash lookup per edge.
  auto push = [&](Expr *child, Expr *parent) {
    if (child)
      stack.push_back({child, {parent, false}});
  };
  stack.push_back({root, {nullptr, false}});
  while (!stack.empty()) {
    Item &top = stack.back();
    Expr *e = top.expr;
    if (top.parentAndEntered.getInt()) {
      stack.pop_back();
      if (exit(e).wasInterrupted())
        return WalkResult::interrupt();
      continue;
    }
    // A node is marked when it is entered: the graph has no cycles, so a
    // node being walked cannot be reached again below itself, and copies
    // of it lower on the stack are dropped when they come up.
    if (memoized(e) && !visited.insert(e).second) {
      stack.pop_back();
      continue;
    }
    WalkAction action = enter ? enter(e, top.parentAndEntered.getPointer())
                              : WalkAction::Descend;
    // Without an exit hook (or with DescendWithoutExit) a node has nothing
    // left to do once entered: it leaves the stack now rather than coming
    // up a second time. Otherwise it stays, marked, below its children.
    bool exits = exit && action != WalkAction::DescendWithoutExit;
    switch (action) {
    case WalkAction::Interrupt:
      return WalkResult::interrupt();
    case WalkAction::Skip:
      stack.pop_back();
      continue;
    case WalkAction::SkipChildren:
      if (exits)
        top.parentAndEntered.setInt(true);
      else
        stack.pop_back();
      continue;
    case WalkAction::Descend:
    case WalkAction::DescendWithoutExit:
      break;
    }
    if (exits)
      top.parentAndEntered.setInt(true); // `top` dies with the first push
    else
      stack.pop_back();
    // Children are pushed in reverse so that they are walked in order.
    if (getChildren) {
      children.clear();
      getChildren(e, children);
      for (Expr *child : llvm::reverse(children))
        push(child, e);
      continue;
    }
    size_t first = stack.size();
    forEachChild(e, [&](Expr *child) { push(child, e); });
    std::reverse(stack.begin() + first, stack.end());
  }
  return WalkResult::advance();
}

WalkResult nnir::walk(Expr *root, function_ref<WalkResult(Expr *)> fn,
                      WalkOrder order) {
  PostOrderWalker walker(PostOrderWalker::Memo::SharedNodes);
  if (order == WalkOrder::PostOrder)
    return walker.walk(root, nullptr, fn);
  return walker.walk(root, [fn](Expr *e) {
    WalkResult result = fn(e);
    if (result.wasInterrupted())
      return WalkAction::Interrupt;
    return result.wasSkipped() ? WalkAction::SkipChildren
                               : WalkAction::Descend;
  });
}
