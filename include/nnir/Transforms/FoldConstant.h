//===- FoldConstant.h - Constant folding through the JIT --------*- C++ -*-===//
//
/// \file
/// FoldConstant replaces the subexpressions whose value is known at compile
/// time by constants (Relay's FoldConstant), evaluating them with the
/// ExecutionEngine: JIT-compiled kernels on the host CPU.
///
/// What folds follows TVM's rules, in TVM's order:
///  - a Constant, or a tuple of constants, is constant;
///  - a call folds when its callee is an operator, it has at least one
///    argument (`zeros(shape=...)`-like calls never fold), the operator is
///    not stateful (nn.dropout), not non-computational (annotations), not
///    device_copy, and every argument is constant; nothing inside a primitive
///    function folds;
///  - shape_of and ndarray_size fold from the static type of their input,
///    constant or not (a rank-0 input: ndarray_size gives 1; shape_of, which
///    the type relation makes 0-d there, is not folded);
///  - a let bound to a constant (or to a tensor-valued foldable expression)
///    is inlined into its uses and the binding dropped; `(x, c).0` is `x`;
///    an `if` whose condition is a constant bool picks its branch;
///  - a function in which nothing folds is returned as it is (identity).
///
/// How it evaluates differs from TVM, which builds a module, an interpreter
/// and new LLVM code for every single call it folds:
///  - the foldable calls are collected first; each maximal constant
///    subgraph is evaluated once (all of a function's subgraphs in one
///    evaluation: fused by FuseOps, lowered, JIT-compiled and run), and only
///    the values that non-constant code uses become constants;
///  - kernels come from the ExecutionEngine the caller hands in, so its
///    caches serve every evaluation (see "The engine" below);
///  - evaluation (nnir/Transforms/Executor.h: FuseOps, InferType, kernels)
///    runs under a nested PassContext (PassContext::createNestedContext():
///    the user's disabled passes, config and printing instruments do not
///    apply; `--time-passes` shows it under FoldConstant);
///  - a size guard: a value larger than `FoldConstant.max_bytes` (config,
///    default 10 MiB) and larger than the constants it is computed from
///    together is not materialised (its operands may be);
///  - bounds on every evaluation, checked from the shapes before a kernel
///    allocates or runs anything: no buffer (a kernel's result or scratch)
///    larger than `FoldConstant.max_buffer_bytes` (default 4 GiB) and at
///    most `FoldConstant.max_work` scalar operations (default 2^34, seconds
///    of work) in all. A call whose evaluation would exceed them stays
///    unfolded, with a Missed remark (`ResourceLimit`), not a warning: the
///    program is fine, folding it is not worth it. Splats are folded on one
///    element, so a shape-generic chain over `broadcast_to` of a scalar costs
///    one element whatever its shape;
///  - an evaluation that fails (an operator without a compute, an error at
///    run time) leaves the subexpression unfolded, warns at its location and
///    goes on; it never fails the pass.
///
/// Remarks (`--pass-remarks=FoldConstant`, `--pass-remarks-missed=...`): a
/// Passed remark for every materialised constant (how many calls, bytes);
/// a Missed remark for every call that looked constant but did not fold, and
/// why. Statistics: calls folded, constants created, bytes materialised,
/// evaluations, kernels compiled, kernel cache hits, and skips by reason.
///
/// The engine. A run uses, in this order: FoldConstantOptions::engine; the
/// ExecutionEngine resource of its PassContext
/// (`ctx.setResource(std::shared_ptr<ExecutionEngine>)`, or a factory with
/// setResourceFactory, made when a fold first needs it); else a private
/// default engine (EngineOptions{}: in-memory cache only), made on first need
/// and kept by the pass object (shared by its runs; foldConstant() makes one
/// per call). Nothing is process-wide and nothing reads the environment:
/// nnir-opt hands in the engine of its flags (`--kernel-cache-dir`, else
/// $NNIR_KERNEL_CACHE_DIR). A run where nothing can fold creates no engine.
///
/// The walks are iterative: a 1,000,000-call chain folds (or not) on the
/// default stack.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_FOLDCONSTANT_H
#define NNIR_TRANSFORMS_FOLDCONSTANT_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace nnir {

class ExecutionEngine;

struct FoldConstantOptions {
  /// The size guard (see the file comment).
  uint64_t maxBytes = uint64_t(10) << 20;
  /// The bounds of one evaluation (see the file comment): the largest
  /// buffer a kernel may allocate, and the scalar operations of all its
  /// kernels together, as Codegen estimates them.
  uint64_t maxBufferBytes = uint64_t(4) << 30;
  uint64_t maxWork = uint64_t(1) << 34;
  /// Evaluate every foldable call on its own, in post-order, as TVM does
  /// (for testing that batching changes nothing, and for comparison).
  bool perCall = false;
  /// Fold constant calls of quantized operators (qnn.*) too, through their
  /// canonicalization (TVM's fold_qnn); without it they stay, as in TVM.
  bool foldQnn = false;
  /// The engine to evaluate on (null: the context's, else a private one;
  /// see the file comment).
  std::shared_ptr<ExecutionEngine> engine;
};

inline constexpr llvm::StringLiteral kFoldConstantMaxBytesConfig =
    "FoldConstant.max_bytes";
inline constexpr llvm::StringLiteral kFoldConstantMaxBufferBytesConfig =
    "FoldConstant.max_buffer_bytes";
inline constexpr llvm::StringLiteral kFoldConstantMaxWorkConfig =
    "FoldConstant.max_work";

/// Folds the constants of \p expr (usually a function), which must carry
/// checked types. \p module resolves global types; \p ctx receives remarks,
/// warnings and statistics. Returns \p expr itself when nothing folds.
/// Fails only when the engine cannot be created (or the context's factory
/// fails).
llvm::Expected<Ref<Expr>> foldConstant(Expr *expr, const IRModule *module,
                                       PassContext &ctx,
                                       const FoldConstantOptions &options = {});

/// The "FoldConstant" function pass (opt level 2, requires InferType).
Ref<Pass> createFoldConstantPass(bool perCall = false, bool foldQnn = false);

} // namespace nnir

#endif // NNIR_TRANSFORMS_FOLDCONSTANT_H
