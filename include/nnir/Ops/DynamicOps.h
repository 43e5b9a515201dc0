//===- DynamicOps.h - Operators with data-dependent shapes -------*- C++ -*-===//
//
/// \file
/// The operators whose result extents depend on the values of their
/// arguments (Relay's dynamic operators and its argwhere, unique and
/// all-class NMS): their relations give `?` for those extents, they are
/// never fused (Opaque), and the evaluator runs them by one of two
/// run-time implementations registered as operator properties:
///
///  - FHostCompute (HostComputeFn): a host C++ routine over NDArrays that
///    sizes and fills its results (argwhere, unique,
///    vision.all_class_non_max_suppression);
///  - FStaticForm (StaticFormFn): Relay's shape function, written as the
///    rewrite it enables: from the values of the shape-giving arguments, the
///    call of the static operator that computes the same (dyn.reshape ->
///    reshape with the newshape read at run time, dyn.topk -> topk, ...).
///    The evaluator types it (so the extents are checked: a negative one or
///    one over the tensor-size limit is a located error before anything is
///    allocated) and runs it as a kernel compiled for those shapes, through
///    the engine's caches.
///
/// Every such operator sets TDataDependentShape (nnir/IR/TypeRelation.h).
/// docs/Passes.md ("Dynamic shapes") lists them and what each takes.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_DYNAMICOPS_H
#define NNIR_OPS_DYNAMICOPS_H

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/Runtime/NDArray.h"
#include "nnir/Support/TypeId.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"

#include <functional>
#include <optional>
#include <vector>

namespace nnir {

class Op;

/// What a host routine may use besides its inputs.
struct HostComputeContext {
  /// The call being run, for errors.
  llvm::SMLoc loc;
  /// Allocates a result array (counted against the engine's limits).
  std::function<llvm::Expected<NDArray>(DataType, llvm::ArrayRef<int64_t>)>
      allocate;
};

/// Runs a call of the operator on the host: its arguments' values (tuples
/// flattened) and its attribute record (or the defaults) give its results,
/// one array per tensor of the result type (tuples flattened).
using HostComputeFn = std::function<llvm::Expected<std::vector<NDArray>>(
    llvm::ArrayRef<NDArray> inputs, const Attrs *attrs,
    const HostComputeContext &ctx)>;
inline constexpr llvm::StringLiteral kHostComputeAttr = "FHostCompute";

/// The static form of a call (its shape function): given the call (its
/// record and location), one typed variable per argument and the
/// arguments' values, the untyped expression over those variables, of
/// static operators only, that computes the call's result; or a located
/// error when the values give no valid shape.
using StaticFormFn = std::function<llvm::Expected<Ref<Expr>>(
    const Call &call, llvm::ArrayRef<Ref<Expr>> params,
    llvm::ArrayRef<NDArray> values)>;
inline constexpr llvm::StringLiteral kStaticFormAttr = "FStaticForm";

/// The properties of \p op, or null.
const HostComputeFn *getHostCompute(const Op *op);
const StaticFormFn *getStaticForm(const Op *op);

/// unique (TVM's record plus `axis`): sorted or in order of first
/// occurrence; axis None flattens the data. nnir's unique always returns
/// the four tensors (values, first indices, inverse indices, counts),
/// unpadded: TVM pads to the input's size and adds num_unique.
struct UniqueAttrs : AttrsNode<UniqueAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.UniqueAttrs";
  bool sorted = true;
  bool returnCounts = true;
  std::optional<int64_t> axis;
  template <typename V> void visitFields(V &v) {
    v("sorted", sorted, true);
    v("return_counts", returnCounts, true);
    v("axis", axis, std::nullopt);
  }
};

/// vision.all_class_non_max_suppression: output_format "onnx" (the only one
/// nnir has: (?, 3) int64 rows of batch, class, box) and ONNX's
/// center_point_box (boxes as centre and size), an nnir extension.
struct AllClassNonMaximumSuppressionAttrs
    : AttrsNode<AllClassNonMaximumSuppressionAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.AllClassNonMaximumSuppressionAttrs";
  std::string outputFormat = "onnx";
  bool centerPointBox = false;
  template <typename V> void visitFields(V &v) {
    v("output_format", outputFormat, "onnx");
    v("center_point_box", centerPointBox, false);
  }
};

/// Registers the dynamic operators (from registerAllOps()).
void registerDynamicOps();

namespace ops {
/// argwhere(x): (?, rank) int32 indices of the non-zero elements.
Ref<Expr> argwhere(Ref<Expr> x, llvm::SMLoc loc = {});
/// unique(x): (values, indices, inverse_indices, counts).
Ref<Expr> unique(Ref<Expr> x, bool sorted, std::optional<int64_t> axis,
                 llvm::SMLoc loc = {});
/// vision.all_class_non_max_suppression(boxes, scores, max_output_boxes_per_
/// class, iou_threshold, score_threshold).
Ref<Expr> allClassNonMaxSuppression(Ref<Expr> boxes, Ref<Expr> scores,
                                    Ref<Expr> maxOutput, Ref<Expr> iou,
                                    Ref<Expr> scoreThreshold,
                                    bool centerPointBox, llvm::SMLoc loc = {});
/// dyn.reshape(x, newshape): newshape a 1-D integer tensor (reshape's
/// special values 0 and -1).
Ref<Expr> dynReshape(Ref<Expr> x, Ref<Expr> newShape, bool allowZero,
                     llvm::SMLoc loc = {});
/// dyn.broadcast_to(x, shape).
Ref<Expr> dynBroadcastTo(Ref<Expr> x, Ref<Expr> shape, llvm::SMLoc loc = {});
/// dyn.tile(x, reps).
Ref<Expr> dynTile(Ref<Expr> x, Ref<Expr> reps, llvm::SMLoc loc = {});
/// dyn.full(fill, shape) of \p dtype.
Ref<Expr> dynFull(Ref<Expr> fill, Ref<Expr> shape, DataType dtype,
                  llvm::SMLoc loc = {});
/// dyn.strided_slice(x, begin, end, strides) on \p axes (all when empty).
Ref<Expr> dynStridedSlice(Ref<Expr> x, Ref<Expr> begin, Ref<Expr> end,
                          Ref<Expr> strides, std::vector<int64_t> axes,
                          llvm::SMLoc loc = {});
/// dyn.topk(x, k).
Ref<Expr> dynTopK(Ref<Expr> x, Ref<Expr> k, int64_t axis,
                  llvm::StringRef retType, bool isAscend, DataType indexType,
                  llvm::SMLoc loc = {});
/// The empty result of a top-k with k = 0 (ONNX TopK's K 0; topk's own k 0
/// means "all", as in TVM): \p x sliced to nothing on \p axis for the
/// values, cast to \p indexType for the indices, as \p retType asks
/// ("values", "indices" or "both": a tuple).
Ref<Expr> topkOfNone(Ref<Expr> x, int64_t axis, llvm::StringRef retType,
                     DataType indexType, llvm::SMLoc loc = {});
/// arange(start, stop, step) of \p dtype, from 0-d tensors.
Ref<Expr> arange(Ref<Expr> start, Ref<Expr> stop, Ref<Expr> step,
                 DataType dtype, llvm::SMLoc loc = {});
} // namespace ops

} // namespace nnir

NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::HostComputeFn)
NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::StaticFormFn)

#endif // NNIR_OPS_DYNAMICOPS_H
