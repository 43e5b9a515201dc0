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
/// values share one kernel).
///
/// A function whose calls all follow NumPy's broadcasting rule
/// (kTEBroadcastRuleAttr: the elementwise and broadcast arithmetic) or only
/// re-shape (kTEReshapeAttr: reshape, expand_dims, squeeze, ...) can be
/// lowered *shape-generic*, so one kernel serves every shape with the same
/// broadcasting pattern. The tensors that broadcasting connects form a
/// domain (a re-shape starts a new one). Within a domain shapes align from
/// the right as NumPy's do, and on each aligned axis every tensor has
/// extent 1 or the axis's one extent. Axes of extent 1 everywhere are
/// dropped and neighbouring axes on which every tensor of the domain agrees
/// (full on both, or 1 on both) merge, so each tensor becomes a tensor over
/// its domain's merged axes, whose extents are runtime values `dims[g]`:
/// a same-shape elementwise chain gets one axis (the element count), a
/// per-channel `add(conv, bias[C,1,1])` two (channels, pixels). Merging and
/// dropping keep every tensor's row-major element order, so buffers are
/// passed as they are.
///
/// A function whose parameter types have `?` extents is lowered *symbolic*
/// (TVM's approach to Relay's Any): one kernel for every shape. Each `?`
/// extent of a parameter is a variable bound from `dims`: one variable per
/// position counted from the last axis (NumPy's alignment), shared by every
/// parameter with a `?` there, so that broadcasting two of them (a
/// squeeze-and-excitation's scale by the batch) needs no run-time rule;
/// arguments that disagree on a shared extent are refused when the kernel
/// runs (TEFunction::dimOfAnyExtent maps each `?` to its variable). The
/// computes see those variables as extents, and each output's extents are the expressions its compute
/// derives (TEFunction::outputs' shapes; evaluateExtent() gives their values
/// for the arguments). Only operators for which computesSymbolicShapes()
/// holds are lowered so (canLowerSymbolic()); a compute that needs a static
/// extent returns an error and the caller specialises the function to
/// concrete shapes (nnir/ExecutionEngine/Specialize.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_CODEGEN_LOWERING_H
#define NNIR_CODEGEN_LOWERING_H

#include "nnir/IR/Expr.h"
#include "nnir/TE/Tensor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>

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
  /// kernels: one per merged axis, GenericShape::getExtents(); symbolic
  /// kernels: one per `?` extent of the parameters).
  std::vector<te::Expr> dimVars;
  /// Lowered over the `?` extents of the parameters (see the file comment).
  bool symbolic = false;
  /// Symbolic kernels: for each `?` extent of the parameters (flattened, in
  /// order; each tensor's axes in order), the index in dimVars of its
  /// variable.
  std::vector<unsigned> dimOfAnyExtent;
  /// Shape-generic kernels: the element count of the function lowered (the
  /// first shape the kernel serves), a hint for cost estimates. Symbolic
  /// kernels: kSymbolicElementsHint, a small shape's, so that the engine
  /// compiles them cheaply first, and again at O3 before a run whose work
  /// pays for it (ExecutionEngine::run).
  int64_t genericElementsHint = 0;
};

/// The element count a symbolic kernel's stages of run-time extents are
/// costed at (TEFunction::genericElementsHint).
inline constexpr int64_t kSymbolicElementsHint = 4096;

/// How the tensors of a shape-generic function map onto the merged axes
/// (see the file comment).
class GenericShape {
public:
  /// The mapping for \p fn, or std::nullopt if \p fn cannot be lowered
  /// shape-generic.
  static std::optional<GenericShape> get(const Function &fn);

  /// This function's extent of each merged axis, all domains in turn: the
  /// kernel's `dims`.
  llvm::ArrayRef<int64_t> getExtents() const { return extents; }

  /// The merged axes of one tensor: its domain's are `dims[first]` to
  /// `dims[first + count - 1]`; bit g of \p mask set where the tensor spans
  /// `dims[first + g]`, clear where its extent is 1.
  struct TensorAxes {
    unsigned first = 0;
    unsigned count = 0;
    uint64_t mask = 0;
  };
  /// The axes of the \p field-th tensor (flattened) of \p e's value; \p e
  /// is a parameter, constant or call of the function.
  TensorAxes getAxes(const Expr *e, unsigned field = 0) const;

private:
  llvm::SmallVector<int64_t, 4> extents;
  /// Per tensor value, in numbering order.
  std::vector<TensorAxes> axes;
  /// The first tensor value of each parameter, constant and call.
  llvm::DenseMap<const Expr *, unsigned> firstValue;
};

/// Calls \p visit on every node of \p fn's body in post-order (operands
/// first, each node once, without recursion). Lowering lifts constants in
/// this order, so a caller that passes constant buffers uses it too.
void forEachPrimitiveNode(const Function &fn,
                          llvm::function_ref<void(const Expr *)> visit);

/// True if \p fn has `?` extents in its parameter types and every operator
/// it calls computes symbolic shapes (computesSymbolicShapes()): lowerToTE
/// lowers it symbolic unless a compute refuses (a cheap check, before
/// anything is lowered).
bool canLowerSymbolic(const Function &fn);

/// The value of the extent expression \p extent of a symbolic kernel with
/// \p vars (TEFunction::dimVars) bound to \p values; std::nullopt if it
/// reads anything else or divides by zero.
std::optional<int64_t> evaluateExtent(const te::Expr &extent,
                                      llvm::ArrayRef<te::Expr> vars,
                                      llvm::ArrayRef<int64_t> values);

/// Lowers the primitive function \p fn, shape-generic when \p generic
/// (GenericShape::get(fn)) is given. Errors (an operator without a compute,
/// a compute that fails, an unsupported construct) carry the location of the
/// offending call.
llvm::Expected<TEFunction> lowerToTE(const Function &fn,
                                     const GenericShape *generic);

} // namespace nnir

#endif // NNIR_CODEGEN_LOWERING_H
