//===- SimplifyInference.h - Normalisation ops to arithmetic ----*- C++ -*-===//
//
/// \file
/// SimplifyInference rewrites the operators that behave differently in
/// training into the arithmetic they compute at inference (Relay's
/// SimplifyInference, same formulas and the same constants):
///
///  - `nn.batch_norm(x, gamma, beta, mean, var).0` becomes
///    `x * scale + shift` with `scale = 1 / sqrt(var + eps)` (times gamma if
///    `scale`), `shift = -mean * scale` (plus beta if `center`), both
///    expanded with expand_dims to broadcast along `axis`. Other projections
///    of the batch_norm (and a batch_norm bound to a variable) are left
///    alone.
///  - `nn.dropout(x).0` becomes `x`.
///  - `nn.layer_norm`, `nn.instance_norm` and `nn.group_norm` (through a
///    reshape to (..., groups, C / groups, ...)) become
///    `(x - mean) / sqrt(variance + eps)`, times gamma and plus beta by their
///    flags.
///  - `nn.l2_normalize(x)` becomes `x / sqrt(max(sum(x * x, axis,
///    keepdims=True), eps))`.
///
/// Epsilons are rounded to float32 first, as Relay does. Where Relay makes
/// l2_normalize's epsilon float32 whatever the data type (so float16 data
/// does not type-check afterwards), nnir uses the data's type.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_SIMPLIFYINFERENCE_H
#define NNIR_TRANSFORMS_SIMPLIFYINFERENCE_H

#include "nnir/IR/Expr.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

namespace nnir {

/// Rewrites \p expr (whose types must have been inferred). \p numRewritten,
/// if given, is incremented per rewritten call.
llvm::Expected<Ref<Expr>> simplifyInference(Expr *expr,
                                            int64_t *numRewritten = nullptr);

/// The "SimplifyInference" function pass (opt level 0, requires InferType).
Ref<Pass> createSimplifyInferencePass();

} // namespace nnir

#endif // NNIR_TRANSFORMS_SIMPLIFYINFERENCE_H
