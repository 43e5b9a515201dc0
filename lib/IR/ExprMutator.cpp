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

#include <algorithm>

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
  Ref<Expr> result = dispatch(e);
  if (failed)
    return e;
  memo[e] = result;
  return result;
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
  struct Item {
    Expr *expr;
    bool expanded;
  };
  SmallVector<Item, 64> stack;
  stack.push_back({root, false});
  auto push = [&](Expr *child) {
    if (child && !memo.count(child))
      stack.push_back({child, false});
  };
  while (!stack.empty()) {
    Item &top = stack.back();
    Expr *e = top.expr;
    // An expanded node can not have been mutated meanwhile (that would need
    // a cycle); only first visits look it up.
    if (!top.expanded && memo.count(e)) {
      stack.pop_back();
      continue;
    }
    if (top.expanded || !isDataflowNode(e)) {
      stack.pop_back();
      Ref<Expr> result = dispatch(e);
      if (failed)
        return;
      memo[e] = std::move(result);
      continue;
    }
    top.expanded = true;
    // Children are pushed in reverse so that they are mutated in order.
    size_t first = stack.size();
    forEachChild(e, push);
    std::reverse(stack.begin() + first, stack.end());
  }
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
  explicit PostOrderRewriter(Fn fn) : fn(fn) {}

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
};
} // namespace

Ref<Expr>
nnir::rewritePostOrder(Expr *e,
                       function_ref<Ref<Expr>(Expr *pre, Expr *post)> fn) {
  auto infallible = [fn](Expr *pre, Expr *post) -> Expected<Ref<Expr>> {
    return fn(pre, post);
  };
  PostOrderRewriter rewriter(infallible);
  return rewriter.mutate(e);
}

Expected<Ref<Expr>> nnir::rewritePostOrderOrError(
    Expr *e, function_ref<Expected<Ref<Expr>>(Expr *pre, Expr *post)> fn) {
  PostOrderRewriter rewriter(fn);
  return rewriter.mutateOrError(e);
}
