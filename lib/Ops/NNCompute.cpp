//===- NNCompute.cpp - Computes of the neural-network operators -----------===//
//
/// \file
/// The TE computes of nn.bias_add, nn.dense, nn.conv2d, nn.softmax,
/// nn.log_softmax, nn.max_pool2d and nn.avg_pool2d. Convolutions and pools
/// are reductions over a window. A convolution reads a padded copy of its
/// input, materialised once (te::compute with materialize), so its loops need
/// no bounds checks; a pool treats padding as a condition on the reduction
/// (reads clamped in bounds, padded positions skipped). Softmax is the
/// example of a compute made of several stages (two reductions and an
/// elementwise tail). Layouts are read from their strings (NCHW, NHWC; OIHW,
/// HWIO, ...).
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"
#include "nnir/TE/Inline.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

static std::vector<te::Expr> resultShape(const nnir::Type *type) {
  return makeShape(llvm::cast<TensorType>(type)->getShape());
}

/// The (before, after) padding of \p rank spatial axes from 1, rank or
/// 2 * rank values (as the type relations read them).
static SmallVector<int64_t, 3> paddingBefore(ArrayRef<int64_t> values,
                                             unsigned rank) {
  SmallVector<int64_t, 3> before(rank, 0);
  for (unsigned i = 0; i < rank; ++i)
    before[i] = values.empty() ? 0 : values.size() == 1 ? values[0] : values[i];
  return before;
}

static SmallVector<int64_t, 3> paddingAfter(ArrayRef<int64_t> values,
                                            unsigned rank) {
  SmallVector<int64_t, 3> after(rank, 0);
  for (unsigned i = 0; i < rank; ++i)
    after[i] = values.empty()          ? 0
               : values.size() == 1    ? values[0]
               : values.size() == rank ? values[i]
                                       : values[rank + i];
  return after;
}

static int64_t window(ArrayRef<int64_t> values, unsigned i) {
  return values.size() == 1 ? values[0] : values[i];
}

/// The position of \p letter in \p layout, or -1.
static int axisOf(StringRef layout, char letter) {
  size_t pos = layout.find(letter);
  return pos == StringRef::npos ? -1 : static_cast<int>(pos);
}

static Expected<std::vector<te::Tensor>> conv2d(const ComputeArgs &args) {
  const auto *attrs = llvm::cast<Conv2DAttrs>(args.attrs);
  const te::Tensor &data = args.arg(0);
  const te::Tensor &weight = args.arg(1);
  StringRef dl = attrs->dataLayout, kl = attrs->kernelLayout;
  StringRef ol = attrs->outLayout.empty() ? dl : StringRef(attrs->outLayout);
  for (StringRef layout : {dl, ol})
    if (layout.size() != 4 || axisOf(layout, 'N') < 0 ||
        axisOf(layout, 'C') < 0 || axisOf(layout, 'H') < 0 ||
        axisOf(layout, 'W') < 0)
      return computeError("layout '" + layout +
                          "' is not supported (only "
                          "permutations of NCHW)");
  if (kl.size() != 4 || axisOf(kl, 'O') < 0 || axisOf(kl, 'I') < 0 ||
      axisOf(kl, 'H') < 0 || axisOf(kl, 'W') < 0)
    return computeError("kernel layout '" + kl +
                        "' is not supported (only permutations of OIHW)");
  auto dataShape = getConstShape(data.getShape());
  auto weightShape = getConstShape(weight.getShape());
  if (!dataShape || !weightShape)
    return computeError("needs static shapes");
  int64_t channels = (*dataShape)[axisOf(dl, 'C')];
  int64_t height = (*dataShape)[axisOf(dl, 'H')];
  int64_t width = (*dataShape)[axisOf(dl, 'W')];
  int64_t outChannels = (*weightShape)[axisOf(kl, 'O')];
  int64_t groupChannels = (*weightShape)[axisOf(kl, 'I')];
  int64_t kh = (*weightShape)[axisOf(kl, 'H')];
  int64_t kw = (*weightShape)[axisOf(kl, 'W')];
  int64_t groups = attrs->groups;
  if (groups < 1 || channels != groupChannels * groups || outChannels % groups)
    return computeError("channels do not divide into groups");
  int64_t outPerGroup = outChannels / groups;
  SmallVector<int64_t, 3> pad = paddingBefore(attrs->padding, 2);
  int64_t sh = window(attrs->strides, 0), sw = window(attrs->strides, 1);
  int64_t dh = window(attrs->dilation, 0), dw = window(attrs->dilation, 1);
  DataType outType = llvm::cast<TensorType>(args.resultType)->getDType();

  // A padded copy of the input, materialised once (every element is read
  // kh * kw times), so the convolution reads it without bounds checks and
  // its innermost loop stays contiguous.
  SmallVector<int64_t, 3> padAfter = paddingAfter(attrs->padding, 2);
  bool padded = pad[0] || pad[1] || padAfter[0] || padAfter[1];
  te::Tensor source = data;
  if (padded) {
    std::vector<te::Expr> shape = data.getShape();
    int hAxis = axisOf(dl, 'H'), wAxis = axisOf(dl, 'W');
    shape[hAxis] = te::Expr(height + pad[0] + padAfter[0]);
    shape[wAxis] = te::Expr(width + pad[1] + padAfter[1]);
    source = compute(
        shape,
        [&](ArrayRef<te::Expr> i) {
          te::Expr h = i[hAxis] - pad[0], w = i[wAxis] - pad[1];
          te::Expr inside = logicalAnd(logicalAnd(h >= 0, h < height),
                                       logicalAnd(w >= 0, w < width));
          SmallVector<te::Expr, 4> in(i.begin(), i.end());
          in[hAxis] = max(min(h, te::Expr(height - 1)), te::Expr(0));
          in[wAxis] = max(min(w, te::Expr(width - 1)), te::Expr(0));
          return select(inside, data(in), constant(data.getDType(), 0));
        },
        "pad", /*materialize=*/true);
  }
  return std::vector<te::Tensor>{compute(
      resultShape(args.resultType),
      [&](ArrayRef<te::Expr> o) {
        te::Expr n = o[axisOf(ol, 'N')], oc = o[axisOf(ol, 'C')];
        te::Expr oh = o[axisOf(ol, 'H')], ow = o[axisOf(ol, 'W')];
        IterVar ic = reduceAxis(groupChannels, "ic");
        IterVar ry = reduceAxis(kh, "ry");
        IterVar rx = reduceAxis(kw, "rx");
        te::Expr c = ic.var;
        if (groups > 1)
          c = truncDiv(oc, te::Expr(outPerGroup)) * groupChannels + ic.var;
        SmallVector<te::Expr, 4> in(4);
        in[axisOf(dl, 'N')] = n;
        in[axisOf(dl, 'C')] = c;
        in[axisOf(dl, 'H')] = oh * sh + ry.var * dh;
        in[axisOf(dl, 'W')] = ow * sw + rx.var * dw;
        SmallVector<te::Expr, 4> k(4);
        k[axisOf(kl, 'O')] = oc;
        k[axisOf(kl, 'I')] = ic.var;
        k[axisOf(kl, 'H')] = ry.var;
        k[axisOf(kl, 'W')] = rx.var;
        return sum(te::cast(outType, source(in)) * te::cast(outType, weight(k)),
                   {ic, ry, rx});
      },
      "conv2d")};
}

/// nn.max_pool2d and nn.avg_pool2d.
template <typename AttrsT>
static Expected<std::vector<te::Tensor>> pool2d(const ComputeArgs &args,
                                                bool isMax) {
  const auto *attrs = llvm::cast<AttrsT>(args.attrs);
  const te::Tensor &data = args.arg(0);
  StringRef layout = attrs->layout;
  int hAxis = axisOf(layout, 'H'), wAxis = axisOf(layout, 'W');
  if (hAxis < 0 || wAxis < 0 || layout.size() != data.getRank())
    return computeError("layout '" + layout + "' is not supported");
  auto shape = getConstShape(data.getShape());
  if (!shape)
    return computeError("needs static shapes");
  int64_t height = (*shape)[hAxis], width = (*shape)[wAxis];
  SmallVector<int64_t, 3> before = paddingBefore(attrs->padding, 2);
  SmallVector<int64_t, 3> after = paddingAfter(attrs->padding, 2);
  int64_t ph = window(attrs->poolSize, 0), pw = window(attrs->poolSize, 1);
  int64_t sh = window(attrs->strides, 0), sw = window(attrs->strides, 1);
  int64_t dh = window(attrs->dilation, 0), dw = window(attrs->dilation, 1);
  bool countPad = false;
  if constexpr (std::is_same_v<AttrsT, AvgPool2DAttrs>)
    countPad = attrs->countIncludePad;
  DataType dtype = data.getDType();
  return std::vector<te::Tensor>{compute(
      resultShape(args.resultType),
      [&](ArrayRef<te::Expr> o) {
        IterVar ry = reduceAxis(ph, "ry"), rx = reduceAxis(pw, "rx");
        te::Expr ih = o[hAxis] * sh + ry.var * dh - before[0];
        te::Expr iw = o[wAxis] * sw + rx.var * dw - before[1];
        te::Expr inside = logicalAnd(logicalAnd(ih >= 0, ih < height),
                                     logicalAnd(iw >= 0, iw < width));
        SmallVector<te::Expr, 4> in(o.begin(), o.end());
        in[hAxis] = max(min(ih, te::Expr(height - 1)), te::Expr(0));
        in[wAxis] = max(min(iw, te::Expr(width - 1)), te::Expr(0));
        if (isMax)
          return reduce(ReduceKind::Max, data(in), {ry, rx}, inside);
        te::Expr total = reduce(ReduceKind::Sum, data(in), {ry, rx}, inside);
        // The divisor: window positions inside the input, or inside the
        // padded input with count_include_pad.
        te::Expr counted = inside;
        if (countPad)
          counted =
              logicalAnd(logicalAnd(ih >= -before[0], ih < height + after[0]),
                         logicalAnd(iw >= -before[1], iw < width + after[1]));
        IterVar cy = reduceAxis(ph, "cy"), cx = reduceAxis(pw, "cx");
        DenseMap<const ExprNode *, te::Expr> rename{{ry.var.get(), cy.var},
                                                    {rx.var.get(), cx.var}};
        te::Expr count = reduce(ReduceKind::Sum, constant(dtype, 1), {cy, cx},
                                substitute(counted, rename));
        return select(count > constant(dtype, 0), total / count,
                      constant(dtype, 0));
      },
      isMax ? "max_pool2d" : "avg_pool2d")};
}

/// Softmax over \p axis: max, sum of exp, then the elementwise tail.
static Expected<std::vector<te::Tensor>> softmax(const ComputeArgs &args,
                                                 bool log) {
  const te::Tensor &x = args.arg(0);
  unsigned rank = x.getRank();
  int64_t axis = llvm::cast<SoftmaxAttrs>(args.attrs)->axis;
  if (axis < 0)
    axis += rank;
  std::vector<te::Expr> reducedShape;
  for (unsigned i = 0; i < rank; ++i)
    if (i != axis)
      reducedShape.push_back(x.getShape()[i]);
  auto withAxis = [&](ArrayRef<te::Expr> outer, te::Expr k) {
    SmallVector<te::Expr, 4> in(outer.begin(), outer.end());
    in.insert(in.begin() + axis, k);
    return in;
  };
  auto dropAxis = [&](ArrayRef<te::Expr> i) {
    SmallVector<te::Expr, 4> out(i.begin(), i.end());
    out.erase(out.begin() + axis);
    return out;
  };
  te::Tensor m = compute(
      reducedShape,
      [&](ArrayRef<te::Expr> i) {
        IterVar k = reduceAxis(x.getShape()[axis]);
        return reduce(ReduceKind::Max, x(withAxis(i, k.var)), {k});
      },
      "softmax_max");
  te::Tensor s = compute(
      reducedShape,
      [&](ArrayRef<te::Expr> i) {
        IterVar k = reduceAxis(x.getShape()[axis]);
        return sum(call(Intrinsic::Exp, {x(withAxis(i, k.var)) - m(i)}), {k});
      },
      "softmax_sum");
  return std::vector<te::Tensor>{compute(
      x.getShape(),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> outer = dropAxis(i);
        te::Expr shifted = x(i) - m(outer);
        if (log)
          return shifted - call(Intrinsic::Log, {s(outer)});
        return call(Intrinsic::Exp, {shifted}) / s(outer);
      },
      log ? "log_softmax" : "softmax")};
}

void nnir::registerNNComputes() {
  auto set = [](StringRef name, TECompute compute) {
    setOpCompute(name, std::move(compute));
  };

  set("nn.bias_add",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &x = args.arg(0);
        const te::Tensor &bias = args.arg(1);
        int64_t axis = llvm::cast<BiasAddAttrs>(args.attrs)->axis;
        if (axis < 0)
          axis += x.getRank();
        return std::vector<te::Tensor>{compute(
            x.getShape(),
            [&](ArrayRef<te::Expr> i) { return x(i) + bias(i[axis]); },
            "bias_add")};
      });

  set("nn.dense",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &x = args.arg(0);
        const te::Tensor &w = args.arg(1);
        DataType outType = llvm::cast<TensorType>(args.resultType)->getDType();
        return std::vector<te::Tensor>{compute(
            resultShape(args.resultType),
            [&](ArrayRef<te::Expr> i) {
              IterVar k = reduceAxis(x.getShape().back());
              SmallVector<te::Expr, 4> xi(i.begin(), i.end() - 1);
              xi.push_back(k.var);
              return sum(te::cast(outType, x(xi)) *
                             te::cast(outType, w(i.back(), k.var)),
                         {k});
            },
            "dense")};
      });

  set("nn.conv2d", conv2d);
  set("nn.softmax",
      [](const ComputeArgs &args) { return softmax(args, false); });
  set("nn.log_softmax",
      [](const ComputeArgs &args) { return softmax(args, true); });
  set("nn.max_pool2d", [](const ComputeArgs &args) {
    return pool2d<MaxPool2DAttrs>(args, true);
  });
  set("nn.avg_pool2d", [](const ComputeArgs &args) {
    return pool2d<AvgPool2DAttrs>(args, false);
  });
}
