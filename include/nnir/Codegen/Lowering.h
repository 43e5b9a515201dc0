//===- Lowering.h - Primitive functions to tensor expressions ----*- C++
//-*-===//
//
/// \file
/// The first half of Codegen: a primitive (fused) function of the graph IR
/// becomes tensor expressions by calling each operator's compute
/// (nnir/Ops/Compute.h) on the TE tensors of its arguments.
///
/// Constants inside the function are lifted to kernel inputs (their values
/// are not part of the kernel, so functions that differ only in constant
/// values share one kernel). A function whose tensors all have one shape S
/// or are rank 0, and whose calls are all elementwise or broadcast, can be
/// lowered *shape-generic*: every full-shape tensor becomes a 1-d tensor of
/// a runtime extent `n`, so one kernel serves every S.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_CODEGEN_LOWERING_H
#define NNIR_CODEGEN_LOWERING_H

#include "nnir/IR/Expr.h"
#include "nnir/TE/Tensor.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace nnir {

/// A primitive function as tensor expressions.
struct TEFunction {
  /// One placeholder per flattened parameter, then one per lifted constant.
  std::vector<te::Tensor> inputs;
  unsigned numParams = 0;
  /// The lifted constants, in input order (after the parameters).
  std::vector<const Constant *> constants;
  /// The flattened result.
  std::vector<te::Tensor> outputs;
  /// The runtime extents the kernel reads from `dims`, in order (shape-generic
  /// kernels: the element count).
  std::vector<te::Expr> dimVars;
  /// Shape-generic kernels: the element count of the function lowered (the
  /// first shape the kernel serves), a hint for cost estimates.
  int64_t genericElementsHint = 0;
};

/// Calls \p visit on every node of \p fn's body in post-order (operands
/// first, each node once, without recursion). Lowering lifts constants in
/// this order, so a caller that passes constant buffers uses it too.
void forEachPrimitiveNode(const Function &fn,
                          llvm::function_ref<void(const Expr *)> visit);

/// True if \p fn can be lowered shape-generic (see the file comment).
bool isShapeGeneric(const Function &fn);

/// Lowers the primitive function \p fn. Errors (an operator without a
/// compute, a compute that fails, an unsupported construct) carry the
/// location of the offending call.
llvm::Expected<TEFunction> lowerToTE(const Function &fn, bool shapeGeneric);

} // namespace nnir

#endif // NNIR_CODEGEN_LOWERING_H
