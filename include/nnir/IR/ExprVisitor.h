//===- ExprVisitor.h - Read-only walk over an expression graph --*- C++ -*-===//
//
/// \file
/// ExprVisitor visits every node reachable from an expression once (memoised
/// by node identity). Its default per-kind methods visit the node's children
/// (callee then arguments, tuple fields, let var / value / body, function
/// parameters then body, ...); types are not visited. Users override the
/// methods of the kinds they care about and call the base method to continue:
///
/// \code
///   struct CollectOps : ExprVisitor {
///     llvm::SmallVector<Op *> ops;
///     void visitCall(Call *call) override {
///       if (Op *op = call->getCalledOp())
///         ops.push_back(op);
///       ExprVisitor::visitCall(call);
///     }
///   };
/// \endcode
///
/// Depth. The walk never recurses along dataflow edges, whatever the depth of
/// the graph (Relay's MixedModeVisitor): before a Call, Tuple or TupleGetItem
/// is dispatched, its not-yet-visited children are expanded with an explicit
/// stack and visited in post-order, so when an override calls the base method
/// the children are memo hits. Consequences worth knowing:
///  - nodes are visited in post-order along dataflow edges (a Call's callee
///    and arguments, left to right, before the Call);
///  - the children of a Call, Tuple or TupleGetItem are visited even if an
///    override does not call the base method.
/// Chains of lets (a let whose body is a let) are walked in a loop as well:
/// visitLet is still called for every let of the chain, but when the base
/// ExprVisitor::visitLet is reached for a let nested in a chain, it visits
/// the var and the value and leaves the body to the loop of the outermost
/// let, i.e. the body is visited after the override returns. Overrides that
/// call the base method keep the stack constant.
///
/// Recursion remains only along syntactic nesting (a function in a call
/// argument, the branches of an if), which the parser bounds.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_EXPRVISITOR_H
#define NNIR_IR_EXPRVISITOR_H

#include "nnir/IR/ExprFunctor.h"

#include "llvm/ADT/DenseSet.h"

namespace nnir {

class ExprVisitor : public ExprFunctor<void(Expr *)> {
public:
  /// Visits \p e unless it was visited already; null is ignored.
  void visit(Expr *e) final;
  void visit(const Ref<Expr> &e) { visit(e.get()); }

  /// True if \p e has been visited (or is being visited).
  bool isVisited(const Expr *e) const { return visited.count(e); }

  void visitConstant(Constant *e) override;
  void visitVar(Var *e) override;
  void visitGlobalVar(GlobalVar *e) override;
  void visitOp(Op *e) override;
  void visitCall(Call *e) override;
  void visitTuple(Tuple *e) override;
  void visitTupleGetItem(TupleGetItem *e) override;
  void visitLet(Let *e) override;
  void visitIf(If *e) override;
  void visitFunction(Function *e) override;

protected:
  /// Visits every child of \p e (forEachChild's order); what the default
  /// per-kind methods of the kinds other than Let do.
  void visitChildren(Expr *e);

  /// Nodes visited so far. Subclasses may clear it to walk again.
  llvm::DenseSet<const Expr *> visited;

private:
  /// Visits the dataflow node \p root and its unvisited descendants along
  /// dataflow edges in post-order with an explicit stack.
  void expandDataflow(Expr *root);

  /// The let whose dispatch was started by the chain loop of an enclosing
  /// visitLet; the let whose base visitLet left its body to that loop, and
  /// that body.
  Let *chainedLet = nullptr;
  Let *chainedFrom = nullptr;
  Expr *chainedBody = nullptr;
};

} // namespace nnir

#endif // NNIR_IR_EXPRVISITOR_H
