//===- Verifier.h - Well-formedness of modules -------------------*- C++ -*-===//
//
/// \file
/// Checks that a module is well formed:
///  - every variable is bound once (one function parameter or let binder);
///  - every variable use is in the scope of its binder, so global functions
///    have no free variables;
///  - every GlobalVar used names a function of the module;
///  - every operator call passes the operator's number of arguments and an
///    attribute record of the operator's type;
///  - types are consistent where present: a tensor type is valid (shape and
///    dtype), a constant's checked type matches its data, a TupleGetItem index
///    is in range of a tuple-typed operand.
/// Errors are located DiagnosticErrors naming the offending node. The walk is
/// iterative.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_VERIFIER_H
#define NNIR_IR_VERIFIER_H

#include "llvm/Support/Error.h"

namespace nnir {

class Expr;
class IRModule;

/// Verifies every function of \p module.
llvm::Error verifyModule(const IRModule &module);

/// Verifies a standalone expression; free variables are allowed when
/// \p allowFreeVars is set.
llvm::Error verifyExpr(const Expr *expr, bool allowFreeVars = false);

} // namespace nnir

#endif // NNIR_IR_VERIFIER_H
