//===- SimplifyExpr.h - Algebraic simplifications ---------------*- C++ -*-===//
//
/// \file
/// SimplifyExpr is the subset of Relay's SimplifyExpr that cleans up what
/// importers and other passes leave behind, applied bottom-up in one walk
/// (so chains collapse completely):
///
///  - `reshape(reshape(x))` becomes one reshape to the outer result's
///    (static) shape (SimplifyReshape), and a reshape whose result has x's
///    shape becomes x;
///  - `transpose(transpose(x))` becomes one transpose with the composed
///    axes (SimplifyTranspose), and a transpose that keeps every axis in
///    place becomes x (SimplifyNoOpTranspose), so pairs that cancel vanish;
///  - `add(x, 0)`, `add(0, x)`, `subtract(x, 0)`, `multiply(x, 1)`,
///    `multiply(1, x)` and `divide(x, 1)` become x when the result has x's
///    type (EliminateIdentity); the other operand is a constant whose every
///    element is 0 (or 1), or zeros/ones/zeros_like/ones_like. Relay only
///    accepts a scalar constant; any constant that broadcasts without
///    changing x's type is accepted here. Only exact rewrites are made: for
///    floats the zero of `add` must be -0 (x + +0 turns x = -0 into +0, so
///    zeros() does not qualify there) and that of `subtract` +0, where Relay
///    takes either;
///  - `cast(x, dtype)` and `cast_like(x, y)` to x's own dtype become x
///    (SimplifySameCast).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_SIMPLIFYEXPR_H
#define NNIR_TRANSFORMS_SIMPLIFYEXPR_H

#include "nnir/IR/Expr.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

namespace nnir {

/// Simplifies \p expr (whose types must have been inferred).
/// \p numSimplified, if given, is incremented per rewritten call.
llvm::Expected<Ref<Expr>> simplifyExpr(Expr *expr,
                                       int64_t *numSimplified = nullptr);

/// The "SimplifyExpr" function pass (opt level 0, requires InferType).
Ref<Pass> createSimplifyExprPass();

} // namespace nnir

#endif // NNIR_TRANSFORMS_SIMPLIFYEXPR_H
