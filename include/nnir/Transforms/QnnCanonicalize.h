//===- QnnCanonicalize.h - QNN operators to primitives ----------*- C++ -*-===//
//
/// \file
/// QnnCanonicalize rewrites every call of a quantized operator (qnn.*) into
/// the primitive operators it computes with, by the operator's registered
/// canonicalization (nnir/Ops/QNN.h; TVM's QnnCanonicalize pass, the
/// FTVMQnnCanonicalize attribute). The replacement has the call's type. A
/// canonicalization that needs a scale's value (requantize, and operators
/// lowered through it) fails on a scale that is not a constant: the pass
/// reports it at the call.
///
/// The Executor runs this pass before compiling a module that has QNN calls
/// (nnir/Transforms/Executor.h), so QNN calls execute and fold.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_QNNCANONICALIZE_H
#define NNIR_TRANSFORMS_QNNCANONICALIZE_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

namespace nnir {

/// Rewrites the QNN calls of \p expr, whose types must have been inferred.
/// \p numRewritten, if given, is incremented per rewritten call.
llvm::Expected<Ref<Expr>> qnnCanonicalize(Expr *expr,
                                          int64_t *numRewritten = nullptr);

/// True if a function of \p module calls a QNN operator.
bool hasQnnCalls(const IRModule &module);

/// The "QnnCanonicalize" function pass (opt level 0, requires InferType).
Ref<Pass> createQnnCanonicalizePass();

} // namespace nnir

#endif // NNIR_TRANSFORMS_QNNCANONICALIZE_H
