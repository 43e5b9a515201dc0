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
#include "nnir/IR/Traversal.h"

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

} // namespace nnir

#endif // NNIR_IR_EXPRFUNCTOR_H
