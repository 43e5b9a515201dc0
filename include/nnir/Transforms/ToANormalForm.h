//===- ToANormalForm.h - Conversion to A-normal form ------------*- C++ -*-===//
//
/// \file
/// ToANormalForm binds every non-atomic expression (call, tuple, tuple
/// projection, if, constant, nested function) to a let variable exactly
/// once, in the innermost scope that covers all its uses (Relay's
/// ToANormalForm):
///  - sharing is preserved: a value used twice is bound once and its
///    variable used twice;
///  - scopes are function bodies and if branches; a value used in both
///    branches of an if, or in a branch and after the if, is bound before
///    the if, never duplicated into the branches; a value used only inside
///    one branch (or one nested function) is bound there;
///  - variables, global variables and operators are atomic and not bound;
///  - nested lets are flattened into the enclosing scope, each let's value
///    bound to its own variable;
///  - the bodies of primitive functions (and of functions for an external
///    compiler) are left alone; the function itself is a value like any
///    other.
/// Fresh variables are named `x_0`, `x_1`, ... in binding order, numbered
/// across the module by the pass.
///
/// Differences from Relay: a let whose body is an atom adds no extra
/// `let %x_N = %var` copy, and a let whose value is a let chain binds the
/// chain's result to its own variable, so converting twice gives the same
/// program; and the counter of fresh names restarts for every conversion
/// (Relay's is global to the process).
///
/// The conversion is iterative along dataflow edges and let chains: a chain
/// of 1,000,000 calls converts on the default stack.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_TOANORMALFORM_H
#define NNIR_TRANSFORMS_TOANORMALFORM_H

#include "nnir/IR/Expr.h"
#include "nnir/Pass/Pass.h"

namespace nnir {

/// Converts \p expr. A function is converted inside (its body becomes a let
/// chain); any other expression becomes a let chain ending in an atom.
/// Returns \p expr itself for a primitive function.
Ref<Expr> toANormalForm(Expr *expr);
/// The same, numbering the fresh variables from \p numFresh on and counting
/// them there (to keep names unique across several conversions).
Ref<Expr> toANormalForm(Expr *expr, unsigned &numFresh);

/// The "ToANormalForm" module pass (opt level 1): converts every function
/// except those for an external compiler.
Ref<Pass> createToANormalFormPass();

} // namespace nnir

#endif // NNIR_TRANSFORMS_TOANORMALFORM_H
