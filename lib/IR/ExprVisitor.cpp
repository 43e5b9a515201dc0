//===- ExprVisitor.cpp - Read-only walk over an expression graph ----------===//
//
/// \file
/// The memoised visitor: dataflow nodes are expanded with an explicit stack,
/// let chains are walked in a loop, so the stack depth depends only on the
/// syntactic nesting of functions and ifs.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprVisitor.h"

using namespace llvm;
using namespace nnir;

void ExprVisitor::visit(Expr *e) {
  if (!e || visited.count(e))
    return;
  if (isDataflowNode(e)) {
    expandDataflow(e);
    return;
  }
  visited.insert(e);
  dispatch(e);
}

void ExprVisitor::expandDataflow(Expr *root) {
  // The memo is `visited`, which subclasses may read and clear.
  PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
  walker.walk(
      root,
      [&](Expr *e) {
        if (!visited.insert(e).second)
          return WalkAction::Skip;
        if (isDataflowNode(e))
          return WalkAction::Descend;
        dispatch(e); // not expanded here
        return WalkAction::Skip;
      },
      [&](Expr *e) { dispatch(e); });
}

void ExprVisitor::visitConstant(Constant *e) {}
void ExprVisitor::visitVar(Var *e) {}
void ExprVisitor::visitGlobalVar(GlobalVar *e) {}
void ExprVisitor::visitOp(Op *e) {}

void ExprVisitor::visitChildren(Expr *e) {
  forEachChild(e, [this](Expr *child) { visit(child); });
}

void ExprVisitor::visitCall(Call *call) { visitChildren(call); }
void ExprVisitor::visitTuple(Tuple *tuple) { visitChildren(tuple); }
void ExprVisitor::visitTupleGetItem(TupleGetItem *item) {
  visitChildren(item);
}

void ExprVisitor::visitLet(Let *let) {
  bool chained = chainedLet == let;
  if (chained)
    chainedLet = nullptr;
  visit(let->getVar().get());
  visit(let->getValue().get());
  Expr *body = let->getBody().get();
  if (chained) {
    // The loop of the enclosing let visits the body.
    chainedFrom = let;
    chainedBody = body;
    return;
  }

  // Walk the chain: dispatch each nested let (so overrides see it) and pick
  // up the body its base method left to us. A nested loop started by an
  // override saves and restores the state of this one.
  Let *savedLet = chainedLet, *savedFrom = chainedFrom;
  Expr *savedBody = chainedBody;
  while (auto *next = dyn_cast_or_null<Let>(body)) {
    if (visited.count(next)) {
      body = nullptr;
      break;
    }
    visited.insert(next);
    chainedLet = next;
    chainedFrom = nullptr;
    chainedBody = nullptr;
    dispatch(next);
    // An override that did not call the base method prunes the body.
    body = chainedFrom == next ? chainedBody : nullptr;
  }
  chainedLet = savedLet;
  chainedFrom = savedFrom;
  chainedBody = savedBody;
  visit(body);
}

void ExprVisitor::visitIf(If *e) { visitChildren(e); }
void ExprVisitor::visitFunction(Function *func) { visitChildren(func); }
