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

Ref<Expr> ExprMutator::mutate(Expr *e) {
  if (!e)
    return nullptr;
  auto it = memo.find(e);
  if (it != memo.end())
    return it->second;
  if (isDataflowNode(e)) {
    expandDataflow(e);
    return memo.lookup(e);
  }
  Ref<Expr> result = dispatch(e);
  memo[e] = result;
  return result;
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
      memo[e] = std::move(result);
      continue;
    }
    top.expanded = true;
    // Children are pushed in reverse so that they are mutated in order.
    forEachOperandReversed(e, push);
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

/// Mutates every expression of \p in into \p out; true if any changed.
static bool mutateAll(ExprMutator &mutator, ArrayRef<Ref<Expr>> in,
                      SmallVectorImpl<Ref<Expr>> &out) {
  bool changed = false;
  out.reserve(in.size());
  for (const Ref<Expr> &e : in) {
    out.push_back(mutator.mutate(e.get()));
    changed |= out.back() != e;
  }
  return changed;
}

Ref<Expr> ExprMutator::visitCall(Call *call) {
  Ref<Expr> callee = mutate(call->getCallee().get());
  SmallVector<Ref<Expr>, 4> args;
  bool changed = mutateAll(*this, call->getArgs(), args);
  if (!changed && callee == call->getCallee())
    return rewriteCall(call, call);
  Ref<Call> post =
      Call::get(std::move(callee), args, call->getAttrs(), call->getLoc());
  return rewriteCall(call, post.get());
}

Ref<Expr> ExprMutator::visitTuple(Tuple *tuple) {
  SmallVector<Ref<Expr>, 4> fields;
  if (!mutateAll(*this, tuple->getFields(), fields))
    return rewriteTuple(tuple, tuple);
  Ref<Tuple> post = Tuple::get(fields, tuple->getLoc());
  return rewriteTuple(tuple, post.get());
}

Ref<Expr> ExprMutator::visitTupleGetItem(TupleGetItem *item) {
  Ref<Expr> tuple = mutate(item->getTuple().get());
  if (tuple == item->getTuple())
    return rewriteTupleGetItem(item, item);
  Ref<TupleGetItem> post =
      TupleGetItem::get(std::move(tuple), item->getIndex(), item->getLoc());
  return rewriteTupleGetItem(item, post.get());
}

Ref<Expr> ExprMutator::visitLet(Let *let) {
  // Top-down: the binders and values of the chain, in source order.
  SmallVector<Let *, 8> chain;
  for (Let *cur = let;;) {
    chain.push_back(cur);
    mutate(cur->getVar().get());
    mutate(cur->getValue().get());
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
    if (var == cur->getVar() && value == cur->getValue() &&
        body == cur->getBody()) {
      result = rewriteLet(cur, cur);
    } else {
      Ref<Let> post = Let::get(std::move(var), std::move(value),
                               std::move(body), cur->getLoc());
      result = rewriteLet(cur, post.get());
    }
    if (cur != let)
      memo[cur] = result;
  }
  return result;
}

Ref<Expr> ExprMutator::visitIf(If *e) {
  Ref<Expr> cond = mutate(e->getCond().get());
  Ref<Expr> thenBranch = mutate(e->getThen().get());
  Ref<Expr> elseBranch = mutate(e->getElse().get());
  if (cond == e->getCond() && thenBranch == e->getThen() &&
      elseBranch == e->getElse())
    return e;
  return If::get(std::move(cond), std::move(thenBranch), std::move(elseBranch),
                 e->getLoc());
}

Ref<Expr> ExprMutator::visitFunction(Function *func) {
  SmallVector<Ref<Var>, 4> params;
  bool changed = false;
  for (const Ref<Var> &param : func->getParams()) {
    params.push_back(mutateBinder(param.get()));
    changed |= params.back() != param;
  }
  Ref<Expr> body = mutate(func->getBody().get());
  if (!changed && body == func->getBody())
    return func;
  return Function::get(params, std::move(body), func->getRetType(),
                       func->getAttrs(), func->getLoc());
}

//===----------------------------------------------------------------------===//
// rewritePostOrder
//===----------------------------------------------------------------------===//

namespace {
/// Calls one function on every node, after the node's children.
class PostOrderRewriter final : public ExprMutator {
public:
  explicit PostOrderRewriter(function_ref<Ref<Expr>(Expr *, Expr *)> fn)
      : fn(fn) {}

  Ref<Expr> visitConstant(Constant *e) override { return fn(e, e); }
  Ref<Expr> visitVar(Var *e) override { return fn(e, e); }
  Ref<Expr> visitGlobalVar(GlobalVar *e) override { return fn(e, e); }
  Ref<Expr> visitOp(Op *e) override { return fn(e, e); }
  Ref<Expr> visitIf(If *e) override {
    Ref<Expr> post = ExprMutator::visitIf(e);
    return fn(e, post.get());
  }
  Ref<Expr> visitFunction(Function *e) override {
    Ref<Expr> post = ExprMutator::visitFunction(e);
    return fn(e, post.get());
  }
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    return fn(pre, post);
  }
  Ref<Expr> rewriteTuple(Tuple *pre, Tuple *post) override {
    return fn(pre, post);
  }
  Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                TupleGetItem *post) override {
    return fn(pre, post);
  }
  Ref<Expr> rewriteLet(Let *pre, Let *post) override { return fn(pre, post); }

private:
  function_ref<Ref<Expr>(Expr *, Expr *)> fn;
};
} // namespace

Ref<Expr>
nnir::rewritePostOrder(Expr *e,
                       function_ref<Ref<Expr>(Expr *pre, Expr *post)> fn) {
  PostOrderRewriter rewriter(fn);
  return rewriter.mutate(e);
}
