//===- ExprMutator.h - Rewriting walk over an expression graph --*- C++ -*-===//
//
/// \file
/// ExprMutator rewrites an expression graph: mutate(e) returns the rewritten
/// form of \p e, memoised by node identity, so a node shared by several users
/// is rewritten once and stays shared. The default per-kind methods mutate
/// the children and rebuild the node only if some child changed; otherwise
/// they return the very same node, so a rewrite that changes nothing returns
/// its input (pointer identity) and unchanged subgraphs are shared with the
/// input.
///
/// Rebuilt nodes keep the location (and a call's attributes, a function's
/// return type and attributes) of the original, but not its checked type:
/// the type of a node whose children changed may be stale, so it is dropped
/// and type inference must run again.
///
/// Variables. Function parameters and let binders are mapped through
/// mutate() like their uses, so a Var replaced by another Var is substituted
/// consistently at the binder and at every use. When a binder is mutated to
/// something that is not a Var (e.g. a visitVar override that substitutes
/// values for variables), the binder keeps the original Var.
///
/// Depth. Like ExprVisitor, the mutator never recurses along dataflow edges
/// (Relay's MixedModeMutator): the not-yet-mutated children of a Call, Tuple
/// or TupleGetItem are expanded with an explicit stack and mutated in
/// post-order before the node is dispatched, so the children are memo hits
/// when the base method runs, and they are mutated even if an override does
/// not call the base method. Post-order rewrites are best written as
/// rewrite hooks, called after the children were mutated with `post`, the
/// node rebuilt with the mutated children (`post == pre` if none changed):
///
/// \code
///   struct AddToMul : ExprMutator {
///     Ref<Expr> rewriteCall(Call *pre, Call *post) override {
///       if (post->getCalledOp() != Op::lookup("add"))
///         return post;
///       return Call::get(Op::lookup("multiply"), post->getArgs(), nullptr,
///                        post->getLoc());
///     }
///   };
/// \endcode
///
/// A chain of lets (a let whose body is a let) is handled by one call of
/// visitLet for its outermost let, with a loop: the vars and values of the
/// chain are mutated top-down, then the lets are rebuilt bottom-up, each
/// passing through rewriteLet. Override rewriteLet (not visitLet) to see
/// every let of a chain.
///
/// Memoisation is by address: the nodes given to mutate() must stay alive as
/// long as the mutator (the root of the walk keeps every reachable node
/// alive). Recursion remains only along syntactic nesting (function bodies,
/// if branches), which the parser bounds.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_EXPRMUTATOR_H
#define NNIR_IR_EXPRMUTATOR_H

#include "nnir/IR/ExprFunctor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace nnir {

class ExprMutator : public ExprFunctor<Ref<Expr>(Expr *)> {
public:
  /// The rewritten form of \p e (null for null), memoised.
  Ref<Expr> mutate(Expr *e);
  Ref<Expr> mutate(const Ref<Expr> &e) { return mutate(e.get()); }
  /// Same as mutate().
  Ref<Expr> visit(Expr *e) final { return mutate(e); }

  /// Leaves are returned unchanged.
  Ref<Expr> visitConstant(Constant *e) override;
  Ref<Expr> visitVar(Var *e) override;
  Ref<Expr> visitGlobalVar(GlobalVar *e) override;
  Ref<Expr> visitOp(Op *e) override;

  /// Rebuild if a child changed, then call the rewrite hook.
  Ref<Expr> visitCall(Call *e) override;
  Ref<Expr> visitTuple(Tuple *e) override;
  Ref<Expr> visitTupleGetItem(TupleGetItem *e) override;
  /// Handles the whole chain of lets starting at \p e (see the file comment).
  Ref<Expr> visitLet(Let *e) override;
  Ref<Expr> visitIf(If *e) override;
  Ref<Expr> visitFunction(Function *e) override;

  /// Post-order hooks: \p pre is the original node, \p post the node with
  /// mutated children (\p pre itself if none changed). The result replaces
  /// \p pre; the defaults return \p post. They must not return null.
  virtual Ref<Expr> rewriteCall(Call *pre, Call *post) { return post; }
  virtual Ref<Expr> rewriteTuple(Tuple *pre, Tuple *post) { return post; }
  virtual Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre, TupleGetItem *post) {
    return post;
  }
  virtual Ref<Expr> rewriteLet(Let *pre, Let *post) { return post; }

protected:
  /// Maps a binder (function parameter or let var) through mutate(); keeps
  /// \p var when the result is not a Var.
  Ref<Var> mutateBinder(Var *var);

  /// Results so far, by original node.
  llvm::DenseMap<const Expr *, Ref<Expr>> memo;

private:
  /// Mutates the dataflow node \p root and its unmutated descendants along
  /// dataflow edges in post-order with an explicit stack.
  void expandDataflow(Expr *root);
};

/// Rewrites \p e bottom-up: \p fn is called once for every node, after its
/// children were rewritten, with the original node and the node rebuilt with
/// the rewritten children (the same node if none changed); its result
/// replaces the node. Iterative along dataflow edges and let chains.
Ref<Expr>
rewritePostOrder(Expr *e,
                 llvm::function_ref<Ref<Expr>(Expr *pre, Expr *post)> fn);

} // namespace nnir

#endif // NNIR_IR_EXPRMUTATOR_H
