//===- SimplifyExpr.h - Algebraic simplifications ---------------*- C++ -*-===//
//
/// \file
/// SimplifyExpr applies the rewrites of Relay's SimplifyExpr bottom-up in one
/// walk, each rewritten node again until none applies (so chains collapse
/// completely). docs/Passes.md lists every rewrite with its exactness.
///
/// The rewrites that give the same bits for every input (-0, inf and nan
/// included) run by default:
///  - the `*_like` operators become their static forms (ConcretizeLike):
///    zeros_like, ones_like, full_like, reshape_like, broadcast_to_like,
///    collapse_sum_like and cast_like;
///  - reshape/reverse_reshape chains become one reshape, a reshape to x's
///    shape is x (SimplifyReshape);
///  - transposes and layout_transforms compose; pairs that cancel and
///    transposes that keep every axis vanish (SimplifyTranspose,
///    SimplifyNoOpTranspose);
///  - `x + x` is `x * 2` (SimplifyAdd);
///  - identity arithmetic goes where it is exact: `x + (-0)`, `x - (+0)`,
///    `x * 1`, `x / 1` (EliminateIdentity);
///  - a broadcasting operator applied to zeros/ones/full takes the fill
///    value as a scalar constant (FullElementwise);
///  - casts: to the same dtype (SimplifySameCast), through a dtype that
///    holds every value of the first (SimplifyConsecutiveCast), clip/cast
///    chains whose casts cannot change a clipped value, and a clip that
///    leaves every value of an integer dtype as it is (SimplifyClip);
///  - reassociating constants (SwitchAddMultiply,
///    SimplifyAdjacentMultiplyOrAdd) for integer dtypes, whose wrapping
///    arithmetic is associative and distributive.
///
/// With SimplifyExprOptions::allowInexact (the pass option `allow_inexact`
/// or the PassContext config `SimplifyExpr.allow_inexact`) the rewrites
/// Relay makes that can change a floating-point result run too: dropping
/// `x + (+0)`, `x - (-0)` and zeros(); reassociating float constants;
/// `n / sqrt(x)` as `n * rsqrt(x)`; Relay's wider consecutive casts and
/// clip/cast chains; float clips; and the binomial factorisation
/// `a*x*x + b*x*y + c*y*y = a*(x + p*y)*(x + q*y)`.
///
/// Rewrites are rows of a table (name, function) in SimplifyExpr.cpp; a new
/// one joins by adding a row.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_SIMPLIFYEXPR_H
#define NNIR_TRANSFORMS_SIMPLIFYEXPR_H

#include "nnir/IR/Expr.h"
#include "nnir/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace nnir {

class PassOptions;

struct SimplifyExprOptions {
  /// Also make Relay's rewrites that can change a floating-point result.
  bool allowInexact = false;
};

/// The PassContext config that turns allowInexact on for every SimplifyExpr
/// run in the context.
inline constexpr llvm::StringLiteral kSimplifyExprAllowInexactConfig =
    "SimplifyExpr.allow_inexact";

/// Simplifies \p expr (whose types must have been inferred).
/// \p numSimplified, if given, is incremented per rewrite made.
llvm::Expected<Ref<Expr>> simplifyExpr(Expr *expr,
                                       const SimplifyExprOptions &options = {},
                                       int64_t *numSimplified = nullptr);

/// The "SimplifyExpr" function pass (opt level 0, requires InferType).
Ref<Pass> createSimplifyExprPass(SimplifyExprOptions options = {});
/// The same from the registry's options (`allow_inexact`).
Ref<Pass> createSimplifyExprFromOptions(const PassOptions &options);

} // namespace nnir

#endif // NNIR_TRANSFORMS_SIMPLIFYEXPR_H
