//===- Inline.cpp - Substitution and inlining of compute stages -----------===//
//
/// \file
/// A memoised bottom-up rewriter over scalar expressions: substitution and
/// stage inlining are two leaf rules on top of it.
//
//===----------------------------------------------------------------------===//

#include "nnir/TE/Inline.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

/// Rebuilds \p e with its children rewritten by \p fn (the node itself when
/// no child changed).
static Expr mapChildren(const Expr &e, function_ref<Expr(const Expr &)> fn) {
  auto same = [](ArrayRef<Expr> a, ArrayRef<Expr> b) {
    for (size_t i = 0; i < a.size(); ++i)
      if (!a[i].sameAs(b[i]))
        return false;
    return true;
  };
  switch (e->getKind()) {
  case ExprNode::Kind::IntImm:
  case ExprNode::Kind::FloatImm:
  case ExprNode::Kind::Var:
    return e;
  case ExprNode::Kind::Unary: {
    const auto *u = llvm::cast<UnaryNode>(e.get());
    Expr a = fn(u->getOperand());
    if (a.sameAs(u->getOperand()))
      return e;
    return Expr(new UnaryNode(u->getOp(), a));
  }
  case ExprNode::Kind::Binary: {
    const auto *b = llvm::cast<BinaryNode>(e.get());
    Expr l = fn(b->getLHS()), r = fn(b->getRHS());
    if (l.sameAs(b->getLHS()) && r.sameAs(b->getRHS()))
      return e;
    return binary(b->getOp(), l, r);
  }
  case ExprNode::Kind::Select: {
    const auto *s = llvm::cast<SelectNode>(e.get());
    Expr c = fn(s->getCondition()), t = fn(s->getTrueValue()),
         f = fn(s->getFalseValue());
    if (same({c, t, f},
             {s->getCondition(), s->getTrueValue(), s->getFalseValue()}))
      return e;
    return select(c, t, f);
  }
  case ExprNode::Kind::Cast: {
    const auto *c = llvm::cast<CastNode>(e.get());
    Expr a = fn(c->getOperand());
    return a.sameAs(c->getOperand()) ? e : cast(c->getDType(), a);
  }
  case ExprNode::Kind::Reinterpret: {
    const auto *c = llvm::cast<ReinterpretNode>(e.get());
    Expr a = fn(c->getOperand());
    return a.sameAs(c->getOperand()) ? e : reinterpret(c->getDType(), a);
  }
  case ExprNode::Kind::Call: {
    const auto *c = llvm::cast<CallNode>(e.get());
    SmallVector<Expr, 2> args;
    for (const Expr &a : c->getArgs())
      args.push_back(fn(a));
    if (same(args, c->getArgs()))
      return e;
    return Expr(new CallNode(c->getIntrinsic(), c->getDType(), args));
  }
  case ExprNode::Kind::TensorRead: {
    const auto *r = llvm::cast<TensorReadNode>(e.get());
    SmallVector<Expr, 4> indices;
    for (const Expr &i : r->getIndices())
      indices.push_back(fn(i));
    if (same(indices, r->getIndices()))
      return e;
    return Expr(new TensorReadNode(r->getTensor(), indices));
  }
  case ExprNode::Kind::Reduce: {
    const auto *r = llvm::cast<ReduceNode>(e.get());
    Expr source = fn(r->getSource());
    Expr cond = r->getCondition() ? fn(r->getCondition()) : Expr();
    SmallVector<IterVar, 2> axes;
    bool changed =
        !source.sameAs(r->getSource()) || !cond.sameAs(r->getCondition());
    for (const IterVar &axis : r->getAxes()) {
      Expr extent = fn(axis.extent);
      changed |= !extent.sameAs(axis.extent);
      axes.push_back({axis.var, extent});
    }
    if (!changed)
      return e;
    return Expr(new ReduceNode(r->getReduceKind(), r->getDType(), source, axes,
                               cond, r->getSelectLast()));
  }
  }
  return e;
}

namespace {
/// Memoised bottom-up rewriting with a leaf rule: \p leaf returns the
/// replacement of a node or a null Expr to recurse into its children.
struct Rewriter {
  function_ref<Expr(const Expr &)> leaf;
  DenseMap<const ExprNode *, Expr> &memo;

  Expr operator()(const Expr &e) {
    auto it = memo.find(e.get());
    if (it != memo.end())
      return it->second;
    Expr result = leaf(e);
    if (!result)
      result = mapChildren(e, *this);
    memo[e.get()] = result;
    return result;
  }
};
} // namespace

Expr te::substitute(const Expr &e,
                    const DenseMap<const ExprNode *, Expr> &map) {
  if (map.empty())
    return e;
  DenseMap<const ExprNode *, Expr> memo;
  auto leaf = [&](const Expr &node) -> Expr {
    if (isa<VarNode>(node.get())) {
      auto it = map.find(node.get());
      return it == map.end() ? node : it->second;
    }
    return Expr();
  };
  return Rewriter{leaf, memo}(e);
}

const Expr &Inliner::getInlinedBody(const TensorNode *t) {
  auto it = inlinedBodies.find(t);
  if (it != inlinedBodies.end())
    return it->second;
  Expr body = rewrite(t->getBody());
  return inlinedBodies[t] = body;
}

Expr Inliner::rewrite(const Expr &e) { return rewriteImpl(e, memo); }

Expr Inliner::rewriteImpl(const Expr &e,
                          DenseMap<const ExprNode *, Expr> &memoMap) {
  std::function<Expr(const Expr &)> leaf = [&](const Expr &node) -> Expr {
    const auto *read = dyn_cast<TensorReadNode>(node.get());
    if (!read || read->getTensor()->getKind() != TensorNode::Kind::Compute ||
        !shouldInline(read->getTensor()))
      return Expr();
    const TensorNode *t = read->getTensor();
    SmallVector<Expr, 4> indices;
    std::vector<const ExprNode *> key;
    for (const Expr &index : read->getIndices()) {
      indices.push_back(Rewriter{leaf, memoMap}(index));
      key.push_back(indices.back().get());
    }
    auto found = reads.find({t, key});
    if (found != reads.end())
      return found->second;
    Expr body = getInlinedBody(t);
    DenseMap<const ExprNode *, Expr> map;
    for (unsigned i = 0; i < t->getRank(); ++i)
      map[t->getAxes()[i].get()] = indices[i];
    Expr result = substitute(body, map);
    reads[{t, key}] = result;
    return result;
  };
  return Rewriter{leaf, memoMap}(e);
}

void te::visit(const Expr &e, function_ref<void(const ExprNode *)> fn) {
  SmallPtrSet<const ExprNode *, 32> seen;
  SmallVector<const ExprNode *, 32> stack{e.get()};
  auto push = [&](const Expr &c) {
    if (c.get() && seen.insert(c.get()).second)
      stack.push_back(c.get());
  };
  seen.insert(e.get());
  // Hand-written: a TE expression tree, not the graph IR.
  while (!stack.empty()) {
    const ExprNode *n = stack.pop_back_val();
    fn(n);
    switch (n->getKind()) {
    case ExprNode::Kind::Unary:
      push(llvm::cast<UnaryNode>(n)->getOperand());
      break;
    case ExprNode::Kind::Binary:
      push(llvm::cast<BinaryNode>(n)->getLHS());
      push(llvm::cast<BinaryNode>(n)->getRHS());
      break;
    case ExprNode::Kind::Select:
      push(llvm::cast<SelectNode>(n)->getCondition());
      push(llvm::cast<SelectNode>(n)->getTrueValue());
      push(llvm::cast<SelectNode>(n)->getFalseValue());
      break;
    case ExprNode::Kind::Cast:
      push(llvm::cast<CastNode>(n)->getOperand());
      break;
    case ExprNode::Kind::Reinterpret:
      push(llvm::cast<ReinterpretNode>(n)->getOperand());
      break;
    case ExprNode::Kind::Call:
      for (const Expr &a : llvm::cast<CallNode>(n)->getArgs())
        push(a);
      break;
    case ExprNode::Kind::TensorRead:
      for (const Expr &a : llvm::cast<TensorReadNode>(n)->getIndices())
        push(a);
      break;
    case ExprNode::Kind::Reduce: {
      const auto *r = llvm::cast<ReduceNode>(n);
      push(r->getSource());
      push(r->getCondition());
      for (const IterVar &axis : r->getAxes())
        push(axis.extent);
      break;
    }
    default:
      break;
    }
  }
}
