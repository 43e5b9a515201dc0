//===- FreeVars.h - Free variables of an expression -------------*- C++ -*-===//
//
/// \file
/// The variables an expression uses without binding them, in order of first
/// use. Function parameters and let binders bind; as in Relay, a let binder
/// is in scope in its own value (so a let-bound function may recurse).
/// Iterative: no recursion on graph depth. Each shared node is visited once.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_FREEVARS_H
#define NNIR_IR_FREEVARS_H

#include "nnir/IR/Expr.h"

#include <vector>

namespace nnir {

std::vector<Ref<Var>> getFreeVars(const Expr *expr);

} // namespace nnir

#endif // NNIR_IR_FREEVARS_H
