//===- ExprMutator.cpp - Rewriting walk over an expression graph ----------===//
//
/// \file
/// The memoised mutator: dataflow nodes are expanded with an explicit stack,
/// let chains are rebuilt in a loop, unchanged nodes are returned as they
/// are; and rewritePostOrder() on top of it.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprMutator.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;
using namespace nnir;

ExprMutator::~ExprMutator() { consumeError(std::move(failure)); }

Ref<Expr> ExprMutator::mutate(Expr *e) {
  if (!e)
    return nullptr;
  auto it = memo.find(e);
  if (it != memo.end())
    return it->second;
  if (failed)
    return e;
  if (isDataflowNode(e)) {
    expandDataflow(e);
    if (Ref<Expr> result = memo.lookup(e))
      return result;
    return e; // the walk failed before reaching e
  }
  Ref<Expr> result = mutateAs(e, enter(e));
  if (failed)
    return e;
  memo[e] = result;
  return result;
}

Ref<Expr> ExprMutator::mutateAs(Expr *e, WalkAction action) {
  assert(action != WalkAction::Interrupt &&
         "a mutator's enter() must not interrupt; use fail()");
  switch (action) {
  case WalkAction::Skip:
    return e;
  case WalkAction::SkipChildren:
    return rewriteUnchanged(e);
  case WalkAction::Descend:
  case WalkAction::DescendWithoutExit: // a rewrite always exits its nodes
  case WalkAction::Interrupt:
    break;
  }
  return dispatch(e);
}

Ref<Expr> ExprMutator::rewriteUnchanged(Expr *e) {
  switch (e->getKind()) {
  case Expr::Kind::Call:
    return rewriteCall(cast<Call>(e), cast<Call>(e));
  case Expr::Kind::Tuple:
    return rewriteTuple(cast<Tuple>(e), cast<Tuple>(e));
  case Expr::Kind::TupleGetItem:
    return rewriteTupleGetItem(cast<TupleGetItem>(e), cast<TupleGetItem>(e));
  case Expr::Kind::Let:
    return rewriteLet(cast<Let>(e), cast<Let>(e));
  case Expr::Kind::If:
    return rewriteIf(cast<If>(e), cast<If>(e));
  case Expr::Kind::Function:
    return rewriteFunction(cast<Function>(e), cast<Function>(e));
  case Expr::Kind::Constant:
  case Expr::Kind::Var:
  case Expr::Kind::GlobalVar:
  case Expr::Kind::Op:
    break;
  }
  return dispatch(e); // a leaf has no children to skip
}

Expected<Ref<Expr>> ExprMutator::mutateOrError(Expr *e) {
  Ref<Expr> result = mutate(e);
  if (!failed)
    return result;
  failed = false;
  return std::move(failure);
}

void ExprMutator::fail(Error err) {
  assert(err && "fail() needs an error");
  if (failed) {
    consumeError(std::move(err));
    return;
  }
  // `failure` is a checked success here (initial, or moved out of).
  consumeError(std::move(failure));
  failure = std::move(err);
  failed = true;
}

Ref<Expr> ExprMutator::mutateChildren(Expr *e) {
  SmallVector<Ref<Expr>, 4> children;
  bool changed = false;
  forEachChild(e, [&](Expr *child, ChildRole role) {
    Ref<Expr> mutated = isBinder(role) && child
                            ? Ref<Expr>(mutateBinder(cast<Var>(child)))
                            : mutate(child);
    changed |= mutated.get() != child;
    children.push_back(std::move(mutated));
  });
  if (!changed || failed)
    return e;
  return rebuildWithChildren(e, children);
}

void ExprMutator::expandDataflow(Expr *root) {
  auto argumentsFirst = [](Expr *e, SmallVectorImpl<Expr *> &children) {
    forEachOperand(e, [&](Expr *child) { children.push_back(child); });
    if (auto *call = dyn_cast<Call>(e))
      children.push_back(call->getCallee().get());
  };
  // The memo is the mutator's: a node is entered until it is mutated. Nodes
  // that are not expanded here are mutated when they are reached.
  PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
  walker.walk(
      root,
      [&](Expr *e) {
        if (memo.count(e))
          return WalkAction::Skip;
        WalkAction action = enter(e);
        if (action != WalkAction::Descend || !isDataflowNode(e)) {
          Ref<Expr> result = mutateAs(e, action);
          if (failed)
            return WalkAction::Interrupt;
          memo[e] = std::move(result);
          return WalkAction::Skip;
        }
        return WalkAction::Descend;
      },
      [&](Expr *e) {
        Ref<Expr> result = dispatch(e);
        if (failed)
          return WalkResult::interrupt();
        memo[e] = std::move(result);
        return WalkResult::advance();
      },
      calleeLast ? PostOrderWalker::ChildrenFn(argumentsFirst) : nullptr);
}

Ref<Var> ExprMutator::mutateBinder(Var *var) {
  Ref<Expr> result = mutate(var);
  if (auto *newVar = dyn_cast_or_null<Var>(result.get()))
    return newVar;
  return var;
}

Ref<Expr> ExprMutator::visitConstant(Constant *e) { return e; }
Ref<Expr> ExprMutator::visitVar(Var *e) { return e; }
Ref<Expr> ExprMutator::visitGlobalVar(GlobalVar *e) { return e; }
Ref<Expr> ExprMutator::visitOp(Op *e) { return e; }

Ref<Expr> ExprMutator::visitCall(Call *call) {
  Ref<Expr> post = mutateChildren(call);
  if (failed)
    return call;
  return rewriteCall(call, cast<Call>(post.get()));
}

Ref<Expr> ExprMutator::visitTuple(Tuple *tuple) {
  Ref<Expr> post = mutateChildren(tuple);
  if (failed)
    return tuple;
  return rewriteTuple(tuple, cast<Tuple>(post.get()));
}

Ref<Expr> ExprMutator::visitTupleGetItem(TupleGetItem *item) {
  Ref<Expr> post = mutateChildren(item);
  if (failed)
    return item;
  return rewriteTupleGetItem(item, cast<TupleGetItem>(post.get()));
}

Ref<Expr> ExprMutator::visitLet(Let *let) {
  // Top-down: the binders and values of the chain, in source order.
  SmallVector<Let *, 8> chain;
  for (Let *cur = let;;) {
    chain.push_back(cur);
    mutate(cur->getVar().get());
    mutate(cur->getValue().get());
    if (failed)
      return let;
    auto *next = dyn_cast<Let>(cur->getBody().get());
    if (!next || memo.count(next))
      break;
    if (WalkAction action = enter(next); action != WalkAction::Descend) {
      // Mutated here, so that enter() is called once.
      Ref<Expr> result = mutateAs(next, action);
      if (failed)
        return let;
      memo[next] = std::move(result);
      break;
    }
    cur = next;
  }
  // Bottom-up: the innermost body, then each let rebuilt around the result.
  Ref<Expr> result;
  for (Let *cur : reverse(chain)) {
    Ref<Var> var = mutateBinder(cur->getVar().get());
    Ref<Expr> value = mutate(cur->getValue().get());
    Ref<Expr> body = mutate(cur->getBody().get());
    if (failed)
      return let;
    if (var == cur->getVar() && value == cur->getValue() &&
        body == cur->getBody()) {
      result = rewriteLet(cur, cur);
    } else {
      Ref<Expr> post = rebuildWithChildren(cur, {var, value, body});
      result = rewriteLet(cur, cast<Let>(post.get()));
    }
    if (failed)
      return let;
    if (cur != let)
      memo[cur] = result;
  }
  return result;
}

Ref<Expr> ExprMutator::visitIf(If *e) {
  Ref<Expr> post = mutateChildren(e);
  if (failed)
    return e;
  return rewriteIf(e, cast<If>(post.get()));
}

Ref<Expr> ExprMutator::visitFunction(Function *func) {
  Ref<Expr> post = mutateChildren(func);
  if (failed)
    return func;
  return rewriteFunction(func, cast<Function>(post.get()));
}

//===----------------------------------------------------------------------===//
// rewritePostOrder
//===----------------------------------------------------------------------===//

namespace {
/// Calls one function on every node, after the node's children; an error
/// it returns stops the rewrite.
class PostOrderRewriter final : public ExprMutator {
public:
  using Fn = function_ref<Expected<Ref<Expr>>(Expr *, Expr *)>;
  using EnterFn = function_ref<WalkAction(Expr *)>;
  PostOrderRewriter(Fn fn, EnterFn enterFn) : fn(fn), enterFn(enterFn) {}

  WalkAction enter(Expr *pre) override {
    return enterFn ? enterFn(pre) : WalkAction::Descend;
  }

  Ref<Expr> visitConstant(Constant *e) override { return call(e, e); }
  Ref<Expr> visitVar(Var *e) override { return call(e, e); }
  Ref<Expr> visitGlobalVar(GlobalVar *e) override { return call(e, e); }
  Ref<Expr> visitOp(Op *e) override { return call(e, e); }
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    return call(pre, post);
  }
  Ref<Expr> rewriteTuple(Tuple *pre, Tuple *post) override {
    return call(pre, post);
  }
  Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                TupleGetItem *post) override {
    return call(pre, post);
  }
  Ref<Expr> rewriteLet(Let *pre, Let *post) override {
    return call(pre, post);
  }
  Ref<Expr> rewriteIf(If *pre, If *post) override { return call(pre, post); }
  Ref<Expr> rewriteFunction(Function *pre, Function *post) override {
    return call(pre, post);
  }

private:
  Ref<Expr> call(Expr *pre, Expr *post) {
    Expected<Ref<Expr>> result = fn(pre, post);
    if (!result) {
      fail(result.takeError());
      return post;
    }
    assert(*result && "a post-order rewrite must not return null");
    return std::move(*result);
  }

  Fn fn;
  EnterFn enterFn;
};
} // namespace

Ref<Expr> nnir::rewritePostOrder(
    Expr *e, function_ref<Ref<Expr>(Expr *pre, Expr *post)> fn,
    function_ref<WalkAction(Expr *pre)> enter) {
  auto infallible = [fn](Expr *pre, Expr *post) -> Expected<Ref<Expr>> {
    return fn(pre, post);
  };
  PostOrderRewriter rewriter(infallible, enter);
  return rewriter.mutate(e);
}

Expected<Ref<Expr>> nnir::rewritePostOrderOrError(
    Expr *e, function_ref<Expected<Ref<Expr>>(Expr *pre, Expr *post)> fn,
    function_ref<WalkAction(Expr *pre)> enter) {
  PostOrderRewriter rewriter(fn, enter);
  return rewriter.mutateOrError(e);
}
