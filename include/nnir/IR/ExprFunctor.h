//===- ExprFunctor.h - Dispatch on expression kinds -------------*- C++ -*-===//
//
/// \file
/// ExprFunctor is Relay's ExprFunctor in LLVM idioms: a class template over a
/// function type, `ExprFunctor<R(Expr *, Args...)>`, whose visit() dispatches
/// on Expr::getKind() to one virtual method per node kind. Every per-kind
/// method defaults to visitExprDefault(), which returns a value-initialised R.
///
/// \code
///   struct CountCalls : ExprFunctor<unsigned(Expr *)> {
///     unsigned visitCall(Call *call) override { return 1; }
///     unsigned visitExprDefault(Expr *) override { return 0; }
///   };
/// \endcode
///
/// ExprFunctor itself does no memoisation and follows no edges; ExprVisitor
/// (ExprVisitor.h) and ExprMutator (ExprMutator.h) build graph walks on it.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_EXPRFUNCTOR_H
#define NNIR_IR_EXPRFUNCTOR_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"

#include "llvm/Support/Casting.h"

#include <utility>

namespace nnir {

template <typename FType> class ExprFunctor;

template <typename R, typename... Args> class ExprFunctor<R(Expr *, Args...)> {
public:
  virtual ~ExprFunctor() = default;

  /// Dispatches \p e to the method of its kind. \p e must not be null.
  /// ExprVisitor and ExprMutator override this with their memoised walks;
  /// dispatch() is the plain switch.
  virtual R visit(Expr *e, Args... args) {
    return dispatch(e, std::forward<Args>(args)...);
  }

  virtual R visitConstant(Constant *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitVar(Var *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitGlobalVar(GlobalVar *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitOp(Op *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitCall(Call *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitTuple(Tuple *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitTupleGetItem(TupleGetItem *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitLet(Let *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitIf(If *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
  virtual R visitFunction(Function *e, Args... args) {
    return visitExprDefault(e, std::forward<Args>(args)...);
  }

  /// The fallback of every per-kind method: a value-initialised R (nothing
  /// for void, null for Ref<>, 0 or false for arithmetic types).
  virtual R visitExprDefault(Expr *e, Args... args) { return R(); }

protected:
  /// The switch on the node kind, without memoisation.
  R dispatch(Expr *e, Args... args) {
    using llvm::cast;
    switch (e->getKind()) {
    case Expr::Kind::Constant:
      return visitConstant(cast<Constant>(e), std::forward<Args>(args)...);
    case Expr::Kind::Var:
      return visitVar(cast<Var>(e), std::forward<Args>(args)...);
    case Expr::Kind::GlobalVar:
      return visitGlobalVar(cast<GlobalVar>(e), std::forward<Args>(args)...);
    case Expr::Kind::Op:
      return visitOp(cast<Op>(e), std::forward<Args>(args)...);
    case Expr::Kind::Call:
      return visitCall(cast<Call>(e), std::forward<Args>(args)...);
    case Expr::Kind::Tuple:
      return visitTuple(cast<Tuple>(e), std::forward<Args>(args)...);
    case Expr::Kind::TupleGetItem:
      return visitTupleGetItem(cast<TupleGetItem>(e),
                               std::forward<Args>(args)...);
    case Expr::Kind::Let:
      return visitLet(cast<Let>(e), std::forward<Args>(args)...);
    case Expr::Kind::If:
      return visitIf(cast<If>(e), std::forward<Args>(args)...);
    case Expr::Kind::Function:
      return visitFunction(cast<Function>(e), std::forward<Args>(args)...);
    }
    return visitExprDefault(e, std::forward<Args>(args)...);
  }
};

/// True for the node kinds whose children the visitor and the mutator expand
/// iteratively (Call, Tuple, TupleGetItem): the edges along which real
/// dataflow graphs are deep.
inline bool isDataflowNode(const Expr *e) {
  switch (e->getKind()) {
  case Expr::Kind::Call:
  case Expr::Kind::Tuple:
  case Expr::Kind::TupleGetItem:
    return true;
  default:
    return false;
  }
}

/// Calls \p fn on the operands of a dataflow node, last to first: a Call's
/// arguments then its callee, a Tuple's fields, a TupleGetItem's tuple. A walk
/// that pushes them on a stack in this order pops them first to last.
template <typename Fn> void forEachOperandReversed(Expr *e, Fn &&fn) {
  switch (e->getKind()) {
  case Expr::Kind::Call: {
    auto *call = llvm::cast<Call>(e);
    for (size_t i = call->getNumArgs(); i-- > 0;)
      fn(call->getArg(i).get());
    fn(call->getCallee().get());
    return;
  }
  case Expr::Kind::Tuple: {
    auto *tuple = llvm::cast<Tuple>(e);
    for (size_t i = tuple->size(); i-- > 0;)
      fn(tuple->getField(i).get());
    return;
  }
  case Expr::Kind::TupleGetItem:
    fn(llvm::cast<TupleGetItem>(e)->getTuple().get());
    return;
  default:
    return;
  }
}

} // namespace nnir

#endif // NNIR_IR_EXPRFUNCTOR_H
