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
/// return type and attributes) of the original, and its checked type when
/// every child that changed kept its checked type (the rule of
/// rebuildWithChildren() in Traversal.h): renaming variables or replacing a
/// subgraph by one of the same type leaves the graph typed, while a node
/// whose operand types changed (or are unknown) loses its type and type
/// inference must run again.
///
/// Errors. A rewrite that can fail (FoldConstant's JIT) calls fail() from a
/// hook and returns anything (usually `post`); the walk then stops calling
/// hooks and rebuilding (mutate() returns its inputs), and mutateOrError()
/// returns the first error. rewritePostOrderOrError() is the same for a
/// function that returns Expected:
///
/// \code
///   Expected<Ref<Expr>> folded = rewritePostOrderOrError(
///       func, [&](Expr *pre, Expr *post) -> Expected<Ref<Expr>> {
///         if (!isFoldable(post))
///           return post;
///         Expected<NDArray> value = evaluate(post); // may fail
///         if (!value)
///           return value.takeError();
///         return Constant::get(std::move(*value), post->getLoc());
///       });
///   if (!folded)
///     return folded.takeError();
/// \endcode
///
/// Variables. Function parameters and let binders are mapped through
/// mutate() like their uses, so a Var replaced by another Var is substituted
/// consistently at the binder and at every use. When a binder is mutated to
/// something that is not a Var (e.g. a visitVar override that substitutes
/// values for variables), the binder keeps the original Var.
///
/// Depth. Like ExprVisitor, the mutator never recurses along dataflow edges
/// (Relay's MixedModeMutator; it walks them with a PostOrderWalker whose
/// memo is the mutator's): the not-yet-mutated children of a Call, Tuple
/// or TupleGetItem are expanded with an explicit stack and mutated in
/// post-order before the node is dispatched, so the children are memo hits
/// when the base method runs, and they are mutated even if an override does
/// not call the base method. Post-order rewrites are best written as
/// rewrite hooks (rewriteCall, rewriteTuple, rewriteTupleGetItem, rewriteLet,
/// rewriteIf, rewriteFunction), called after the children were mutated with
/// `post`, the node rebuilt with the mutated children (`post == pre` if none
/// changed):
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
#include "llvm/Support/Error.h"

namespace nnir {

class ExprMutator : public ExprFunctor<Ref<Expr>(Expr *)> {
public:
  ~ExprMutator() override;

  /// The rewritten form of \p e (null for null), memoised. After fail(),
  /// \p e itself for nodes not rewritten yet.
  Ref<Expr> mutate(Expr *e);
  Ref<Expr> mutate(const Ref<Expr> &e) { return mutate(e.get()); }
  /// mutate() for rewrites that can fail: the rewritten form of \p e, or the
  /// error a hook reported with fail() (which is then cleared: the mutator
  /// can be used again, its memo still holds what was rewritten before).
  llvm::Expected<Ref<Expr>> mutateOrError(Expr *e);
  /// True once fail() was called, until mutateOrError() returns the error.
  bool hasFailed() const { return failed; }
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
  virtual Ref<Expr> rewriteIf(If *pre, If *post) { return post; }
  virtual Ref<Expr> rewriteFunction(Function *pre, Function *post) {
    return post;
  }

  /// Pre-order hook, called once for each node before its children are
  /// mutated (PostOrderWalker's enter): Descend, the default, mutates the
  /// node as described above; SkipChildren calls the node's rewrite hook
  /// (for a leaf, its visit method) with `post == pre`, its children not
  /// mutated through it; Skip keeps the node as it is, with no hook called.
  /// Interrupt is not allowed (a failing rewrite calls fail()).
  virtual WalkAction enter(Expr *pre) { return WalkAction::Descend; }

protected:
  /// Reports that the rewrite failed with \p err: the first error is kept
  /// for mutateOrError() (later ones are dropped), and no more hooks are
  /// called.
  void fail(llvm::Error err);

  /// \p e rebuilt with its mutated children (binders through mutateBinder),
  /// by rebuildWithChildren(): \p e itself if no child changed. What the
  /// default per-kind methods of Call, Tuple, TupleGetItem, If and Function
  /// do before calling their hook.
  Ref<Expr> mutateChildren(Expr *e);

  /// Maps a binder (function parameter or let var) through mutate(); keeps
  /// \p var when the result is not a Var.
  Ref<Var> mutateBinder(Var *var);

  /// Results so far, by original node.
  llvm::DenseMap<const Expr *, Ref<Expr>> memo;

  /// Whether a call's arguments are mutated before its callee (Relay's
  /// evaluation order, in which ToANormalForm binds them) rather than after
  /// it (forEachChild's order, the default).
  bool calleeLast = false;

private:
  /// Mutates \p e, which is not memoised yet, as enter() said.
  Ref<Expr> mutateAs(Expr *e, WalkAction action);
  /// The rewrite hook of \p e's kind with `post == pre`.
  Ref<Expr> rewriteUnchanged(Expr *e);

  bool failed = false;
  llvm::Error failure = llvm::Error::success();

  /// Mutates the dataflow node \p root and its unmutated descendants along
  /// dataflow edges in post-order with an explicit stack.
  void expandDataflow(Expr *root);
};

/// Rewrites \p e bottom-up: \p fn is called once for every node, after its
/// children were rewritten, with the original node and the node rebuilt with
/// the rewritten children (the same node if none changed); its result
/// replaces the node. Iterative along dataflow edges and let chains.
///
/// \p enter, if given, is called once for every node before its children
/// (ExprMutator::enter()): SkipChildren calls \p fn with `post == pre`
/// without rewriting the children through the node, Skip keeps the node as
/// it is without calling \p fn.
Ref<Expr>
rewritePostOrder(Expr *e,
                 llvm::function_ref<Ref<Expr>(Expr *pre, Expr *post)> fn,
                 llvm::function_ref<WalkAction(Expr *pre)> enter = nullptr);

/// rewritePostOrder() with a function that can fail: the first error \p fn
/// returns stops the rewrite and is returned.
llvm::Expected<Ref<Expr>> rewritePostOrderOrError(
    Expr *e,
    llvm::function_ref<llvm::Expected<Ref<Expr>>(Expr *pre, Expr *post)> fn,
    llvm::function_ref<WalkAction(Expr *pre)> enter = nullptr);

} // namespace nnir

#endif // NNIR_IR_EXPRMUTATOR_H
