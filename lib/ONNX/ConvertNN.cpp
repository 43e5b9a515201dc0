//===- ConvertNN.cpp - Neural network layers ------------------------------===//
//
/// \file
/// ONNX layers: matrix products (MatMul, Gemm), convolutions and pools,
/// normalisations, softmax, losses, and the quantized operators (their
/// integer and QLinear forms and (De)QuantizeLinear).
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "nnir/Ops/QNN.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>

using namespace llvm;

namespace nnir {
namespace onnximport {

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// op(A) * op(B) for matrices, as nn.dense (which multiplies by the
/// transpose of its weight), as TVM's importer does.
static Expected<Value> dense(NodeContext &ctx, const Value &a, const Value &b,
                             bool transposeA, bool transposeB) {
  Value lhs = a, rhs = b;
  if (transposeA) {
    TRY(t, ctx.typed(ops::transpose(a, IntList{1, 0})));
    lhs = t;
  }
  if (!transposeB) {
    TRY(t, ctx.typed(ops::transpose(b, IntList{1, 0})));
    rhs = t;
  }
  return ctx.typed(ops::dense(lhs, rhs, rhs.shape()[0]));
}

/// numpy.matmul of \p a and \p b where one has `?` extents, without the
/// reshapes of the static form (they would lose the `?`): nn.dense of an
/// N-D \p a by a static matrix, batch_matmul of two rank-3 operands, and of
/// two rank-4 operands with their batch axes merged (reshape -3) and split
/// back (-4) around it.
static Expected<Value> dynamicMatmul(NodeContext &ctx, const Value &a,
                                     const Value &b) {
  auto needsStatic = [&] {
    return ctx.error(formatv("numpy.matmul of {0} and {1}: nnir keeps `?` "
                             "extents for a static matrix right operand, or "
                             "operands of equal rank 3 or 4 with equal "
                             "batch extents; fix the graph inputs' symbolic "
                             "dimensions with --input-shape=NAME=D0xD1x...",
                             a.type().str(), b.type().str())
                         .str());
  };
  if (a.rank() >= 2 && b.rank() == 2 && !b.type().isDynamic()) {
    TRY(weight, ctx.typed(ops::transpose(b, IntList{1, 0})));
    return ctx.typed(ops::dense(a, weight, b.shape()[1]));
  }
  int64_t rank = a.rank();
  if (b.rank() != rank || (rank != 3 && rank != 4))
    return needsStatic();
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (a.shape()[i] != b.shape()[i])
      return needsStatic();
  if (rank == 3)
    return ctx.typed(ops::batchMatmul(a, b, false, false));
  int64_t outer = a.shape()[0], inner = a.shape()[1];
  if (isAnyDim(outer) && isAnyDim(inner))
    return needsStatic();
  TRY(a3, ctx.typed(ops::reshape(a, IntList{-3, 0, 0})));
  TRY(b3, ctx.typed(ops::reshape(b, IntList{-3, 0, 0})));
  TRY(mm, ctx.typed(ops::batchMatmul(a3, b3, false, false)));
  return ctx.typed(ops::reshape(
      mm, IntList{-4, isAnyDim(outer) ? -1 : outer,
                  isAnyDim(outer) ? inner : -1, 0, 0}));
}

/// numpy.matmul of \p a and \p b (MatMul, MatMulInteger, QLinearMatMul).
static Expected<Value> matmul(NodeContext &ctx, Value a, Value b) {
  if (a.rank() == 0 || b.rank() == 0)
    return ctx.error("MatMul operands must have rank 1 or more");
  if (a.type().isDynamic() || b.type().isDynamic())
    return dynamicMatmul(ctx, a, b);
  bool vecA = a.rank() == 1, vecB = b.rank() == 1;
  if (vecA) {
    TRY(r, reshape(ctx, a, {1, a.shape()[0]}));
    a = r;
  }
  if (vecB) {
    TRY(r, reshape(ctx, b, {b.shape()[0], 1}));
    b = r;
  }
  int64_t m = a.shape()[a.rank() - 2], k = a.shape().back();
  int64_t kb = b.shape()[b.rank() - 2], n = b.shape().back();
  if (k != kb)
    return ctx.error(
        formatv("inner dimensions differ: {0} vs {1}", k, kb).str());
  std::vector<int64_t> outShape;
  Value result;
  if (b.rank() == 2) {
    // Fold A's batch dimensions into its rows.
    std::vector<int64_t> batch(a.shape().begin(), a.shape().end() - 2);
    TRY(a2, reshape(ctx, a, {product(batch) * m, k}));
    TRY(mm, dense(ctx, a2, b, /*transposeA=*/false, /*transposeB=*/false));
    result = mm;
    outShape = batch;
  } else {
    TRY(batch,
        broadcastShapes(ctx, a.shape().drop_back(2), b.shape().drop_back(2)));
    std::vector<int64_t> shapeA = batch, shapeB = batch;
    shapeA.insert(shapeA.end(), {m, k});
    shapeB.insert(shapeB.end(), {k, n});
    TRY(ba, broadcastTo(ctx, a, shapeA));
    TRY(bb, broadcastTo(ctx, b, shapeB));
    int64_t count = product(batch);
    TRY(a3, reshape(ctx, ba, {count, m, k}));
    TRY(b3, reshape(ctx, bb, {count, k, n}));
    TRY(mm, ctx.typed(ops::batchMatmul(a3, b3, false, false)));
    result = mm;
    outShape = batch;
  }
  if (!vecA)
    outShape.push_back(m);
  if (!vecB)
    outShape.push_back(n);
  return reshape(ctx, result, outShape);
}

Result convertMatMul(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(out, matmul(ctx, ctx.input(0), ctx.input(1)));
  return one(out);
}

Result convertGemm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(alpha, ctx.getFloat("alpha", 1.0));
  TRY(beta, ctx.getFloat("beta", 1.0));
  TRY(transA, ctx.getInt("transA", 0));
  TRY(transB, ctx.getInt("transB", 0));
  const Value &a = ctx.input(0), &b = ctx.input(1);
  if (a.rank() != 2 || b.rank() != 2)
    return ctx.error("Gemm operands must be matrices");
  TRY(mm, dense(ctx, a, b, transA, transB));
  Value y = mm;
  if (alpha != 1.0) {
    TRY(s, ctx.typed(ops::multiply(y, scalarLike(ctx, y, alpha))));
    y = s;
  }
  if (ctx.hasInput(2) && beta != 0.0) {
    Value c = ctx.input(2);
    if (beta != 1.0) {
      TRY(s, ctx.typed(ops::multiply(c, scalarLike(ctx, c, beta))));
      c = s;
    }
    TRY(sum, ctx.typed(ops::add(y, c)));
    y = sum;
  }
  return one(y);
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// Spatial attributes shared by Conv, ConvTranspose and the pools.
struct WindowAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads;
};

/// Reads kernel_shape (or takes \p kernel), strides, dilations, pads and
/// auto_pad for \p spatial axes of \p inShape, resolving SAME_* padding.
static Expected<WindowAttrs> readWindow(NodeContext &ctx,
                                        ArrayRef<int64_t> inShape,
                                        std::vector<int64_t> kernel,
                                        bool hasDilations) {
  size_t spatial = inShape.size() - 2;
  WindowAttrs w;
  TRY(ks, ctx.getInts("kernel_shape", kernel));
  if (ks.size() != spatial)
    return ctx.error(formatv("kernel_shape has {0} entries for {1} spatial "
                             "axes",
                             ks.size(), spatial)
                         .str());
  w.kernel = ks;
  std::vector<int64_t> ones(spatial, 1), zeros(2 * spatial, 0);
  TRY(strides, ctx.getInts("strides", ones));
  TRY(dilations, hasDilations ? ctx.getInts("dilations", ones)
                              : Expected<std::vector<int64_t>>(ones));
  TRY(pads, ctx.getInts("pads", zeros));
  if (strides.size() != spatial || dilations.size() != spatial ||
      pads.size() != 2 * spatial)
    return ctx.error("strides, dilations or pads do not match the kernel's "
                     "rank");
  constexpr int64_t limit = int64_t(1) << 31;
  for (size_t i = 0; i < spatial; ++i)
    if (w.kernel[i] < 1 || w.kernel[i] > limit || strides[i] < 1 ||
        strides[i] > limit || dilations[i] < 1 || dilations[i] > limit)
      return ctx.error("kernel_shape, strides and dilations must be "
                       "positive and below 2^31");
  for (int64_t p : pads)
    if (p < 0 || p > limit)
      return ctx.error("pads must be in [0, 2^31]");
  w.strides = strides;
  w.dilations = dilations;
  w.pads = pads;
  TRY(autoPad, ctx.getString("auto_pad", "NOTSET"));
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // The padding follows from the spatial extents of the input (input 0).
    if (!isStaticShape(inShape.drop_front(2)))
      if (Error err = ctx.staticShape(0, 2).takeError())
        return err;
    for (size_t i = 0; i < spatial; ++i) {
      int64_t in = inShape[i + 2], s = w.strides[i];
      int64_t out = (in + s - 1) / s;
      int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[i + spatial] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (autoPad != "NOTSET") {
    return ctx.error("unknown auto_pad '" + autoPad + "'");
  }
  return w;
}

/// The record of an nnir convolution (1-D, 2-D or 3-D) of window \p w.
template <typename AttrsT>
static Ref<AttrsT> convAttrs(const WindowAttrs &w, int64_t group,
                             int64_t channels) {
  Ref<AttrsT> attrs = AttrsT::create();
  attrs->strides = w.strides;
  attrs->padding = w.pads;
  attrs->dilation = w.dilations;
  attrs->groups = group;
  attrs->channels = channels;
  attrs->kernelSize = w.kernel;
  return attrs;
}

/// The convolution of \p x by \p weight with the node's attributes (Conv,
/// ConvInteger, QLinearConv).
static Expected<Value> convolution(NodeContext &ctx, const Value &x,
                                   const Value &weight) {
  if (x.rank() < 3 || x.rank() > 5 || weight.rank() != x.rank())
    return ctx.unsupported(formatv("{0} of rank {1} (nnir has 1-D, 2-D and "
                                   "3-D convolutions)",
                                   ctx.getOpType(), x.rank())
                               .str());
  TRY(group, ctx.getInt("group", 1));
  TRY(w, readWindow(ctx, x.shape(),
                    std::vector<int64_t>(weight.shape().begin() + 2,
                                         weight.shape().end()),
                    true));
  int64_t channels = weight.shape()[0];
  Ref<Expr> call =
      x.rank() == 3
          ? ops::conv1d(x, weight, convAttrs<Conv1DAttrs>(w, group, channels))
      : x.rank() == 4
          ? ops::conv2d(x, weight, convAttrs<Conv2DAttrs>(w, group, channels))
          : ops::conv3d(x, weight, convAttrs<Conv3DAttrs>(w, group, channels));
  return ctx.typed(call);
}

Result convertConv(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(conv, convolution(ctx, ctx.input(0), ctx.input(1)));
  if (!ctx.hasInput(2))
    return one(conv);
  TRY(out, ctx.typed(ops::biasAdd(conv, ctx.input(2), 1)));
  return one(out);
}

Result convertConvTranspose(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  Value x = ctx.input(0), weight = ctx.input(1);
  if (x.rank() < 3 || x.rank() > 5 || weight.rank() != x.rank())
    return ctx.unsupported(formatv("ConvTranspose of data rank {0} and "
                                   "weight rank {1} (nnir has 1-D, 2-D and "
                                   "3-D transposed convolutions)",
                                   x.rank(), weight.rank())
                               .str());
  TRY(group, ctx.getInt("group", 1));
  size_t spatial = x.rank() - 2;
  std::vector<int64_t> kernel(weight.shape().begin() + 2, weight.shape().end());
  TRY(ks, ctx.getInts("kernel_shape", kernel));
  std::vector<int64_t> ones(spatial, 1), zeros(spatial, 0);
  TRY(strides, ctx.getInts("strides", ones));
  TRY(dilations, ctx.getInts("dilations", ones));
  TRY(outputPadding, ctx.getInts("output_padding", zeros));
  TRY(pads, ctx.getInts("pads", std::vector<int64_t>(2 * spatial, 0)));
  TRY(outputShape, ctx.getOptInts("output_shape"));
  TRY(autoPad, ctx.getString("auto_pad", "NOTSET"));
  if (ks.size() != spatial || strides.size() != spatial ||
      dilations.size() != spatial || outputPadding.size() != spatial ||
      pads.size() != 2 * spatial)
    return ctx.error("attribute lengths do not match the kernel's rank");
  if (outputShape && outputShape->size() < spatial)
    return ctx.error("output_shape has fewer entries than spatial axes");
  constexpr int64_t limit = int64_t(1) << 31;
  for (size_t i = 0; i < spatial; ++i)
    if (ks[i] < 1 || ks[i] > limit || strides[i] < 1 || strides[i] > limit ||
        dilations[i] < 1 || dilations[i] > limit || outputPadding[i] < 0 ||
        outputPadding[i] > limit)
      return ctx.error("kernel_shape, strides and dilations must be positive, "
                       "and output_padding not negative, all up to 2^31");
  std::vector<int64_t> extend(spatial, 0);
  if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
    if (Error err = ctx.staticShape(0, 2).takeError())
      return err;
  if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < spatial; ++i) {
      // The full extent, strides * (in - 1) + output_padding + (kernel - 1)
      // * dilation + 1, less the target, in * strides or output_shape's: an
      // input extent or an output_shape near int64's limits overflows.
      int64_t in = x.shape()[i + 2], full, target, total;
      if (MulOverflow(strides[i], in - 1, full) ||
          AddOverflow(full, outputPadding[i] + (ks[i] - 1) * dilations[i] + 1,
                      full))
        return ctx.error("the full output extent overflows");
      if (outputShape)
        target = (*outputShape)[outputShape->size() - spatial + i];
      else if (MulOverflow(in, strides[i], target))
        return ctx.error("the SAME output extent overflows");
      if (SubOverflow(full, target, total))
        return ctx.error("the output padding overflows");
      if (total < 0) {
        // A larger output_shape extends the output at the end, as
        // output_padding does (ONNX Runtime's and the reference's result).
        if (-total > limit)
          return ctx.error("output_shape is too large");
        extend[i] = -total;
        total = 0;
      }
      int64_t small = total / 2, large = total - small;
      bool lower = autoPad == "SAME_LOWER";
      pads[i] = lower ? large : small;
      pads[i + spatial] = lower ? small : large;
    }
  } else if (autoPad == "VALID") {
    std::fill(pads.begin(), pads.end(), 0);
  }
  auto fill = [&](auto attrs) {
    attrs->channels = weight.shape()[1] * group;
    attrs->kernelSize = ks;
    attrs->strides = strides;
    attrs->outputPadding = outputPadding;
    attrs->padding = pads;
    attrs->dilation = dilations;
    attrs->groups = group;
    return attrs;
  };
  Ref<Expr> call =
      spatial == 1
          ? ops::conv1dTranspose(x, weight, fill(Conv1DTransposeAttrs::create()))
      : spatial == 2
          ? ops::conv2dTranspose(x, weight, fill(Conv2DTransposeAttrs::create()))
          : ops::conv3dTranspose(x, weight,
                                 fill(Conv3DTransposeAttrs::create()));
  TRY(conv, ctx.typed(call));
  Value y = conv;
  if (llvm::any_of(extend, [](int64_t e) { return e > 0; })) {
    std::vector<IntList> widths(y.rank(), IntList{0, 0});
    for (size_t i = 0; i < spatial; ++i)
      widths[y.rank() - spatial + i] = IntList{0, extend[i]};
    TRY(padded, ctx.typed(ops::pad(y, scalarLike(ctx, y, 0), widths,
                                   "constant")));
    y = padded;
  }
  if (!ctx.hasInput(2))
    return one(y);
  TRY(out, ctx.typed(ops::biasAdd(y, ctx.input(2), 1)));
  return one(out);
}

/// MaxUnpool: X's elements written at their indices (MaxPool's, flattened
/// over the whole output) into zeros of the unpooled shape ((in - 1) *
/// stride + kernel - pads per spatial axis): scatter_elements on the
/// flattened tensors; then padded to output_shape when it is given.
Result convertMaxUnpool(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  const Value &x = ctx.input(0), &indices = ctx.input(1);
  if (x.rank() < 3 || indices.shape() != x.shape())
    return ctx.error("X must have rank 3 or more and I its shape");
  if (!indices.dtype().isInteger())
    return ctx.error("I must be an integer tensor");
  size_t spatial = x.rank() - 2;
  TRY(ks, ctx.getInts("kernel_shape"));
  std::vector<int64_t> ones(spatial, 1);
  TRY(strides, ctx.getInts("strides", ones));
  TRY(pads, ctx.getInts("pads", std::vector<int64_t>(2 * spatial, 0)));
  if (ks.size() != spatial || strides.size() != spatial ||
      pads.size() != 2 * spatial)
    return ctx.error("attribute lengths do not match the input's rank");
  std::vector<int64_t> out(x.shape().begin(), x.shape().end());
  for (size_t i = 0; i < spatial; ++i) {
    out[i + 2] = (out[i + 2] - 1) * strides[i] + ks[i] - pads[i] -
                 pads[i + spatial];
    if (out[i + 2] < 1 || out[i + 2] > (int64_t(1) << 40))
      return ctx.error("the output shape is invalid");
  }
  int64_t total = product(out);
  if (total > (int64_t(1) << 40))
    return ctx.error("the output is too large");
  TRY(flatX, reshape(ctx, x, {product(x.shape())}));
  TRY(flatI, reshape(ctx, indices, {product(x.shape())}));
  TRY(zero, ctx.typed(ops::zeros(IntList{total}, x.dtype())));
  TRY(scattered,
      ctx.typed(ops::scatterElements(zero, flatI, flatX, 0, "update")));
  TRY(y, reshape(ctx, scattered, out));
  if (!ctx.hasInput(2))
    return one(y);
  // A given output_shape pads the unpooled tensor with zeros at the end
  // (the indices address the default shape), as ONNX Runtime does.
  TRY(shape, ctx.constantInts(2, "output_shape"));
  if (shape.size() != out.size() || shape[0] != out[0] || shape[1] != out[1])
    return ctx.error("output_shape must keep X's rank, batch and channels");
  std::vector<IntList> widths(out.size(), IntList{0, 0});
  for (size_t i = 2; i < out.size(); ++i) {
    if (shape[i] < out[i] || shape[i] - out[i] > (int64_t(1) << 31))
      return ctx.error(formatv("output_shape extent {0} of axis {1} is "
                               "smaller than the unpooled {2} or too large",
                               shape[i], i, out[i])
                           .str());
    widths[i] = IntList{0, shape[i] - out[i]};
  }
  if (shape == out)
    return one(y);
  TRY(padded,
      ctx.typed(ops::pad(y, scalarLike(ctx, y, 0), widths, "constant")));
  return one(padded);
}

/// MaxPool's and AveragePool's output Y.
static Expected<Value> pool(NodeContext &ctx, PoolKind kind) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  bool isMax = kind == PoolKind::Max;
  Value x = ctx.input(0);
  if (x.rank() < 3 || x.rank() > 5)
    return ctx.unsupported(formatv("{0} of rank {1} (nnir has 1-D, 2-D and "
                                   "3-D pools)",
                                   ctx.getOpType(), x.rank())
                               .str());
  TRY(w, readWindow(ctx, x.shape(), {}, isMax && ctx.getOpset() >= 10));
  TRY(ceilMode, ctx.getInt("ceil_mode", 0));
  TRY(countIncludePad, ctx.getInt("count_include_pad", 0));
  // The nnir 2-D pool of the last two axes of \p in.
  auto pool2d = [&](const Value &in, ArrayRef<int64_t> kernel,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                    ArrayRef<int64_t> pads) -> Expected<Value> {
    auto fill = [&](auto attrs) {
      attrs->poolSize.assign(kernel.begin(), kernel.end());
      attrs->strides.assign(strides.begin(), strides.end());
      attrs->dilation.assign(dilations.begin(), dilations.end());
      attrs->padding.assign(pads.begin(), pads.end());
      attrs->ceilMode = ceilMode != 0;
      return attrs;
    };
    if (isMax)
      return ctx.typed(ops::maxPool2d(in, fill(MaxPool2DAttrs::create())));
    Ref<AvgPool2DAttrs> attrs = fill(AvgPool2DAttrs::create());
    attrs->countIncludePad = countIncludePad != 0;
    return ctx.typed(ops::avgPool2d(in, attrs));
  };
  if (x.rank() == 5 && x.type().isDynamic())
    if (Error err = ctx.staticShape(0).takeError())
      return err;
  if (x.rank() == 5) {
    // A box is the product of its axes' windows, so a 3-D pool is a 2-D
    // pool over (H, W) and then a 1-D pool over D: the maximum of maxima,
    // and the mean of means (each divisor, with or without padding, is the
    // product of the axes' counts).
    ArrayRef<int64_t> s = x.shape();
    TRY(x4, reshape(ctx, x, {s[0], s[1] * s[2], s[3], s[4]}));
    TRY(hw, pool2d(x4, {w.kernel[1], w.kernel[2]}, {w.strides[1], w.strides[2]},
                   {w.dilations[1], w.dilations[2]},
                   {w.pads[1], w.pads[2], w.pads[4], w.pads[5]}));
    int64_t oh = hw.shape()[2], ow = hw.shape()[3];
    TRY(d4, reshape(ctx, hw, {s[0], s[1], s[2], oh * ow}));
    TRY(d, pool2d(d4, {w.kernel[0], 1}, {w.strides[0], 1}, {w.dilations[0], 1},
                  {w.pads[0], 0, w.pads[3], 0}));
    return reshape(ctx, d, {s[0], s[1], d.shape()[2], oh, ow});
  }
  bool oneD = x.rank() == 3;
  if (oneD) {
    // (expand_dims keeps `?` extents, where reshape has one -1.)
    TRY(x4, x.type().isDynamic()
                ? ctx.typed(ops::expandDims(x, 2))
                : reshape(ctx, x,
                          {x.shape()[0], x.shape()[1], 1, x.shape()[2]}));
    x = x4;
    w.kernel.insert(w.kernel.begin(), 1);
    w.strides.insert(w.strides.begin(), 1);
    w.dilations.insert(w.dilations.begin(), 1);
    w.pads = {0, w.pads[0], 0, w.pads[1]};
  }
  TRY(pool, pool2d(x, w.kernel, w.strides, w.dilations, w.pads));
  if (!oneD)
    return pool;
  // (squeeze keeps `?` extents, where reshape has one -1.)
  if (pool.type().isDynamic())
    return ctx.typed(ops::squeeze(pool, IntList{2}));
  return reshape(ctx, pool,
                 {pool.shape()[0], pool.shape()[1], pool.shape()[3]});
}

/// The limit on the elements of maxPoolIndices()'s table of positions.
static constexpr int64_t kMaxIndexTable = int64_t(1) << 22;

/// MaxPool's Indices output for \p x pooled by window \p w to the spatial
/// extents \p outSpatial: the flattened index (over N, C and the spatial
/// axes, the spatial axes row-major, or reversed with \p storageOrder 1) of
/// each window's first maximum, as ONNX's reference finds it. Each kernel
/// offset's strided slice of \p x padded with -inf is stacked on a new last
/// axis, whose argmax (first on ties) picks from a constant table of the
/// positions each window reads.
static Expected<Value> maxPoolIndices(NodeContext &ctx, const Value &x,
                                      const WindowAttrs &w,
                                      ArrayRef<int64_t> outSpatial,
                                      int64_t storageOrder) {
  size_t spatial = x.rank() - 2;
  ArrayRef<int64_t> in = x.shape().drop_front(2);
  int64_t kernelSize = product(w.kernel), outSize = product(outSpatial);
  if (kernelSize > kMaxIndexTable / std::max<int64_t>(outSize, 1))
    return ctx.unsupported(formatv("the Indices output of MaxPool for {0} "
                                   "windows of {1} elements (at most {2} "
                                   "positions)",
                                   outSize, kernelSize, kMaxIndexTable)
                               .str());
  // Integers are compared as float64 (exact below 2^53), so that the
  // padding, -inf, ties with no value.
  Value xf = x;
  if (!x.dtype().isFloat()) {
    TRY(f, cast(ctx, x, DataType::float64()));
    xf = f;
  }
  // Padding that covers every window (ceil_mode's last one included).
  std::vector<IntList> widths(x.rank(), IntList{0, 0});
  std::vector<int64_t> multiplier(spatial, 1);
  for (size_t i = 0; i < spatial; ++i) {
    int64_t reach = (outSpatial[i] - 1) * w.strides[i] +
                    (w.kernel[i] - 1) * w.dilations[i] + 1;
    widths[2 + i] =
        IntList{w.pads[i], std::max<int64_t>(0, reach - w.pads[i] - in[i])};
  }
  // Row-major over the spatial axes, or column-major with storage_order 1.
  for (size_t k = 1; k < spatial; ++k) {
    size_t i = storageOrder ? k : spatial - 1 - k;
    size_t prev = storageOrder ? k - 1 : spatial - k;
    multiplier[i] = multiplier[prev] * in[prev];
  }
  TRY(padded, ctx.typed(ops::pad(
                  xf, scalarLike(ctx, xf, -std::numeric_limits<double>::infinity()),
                  widths, "constant")));
  SmallVector<Value, 16> windows;
  TRY(table, ctx.createArray(DataType::int64(), {outSize * kernelSize}));
  std::vector<int64_t> offset(spatial, 0);
  for (int64_t k = 0; k < kernelSize; ++k) {
    // offset: the kernel position of k, row-major.
    for (int64_t i = spatial - 1, rest = k; i >= 0; --i) {
      offset[i] = rest % w.kernel[i];
      rest /= w.kernel[i];
    }
    OptionalIntList begin, end;
    IntList strides, axes;
    for (size_t i = 0; i < spatial; ++i) {
      int64_t first = offset[i] * w.dilations[i];
      begin.push_back(first);
      end.push_back(first + (outSpatial[i] - 1) * w.strides[i] + 1);
      strides.push_back(w.strides[i]);
      axes.push_back(2 + i);
    }
    TRY(slice, ctx.typed(ops::stridedSlice(padded, begin, end, strides, axes)));
    windows.push_back(slice);
    for (int64_t o = 0; o < outSize; ++o) {
      int64_t position = 0;
      for (int64_t i = spatial - 1, rest = o; i >= 0; --i) {
        int64_t coordinate = (rest % outSpatial[i]) * w.strides[i] -
                             w.pads[i] + offset[i] * w.dilations[i];
        rest /= outSpatial[i];
        position += coordinate * multiplier[i];
      }
      table.setElementFromInt(o * kernelSize + k, position);
    }
  }
  TRY(stacked, ctx.typed(ops::stack(ctx.tuple(windows), x.rank())));
  TRY(arg, ctx.typed(ops::argmax(stacked, IntList{x.rank()}, false, false)));
  TRY(arg64, cast(ctx, arg, DataType::int64()));
  // Window o's entry k of the table is at o * kernelSize + k.
  TRY(windowStart,
      ctx.createArray(DataType::int64(), outSpatial));
  for (int64_t o = 0; o < outSize; ++o)
    windowStart.setElementFromInt(o, o * kernelSize);
  TRY(entry, ctx.typed(ops::add(arg64, ctx.constant(windowStart))));
  TRY(position,
      ctx.typed(ops::take(ctx.constant(table), entry, 0, "clip")));
  // Plus the start of each (n, c) plane.
  int64_t planes = x.shape()[0] * x.shape()[1], planeSize = product(in);
  std::vector<int64_t> planeShape(x.rank(), 1);
  planeShape[0] = x.shape()[0];
  planeShape[1] = x.shape()[1];
  TRY(planeStart, ctx.createArray(DataType::int64(), planeShape));
  for (int64_t p = 0; p < planes; ++p)
    planeStart.setElementFromInt(p, p * planeSize);
  return ctx.typed(ops::add(position, ctx.constant(planeStart)));
}

Result convertPool(NodeContext &ctx, PoolKind kind) {
  TRY(y, pool(ctx, kind));
  bool isMax = kind == PoolKind::Max;
  if (!isMax || ctx.getNode().output_size() < 2 ||
      ctx.getNode().output(1).empty())
    return one(y);
  const Value &x = ctx.input(0);
  // The table of positions is built for the input's extents.
  if (Error err = ctx.staticShape(0).takeError())
    return err;
  TRY(w, readWindow(ctx, x.shape(), {}, ctx.getOpset() >= 10));
  TRY(storageOrder, ctx.getInt("storage_order", 0));
  if (storageOrder != 0 && storageOrder != 1)
    return ctx.error(formatv("storage_order must be 0 or 1, got {0}",
                             storageOrder)
                         .str());
  TRY(indices, maxPoolIndices(ctx, x, w, y.shape().drop_front(2),
                              storageOrder));
  return Outputs{y, indices};
}

/// RoiAlign: vision.roi_align of the rois with their batch indices in
/// front (TVM's converter); coordinate_transformation_mode half_pixel (the
/// default from opset 16) is `aligned`. Mode max is refused: ONNX Runtime
/// and ONNX's reference take the maximum of each sample's weighted corners
/// rather than of the interpolated samples, as TVM's max does.
Result convertRoiAlign(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  const Value &x = ctx.input(0), &rois = ctx.input(1),
              &batchIndices = ctx.input(2);
  if (x.rank() != 4 || !x.dtype().isFloat())
    return ctx.error("X must be a 4-D floating-point tensor, got " +
                     x.type().str());
  if (rois.rank() != 2 || rois.shape()[1] != 4 || rois.dtype() != x.dtype())
    return ctx.error("rois must be (num_rois, 4) of X's dtype, got " +
                     rois.type().str());
  if (batchIndices.rank() != 1 || batchIndices.shape()[0] != rois.shape()[0] ||
      !batchIndices.dtype().isInteger())
    return ctx.error(formatv("batch_indices must be ({0}) integers, got {1}",
                             rois.shape()[0], batchIndices.type().str())
                         .str());
  TRY(mode, ctx.getString("mode", "avg"));
  if (mode == "max")
    return ctx.unsupported(
        "mode 'max': ONNX Runtime takes the maximum of each sample's "
        "weighted corners, TVM's roi_align of the interpolated samples");
  if (mode != "avg")
    return ctx.error("mode must be 'avg' or 'max', got '" + mode + "'");
  TRY(transform, ctx.getString("coordinate_transformation_mode",
                               ctx.getOpset() >= 16 ? "half_pixel"
                                                    : "output_half_pixel"));
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return ctx.error("coordinate_transformation_mode must be 'half_pixel' "
                     "or 'output_half_pixel', got '" +
                     transform + "'");
  TRY(height, ctx.getInt("output_height", 1));
  TRY(width, ctx.getInt("output_width", 1));
  TRY(samplingRatio, ctx.getInt("sampling_ratio", 0));
  TRY(spatialScale, ctx.getFloat("spatial_scale", 1.0));
  if (samplingRatio < 0 || samplingRatio > (int64_t(1) << 16))
    return ctx.error(formatv("sampling_ratio must be in [0, 65536], got {0}",
                             samplingRatio)
                         .str());
  TRY(index, cast(ctx, batchIndices, x.dtype()));
  TRY(column, ctx.typed(ops::expandDims(index, 1)));
  TRY(boxes, ctx.typed(ops::concatenate(ctx.tuple({column, rois}), 1)));
  Ref<ROIAlignAttrs> attrs = ROIAlignAttrs::create();
  attrs->pooledSize = {height, width};
  attrs->spatialScale = spatialScale;
  attrs->sampleRatio = samplingRatio;
  attrs->aligned = transform == "half_pixel";
  TRY(out, ctx.typed(ops::roiAlign(x, boxes, attrs)));
  return one(out);
}

Result convertGlobalPool(NodeContext &ctx, ops::ReduceBuilder build) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() < 3)
    return ctx.error("input must have rank 3 or more");
  std::vector<int64_t> axes;
  for (int64_t i = 2; i < x.rank(); ++i)
    axes.push_back(i);
  TRY(out, ctx.typed(build(x, axes, true, SMLoc())));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Normalisation and softmax
//===----------------------------------------------------------------------===//

Result convertBatchNorm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(5, 5))
    return err;
  TRY(training, ctx.getInt("training_mode", 0));
  if (training)
    return ctx.unsupported("training_mode=1 (running statistics)");
  if (ctx.getOpset() < 9) {
    TRY(spatial, ctx.getInt("spatial", 1));
    if (!spatial)
      return ctx.unsupported("spatial=0");
  }
  TRY(epsilon, ctx.getFloat("epsilon", 1e-5));
  TRY(bn, ctx.typed(ops::batchNorm(ctx.input(0), ctx.input(1), ctx.input(2),
                                   ctx.input(3), ctx.input(4), 1, epsilon)));
  return one(ctx.getItem(bn, 0));
}

Result convertInstanceNorm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  TRY(epsilon, ctx.getFloat("epsilon", 1e-5));
  TRY(out, ctx.typed(ops::instanceNorm(ctx.input(0), ctx.input(1), ctx.input(2),
                                       1, epsilon)));
  return one(out);
}

Result convertLayerNorm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", -1));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  TRY(epsilon, ctx.getFloat("epsilon", 1e-5));
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < x.rank(); ++i)
    axes.push_back(i);
  TRY(mean, ctx.typed(ops::mean(x, axes, true)));
  TRY(centered, ctx.typed(ops::subtract(x, mean)));
  TRY(sq, ctx.typed(ops::multiply(centered, centered)));
  TRY(var, ctx.typed(ops::mean(sq, axes, true)));
  TRY(ve, ctx.typed(ops::add(var, scalarLike(ctx, x, epsilon))));
  TRY(invStd, ctx.typed(ops::rsqrt(ve)));
  TRY(normed, ctx.typed(ops::multiply(centered, invStd)));
  TRY(scaled, ctx.typed(ops::multiply(normed, ctx.input(1))));
  Value y = scaled;
  if (ctx.hasInput(2)) {
    TRY(b, ctx.typed(ops::add(y, ctx.input(2))));
    y = b;
  }
  return Outputs{y, mean, invStd};
}

Result convertMeanVarianceNorm(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  TRY(axesAttr, ctx.getInts("axes", {0, 2, 3}));
  std::vector<int64_t> axes;
  for (int64_t a : axesAttr) {
    TRY(axis, ctx.normalizeAxis(a, x.rank()));
    axes.push_back(axis);
  }
  TRY(mean, ctx.typed(ops::mean(x, axes, true)));
  TRY(centered, ctx.typed(ops::subtract(x, mean)));
  TRY(sq, ctx.typed(ops::multiply(centered, centered)));
  TRY(var, ctx.typed(ops::mean(sq, axes, true)));
  TRY(sd, ctx.typed(ops::sqrt(var)));
  TRY(sde, ctx.typed(ops::add(sd, scalarLike(ctx, x, 1e-9))));
  TRY(out, ctx.typed(ops::divide(centered, sde)));
  return one(out);
}

Result convertLRN(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(size, ctx.getOptInt("size"));
  if (!size)
    return ctx.error("attribute 'size' is required");
  TRY(alpha, ctx.getFloat("alpha", 1e-4));
  TRY(beta, ctx.getFloat("beta", 0.75));
  TRY(bias, ctx.getFloat("bias", 1.0));
  Ref<LRNAttrs> attrs = LRNAttrs::create();
  attrs->size = *size;
  attrs->axis = 1;
  attrs->bias = bias;
  attrs->alpha = alpha;
  attrs->beta = beta;
  TRY(out, ctx.typed(ops::lrn(ctx.input(0), attrs)));
  return one(out);
}

/// The input of Softmax, LogSoftmax and Hardmax, and the axis they work
/// along. Before opset 13 they flatten the input to 2-D at `axis` (default
/// 1); from 13 they work along `axis` (default -1).
struct SoftmaxInput {
  Value in;
  int64_t along;
};

static Expected<SoftmaxInput> readSoftmaxInput(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  bool legacy = ctx.getOpset() < 13;
  TRY(axisAttr, ctx.getInt("axis", legacy ? 1 : -1));
  TRY(axis, ctx.normalizeAxis(axisAttr, std::max<int64_t>(x.rank(), 1)));
  // Before opset 13 the input is flattened to 2-D at the axis, which is the
  // axis itself when it is the last.
  if (!legacy || (x.type().isDynamic() && axis + 1 == x.rank()))
    return SoftmaxInput{x, axis};
  if (Error err = ctx.staticShape(0).takeError())
    return err;
  TRY(flat, reshape(ctx, x,
                    {product(x.shape().take_front(axis)),
                     product(x.shape().drop_front(axis))}));
  return SoftmaxInput{flat, 1};
}

Result convertSoftmax(NodeContext &ctx, AxisBuilder build) {
  TRY(input, readSoftmaxInput(ctx));
  TRY(y, ctx.typed(build(input.in, input.along, SMLoc())));
  if (input.in.expr == ctx.input(0).expr)
    return one(y);
  TRY(out, reshape(ctx, y, ctx.input(0).shape()));
  return one(out);
}

Result convertHardmax(NodeContext &ctx) {
  TRY(input, readSoftmaxInput(ctx));
  const Value &x = ctx.input(0);
  auto [in, along] = input;
  TRY(idx, ctx.typed(ops::argmax(in, {along}, false, false)));
  TRY(hot,
      ctx.typed(ops::oneHot(idx, scalarLike(ctx, x, 1), scalarLike(ctx, x, 0),
                            in.shape()[along], along, x.dtype())));
  TRY(out, reshape(ctx, hot, x.shape()));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// The loss of NegativeLogLikelihoodLoss on log-probabilities \p input
/// (N, C, d1, ...) and integer \p target (N, d1, ...), reduced as asked.
static Expected<Value> nllLoss(NodeContext &ctx, const Value &input,
                               const Value &target, std::optional<Value> weight,
                               StringRef reduction,
                               std::optional<int64_t> ignoreIndex) {
  if (input.rank() < 2 || target.rank() != input.rank() - 1)
    return ctx.error("input must be (N, C, ...) and target (N, ...)");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.error("unknown reduction '" + reduction + "'");
  Value t = target;
  std::optional<Value> keep;
  if (ignoreIndex) {
    TRY(ii, ctx.typed(ops::notEqual(
                t, scalarLike(ctx, t, static_cast<double>(*ignoreIndex)))));
    TRY(safe, ctx.typed(ops::where(ii, t, scalarLike(ctx, t, 0))));
    keep = ii;
    t = safe;
  }
  std::vector<int64_t> withChannel(t.shape().begin(), t.shape().end());
  withChannel.insert(withChannel.begin() + 1, 1);
  TRY(t1, reshape(ctx, t, withChannel));
  TRY(picked1, ctx.typed(ops::gather(input, t1, 1)));
  TRY(picked, reshape(ctx, picked1, t.shape()));
  TRY(loss0, ctx.typed(ops::negative(picked)));
  Value loss = loss0;
  std::optional<Value> w;
  if (weight) {
    TRY(wt, ctx.typed(ops::take(*weight, t, 0, "fast")));
    w = wt;
  }
  if (keep) {
    TRY(k, cast(ctx, *keep, input.dtype()));
    if (w) {
      TRY(wk, ctx.typed(ops::multiply(*w, k)));
      w = wk;
    } else {
      w = k;
    }
  }
  if (w) {
    TRY(lw, ctx.typed(ops::multiply(loss, *w)));
    loss = lw;
  }
  if (reduction == "none")
    return loss;
  std::vector<int64_t> all(loss.rank());
  std::iota(all.begin(), all.end(), 0);
  TRY(total, ctx.typed(ops::sum(loss, all, false)));
  if (reduction == "sum")
    return total;
  if (!w)
    return ctx.typed(ops::mean(loss, all, false));
  TRY(wsum, ctx.typed(ops::sum(*w, all, false)));
  return ctx.typed(ops::divide(total, wsum));
}

Result convertNLLLoss(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(reduction, ctx.getString("reduction", "mean"));
  TRY(ignore, ctx.getOptInt("ignore_index"));
  std::optional<Value> weight;
  if (ctx.hasInput(2))
    weight = ctx.input(2);
  TRY(out, nllLoss(ctx, ctx.input(0), ctx.input(1), weight, reduction, ignore));
  return one(out);
}

Result convertSoftmaxCrossEntropy(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(reduction, ctx.getString("reduction", "mean"));
  TRY(ignore, ctx.getOptInt("ignore_index"));
  const Value &scores = ctx.input(0);
  if (scores.rank() < 2)
    return ctx.error("scores must be (N, C, ...)");
  TRY(logProb, ctx.typed(ops::logSoftmax(scores, 1)));
  std::optional<Value> weight;
  if (ctx.hasInput(2))
    weight = ctx.input(2);
  TRY(loss, nllLoss(ctx, logProb, ctx.input(1), weight, reduction, ignore));
  return Outputs{loss, logProb};
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// \p e, built by the shared quantization arithmetic (nnir/Ops/QNN.h) as
/// untyped calls over typed values, typed call by call (NodeContext::typed),
/// so that each step is checked and import-time constants stay constants.
/// A typed leaf is returned as it is (only its expression is used).
static Expected<Value> typedArithmetic(NodeContext &ctx, const Ref<Expr> &e) {
  auto *call = dyn_cast<Call>(e.get());
  if (!call || call->getCheckedType())
    return Value{e, isa<Constant>(e.get())};
  SmallVector<Ref<Expr>, 4> args;
  for (const Ref<Expr> &arg : call->getArgs()) {
    TRY(typedArg, typedArithmetic(ctx, arg));
    args.push_back(typedArg.expr);
  }
  return ctx.typed(
      Call::get(call->getCallee(), args, call->getAttrs(), call->getLoc()));
}

/// \p x as int32 minus its zero point (input \p zpInput, when given); a 1-D
/// zero point applies along axis \p axis of \p x.
static Expected<Value> centerInt32(NodeContext &ctx, const Value &x,
                                   size_t zpInput, int64_t axis) {
  if (!ctx.hasInput(zpInput))
    return cast(ctx, x, DataType::int32());
  const Value &zp = ctx.input(zpInput);
  Ref<Expr> aligned = zp;
  if (zp.rank() == 1 && zp.shape()[0] != 1) {
    if (axis < 0 || axis >= x.rank() || zp.shape()[0] != x.shape()[axis])
      return ctx.error(formatv("zero point of {0} values does not match "
                               "axis {1} of the operand",
                               zp.shape()[0], axis)
                           .str());
    aligned = qnn::alongAxis(zp, 1, zp.shape()[0], x.rank(), axis);
  } else if (zp.rank() > 1) {
    return ctx.unsupported("a zero point of rank > 1");
  }
  return typedArithmetic(ctx, qnn::centerInt32(x, aligned));
}

/// round_half_even(v) + zero point, saturated to \p outType (uint8 or int8).
static Expected<Value> requantize(NodeContext &ctx, const Value &v,
                                  std::optional<Value> zeroPoint,
                                  DataType outType) {
  if (outType != DataType::uint8() && outType != DataType::int8())
    return ctx.unsupported("quantization to " + outType.str());
  return typedArithmetic(
      ctx, qnn::roundToQuantized(v, zeroPoint ? zeroPoint->expr : nullptr,
                                 outType, v.dtype()));
}

/// The scale or zero point \p v of (De)QuantizeLinear laid along the node's
/// axis of \p x (a scalar as it is).
static Expected<Ref<Expr>> alongQuantAxis(NodeContext &ctx, const Value &v,
                                          const Value &x) {
  if (v.rank() == 0 || x.rank() == 0)
    return v.expr;
  TRY(axisAttr, ctx.getInt("axis", 1));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  return qnn::alongAxis(v, 1, v.shape()[0], x.rank(), axis);
}

/// The QLinear operators' output: requantize(acc * scaleA * scaleB / y_scale)
/// with y_zero_point (inputs \p yScale and yScale + 1); acc is int32.
static Expected<Value> qlinearOutput(NodeContext &ctx, const Value &acc,
                                     const Value &scaleA, const Value &scaleB,
                                     size_t yScale) {
  TRY(accf, cast(ctx, acc, ctx.input(yScale).dtype()));
  TRY(scale, ctx.typed(ops::multiply(scaleA, scaleB)));
  TRY(scaled, ctx.typed(ops::multiply(accf, scale)));
  TRY(q, ctx.typed(ops::divide(scaled, ctx.input(yScale))));
  const Value &zp = ctx.input(yScale + 1);
  return requantize(ctx, q, zp, zp.dtype());
}

/// MatMulInteger: (A - a_zero_point) x (B - b_zero_point) in int32; a 1-D
/// a_zero_point is per row of A, b_zero_point per column of B.
Result convertMatMulInteger(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 4))
    return err;
  const Value &a = ctx.input(0), &b = ctx.input(1);
  TRY(a32, centerInt32(ctx, a, 2, a.rank() - 2));
  TRY(b32, centerInt32(ctx, b, 3, b.rank() - 1));
  TRY(out, matmul(ctx, a32, b32));
  return one(out);
}

/// QLinearMatMul: requantize((a - a_zp) x (b - b_zp) * a_scale * b_scale /
/// y_scale) with y_zero_point; scales per tensor, or per row of a and per
/// column of b.
Result convertQLinearMatMul(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(8, 8))
    return err;
  const Value &a = ctx.input(0), &b = ctx.input(3);
  TRY(a32, centerInt32(ctx, a, 2, a.rank() - 2));
  TRY(b32, centerInt32(ctx, b, 5, b.rank() - 1));
  TRY(acc, matmul(ctx, a32, b32));
  Value aScale = ctx.input(1);
  if (aScale.rank() == 1 && aScale.shape()[0] != 1) {
    TRY(r, reshape(ctx, aScale, {aScale.shape()[0], 1}));
    aScale = r;
  }
  TRY(out, qlinearOutput(ctx, acc, aScale, ctx.input(4), 6));
  return one(out);
}

/// ConvInteger: (x - x_zero_point) * (w - w_zero_point) in int32; a 1-D
/// w_zero_point is per output channel.
Result convertConvInteger(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 4))
    return err;
  const Value &x = ctx.input(0), &w = ctx.input(1);
  TRY(x32, centerInt32(ctx, x, 2, 1));
  TRY(w32, centerInt32(ctx, w, 3, 0));
  TRY(out, convolution(ctx, x32, w32));
  return one(out);
}

/// QLinearConv: requantize(((x - x_zp) * (w - w_zp) + B) * x_scale * w_scale
/// / y_scale) with y_zero_point; w_scale and w_zero_point per tensor or per
/// output channel.
Result convertQLinearConv(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(8, 9))
    return err;
  const Value &x = ctx.input(0), &w = ctx.input(3);
  TRY(x32, centerInt32(ctx, x, 2, 1));
  TRY(w32, centerInt32(ctx, w, 5, 0));
  TRY(acc, convolution(ctx, x32, w32));
  if (ctx.hasInput(8)) {
    TRY(b32, cast(ctx, ctx.input(8), DataType::int32()));
    TRY(biased, ctx.typed(ops::biasAdd(acc, b32, 1)));
    acc = biased;
  }
  Value wScale = ctx.input(4);
  if (wScale.rank() == 1 && wScale.shape()[0] != 1) {
    std::vector<int64_t> shape(acc.rank() - 1, 1);
    shape[0] = wScale.shape()[0];
    TRY(r, reshape(ctx, wScale, shape));
    wScale = r;
  }
  TRY(out, qlinearOutput(ctx, acc, ctx.input(1), wScale, 6));
  return one(out);
}

/// DequantizeLinear: (x - zero_point) * scale, per tensor or per axis.
Result convertDequantize(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  const Value &x = ctx.input(0), &scale = ctx.input(1);
  TRY(alignedScale, alongQuantAxis(ctx, scale, x));
  Ref<Expr> zeroPoint;
  if (ctx.hasInput(2)) {
    TRY(aligned, alongQuantAxis(ctx, ctx.input(2), x));
    zeroPoint = aligned;
  }
  TRY(out, typedArithmetic(ctx, qnn::dequantize(x, alignedScale, zeroPoint,
                                                scale.dtype(), scale.dtype())));
  return one(out);
}

/// QuantizeLinear: saturate(round_half_even(x / scale) + zero_point).
Result convertQuantize(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  const Value &x = ctx.input(0);
  DataType outType = DataType::uint8();
  Ref<Expr> zeroPoint;
  if (ctx.hasInput(2)) {
    outType = ctx.input(2).dtype();
    TRY(aligned, alongQuantAxis(ctx, ctx.input(2), x));
    zeroPoint = aligned;
  }
  if (outType != DataType::uint8() && outType != DataType::int8())
    return ctx.unsupported("quantization to " + outType.str());
  TRY(scale, alongQuantAxis(ctx, ctx.input(1), x));
  TRY(out, typedArithmetic(
               ctx, qnn::quantize(x, scale, zeroPoint, outType, x.dtype())));
  return one(out);
}

/// DynamicQuantizeLinear: uint8 quantization with the scale and zero point
/// of the range of x extended to 0: scale = (max - min) / 255, zero point
/// = saturate(round(-min / scale)).
Result convertDynamicQuantize(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.dtype() != DataType::float32())
    return ctx.error("input must be float32, got " + x.dtype().str());
  std::vector<int64_t> axes(x.rank());
  std::iota(axes.begin(), axes.end(), 0);
  TRY(mn, ctx.typed(ops::min(x, axes, false)));
  TRY(mx, ctx.typed(ops::max(x, axes, false)));
  TRY(lo, ctx.typed(ops::minimum(mn, scalarLike(ctx, mn, 0))));
  TRY(hi, ctx.typed(ops::maximum(mx, scalarLike(ctx, mx, 0))));
  TRY(range, ctx.typed(ops::subtract(hi, lo)));
  TRY(scale, ctx.typed(ops::divide(range, scalarLike(ctx, range, 255))));
  TRY(negLo, ctx.typed(ops::negative(lo)));
  TRY(zpf, ctx.typed(ops::divide(negLo, scale)));
  TRY(zp, requantize(ctx, zpf, std::nullopt, DataType::uint8()));
  TRY(q, ctx.typed(ops::divide(x, scale)));
  TRY(y, requantize(ctx, q, zp, DataType::uint8()));
  return Outputs{y, scale, zp};
}

} // namespace onnximport
} // namespace nnir
