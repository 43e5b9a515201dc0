//===- ConvertDynamic.cpp - Operators with data-dependent shapes ----------===//
//
/// \file
/// The converters of ONNX operators whose output extents depend on values:
/// NonZero, Unique, Compress and NonMaxSuppression, onto nnir's dynamic
/// operators (nnir/Ops/DynamicOps.h); and the shape-taking operators
/// (Reshape, Expand, Tile, ConstantOfShape, Slice, TopK, Range) when their
/// shape input is known only at run time, onto the dyn.* operators (their
/// converters take the static path when the input is a constant).
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "nnir/IR/Op.h"
#include "nnir/Ops/DataMovementAttrs.h"
#include "nnir/Ops/DynamicOps.h"

#include <limits>
#include <numeric>

using namespace llvm;
using namespace nnir;
using namespace nnir::onnximport;

namespace nnir {
namespace onnximport {

/// An error unless input \p i is a 1-D integer tensor of static length
/// (a shape, starts, ...).
static Error checkShapeInput(NodeContext &ctx, size_t i, StringRef what) {
  const Value &v = ctx.input(i);
  if (!v.isTensor() || v.rank() != 1 || v.type().isDynamic() ||
      !v.dtype().isInteger())
    return ctx.error(what + " (input " + Twine(i) +
                     ") must be a 1-D integer tensor of static length, got " +
                     (v.isTensor() ? v.type().str() : std::string("a sequence")));
  return Error::success();
}

Result convertNonZero(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() == 0)
    return ctx.unsupported("NonZero of a 0-d tensor");
  // argwhere gives (?, rank) int32 rows; ONNX wants (rank, ?) int64.
  TRY(rows, ctx.typed(ops::argwhere(x)));
  TRY(wide, cast(ctx, rows, DataType::int64()));
  TRY(out, ctx.typed(ops::transpose(wide, IntList{1, 0})));
  return one(out);
}

Result convertUnique(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(sorted, ctx.getInt("sorted", 1));
  TRY(axis, ctx.getOptInt("axis"));
  TRY(all, ctx.typed(ops::unique(ctx.input(0), sorted != 0, axis)));
  Outputs outs;
  for (unsigned i = 0; i != 4; ++i)
    outs.push_back(ctx.getItem(all, i));
  return outs;
}

/// Compress: the slices of the axis (or of the flattened input) where the
/// condition holds, as take() of argwhere's indices.
Result convertCompress(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  Value x = ctx.input(0);
  const Value &condition = ctx.input(1);
  if (condition.rank() != 1)
    return ctx.error("the condition must be 1-D, got " +
                     condition.type().str());
  TRY(axisAttr, ctx.getOptInt("axis"));
  int64_t axis = 0;
  if (axisAttr) {
    TRY(a, ctx.normalizeAxis(*axisAttr, x.rank()));
    axis = a;
  } else {
    TRY(flat, ctx.typed(ops::reshape(x, IntList{-1})));
    x = flat;
  }
  TRY(rows, ctx.typed(ops::argwhere(condition)));
  TRY(indices, ctx.typed(ops::reshape(rows, IntList{-1})));
  TRY(out, ctx.typed(ops::take(x, indices, axis, "fast")));
  return one(out);
}

Result convertNonMaxSuppression(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 5))
    return err;
  TRY(centerPointBox, ctx.getInt("center_point_box", 0));
  if (centerPointBox != 0 && centerPointBox != 1)
    return ctx.error("center_point_box must be 0 or 1, got " +
                     Twine(centerPointBox));
  // Absent inputs: no boxes per class, an IoU threshold of 0, no score
  // threshold.
  Value maxOutput = ctx.hasInput(2) ? ctx.input(2)
                                    : ctx.scalar(DataType::int64(), 0);
  Value iou = ctx.hasInput(3) ? ctx.input(3) : ctx.scalar(DataType::float32(), 0);
  Value score = ctx.hasInput(4)
                    ? ctx.input(4)
                    : ctx.scalar(DataType::float32(),
                                 -std::numeric_limits<double>::infinity());
  TRY(out, ctx.typed(ops::allClassNonMaxSuppression(
               ctx.input(0), ctx.input(1), maxOutput, iou, score,
               centerPointBox == 1)));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Shape inputs known at run time
//===----------------------------------------------------------------------===//

Result convertDynamicReshape(NodeContext &ctx, bool allowZero) {
  if (Error err = checkShapeInput(ctx, 1, "the shape"))
    return err;
  TRY(out, ctx.typed(ops::dynReshape(ctx.input(0), ctx.input(1), allowZero)));
  return one(out);
}

Result convertDynamicExpand(NodeContext &ctx) {
  if (Error err = checkShapeInput(ctx, 1, "the shape"))
    return err;
  TRY(out, ctx.typed(ops::dynBroadcastTo(ctx.input(0), ctx.input(1))));
  return one(out);
}

Result convertDynamicTile(NodeContext &ctx) {
  if (Error err = checkShapeInput(ctx, 1, "repeats"))
    return err;
  TRY(out, ctx.typed(ops::dynTile(ctx.input(0), ctx.input(1))));
  return one(out);
}

Result convertDynamicConstantOfShape(NodeContext &ctx, NDArray fill) {
  if (Error err = checkShapeInput(ctx, 0, "the shape"))
    return err;
  Value value = ctx.constant(fill);
  TRY(out, ctx.typed(ops::dynFull(value, ctx.input(0), fill.getDType())));
  return one(out);
}

/// \p starts (a 1-D integer tensor, one entry per axis of \p axes of \p x)
/// raised to at least -dim. ONNX clamps a start below -dim to element 0
/// whatever the step's sign; strided_slice clamps it to 0 for a positive
/// stride but to -1 (nothing) for a negative one. -dim is element 0 for
/// both, and ends already agree (below -dim: 0, or -1 for a negative step,
/// "before element 0"). A `?` extent is read at run time (shape_of).
static Expected<Value> clampStarts(NodeContext &ctx, const Value &x,
                                   const Value &starts,
                                   ArrayRef<int64_t> axes) {
  std::vector<int64_t> lowest;
  bool dynamic = false;
  for (int64_t axis : axes) {
    lowest.push_back(-x.shape()[axis]);
    dynamic |= isAnyDim(x.shape()[axis]);
  }
  Value bound = ctx.int64Vector(lowest);
  if (dynamic) {
    Ref<ShapeOfAttrs> attrs = ShapeOfAttrs::create();
    attrs->dtype = DataType::int64();
    TRY(shape, ctx.typed(Call::get(Op::lookup("shape_of"), {x.expr},
                                   std::move(attrs))));
    TRY(dims, ctx.typed(ops::take(shape.expr, ctx.int64Vector(axes).expr, 0,
                                  "fast")));
    TRY(negative, ctx.typed(ops::negative(dims.expr)));
    bound = negative;
  }
  TRY(typedBound, cast(ctx, bound, starts.dtype()));
  TRY(out, ctx.typed(ops::maximum(starts.expr, typedBound.expr)));
  return out;
}

/// Slice with starts and ends known at run time (axes constant or absent):
/// dyn.strided_slice, on starts clamped as ONNX clamps them
/// (clampStarts()).
Result convertDynamicSlice(NodeContext &ctx) {
  const Value &x = ctx.input(0);
  if (Error err = checkShapeInput(ctx, 1, "starts"))
    return err;
  if (Error err = checkShapeInput(ctx, 2, "ends"))
    return err;
  int64_t n = ctx.input(1).shape()[0];
  if (ctx.input(2).shape()[0] != n)
    return ctx.error("starts and ends have different lengths");
  std::vector<int64_t> axes(n);
  std::iota(axes.begin(), axes.end(), 0);
  if (ctx.hasInput(3)) {
    TRY(a, ctx.constantInts(3, "axes"));
    axes = a;
  }
  if (int64_t(axes.size()) != n)
    return ctx.error("starts and axes have different lengths");
  for (int64_t &a : axes) {
    TRY(axis, ctx.normalizeAxis(a, x.rank()));
    a = axis;
  }
  Value steps;
  if (ctx.hasInput(4)) {
    if (Error err = checkShapeInput(ctx, 4, "steps"))
      return err;
    steps = ctx.input(4);
  } else {
    steps = ctx.int64Vector(std::vector<int64_t>(n, 1));
  }
  return sliceAtRunTime(ctx, x, ctx.input(1), ctx.input(2), axes, steps);
}

Result sliceAtRunTime(NodeContext &ctx, const Value &x, const Value &starts,
                      const Value &ends, ArrayRef<int64_t> axes,
                      const Value &steps) {
  TRY(clamped, clampStarts(ctx, x, starts, axes));
  TRY(out, ctx.typed(ops::dynStridedSlice(x, clamped, ends, steps,
                                          std::vector<int64_t>(axes))));
  return one(out);
}

Result convertDynamicTopK(NodeContext &ctx, int64_t axis, bool largest) {
  const Value &k = ctx.input(1);
  if (!k.dtype().isInteger() || k.type().isDynamic() ||
      k.type().getNumElements() != 1)
    return ctx.error("K must be one integer, got " + k.type().str());
  TRY(both, ctx.typed(ops::dynTopK(ctx.input(0), k, axis, "both", !largest,
                                   DataType::int64())));
  return Result(
      SmallVector<Value, 1>{ctx.getItem(both, 0), ctx.getItem(both, 1)});
}

Result convertDynamicRange(NodeContext &ctx) {
  DataType dtype = ctx.input(0).dtype();
  for (unsigned i = 0; i != 3; ++i)
    if (ctx.input(i).rank() != 0 || ctx.input(i).dtype() != dtype)
      return ctx.error("start, limit and delta must be scalars of one type");
  TRY(out, ctx.typed(ops::arange(ctx.input(0), ctx.input(1), ctx.input(2),
                                 dtype)));
  return one(out);
}

} // namespace onnximport
} // namespace nnir
