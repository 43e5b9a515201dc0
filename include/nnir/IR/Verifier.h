//===- Verifier.h - Well-formedness of modules ------------------*- C++ -*-===//
//
/// \file
/// Checks that a module is well formed:
///  - every variable is bound once (one function parameter or let binder);
///    a second binding of the same Var node is reported at the second binder
///    ("variable %x is bound more than once");
///  - every variable use is in the scope of its binder (a let binder is in
///    scope in its own value and its body; a parameter in its function's
///    body, including nested functions), so global functions have no free
///    variables ("free variable %x in @main"; "variable %x is used outside
///    the scope of its binding" when it is bound elsewhere);
///  - every GlobalVar used names a function of the module ("undefined global
///    @g");
///  - every operator call passes the operator's number of arguments (unless
///    it is variadic) and an attribute record of the operator's type. A null
///    record stands for "all defaults" and is accepted for every operator; an
///    empty DictAttrs is the same as null. Calls of a GlobalVar naming a
///    module function, or of a function literal, pass its number of
///    parameters;
///  - types are consistent where present: every type (annotations, return
///    types, checked types) is valid (non-negative extents, element count
///    within int64, a supported dtype); a constant's checked type matches its
///    data; a TupleGetItem index is in range of a tuple-typed operand (and
///    the operand is not typed as a non-tuple); a Tuple's checked TupleType
///    has as many fields as the tuple; a Function's checked FuncType has as
///    many parameters as the function.
///
/// Errors are located DiagnosticErrors at the offending node's location (a
/// variable use is located at the node that uses it); when a node has no
/// location, the enclosing function's is used. The first error in walk order
/// (depth-first, children left to right) is reported.
///
/// The walk is iterative, with explicit scope enter / exit events. Each
/// shared node is checked once, in the scope where it is first met: a node
/// shared between two scopes is not checked again in the second (IR made of
/// immutable shared nodes cannot in practice make that matter, since a node
/// using a variable can only be shared within that variable's scope unless a
/// rewrite was wrong).
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
/// \p allowFreeVars is set (a variable used outside the scope of a binder it
/// has elsewhere in \p expr is still an error). GlobalVars are not checked
/// against any module.
llvm::Error verifyExpr(const Expr *expr, bool allowFreeVars = false);

} // namespace nnir

#endif // NNIR_IR_VERIFIER_H
