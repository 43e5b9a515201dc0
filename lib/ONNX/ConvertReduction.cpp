//===- ConvertReduction.cpp - Reductions, scans and sorting ---------------===//
//
/// \file
/// ONNX reductions (Reduce*, ArgMax, ArgMin), CumSum and TopK.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "nnir/Ops/DynamicOps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace nnir {
namespace onnximport {

/// The axes a Reduce* node reduces, and its keepdims.
struct ReduceAxes {
  std::vector<int64_t> axes;
  bool keepdims;
  /// No axes and noop_with_empty_axes: the node is the identity.
  bool identity;
};

/// Reads the axes (an input from opset \p axesInputSince), keepdims and
/// noop_with_empty_axes of a Reduce* node with data \p x.
static Expected<ReduceAxes> readReduceAxes(NodeContext &ctx,
                                           int64_t axesInputSince) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axesOpt, axesOperand(ctx, axesInputSince));
  TRY(keepdims, ctx.getInt("keepdims", 1));
  TRY(noopEmpty, ctx.getInt("noop_with_empty_axes", 0));
  ReduceAxes r{{}, keepdims != 0, false};
  if (axesOpt && !axesOpt->empty()) {
    for (int64_t a : *axesOpt) {
      TRY(axis, ctx.normalizeAxis(a, x.rank()));
      r.axes.push_back(axis);
    }
  } else if (noopEmpty) {
    r.identity = true;
  } else {
    for (int64_t i = 0; i < x.rank(); ++i)
      r.axes.push_back(i);
  }
  return r;
}

/// The reduction \p build of \p r's axes of \p v.
static Expected<Value> reduceAlong(NodeContext &ctx, ops::ReduceBuilder build,
                                   const ReduceAxes &r, const Value &v) {
  return ctx.typed(build(v, r.axes, r.keepdims, SMLoc()));
}

/// A Reduce* node whose axes are an input from \p axesInputSince: \p build
/// of \p prepare(x), then \p finish of the reduction (each may be null).
static Result
convertReduction(NodeContext &ctx, int64_t axesInputSince,
                 ops::ReduceBuilder build,
                 function_ref<Expected<Value>(const Value &)> prepare = nullptr,
                 ops::UnaryBuilder finish = nullptr) {
  TRY(r, readReduceAxes(ctx, axesInputSince));
  const Value &x = ctx.input(0);
  if (r.identity)
    return one(x);
  Value in = x;
  if (prepare) {
    TRY(p, prepare(x));
    in = p;
  }
  TRY(out, reduceAlong(ctx, build, r, in));
  if (!finish)
    return one(out);
  TRY(finished, ctx.typed(finish(out, SMLoc())));
  return one(finished);
}

Result convertReduce(NodeContext &ctx, ops::ReduceBuilder build) {
  return convertReduction(ctx, 18, build);
}

// ReduceSum takes its axes as an input from opset 13, the others from 18.
Result convertReduceSum(NodeContext &ctx) {
  return convertReduction(ctx, 13, ops::sum);
}

Result convertReduceL1(NodeContext &ctx) {
  return convertReduction(ctx, 18, ops::sum, [&](const Value &x) {
    return ctx.typed(ops::abs(x));
  });
}

static Expected<Value> square(NodeContext &ctx, const Value &x) {
  return ctx.typed(ops::multiply(x, x));
}

Result convertReduceL2(NodeContext &ctx) {
  return convertReduction(
      ctx, 18, ops::sum, [&](const Value &x) { return square(ctx, x); },
      ops::sqrt);
}

Result convertReduceSumSquare(NodeContext &ctx) {
  return convertReduction(ctx, 18, ops::sum,
                          [&](const Value &x) { return square(ctx, x); });
}

Result convertReduceLogSum(NodeContext &ctx) {
  return convertReduction(ctx, 18, ops::sum, nullptr, ops::log);
}

Result convertReduceLogSumExp(NodeContext &ctx) {
  TRY(r, readReduceAxes(ctx, 18));
  const Value &x = ctx.input(0);
  if (r.identity)
    return one(x);
  // max + log(sum(exp(x - max))), stable for large inputs.
  TRY(m, ctx.typed(ops::max(x, r.axes, true)));
  TRY(shifted, ctx.typed(ops::subtract(x, m)));
  TRY(e, ctx.typed(ops::exp(shifted)));
  TRY(s, reduceAlong(ctx, ops::sum, r, e));
  TRY(l, ctx.typed(ops::log(s)));
  TRY(mk,
      r.keepdims ? Expected<Value>(m) : ctx.typed(ops::max(x, r.axes, false)));
  TRY(out, ctx.typed(ops::add(l, mk)));
  return one(out);
}

Result convertArgReduce(NodeContext &ctx, ops::ArgReduceBuilder build) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  TRY(keepdims, ctx.getInt("keepdims", 1));
  TRY(last, ctx.getInt("select_last_index", 0));
  TRY(indices, ctx.typed(build(x, {axis}, keepdims != 0, last != 0, SMLoc())));
  TRY(out, cast(ctx, indices, DataType::int64()));
  return one(out);
}

/// CumSum: cumsum along the constant axis; `reverse` scans from the end
/// (reverse, scan, reverse back).
Result convertCumSum(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  Value x = ctx.input(0);
  TRY(axes, ctx.constantInts(1, "axis"));
  if (axes.size() != 1)
    return ctx.error("axis must hold one value");
  TRY(axis, ctx.normalizeAxis(axes[0], x.rank()));
  TRY(exclusive, ctx.getInt("exclusive", 0));
  TRY(reverse, ctx.getInt("reverse", 0));
  if (reverse) {
    TRY(flipped, ctx.typed(ops::reverse(x, axis)));
    x = flipped;
  }
  TRY(out, ctx.typed(ops::cumsum(x, axis, exclusive != 0)));
  if (reverse) {
    TRY(back, ctx.typed(ops::reverse(out, axis)));
    out = back;
  }
  return one(out);
}

/// TopK: topk with both outputs and int64 indices; K is an attribute before
/// opset 10 and an input after (dyn.topk when it is known only at run time). `sorted` 0 allows any order, so the
/// sorted result serves.
Result convertTopK(NodeContext &ctx) {
  const Value &x = ctx.input(0);
  int64_t k;
  if (ctx.getOpset() < 10) {
    if (Error err = ctx.checkNumInputs(1, 1))
      return err;
    TRY(kAttr, ctx.getInt("k", -1));
    k = kAttr;
  } else {
    if (Error err = ctx.checkNumInputs(2, 2))
      return err;
    if (!ctx.input(1).constant) {
      TRY(axisAttr, ctx.getInt("axis", -1));
      TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
      TRY(largest, ctx.getInt("largest", 1));
      return convertDynamicTopK(ctx, axis, largest != 0);
    }
    TRY(ks, ctx.constantInts(1, "K"));
    if (ks.size() != 1)
      return ctx.error("K must hold one value");
    k = ks[0];
  }
  TRY(axisAttr, ctx.getInt("axis", -1));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  TRY(largest, ctx.getInt("largest", 1));
  if (k < 0 || k > x.shape()[axis])
    return ctx.error("K " + Twine(k) + " is out of range for axis " +
                     Twine(axis) + " of extent " + Twine(x.shape()[axis]));
  // topk's k 0 means "all" (TVM's); ONNX's K 0 is an empty result.
  if (k == 0) {
    TRY(values, ctx.typed(ops::topkOfNone(x.expr, axis, "values",
                                          DataType::int64())));
    TRY(indices, cast(ctx, values, DataType::int64()));
    return Result(SmallVector<Value, 1>{values, indices});
  }
  TRY(both, ctx.typed(ops::topk(x, k, axis, "both", largest == 0,
                                DataType::int64())));
  return Result(
      SmallVector<Value, 1>{ctx.getItem(both, 0), ctx.getItem(both, 1)});
}

} // namespace onnximport
} // namespace nnir
